"""Games under a time control: the clock from the stored times, the deadline enforced on moves
and by the sweep (exactly one wins a race), reminders recorded once."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from bot.clocks import Stage
from bot.errors import MoveConflict, NoGameHere, ServiceError, TimeUp
from bot.models import AI_PLAYER, AnnouncementKind, Channel, GameStatus, Player
from bot.service import GameService
from engine import Outcome, Reason, Side
from tests.bot.conftest import FakeClock, raw_execute


async def clocked(
    service: GameService, hall: Channel, alice: Player, bob: Player, control: str = "1d"
) -> None:
    """Brandubh, Alice (attackers, to move) against Bob, under ``control``."""
    players = {Side.ATTACKERS: alice, Side.DEFENDERS: bob}
    await service.start_game(hall, players, "brandubh", time_control=control)


async def test_a_move_at_the_deadline_counts_and_one_after_it_ends_the_game_on_time(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    await clocked(service, hall, alice, bob)
    clock.advance(days=1)  # exactly at the deadline
    await service.move(hall, alice, "d1-e1")
    assert await service.time_out_games() == []
    clock.advance(days=1, seconds=1)  # Bob is a second late
    with pytest.raises(TimeUp, match="your time ran out 1 s ago") as late:
        await service.move(hall, bob, "d3-c3")
    assert late.value.report.reason is Reason.TIMEOUT
    assert late.value.report.winner == alice
    assert await service.current_game(hall) is None


async def test_the_sweep_ends_games_out_of_time_and_leaves_the_others(
    service: GameService, clock: FakeClock, alice: Player, bob: Player
) -> None:
    late, running, unclocked = Channel("test:late"), Channel("test:running"), Channel("test:none")
    await clocked(service, late, alice, bob, "1h")
    await clocked(service, running, alice, bob, "2d+1h")
    await clocked(service, unclocked, alice, bob, "none")
    clock.advance(hours=1, seconds=1)
    ended = await service.time_out_games()
    assert [(state.channel, report.reason) for state, report in ended] == [(late, Reason.TIMEOUT)]
    assert ended[0][1].winner == bob  # Alice, to move, ran out
    assert await service.current_game(running) is not None
    assert await service.current_game(unclocked) is not None
    assert await service.time_out_games() == []  # once


async def test_a_move_and_the_sweep_of_another_process_end_the_game_once(
    service: GameService,
    there: GameService,
    clock: FakeClock,
    hall: Channel,
    alice: Player,
    bob: Player,
) -> None:
    await clocked(service, hall, alice, bob, "1h")
    clock.advance(hours=1, seconds=1)
    move, sweep = await asyncio.gather(
        service.move(hall, alice, "d1-e1"), there.time_out_games(), return_exceptions=True
    )
    assert isinstance(move, TimeUp | NoGameHere | MoveConflict)
    ended_by_sweep = [] if isinstance(sweep, BaseException) else sweep
    assert len(ended_by_sweep) + isinstance(move, TimeUp) == 1
    state = await service.get_game(1)
    assert state.status is GameStatus.FINISHED and state.game.history == []


async def test_the_clock_takes_thinking_time_and_a_takeback_restarts_the_turn(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    await clocked(service, hall, alice, bob, "2d+1d")
    clock.advance(hours=10)
    state = (await service.move(hall, alice, "d1-e1")).state
    assert state.time_left(clock.now) == {
        Side.ATTACKERS: timedelta(days=2),  # 2d - 10h + 1d, capped at the starting 2d
        Side.DEFENDERS: timedelta(days=2),
    }
    clock.advance(hours=5)
    left = state.time_left(clock.now)
    assert left is not None and left[Side.DEFENDERS] == timedelta(days=2, hours=-5)
    undo = await service.offer(hall, alice, "undo")
    await service.answer_offer(undo.id, bob, accept=True)
    state = await service.get_game(1)
    assert state.deadline() == clock.now + timedelta(days=2)  # Alice's turn, afresh


async def test_the_ai_never_runs_out_of_time(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player
) -> None:
    players = {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice}
    state = await service.start_game(hall, players, "brandubh", time_control="1h")
    assert state.deadline() is None
    clock.advance(days=3)
    assert await service.time_out_games() == []


async def test_a_game_with_a_clock_is_not_claimed(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    await clocked(service, hall, alice, bob, "3d")
    await service.move(hall, alice, "d1-e1")
    clock.advance(days=2)
    with pytest.raises(ServiceError, match="ends by itself when Bob runs out of time"):
        await service.claim_timeout(hall, alice)


async def test_reminders_come_once_each_at_half_time_and_near_the_end(
    service: GameService,
    there: GameService,
    clock: FakeClock,
    hall: Channel,
    alice: Player,
    bob: Player,
) -> None:
    await clocked(service, hall, alice, bob, "3d")
    clock.advance(hours=30)
    assert await service.due_reminders() == []
    clock.advance(hours=7)  # 37 h of 72: half used
    (half,) = await service.due_reminders()
    assert (half.player, half.stage, half.left) == (alice, Stage.HALF, timedelta(hours=35))
    assert await there.due_reminders() == []  # another process (or a restart) sends none again
    clock.advance(hours=12)  # 23 h left: a fixed time per move warns a day before
    (last,) = await there.due_reminders()
    assert (last.player, last.stage) == (alice, Stage.LAST)
    assert await service.due_reminders() == []
    await service.move(hall, alice, "d1-e1")  # Bob's turn: nothing for him yet, none for her
    assert await service.due_reminders() == []


async def test_live_games_get_no_reminders(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    await clocked(service, hall, alice, bob, "10m+5s")
    clock.advance(minutes=9, seconds=59)
    assert await service.due_reminders() == []
    assert service.has_live_games


async def test_a_game_that_no_longer_replays_is_voided_by_the_sweep_and_the_others_go_on(
    service: GameService,
    there: GameService,
    db: str | Path,
    clock: FakeClock,
    alice: Player,
    bob: Player,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken, late, reminded = Channel("test:broken"), Channel("test:late"), Channel("test:remind")
    await clocked(service, broken, alice, bob, "1d")
    await service.move(broken, alice, "d1-e1")
    await clocked(service, late, alice, bob, "1d")
    await clocked(service, reminded, alice, bob, "3d")
    # What a change of the rules can leave behind: a stored move the engine now refuses.
    await raw_execute(db, "UPDATE moves SET notation = ? WHERE game_id = ?", "d1-d2", 1)
    clock.advance(hours=37)
    # A restarted bot (``there``) replays every game it sweeps.
    ended = await there.time_out_games()
    assert [state.channel for state, _ in ended] == [late]
    assert [reminder.state.channel for reminder in await there.due_reminders()] == [reminded]
    unposted = {
        (announcement.game_id, announcement.kind)
        for announcement, _ in await there.pending_announcements("test:")
    }
    assert unposted == {(1, AnnouncementKind.END), (2, AnnouncementKind.END)}
    assert "game #1 no longer replays under this version's rules: its move 1, d1-d2" in caplog.text
    void = await there.get_game(1)
    assert void.game.outcome == Outcome(None, Reason.VOIDED)
    assert await there.current_game(broken) is None  # free for a new game
