"""The worker pools: snapshots travel to other processes, searches take turns fairly and share
the time under load, the AI's workers run at a lower priority, a dead worker is replaced."""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import signal
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

import pytest

import engine
from bot.compute import AI_NICENESS, MIN_THINK, Compute, Snapshot, think_at_level
from renderer import BoardView

T = TypeVar("T")


@pytest.fixture
async def processes() -> AsyncIterator[Compute]:
    compute = Compute.in_processes(ai_workers=1)
    await compute.start("brandubh")
    yield compute
    await compute.close()


def played(variant: str, plies: int) -> engine.Game:
    game = engine.Game(variant)
    for _ in range(plies):
        game.push(game.legal_moves()[0])
    return game


def test_a_snapshot_replays_to_the_same_position_after_pickling() -> None:
    game = played("copenhagen", 7)
    snapshot = pickle.loads(pickle.dumps(Snapshot.of(game)))
    again = snapshot.game()
    assert again.position() == game.position() and again.turn == game.turn
    assert [p.notation for p in again.history] == [p.notation for p in game.history]


async def test_the_ai_moves_in_a_worker_process_at_a_lower_priority(processes: Compute) -> None:
    game = played("brandubh", 3)
    move = await processes.choose_move(Snapshot.of(game), 0.2)
    assert move in game.legal_moves()
    worker_niceness = await processes._run(processes._ai_pool, os.nice, 0)
    assert worker_niceness == os.nice(0) + AI_NICENESS
    assert await processes._run(processes._ai_pool, os.getpid) != os.getpid()


def test_a_think_over_its_time_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A search given no time at all still plays a move, and says that it took longer."""
    game = played("brandubh", 3)
    with caplog.at_level(logging.WARNING, logger="bot.compute"):
        assert think_at_level(Snapshot.of(game, "hard"), 0.0) in game.legal_moves()
    [record] = caplog.records
    assert "over a move it had 0.000 s for (brandubh, 3 plies in, level hard)" in record.message


async def test_boards_and_replays_are_drawn_in_a_worker_process(processes: Compute) -> None:
    game = played("brandubh", 4)
    png = await processes.board_png(BoardView.from_game(game, moves_of=None))
    assert png.startswith(b"\x89PNG")
    gif = await processes.replay_gif(Snapshot.of(game))
    assert gif is not None and gif.startswith(b"GIF8")
    assert await processes.replay_gif(Snapshot.of(game), max_bytes=1000) is None
    assert await processes._run(processes._draw_pool, os.getpid) != os.getpid()


async def test_a_dead_worker_is_replaced(processes: Compute) -> None:
    worker = await processes._run(processes._draw_pool, os.getpid)
    os.kill(worker, signal.SIGKILL)
    await asyncio.sleep(0.2)
    png = await processes.board_png(BoardView.from_game(played("brandubh", 2)))
    assert png.startswith(b"\x89PNG")
    assert await processes._run(processes._draw_pool, os.getpid) != worker


async def test_searches_take_turns_in_the_order_asked_and_share_the_time() -> None:
    compute = Compute.in_threads(ai_workers=1)
    started: list[tuple[int, int, float]] = []
    """(plies of the game searched, searches asked for, seconds granted), in start order."""
    run = compute._run

    async def recording_run(pool: Executor, work: Callable[..., T], *args: Any) -> T:
        snapshot, granted = args
        started.append((len(snapshot.moves), compute.ai_demand, granted))
        return await run(pool, work, *args)

    compute._run = recording_run  # type: ignore[method-assign]
    games = [played("brandubh", n) for n in range(4)]
    moves = await asyncio.gather(*(compute.choose_move(Snapshot.of(g), 0.8) for g in games))
    assert all(move in game.legal_moves() for move, game in zip(moves, games, strict=True))
    assert [plies for plies, _, _ in started] == [0, 1, 2, 3]  # in the order asked
    # the first search starts alone (full time); the next start with 3, 2, 1 asking
    assert [demand for _, demand, _ in started] == [1, 3, 2, 1]
    assert [granted for _, _, granted in started] == pytest.approx([0.8, 0.8 / 3, 0.4, 0.8])
    await compute.close()


def test_think_time_never_exceeds_the_limit_nor_falls_below_the_floor() -> None:
    compute = Compute.in_threads(ai_workers=2)
    for demand in (0, 1, 2, 3, 50, 10_000):
        compute._ai_demand = demand
        for limit in (0.01, 0.05, 0.5, 2.0):
            granted = compute.think_time(limit)
            assert granted <= limit
            assert granted >= min(limit, MIN_THINK)
    compute._ai_demand = 0
