"""The game service on a real SQLite file: challenges, moves, offers, races, restarts, reports."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.errors import (
    ChallengeClosed,
    ChallengeNotFound,
    ChannelBusy,
    MoveConflict,
    NoGameHere,
    NotAPlayer,
    NotForYou,
    NotYourTurn,
    OfferClosed,
    OfferNotFound,
    ServiceError,
    TooEarly,
)
from bot.models import (
    AI_PLAYER,
    ChallengeStatus,
    Channel,
    GameState,
    GameStatus,
    MoveResult,
    OfferKind,
    OfferStatus,
    Player,
)
from bot.service import GameService
from bot.storage import Store, open_store
from engine import (
    AmbiguousMoveError,
    IllegalMoveError,
    NotationError,
    Reason,
    RulesError,
    Side,
    TaflError,
    UnknownVariantError,
)
from tests.bot.conftest import FakeClock, raw_execute, raw_execute_now, stamp

ESCAPE = ["d6-e6", "d5-e5", "d7-e7", "d4-d7", "f4-f5", "d7-a7"]
"""Brandubh: the king reaches the a7 corner on the 6th ply."""
CAPTURE_READY = ["d1-e1", "d3-e3", "e1-f1"]
"""Brandubh: the defenders can now capture f1 with e3-e1, and the king can step to d3."""


async def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    async with store.reading() as db:
        return await db.dump()


async def brandubh(
    service: GameService, channel: Channel, attacker: Player, defender: Player
) -> GameState:
    return await service.start_game(
        channel, {Side.ATTACKERS: attacker, Side.DEFENDERS: defender}, "brandubh"
    )


async def play(
    service: GameService, channel: Channel, state: GameState, moves: list[str]
) -> MoveResult | None:
    """Play ``moves`` in turn for whoever is to move; the last result."""
    result = None
    for text in moves:
        mover = state.player_to_move()
        assert mover is not None
        result = await service.move(channel, mover, text)
        state = result.state
    return result


def notations(state: GameState) -> list[str]:
    return [ply.notation for ply in state.game.history]


# -- challenges --------------------------------------------------------------------------------


async def test_a_challenge_to_someone_is_answered_by_them_only(
    service: GameService, hall: Channel, alice: Player, bob: Player, carol: Player
) -> None:
    challenge = await service.challenge(hall, alice, bob, "brandubh", "defenders")
    assert (challenge.status, challenge.side, challenge.variant) == (
        ChallengeStatus.OPEN, "defenders", "brandubh",
    )  # fmt: skip
    with pytest.raises(NotForYou, match="for Bob"):
        await service.accept(challenge.id, carol)
    with pytest.raises(NotForYou, match="your own challenge"):
        await service.accept(challenge.id, alice)
    state = await service.accept(challenge.id, bob)
    assert state.players == {Side.ATTACKERS: bob, Side.DEFENDERS: alice}
    assert (state.variant, state.channel, state.status) == ("brandubh", hall, GameStatus.ACTIVE)
    accepted = await service.get_challenge(challenge.id)
    assert (accepted.status, accepted.game_id) == (ChallengeStatus.ACCEPTED, state.id)
    with pytest.raises(ChallengeClosed, match="already been accepted"):
        await service.accept(challenge.id, bob)


async def test_an_open_challenge_is_for_anyone_but_the_challenger(
    service: GameService, hall: Channel, alice: Player, carol: Player
) -> None:
    challenge = await service.challenge(hall, alice, side="attackers")
    with pytest.raises(NotForYou):
        await service.accept(challenge.id, alice)
    with pytest.raises(NotForYou, match="open to anyone"):
        await service.decline(challenge.id, carol)
    state = await service.accept(challenge.id, carol)
    assert state.players == {Side.ATTACKERS: alice, Side.DEFENDERS: carol}
    assert (await service.get_challenge(challenge.id)).opponent == carol


async def test_a_random_side_gives_the_challenger_either_side(
    store: Store, clock: FakeClock, alice: Player, bob: Player
) -> None:
    service = GameService(store, clock, rng=random.Random(1))
    sides = set()
    for n in range(12):
        channel = Channel(f"test:room-{n}")
        challenge = await service.challenge(channel, alice, bob)
        assert challenge.side == "random"
        state = await service.accept(challenge.id, bob)
        assert set(state.players.values()) == {alice, bob}
        sides.add(state.side_of(alice))
    assert sides == {Side.ATTACKERS, Side.DEFENDERS}


async def test_decline_and_cancel_are_for_the_right_player(
    service: GameService, hall: Channel, alice: Player, bob: Player, carol: Player
) -> None:
    first = await service.challenge(hall, alice, bob)
    with pytest.raises(NotForYou, match="only Bob can decline"):
        await service.decline(first.id, carol)
    with pytest.raises(NotForYou, match="only Bob can decline"):
        await service.decline(first.id, alice)
    assert (await service.decline(first.id, bob)).status is ChallengeStatus.DECLINED
    with pytest.raises(ChallengeClosed, match="declined"):
        await service.accept(first.id, bob)
    second = await service.challenge(hall, alice, bob)
    with pytest.raises(NotForYou, match="only Alice can cancel"):
        await service.cancel(second.id, bob)
    assert (await service.cancel(second.id, alice)).status is ChallengeStatus.CANCELLED
    with pytest.raises(ChallengeClosed, match="cancelled"):
        await service.accept(second.id, bob)
    with pytest.raises(ChallengeNotFound):
        await service.accept(404, bob)


async def test_challenges_expire_after_fifteen_minutes(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    lapsing = await service.challenge(hall, alice, bob)
    clock.advance(minutes=10)
    kept = await service.challenge(hall, bob, alice)
    clock.advance(minutes=4, seconds=59)
    assert await service.expire_challenges() == []
    assert (await service.get_challenge(lapsing.id)).status is ChallengeStatus.OPEN
    clock.advance(seconds=1)
    assert (await service.get_challenge(lapsing.id)).status is ChallengeStatus.EXPIRED
    with pytest.raises(ChallengeClosed, match="expired"):
        await service.accept(lapsing.id, bob)
    expired = await service.expire_challenges()
    assert [(c.id, c.status) for c in expired] == [(lapsing.id, ChallengeStatus.EXPIRED)]
    assert await service.expire_challenges() == []
    assert set((await service.accept(kept.id, alice)).players.values()) == {alice, bob}


async def test_expired_challenges_name_the_messages_attached_to_them(
    db: str | Path, store: Store, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    service = GameService(store, clock)
    shown = await service.challenge(hall, alice, bob)
    unshown = await service.challenge(hall, bob, alice)
    attached = await service.attach_message(shown.id, "hall:1234")
    assert (attached.id, attached.message_ref) == (shown.id, "hall:1234")
    assert (await service.get_challenge(shown.id)).message_ref == "hall:1234"
    with pytest.raises(ChallengeNotFound):
        await service.attach_message(404, "hall:1235")
    with pytest.raises(ValueError, match="empty"):
        await service.attach_message(unshown.id, " ")
    await store.close()

    restarted = await open_store(db)
    try:
        clock.advance(minutes=15)
        expired = await GameService(restarted, clock).expire_challenges()
    finally:
        await restarted.close()
    assert [(c.id, c.status, c.message_ref) for c in expired] == [
        (shown.id, ChallengeStatus.EXPIRED, "hall:1234"),
        (unshown.id, ChallengeStatus.EXPIRED, None),
    ]


async def test_a_busy_channel_refuses_challenges_and_suggests_a_thread(
    service: GameService,
    store: Store,
    hall: Channel,
    thread: Channel,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    waiting = await service.challenge(hall, carol)
    first = await service.challenge(hall, alice, bob)
    await service.accept(first.id, bob)
    with pytest.raises(ChannelBusy, match="thread"):
        await service.challenge(hall, carol, alice)
    before = await dump(store)
    with pytest.raises(ChannelBusy):
        await service.accept(waiting.id, alice)
    assert await dump(store) == before
    assert (await service.get_challenge(waiting.id)).status is ChallengeStatus.OPEN
    in_thread = await service.challenge(thread, carol, alice)
    assert (await service.accept(in_thread.id, alice)).channel == thread


NO_ATTACKERS = "dim:7 start:/7/7/7/3K3/7/7/7/"


async def test_rules_that_cannot_be_played_are_refused_for_challenges_and_games(
    service: GameService, store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    before = await dump(store)
    refusal = "start: the attackers have no pieces"
    with pytest.raises(ValueError, match=refusal):
        await service.challenge(hall, alice, bob, NO_ATTACKERS)
    with pytest.raises(ValueError, match=refusal):
        await service.start_game(hall, {Side.ATTACKERS: alice, Side.DEFENDERS: bob}, NO_ATTACKERS)
    assert await dump(store) == before


def test_every_refusal_of_the_service_is_a_tafl_error() -> None:
    for refusal in (ServiceError, NoGameHere, ChannelBusy, TooEarly, OfferClosed, ChallengeClosed):
        assert issubclass(refusal, TaflError)


async def test_bad_challenges_are_refused_with_the_choices(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    with pytest.raises(ServiceError, match="yourself"):
        await service.challenge(hall, alice, alice)
    with pytest.raises(UnknownVariantError, match="unknown variant 'chess'"):
        await service.challenge(hall, alice, bob, "chess")
    with pytest.raises(RulesError, match="dim:"):
        await service.challenge(hall, alice, bob, "dim:99 start:/7/")
    with pytest.raises(ServiceError, match="choose attackers, defenders or random"):
        await service.challenge(hall, alice, bob, "copenhagen", "white")
    with pytest.raises(ServiceError, match="choose white, black or random"):
        await service.challenge(hall, alice, bob, "halatafl", "attackers")
    challenge = await service.challenge(hall, alice, bob, "halatafl", "black")
    state = await service.accept(challenge.id, bob)
    assert state.players == {Side.WHITE: bob, Side.BLACK: alice}
    assert state.player_to_move() == bob


# -- moves -------------------------------------------------------------------------------------


async def test_moves_are_played_in_turn_and_stored(
    service: GameService, store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    assert (state.player_to_move(), state.opponent_of(alice), state.side_of(bob)) == (
        alice, bob, Side.DEFENDERS,
    )  # fmt: skip
    result = await service.move(hall, alice, "d1e1")
    assert (str(result.ply.move), result.ply.side, result.report) == ("d1-e1", "attackers", None)
    assert (result.state.version, result.state.player_to_move()) == (1, bob)
    current = await service.current_game(hall)
    assert current is not None
    assert notations(current) == ["d1-e1"]
    async with store.reading() as db:
        assert [m.notation for m in await db.moves(state.id)] == ["d1-e1"]


@pytest.mark.parametrize(
    ("who", "text", "error"),
    [
        ("carol", "d3-e3", NotAPlayer),
        ("alice", "d3-e3", NotYourTurn),
        ("bob", "d3-d1", IllegalMoveError),
        ("bob", "hello", NotationError),
        ("bob", "c3", AmbiguousMoveError),
    ],
)
async def test_a_refused_move_changes_nothing(
    service: GameService,
    store: Store,
    hall: Channel,
    alice: Player,
    bob: Player,
    carol: Player,
    who: str,
    text: str,
    error: type[Exception],
) -> None:
    state = await brandubh(service, hall, alice, bob)
    await play(service, hall, state, ["d2-b2"])
    position, version = state.game.position(), state.version
    before = await dump(store)
    player = {"alice": alice, "bob": bob, "carol": carol}[who]
    with pytest.raises(error):
        await service.move(hall, player, text)
    assert await dump(store) == before
    assert (state.game.position(), state.version, notations(state)) == (
        position, version, ["d2-b2"],
    )  # fmt: skip
    assert await service.current_game(hall) is state


async def test_no_game_here(service: GameService, hall: Channel, alice: Player) -> None:
    assert await service.current_game(hall) is None
    with pytest.raises(NoGameHere):
        await service.move(hall, alice, "d1-e1")
    with pytest.raises(NoGameHere):
        await service.resign(hall, alice)
    with pytest.raises(NoGameHere, match="#7"):
        await service.get_game(7)
    assert await service.game_to_move(hall, alice) is None


async def test_start_game_checks_the_sides(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    with pytest.raises(ValueError, match="needs players for white and black"):
        await service.start_game(hall, {Side.ATTACKERS: alice, Side.DEFENDERS: bob}, "halatafl")
    state = await service.start_game(hall, {Side.DEFENDERS: bob, Side.ATTACKERS: alice})
    assert list(state.players) == [Side.ATTACKERS, Side.DEFENDERS]
    assert state.variant == "copenhagen"
    with pytest.raises(ChannelBusy):
        await service.start_game(hall, {Side.ATTACKERS: bob, Side.DEFENDERS: alice})


async def test_a_move_that_ends_the_game_reports_it(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    result = await play(service, hall, state, ESCAPE)
    assert result is not None
    assert result.report is not None
    assert (result.report.winner, result.report.reason) == (bob, Reason.KING_ESCAPED)
    assert result.state.status is GameStatus.FINISHED
    assert result.state.finished_at is not None
    assert await service.current_game(hall) is None
    with pytest.raises(NoGameHere):
        await service.move(hall, alice, "a4-a5")
    stored = await service.get_game(state.id)
    assert stored.game.outcome == result.state.game.outcome
    assert notations(stored) == ESCAPE


# -- races and other processes -----------------------------------------------------------------


async def test_two_moves_at_once_apply_exactly_one(
    service: GameService, store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    results = await asyncio.gather(
        service.move(hall, alice, "d1-e1"),
        service.move(hall, alice, "g4-g5"),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, MoveResult)]
    refused = [r for r in results if not isinstance(r, MoveResult)]
    assert len(applied) == 1
    assert all(isinstance(r, NotYourTurn | MoveConflict) for r in refused), refused
    async with store.reading() as db:
        assert len(await db.moves(state.id)) == 1
    assert notations(state) == [str(applied[0].ply.move)]


async def test_games_in_different_channels_go_on_independently(
    service: GameService,
    hall: Channel,
    thread: Channel,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    first = await brandubh(service, hall, alice, bob)
    second = await brandubh(service, thread, carol, alice)
    results = await asyncio.gather(
        service.move(hall, alice, "d1-e1"), service.move(thread, carol, "d2-b2")
    )
    assert [str(r.ply.move) for r in results] == ["d1-e1", "d2-b2"]
    assert (notations(first), notations(second)) == (["d1-e1"], ["d2-b2"])


async def test_two_processes_racing_apply_exactly_one_move(
    store: Store, clock: FakeClock, there: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    here = GameService(store, clock)
    state = await brandubh(here, hall, alice, bob)
    assert await there.current_game(hall) is not None
    results = await asyncio.gather(
        here.move(hall, alice, "d1-e1"),
        there.move(hall, alice, "g4-g5"),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, MoveResult)]
    assert len(applied) == 1
    assert [type(r) for r in results if not isinstance(r, MoveResult)] in (
        [MoveConflict], [NotYourTurn],
    )  # fmt: skip
    seen = [await service.current_game(hall) for service in (here, there)]
    assert [notations(s) for s in seen if s] == [[str(applied[0].ply.move)]] * 2
    async with store.reading() as db:
        assert len(await db.moves(state.id)) == 1


async def test_a_move_on_a_stale_version_conflicts_and_reloads(
    store: Store, db: str | Path, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    """Another process plays d1-e1 after this one read the game but before it writes g4-g5."""
    intruded = False

    def intruding_clock() -> Any:
        nonlocal intruded
        if not intruded:
            intruded = True
            raw_execute_now(
                db,
                "INSERT INTO moves (game_id, ply, side, notation, captures, played_at)"
                " VALUES (?, 1, 'attackers', 'd1-e1', '', ?)",
                state.id, stamp(db, clock()),
            )  # fmt: skip
            raw_execute_now(db, "UPDATE games SET version = version + 1 WHERE id = ?", state.id)
        return clock()

    setup = GameService(store, clock)
    state = await brandubh(setup, hall, alice, bob)
    service = GameService(store, intruding_clock)
    loaded = await service.current_game(hall)
    assert loaded is not None
    with pytest.raises(MoveConflict, match="nothing changed"):
        await service.move(hall, alice, "g4-g5")
    assert notations(loaded) == []  # the refused move was taken back in memory too
    reloaded = await service.current_game(hall)
    assert reloaded is not None
    assert (notations(reloaded), reloaded.version, reloaded.player_to_move()) == (
        ["d1-e1"], 1, bob,
    )  # fmt: skip
    result = await service.move(hall, bob, "d3-e3")
    assert result.state.version == 2


async def test_two_accepts_at_once_start_one_game(
    service: GameService, hall: Channel, alice: Player, bob: Player, carol: Player
) -> None:
    challenge = await service.challenge(hall, alice)
    results = await asyncio.gather(
        service.accept(challenge.id, bob), service.accept(challenge.id, carol),
        return_exceptions=True,
    )  # fmt: skip
    started = [r for r in results if isinstance(r, GameState)]
    assert len(started) == 1
    assert [type(r) for r in results if not isinstance(r, GameState)] == [ChallengeClosed]
    accepted = await service.get_challenge(challenge.id)
    assert (accepted.game_id, accepted.opponent) == (started[0].id, started[0].opponent_of(alice))


async def test_two_processes_answering_one_offer_agree(
    store: Store, clock: FakeClock, there: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    here = GameService(store, clock)
    state = await brandubh(here, hall, alice, bob)
    offer = await here.offer(hall, alice, "draw")
    results = await asyncio.gather(
        here.answer_offer(offer.id, bob, accept=True),
        there.answer_offer(offer.id, bob, accept=False),
        return_exceptions=True,
    )
    answered = [r for r in results if isinstance(r, tuple)]
    assert len(answered) == 1
    assert all(isinstance(r, OfferClosed | MoveConflict) for r in results if r not in answered)
    status = answered[0][0].status
    assert (await there.get_offer(offer.id)).status is status
    finished = (await there.get_game(state.id)).status is GameStatus.FINISHED
    assert finished == (status is OfferStatus.ACCEPTED)


async def test_everything_survives_a_restart(
    db: str | Path,
    clock: FakeClock,
    hall: Channel,
    thread: Channel,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    store = await open_store(db)
    service = GameService(store, clock)
    state = await brandubh(service, hall, alice, bob)
    await play(service, hall, state, ["d1-e1", "d3-e3"])
    offer = await service.offer(hall, alice, "draw")
    challenge = await service.challenge(thread, carol)
    await store.close()

    store = await open_store(db)
    service = GameService(store, clock)
    revived = await service.current_game(hall)
    assert revived is not None
    assert (revived.id, revived.players, revived.version) == (state.id, state.players, 2)
    assert notations(revived) == ["d1-e1", "d3-e3"]
    assert revived.game.position() == state.game.position()
    assert revived.move_times == state.move_times
    assert await service.open_offers(hall) == [offer]
    assert await service.get_challenge(challenge.id) == challenge
    declined, _, _ = await service.answer_offer(offer.id, bob, accept=False)
    assert declined.status is OfferStatus.DECLINED
    await service.move(hall, alice, "e1-f1")
    assert (await service.accept(challenge.id, bob)).channel == thread
    await store.close()


# -- resigning, offers -------------------------------------------------------------------------


async def test_resign_ends_the_game_for_the_other_side(
    service: GameService, hall: Channel, alice: Player, bob: Player, carol: Player
) -> None:
    await brandubh(service, hall, alice, bob)
    with pytest.raises(NotAPlayer):
        await service.resign(hall, carol)
    report = await service.resign(hall, alice)
    assert (report.winner, report.winner_side, report.reason) == (
        bob, Side.DEFENDERS, Reason.RESIGNED,
    )  # fmt: skip
    assert await service.current_game(hall) is None
    await service.challenge(hall, carol)  # the channel is free again


async def test_time_out(service: GameService, hall: Channel, alice: Player, bob: Player) -> None:
    await brandubh(service, hall, alice, bob)
    with pytest.raises(ValueError, match="white do not play"):
        await service.time_out(hall, Side.WHITE)
    report = await service.time_out(hall, Side.DEFENDERS)
    assert (report.winner, report.reason) == (alice, Reason.TIMEOUT)


async def test_a_timeout_claimed_too_early_says_the_time_left_and_changes_nothing(
    service: GameService,
    store: Store,
    clock: FakeClock,
    hall: Channel,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    state = await brandubh(service, hall, alice, bob)
    clock.advance(hours=1)
    await service.move(hall, alice, "d1-e1")  # Bob to move from now on
    clock.advance(hours=23)
    before = await dump(store)
    with pytest.raises(
        TooEarly, match=r"Bob has had 23 h 00 min .* the game in 1 h 00 min"
    ) as early:
        await service.claim_timeout(hall, alice)
    assert early.value.left == timedelta(hours=1)
    with pytest.raises(ServiceError, match="it is your turn"):
        await service.claim_timeout(hall, bob)
    with pytest.raises(NotAPlayer):
        await service.claim_timeout(hall, carol)
    with pytest.raises(NoGameHere):
        await service.claim_timeout(Channel("test:empty"), alice)
    assert await dump(store) == before
    assert state.status is GameStatus.ACTIVE and notations(state) == ["d1-e1"]


async def test_a_timeout_claimed_in_time_wins_and_finishes_the_stored_game(
    service: GameService, store: Store, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    await service.move(hall, alice, "d1-e1")
    clock.advance(hours=24)
    restarted = GameService(store, clock)  # the time of the last move is the stored one
    report = await restarted.claim_timeout(hall, alice)
    assert (report.winner, report.winner_side, report.reason) == (
        alice, Side.ATTACKERS, Reason.TIMEOUT,
    )  # fmt: skip
    assert [ply.notation for ply in report.plies] == ["d1-e1"]
    async with store.reading() as db:
        row = await db.game(state.id)
    assert row is not None and row.status is GameStatus.FINISHED
    assert row.outcome is not None and row.outcome.reason is Reason.TIMEOUT
    assert row.finished_at == clock.now
    assert await service.current_game(hall) is None
    with pytest.raises(NoGameHere):
        await service.claim_timeout(hall, alice)


async def test_the_move_timeout_counts_from_the_start_or_the_last_takeback(
    store: Store, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    service = GameService(store, clock, move_timeout=timedelta(minutes=10))
    state = await brandubh(service, hall, alice, bob)
    clock.advance(minutes=9, seconds=59)
    with pytest.raises(TooEarly, match="in 1 s"):
        await service.claim_timeout(hall, bob)  # Alice has not made her first move
    await play(service, hall, state, ["d1-e1", "d3-e3"])
    clock.advance(hours=1)
    undo = await service.offer(hall, bob, OfferKind.UNDO)
    await service.answer_offer(undo.id, alice, accept=True)  # Bob to move again, as of now
    with pytest.raises(TooEarly, match="in 10 min 00 s"):
        await service.claim_timeout(hall, alice)
    clock.advance(minutes=10)
    assert (await service.claim_timeout(hall, alice)).winner == alice


async def test_nothing_to_claim_against_the_ai_and_the_timeout_must_be_positive(
    service: GameService, store: Store, clock: FakeClock, hall: Channel, alice: Player
) -> None:
    await service.start_game(hall, {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice}, "brandubh")
    clock.advance(days=3)
    with pytest.raises(ServiceError, match="Tafl AI always moves"):
        await service.claim_timeout(hall, alice)
    assert (await service.current_game(hall)) is not None
    with pytest.raises(ValueError, match="must be positive"):
        GameService(store, clock, move_timeout=timedelta(0))


async def test_an_accepted_draw_ends_the_game(
    service: GameService, store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    offer = await service.offer(hall, alice, OfferKind.DRAW)
    assert (offer.by, offer.to, offer.ply, offer.status) == (alice, bob, 0, OfferStatus.OPEN)
    before = await dump(store)
    with pytest.raises(NotForYou, match="only Bob"):
        await service.answer_offer(offer.id, alice, accept=True)
    with pytest.raises(ServiceError, match="Alice's draw offer already waits"):
        await service.offer(hall, bob, "draw")
    assert await dump(store) == before
    answered, after, report = await service.answer_offer(offer.id, bob, accept=True)
    assert answered.status is OfferStatus.ACCEPTED
    assert after.status is GameStatus.FINISHED
    assert report is not None
    assert (report.winner, report.winner_side, report.reason) == (None, None, Reason.DRAW_AGREED)
    assert (await service.get_offer(offer.id)).status is OfferStatus.ACCEPTED
    assert (await service.get_game(state.id)).game.outcome == after.game.outcome
    with pytest.raises(OfferClosed, match="already accepted"):
        await service.answer_offer(offer.id, bob, accept=True)


async def test_a_move_voids_the_open_offers(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    await brandubh(service, hall, alice, bob)
    offer = await service.offer(hall, bob, "DRAW")
    await service.move(hall, alice, "d1-e1")
    assert (await service.get_offer(offer.id)).status is OfferStatus.VOID
    assert await service.open_offers(hall) == []
    with pytest.raises(OfferClosed, match="lapsed"):
        await service.answer_offer(offer.id, alice, accept=True)
    with pytest.raises(OfferNotFound):
        await service.answer_offer(404, alice, accept=True)
    with pytest.raises(ServiceError, match="choose draw or undo"):
        await service.offer(hall, bob, "rematch")


async def test_an_undo_takes_back_the_offerers_last_move(
    service: GameService, store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    with pytest.raises(ServiceError, match="no move to take back"):
        await service.offer(hall, alice, "undo")
    await play(service, hall, state, ["d1-e1", "d3-e3"])
    offer = await service.offer(hall, alice, "undo")  # her move and Bob's reply go back
    _, after, report = await service.answer_offer(offer.id, bob, accept=True)
    assert (notations(after), after.player_to_move(), report) == ([], alice, None)
    assert after.move_times == []
    await play(service, hall, after, ["d2-b2", "d3-e3"])
    offer = await service.offer(hall, bob, "undo")  # only his own move goes back
    declined, _, _ = await service.answer_offer(offer.id, alice, accept=False)
    assert declined.status is OfferStatus.DECLINED
    offer = await service.offer(hall, bob, "undo")
    _, after, _ = await service.answer_offer(offer.id, alice, accept=True)
    assert (notations(after), after.player_to_move()) == (["d2-b2"], bob)
    async with store.reading() as db:
        assert [m.notation for m in await db.moves(state.id)] == ["d2-b2"]
    await service.move(hall, bob, "d3-c3")


# -- the AI, reports ---------------------------------------------------------------------------


async def test_the_ai_plays_its_turn(service: GameService, hall: Channel, alice: Player) -> None:
    state = await service.start_game(
        hall, {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice}, "brandubh"
    )
    result = await service.ai_move(hall, time_limit=0.05)
    assert (result.ply.side, result.state.player_to_move()) == (Side.ATTACKERS, alice)
    assert notations(state) == [result.ply.notation]
    with pytest.raises(NotYourTurn, match="not the AI's turn"):
        await service.ai_move(hall, time_limit=0.05)


async def test_games_awaiting_ai_are_those_where_the_ai_is_to_move(
    service: GameService, hall: Channel, thread: Channel, alice: Player, bob: Player
) -> None:
    waiting = await service.start_game(
        hall, {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice}, "brandubh"
    )
    await service.start_game(thread, {Side.ATTACKERS: bob, Side.DEFENDERS: AI_PLAYER}, "brandubh")
    assert [state.id for state in await service.games_awaiting_ai()] == [waiting.id]
    await service.ai_move(hall, time_limit=0.05)
    assert await service.games_awaiting_ai() == []


async def test_a_game_that_no_longer_replays_is_voided_not_taken_for_one_awaiting_the_ai(
    service: GameService,
    there: GameService,
    db: str | Path,
    hall: Channel,
    thread: Channel,
    alice: Player,
    bob: Player,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken = await service.start_game(
        hall, {Side.ATTACKERS: alice, Side.DEFENDERS: AI_PLAYER}, "brandubh"
    )
    await service.move(hall, alice, "d1-e1")
    waiting = await service.start_game(
        thread, {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: bob}, "brandubh"
    )
    assert [state.id for state in await service.games_awaiting_ai()] == [broken.id, waiting.id]
    # What a change of the rules can leave behind: a stored move the engine now refuses.
    await raw_execute(db, "UPDATE moves SET notation = ? WHERE game_id = ?", "d1-d2", broken.id)
    # A restarted bot (``there``) replays every game it looks at.
    assert [state.id for state in await there.games_awaiting_ai()] == [waiting.id]
    assert f"game #{broken.id} no longer replays" in caplog.text
    assert (await there.get_game(broken.id)).status is GameStatus.FINISHED


async def test_the_ai_allows_takebacks_and_declines_draws(
    service: GameService, hall: Channel, alice: Player
) -> None:
    state = await service.start_game(
        hall, {Side.ATTACKERS: alice, Side.DEFENDERS: AI_PLAYER}, "brandubh"
    )
    await service.move(hall, alice, "d1-e1")
    await service.ai_move(hall, time_limit=0.05)
    draw, _, report = await service.answer_as_ai(await service.offer(hall, alice, "draw"))
    assert (draw.status, report) == (OfferStatus.DECLINED, None)
    undo, after, _ = await service.answer_as_ai(await service.offer(hall, alice, "undo"))
    assert undo.status is OfferStatus.ACCEPTED
    assert (notations(after), after.player_to_move()) == ([], alice)
    assert notations(state) == []


async def test_the_report_tells_the_story(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    state = await brandubh(service, hall, alice, bob)
    clock.advance(minutes=3)
    await play(service, hall, state, [*CAPTURE_READY, "e3-e1"])
    clock.advance(minutes=1, seconds=5)
    report = await service.resign(hall, alice)
    assert report.captures == {Side.ATTACKERS: 0, Side.DEFENDERS: 1}
    assert report.duration is not None and report.duration.total_seconds() == 4 * 60 + 5
    assert [p.notation for p in report.plies] == [*CAPTURE_READY, "e3-e1xf1"]
    assert "[rules:brandubh]" in report.record
    assert "[attackers:Alice]" in report.record
    text = report.text()
    assert "Bob (defenders) won: resignation." in text
    assert "2 moves (4 plies)" in text
    assert "Captures: attackers 0, defenders 1." in text
    assert text.startswith(f"Brandubh, game #{state.id}\n")
    assert "Duration: 4 min 05 s." in text
    assert text.endswith("1. d1-e1 d3-e3\n2. e1-f1 e3-e1xf1")
    assert (await service.report(state.id)).text() == text


async def test_finished_games_newest_first(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    first = await brandubh(service, hall, alice, bob)
    with pytest.raises(ServiceError, match="still being played"):
        await service.report(first.id)
    await service.resign(hall, bob)
    clock.advance(minutes=1)
    second = await brandubh(service, hall, bob, alice)
    await service.resign(hall, bob)
    reports = await service.finished_games(limit=5)
    assert [r.game_id for r in reports] == [second.id, first.id]
    assert [r.game_id for r in await service.finished_games(limit=1)] == [second.id]
    assert await service.finished_games(guild="test:elsewhere") == []


# -- events several processes get --------------------------------------------------------------


async def test_an_event_goes_to_one_process_where_the_database_is_shared(
    store: Store, clock: FakeClock, there: GameService
) -> None:
    here = GameService(store, clock)
    firsts = await asyncio.gather(here.claim_event("e:1"), there.claim_event("e:1"))
    if store.shared:
        assert sorted(firsts) == [False, True]
        clock.advance(days=1, seconds=1)
        await here.forget_events()
        assert await there.claim_event("e:1")
    else:  # one process owns a SQLite file: whatever it gets is its own
        assert list(firsts) == [True, True]
