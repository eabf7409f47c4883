"""Ratings kept by the service: every way a rated game ends updates both players' standings in
the same transaction, globally and on the game's server; unrated and custom games leave them
alone; the rebuild from the stored games gives the same numbers."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import pytest

from bot.errors import ServiceError
from bot.models import GLOBAL_SCOPE, Channel, OfferKind, Player, Result, ai_player
from bot.ratings import NEW, update
from bot.service import GameService
from bot.storage import Store
from engine import Side
from tests.bot.conftest import FakeClock
from tests.bot.test_service import ESCAPE, dump, play

GAMES = 120
"""Rated games in the rebuild test: a third without a server, the rest on two."""

Ending = Callable[[GameService, Channel, Player, Player, FakeClock], Awaitable[None]]


async def rated_game(
    service: GameService, channel: Channel, attacker: Player, defender: Player, **options: object
) -> None:
    """A challenge (rated by default) from ``attacker`` that ``defender`` accepts."""
    challenge = await service.challenge(
        channel,
        attacker,
        defender,
        "brandubh",
        "attackers",
        **options,  # type: ignore[arg-type]
    )
    await service.accept(challenge.id, defender)


async def by_escape(s: GameService, c: Channel, a: Player, d: Player, clock: FakeClock) -> None:
    state = await s.current_game(c)
    assert state is not None
    await play(s, c, state, ESCAPE)


async def by_resignation(s: GameService, c: Channel, a: Player, d: Player, _: FakeClock) -> None:
    await s.resign(c, a)


async def by_agreed_draw(s: GameService, c: Channel, a: Player, d: Player, _: FakeClock) -> None:
    offer = await s.offer(c, a, OfferKind.DRAW)
    await s.answer_offer(offer.id, d, accept=True)


async def by_claim(s: GameService, c: Channel, a: Player, d: Player, clock: FakeClock) -> None:
    clock.advance(days=2)
    await s.claim_timeout(c, d)


async def by_the_sweep(s: GameService, c: Channel, a: Player, d: Player, clock: FakeClock) -> None:
    clock.advance(days=30)
    assert len(await s.time_out_games()) == 1


@pytest.mark.parametrize(
    ("ending", "time", "winner"),
    [
        (by_escape, "none", Side.DEFENDERS),
        (by_resignation, "none", Side.DEFENDERS),
        (by_agreed_draw, "none", None),
        (by_claim, "none", Side.DEFENDERS),
        (by_the_sweep, "3d", Side.DEFENDERS),
    ],
)
async def test_every_ending_of_a_rated_game_rates_both_players_in_both_scopes(
    service: GameService,
    clock: FakeClock,
    hall: Channel,
    alice: Player,
    bob: Player,
    ending: Ending,
    time: str,
    winner: Side | None,
) -> None:
    await rated_game(service, hall, alice, bob, time_control=time)
    await ending(service, hall, alice, bob, clock)
    score = Result.of(winner, Side.ATTACKERS).score
    alice_after = update(NEW, [(NEW, score)])
    bob_after = update(NEW, [(NEW, 1 - score)])
    for scope in (GLOBAL_SCOPE, "test:guild"):
        top, _ = await service.leaderboard("brandubh", scope)
        by_id = {s.player.id: s for s in top}
        assert by_id[alice.id].rating == alice_after and by_id[bob.id].rating == bob_after
        assert by_id[alice.id].games == 1
        assert by_id[alice.id].record == {None: "0/1/0", Side.DEFENDERS: "0/0/1"}[winner]
        stats = await service.stats(alice, scope=scope)
        assert [p.rating for p in stats.history] == [alice_after]


async def test_unrated_games_and_custom_rules_leave_the_ratings_alone(
    service: GameService, store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    await rated_game(service, hall, alice, bob, rated=False)
    await service.resign(hall, alice)
    custom = "dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
    before = await dump(store)
    with pytest.raises(ServiceError, match="custom rules games are never rated"):
        await service.challenge(hall, alice, bob, custom, rated=True)
    assert await dump(store) == before
    challenge = await service.challenge(hall, alice, bob, custom)
    assert not challenge.rated
    await service.accept(challenge.id, bob)
    await service.resign(hall, bob)
    tables = await dump(store)
    assert tables["ratings"] == tables["rating_history"] == []
    assert [g.rated for g in await service.played_games(alice)] == [False, False]


async def test_a_rated_games_takeback_is_noted_in_its_record(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    await rated_game(service, hall, alice, bob)
    state = await service.current_game(hall)
    assert state is not None
    await play(service, hall, state, ESCAPE[:1])
    offer = await service.offer(hall, alice, OfferKind.UNDO)
    await service.answer_offer(offer.id, bob, accept=True)
    report = await service.resign(hall, alice)
    assert "[rated:yes]" in report.record and "[takebacks:1]" in report.record


async def test_games_against_each_ai_level_rate_that_level(
    service: GameService, hall: Channel, alice: Player
) -> None:
    hard = ai_player("hard")
    challenge = await service.challenge(hall, alice, hard, "brandubh", "defenders")
    assert challenge.rated
    await service.accept(challenge.id, hard)
    await service.resign(hall, alice)
    top, _ = await service.leaderboard("Brandubh", GLOBAL_SCOPE)
    assert [(s.player.name, s.record) for s in top] == [
        ("Tafl AI (hard)", "1/0/0"),
        ("Alice", "0/0/1"),
    ]


async def test_the_rebuild_gives_the_numbers_of_the_games_as_they_finished(
    service: GameService, store: Store, clock: FakeClock, alice: Player, bob: Player, carol: Player
) -> None:
    rng = random.Random(3)
    people = [alice, bob, carol, ai_player("easy"), ai_player("max")]
    channels = [Channel("test:a", "test:one"), Channel("test:b", "test:two"), Channel("test:c")]
    for number in range(GAMES):
        first, second = (
            rng.sample(people[:3], 2)
            if number % 3
            else (rng.choice(people[:3]), rng.choice(people[3:]))
        )
        channel = channels[number % 3]
        challenge = await service.challenge(
            channel, first, second, rng.choice(["brandubh", "tablut"])
        )
        await service.accept(challenge.id, second)
        clock.advance(minutes=5)
        if rng.random() < 0.2:
            offer = await service.offer(channel, first, OfferKind.DRAW)
            await service.answer_offer(offer.id, second, accept=True)
        else:
            await service.resign(
                channel, rng.choice([first, second]) if not second.is_ai else first
            )
    incremental = await dump(store)
    assert len(incremental["rating_history"]) == GAMES * 2 + (GAMES - GAMES // 3) * 2
    assert await service.rebuild_ratings() == GAMES
    assert await dump(store) == incremental
    top, mine = await service.leaderboard("brandubh", GLOBAL_SCOPE, alice, limit=1)
    assert len(top) == 1 and (mine is None) == (top[0].player == alice)


async def test_two_games_of_one_player_finishing_at_once_in_two_processes_both_count(
    service: GameService,
    there: GameService,
    hall: Channel,
    thread: Channel,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    await rated_game(service, hall, alice, bob)
    await rated_game(there, thread, alice, carol)
    for _ in range(2):  # a first game each, then a second: new and stored standings
        await asyncio.gather(service.resign(hall, alice), there.resign(thread, alice))
        await rated_game(service, hall, alice, bob)
        await rated_game(there, thread, alice, carol)
    for scope in (GLOBAL_SCOPE, "test:guild"):
        top, _ = await service.leaderboard("brandubh", scope)
        assert {s.player.name: s.record for s in top} == {
            "Alice": "0/0/4", "Bob": "2/0/0", "Carol": "2/0/0"
        }  # fmt: skip
