"""The heavy work, off the event loop's interpreter: the AI's search and drawing images.

A ``Compute`` sends a snapshot of a game (its rules and moves) or a board to draw to worker
processes, and gets back a move or image bytes; the event loop only waits. The AI's searches
take turns fairly: each waits for a free worker in the order it asked, and when more games
wait than there are workers, each search is given less time (never more than asked for), so a
crowd of AI games makes the AI play faster and weaker, never the humans wait. The AI's workers
run at a lower priority than the bot, so that answering people comes first on a busy machine.

``Compute.in_threads()`` does the same work in threads of this process: for the terminal game
and for tests that don't measure responsiveness.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
from engine import Move, Side
from engine.ai import DEFAULT_LEVEL
from engine.errors import shorten

log = logging.getLogger(__name__)

AI_NICENESS = 10
"""How much lower the AI's workers run than the bot (Unix niceness: 10 gives the bot some nine
tenths of a core the two both want)."""
PARENT_CHECK = 1.0
"""Seconds between a worker process's looks at whether the bot that started it still runs."""
MIN_THINK = 0.1
"""The least time a search is given under load, in seconds (unless asked for less)."""
WAITING_PER_WORKER = 25
"""Searches waiting per AI worker beyond which no new game against the AI is taken (each AI
move then waits some WAITING_PER_WORKER x MIN_THINK seconds at most)."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game as a worker needs it: its rules, the moves played from its start, and the level
    the AI plays it at."""

    rules_string: str
    moves: tuple[Move, ...]
    level: str = DEFAULT_LEVEL.name
    """A name of ``engine.ai.LEVELS``."""

    @classmethod
    def of(cls, game: engine.Game, level: str = DEFAULT_LEVEL.name) -> Snapshot:
        return cls(game.rules_string, tuple(ply.move for ply in game.history), level)

    def game(self) -> engine.Game:
        """The game, replayed (in whichever process calls this)."""
        game = engine.Game(self.rules_string)
        for move in self.moves:
            game.push(move)
        return game


# -- what the workers run (module-level functions, so that they can be sent to a process) --------


def think_at_level(snapshot: Snapshot, time_limit: float) -> Move:
    """The move the AI at the snapshot's level plays, within the level's time and
    ``time_limit`` seconds, whichever is shorter."""
    from engine.ai import LEVELS, choose_move_at

    game, level = snapshot.game(), LEVELS[snapshot.level]
    started = time.perf_counter()
    move = choose_move_at(game, level, time_limit=time_limit)
    took, allowed = time.perf_counter() - started, min(level.seconds, time_limit)
    if took > allowed:
        log.warning(
            "the AI took %.3f s over a move it had %.3f s for (%s, %d plies in, level %s)",
            took,
            allowed,
            shorten(snapshot.rules_string, 60),
            len(snapshot.moves),
            level.name,
        )
    return move


def _draw_board(view: Any, viewer: Side | None, theme: str) -> bytes:
    from renderer import render

    return render(view, viewer=viewer, theme=theme)


def _draw_replay(snapshot: Snapshot, max_bytes: int | None) -> bytes | None:
    from renderer import ReplayTooLarge, render_replay

    try:
        return render_replay(snapshot.game(), max_bytes=max_bytes)
    except ReplayTooLarge:
        return None


def _draw_chart(ratings: list[float], deviations: list[float]) -> bytes:
    from renderer import rating_chart

    return rating_chart(ratings, deviations)


def _warm_up_drawing(variant: str) -> None:
    """Draw a variant's start once, so that the worker's caches are filled before a game."""
    from renderer import render

    rules = engine.VARIANTS[variant]
    render(engine.Game.from_position(variant, rules.start, rules.first))


def _warm_up_thinking() -> None:
    import engine.ai  # noqa: F401  (imported once, before the first search)


def _watch_bot(bot: int) -> None:
    """End this worker process when the bot process ``bot`` that started it is gone: a bot
    killed outright (SIGKILL, the out-of-memory killer) cannot stop its workers, which would
    otherwise live on, orphaned, at every such restart."""

    def watch() -> None:
        while os.getppid() == bot:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="tafl-watch-bot", daemon=True).start()


def _start_ai_worker(bot: int) -> None:
    """Run this worker process at a lower priority than the bot (the AI holds off Python's
    cycle collector itself while it thinks), and only while the bot runs."""
    _watch_bot(bot)
    try:
        os.nice(AI_NICENESS)
    except OSError:  # not allowed here: run at the same priority
        log.warning("could not lower the AI worker's priority")


# -- the pools -------------------------------------------------------------------------------


def ai_workers_for_machine() -> int:
    """As many AI workers as the bot's process may use cores."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


class Compute:
    """Worker pools for the AI (``ai_workers`` at once) and for images (``draw_workers``).

    Build with ``Compute.in_processes()`` or ``Compute.in_threads()``; ``start()`` warms the
    workers up, ``close()`` stops them (pools handed in by the caller are left running).
    """

    def __init__(
        self,
        ai_pool: Callable[[], Executor],
        draw_pool: Callable[[], Executor],
        ai_workers: int,
        *,
        owned: bool = True,
        waiting_per_worker: int = WAITING_PER_WORKER,
    ) -> None:
        self._make_ai_pool = ai_pool
        self._make_draw_pool = draw_pool
        self._ai_pool = ai_pool()
        self._draw_pool = draw_pool()
        self.ai_workers = ai_workers
        self.most_waiting = ai_workers * waiting_per_worker
        """Searches waiting or running beyond which the AI takes on no new game."""
        self._owned = owned
        self._ai_turns: asyncio.Semaphore | None = None
        self._ai_demand = 0
        """Searches asked for and not answered yet (waiting or running)."""

    @classmethod
    def in_processes(cls, ai_workers: int | None = None, draw_workers: int = 1) -> Compute:
        """Worker processes (started afresh, not forked from the bot's own process), which
        end when the bot's process does, however it ends."""
        workers = ai_workers or ai_workers_for_machine()
        context = multiprocessing.get_context("spawn")
        bot = (os.getpid(),)
        return cls(
            lambda: ProcessPoolExecutor(
                workers, context, initializer=_start_ai_worker, initargs=bot
            ),
            lambda: ProcessPoolExecutor(
                draw_workers, context, initializer=_watch_bot, initargs=bot
            ),
            workers,
        )

    @classmethod
    def in_threads(cls, ai_workers: int = 2) -> Compute:
        """Threads of this process: the same work, without the processes' start-up."""
        return cls(
            lambda: ThreadPoolExecutor(ai_workers, thread_name_prefix="tafl-ai"),
            lambda: ThreadPoolExecutor(1, thread_name_prefix="tafl-draw"),
            ai_workers,
        )

    def shared(self, waiting_per_worker: int = WAITING_PER_WORKER) -> Compute:
        """Another Compute on the same pools, for another event loop (the pools stay open when
        it closes): lets tests start the worker processes once."""
        return Compute(
            lambda: self._ai_pool,
            lambda: self._draw_pool,
            self.ai_workers,
            owned=False,
            waiting_per_worker=waiting_per_worker,
        )

    async def start(self, variant: str = engine.DEFAULT_VARIANT) -> None:
        """Start every worker and fill its caches, so that the first game waits for nothing."""
        await asyncio.gather(
            *(self._run(self._ai_pool, _warm_up_thinking) for _ in range(self.ai_workers)),
            self._run(self._draw_pool, _warm_up_drawing, variant),
        )

    async def close(self) -> None:
        """Stop the workers (a search under way is abandoned)."""
        if self._owned:
            for pool in (self._ai_pool, self._draw_pool):
                await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    # -- the work --------------------------------------------------------------------------------

    async def choose_move(self, snapshot: Snapshot, time_limit: float) -> Move:
        """The AI's move in ``snapshot``, thought over for at most ``time_limit`` seconds, less
        when more searches wait than there are workers."""
        if self._ai_turns is None:
            self._ai_turns = asyncio.Semaphore(self.ai_workers)
        self._ai_demand += 1
        try:
            async with self._ai_turns:
                seconds = self.think_time(time_limit)
                return await self._run(self._ai_pool, think_at_level, snapshot, seconds)
        finally:
            self._ai_demand -= 1

    def think_time(self, time_limit: float) -> float:
        """The time a search starting now gets: ``time_limit`` shared out when more searches
        wait than there are workers, at least MIN_THINK (or ``time_limit`` if less)."""
        share = time_limit * min(1.0, self.ai_workers / max(1, self._ai_demand))
        return min(time_limit, max(share, MIN_THINK))

    @property
    def ai_demand(self) -> int:
        """Searches waiting or running now."""
        return self._ai_demand

    @property
    def ai_busy(self) -> bool:
        """Whether so many searches wait that the AI should take on no new game now."""
        return self._ai_demand >= self.most_waiting

    async def board_png(self, view: Any, viewer: Side | None = None, theme: str = "wood") -> bytes:
        """A board (a renderer ``BoardView``) as a PNG."""
        return await self._run(self._draw_pool, _draw_board, view, viewer, theme)

    async def replay_gif(self, snapshot: Snapshot, max_bytes: int | None = None) -> bytes | None:
        """Every position of the game as an animated GIF; None if it would be larger than
        ``max_bytes`` (it stops drawing as soon as it is)."""
        return await self._run(self._draw_pool, _draw_replay, snapshot, max_bytes)

    async def drawing_worker(self, work: Callable[[], T]) -> T:
        """``work()`` run in the image worker (for measurements of the worker itself)."""
        return await self._run(self._draw_pool, work)

    async def rating_chart(self, ratings: list[float], deviations: list[float]) -> bytes:
        """A player's rating after each game (with its deviations) as a PNG line chart."""
        return await self._run(self._draw_pool, _draw_chart, ratings, deviations)

    async def _run(self, pool: Executor, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in ``pool``; a pool whose process died is started again, once."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, work, *args)
        except BrokenProcessPool:
            log.error("a worker process died; starting the workers again")
            pool = self._restart(pool)
            return await loop.run_in_executor(pool, work, *args)

    def _restart(self, broken: Executor) -> Executor:
        if broken is self._ai_pool:
            self._ai_pool = self._make_ai_pool()
            return self._ai_pool
        self._draw_pool = self._make_draw_pool()
        return self._draw_pool
