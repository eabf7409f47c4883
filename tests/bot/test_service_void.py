"""A stored game whose moves the rules no longer accept (a fix to them came after it) is ended as
void when it is next read: no result, no rating, its channel free, and the end announced like
any other; the games beside it go on."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import GameVoided
from bot.models import AnnouncementKind, Channel, GameState, GameStatus, Player, build_report
from bot.service import GameService
from engine import Outcome, Reason, Side
from renderer.caption import caption
from tests.bot.conftest import raw_execute
from tests.bot.test_service import ESCAPE, notations, play
from tests.bot.test_service_ratings import rated_game

VOID = Outcome(None, Reason.VOIDED)


async def refuse_stored_move(db: str | Path, game_id: int, ply: int, notation: str) -> None:
    """What a change of the rules can leave behind: a stored move the engine now reads
    otherwise (here, by rewriting it)."""
    await raw_execute(
        db, "UPDATE moves SET notation = ? WHERE game_id = ? AND ply = ?", notation, game_id, ply
    )


async def a_game_the_rules_now_end_at_ply_6(
    service: GameService, db: str | Path, hall: Channel, alice: Player, bob: Player
) -> GameState:
    """Brandubh in seven moves, whose sixth now lets the king escape (the seventh is refused)."""
    state = await service.start_game(hall, {Side.ATTACKERS: alice, Side.DEFENDERS: bob}, "brandubh")
    await play(service, hall, state, [*ESCAPE[:5], "e5-b5", "f5-f6"])
    await refuse_stored_move(db, state.id, 6, "d7-a7")
    return state


async def test_a_rated_game_that_no_longer_replays_is_void_and_counts_for_nobody(
    service: GameService,
    there: GameService,
    db: str | Path,
    hall: Channel,
    alice: Player,
    bob: Player,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await rated_game(service, hall, alice, bob)
    state = await service.current_game(hall)
    assert state is not None and state.rated
    await play(service, hall, state, ["d1-e1", "d3-c3", "e1-f1"])
    await refuse_stored_move(db, state.id, 2, "d3-d2")  # a defender cannot go there: taken
    # The players' next command, in a restarted bot (``there``), finds the game void.
    with pytest.raises(GameVoided, match=rf"game #{state.id} here is void: its moves") as voided:
        await there.move(hall, bob, "c3-c2")  # told, with the report for the channel
    logged = f"game #{state.id} no longer replays under this version's rules: its move 2, d3-d2, is"
    assert f"{logged} refused" in caplog.text
    void = await there.get_game(state.id)
    assert (void.status, void.game.outcome, void.rated) == (GameStatus.FINISHED, VOID, False)
    assert notations(void) == ["d1-e1"]  # as far as it replays
    report = build_report(void)
    assert report == voided.value.report
    assert report.result == (
        "Void: its moves no longer replay under these rules; it counts for neither player."
    )
    assert not report.rated
    assert caption(void.game).endswith("void: its moves no longer replay under these rules")
    # Nobody's rating, record or archive has it; the ratings rebuilt from the games agree.
    for player in (alice, bob):
        stats = await there.stats(player)
        assert (stats.standings, stats.by_side, stats.recent) == ([], {}, [])
        assert await there.played_games(player) == []
    assert await there.rating_changes(state.id) == []
    assert await there.rebuild_ratings() == 0
    # The channel is free, and its end is announced (not the moves that no longer replay).
    assert await there.current_game(hall) is None
    pending = [(a.kind, a.ply) for a, _ in await there.pending_announcements("test:")]
    assert (AnnouncementKind.MOVE, 2) not in pending
    assert (AnnouncementKind.END, 1) in pending
    await rated_game(there, hall, alice, bob)
    assert await there.current_game(hall) is not None


async def test_a_game_the_rules_now_end_before_its_last_stored_move_is_void_before_that_end(
    service: GameService, there: GameService, db: str | Path, hall: Channel, alice: Player,
    bob: Player,
) -> None:  # fmt: skip
    state = await a_game_the_rules_now_end_at_ply_6(service, db, hall, alice, bob)
    void = await there.get_game(state.id)  # any read of the game ends it
    assert (void.status, void.game.outcome) == (GameStatus.FINISHED, VOID)
    assert notations(void) == ESCAPE[:5]  # not the escape that the players did not see
    assert await there.current_game(hall) is None


async def test_a_finished_game_that_no_longer_replays_keeps_its_result(
    service: GameService, there: GameService, db: str | Path, hall: Channel, alice: Player,
    bob: Player,
) -> None:  # fmt: skip
    state = await service.start_game(hall, {Side.ATTACKERS: alice, Side.DEFENDERS: bob}, "brandubh")
    await play(service, hall, state, ["d1-e1"])
    await service.resign(hall, bob)
    await refuse_stored_move(db, state.id, 1, "d1-d2")
    finished = await there.get_game(state.id)
    assert finished.game.outcome == Outcome(Side.ATTACKERS, Reason.RESIGNED)
    assert notations(finished) == []


async def test_a_finished_game_the_rules_now_end_early_keeps_its_result_before_that_end(
    service: GameService, there: GameService, db: str | Path, hall: Channel, alice: Player,
    bob: Player,
) -> None:  # fmt: skip
    state = await a_game_the_rules_now_end_at_ply_6(service, db, hall, alice, bob)
    await service.resign(hall, bob)
    finished = await there.get_game(state.id)
    assert finished.game.outcome == Outcome(Side.ATTACKERS, Reason.RESIGNED)
    assert notations(finished) == ESCAPE[:5]
