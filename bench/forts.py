"""Exit forts: from the real Copenhagen games that the defenders won by an exit fort, the position
``--before`` of their moves before the fort (the defenders to move), played out by the AI on both
sides; how often the defenders win, by a fort or otherwise, and how fast.

The real games show that a fort could be built from there against the attackers who played them;
the AI's attackers may defend better, so not every position is a win. Each side thinks
``--nodes`` nodes a move (the same games on any machine and load) or ``--time`` seconds; a game
still open after ``--plies`` plies counts as open. With ``--old COMMIT`` the defenders are
engine/ai.py as it was at that commit (loaded from git as bench/ai.py does) against the attackers
of today, to compare two versions' defence on the same positions.

Run from the repository root: ``python bench/forts.py [--before 3] [--nodes 20000 | --time 1]
[--plies 60] [--processes 2] [--old COMMIT] [--show]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ai import load_old_ai, refuse_unknown_commit  # noqa: E402
from bench.arena import wilson  # noqa: E402
from bench.endgames import Pace  # noqa: E402
from engine import Game, Move, Reason, Side  # noqa: E402
from engine import ai as current_ai  # noqa: E402
from engine.record import parse_data_line  # noqa: E402

GAMES = ROOT / "tests" / "data" / "copenhagen.csv"
_defenders: ModuleType = current_ai
"""The AI the defenders play (``--old``), set once per worker process."""


@dataclass(frozen=True)
class Start:
    number: int
    """The game's line in tests/data/copenhagen.csv, from 1."""
    moves: tuple[Move, ...]
    """Its moves up to the position to play from."""


@dataclass(frozen=True)
class Result:
    start: Start
    winner: Side | None
    reason: str
    plies: int
    final: str


def fort_games(before: int) -> Iterator[Start]:
    """The real games that ended in an exit fort, cut ``before`` defenders' moves before it."""
    for number, line in enumerate(GAMES.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        game = Game("copenhagen")
        for recorded in parse_data_line(line).moves:
            if game.outcome is not None:
                break
            game.play(recorded.move)
        if game.outcome is None or game.outcome.reason is not Reason.EXIT_FORT:
            continue
        moves = tuple(ply.move for ply in game.history)
        cut = len(moves) - (2 * before - 1)
        if cut > 0:
            yield Start(number, moves[:cut])


def _start_worker(old: str | None) -> None:
    global _defenders
    if old is not None:
        _defenders = load_old_ai(old)


def play_out(start: Start, pace: Pace, plies: int) -> Result:
    """The AI on both sides from ``start`` (the defenders as ``_defenders``)."""
    game = Game("copenhagen")
    for move in start.moves:
        game.push(move)
    first = len(game.history)
    while game.outcome is None and len(game.history) - first < plies:
        game.push(pace.move(game, _defenders if game.turn is Side.DEFENDERS else current_ai))
    played = len(game.history) - first
    if game.outcome is None:
        return Result(start, None, "open", played, game.position())
    return Result(start, game.outcome.winner, str(game.outcome.reason), played, game.position())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=int, default=3, help="defenders' moves before the fort")
    parser.add_argument("--nodes", type=int, default=20_000, help="nodes a move (0: --time)")
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move, with --nodes 0")
    parser.add_argument("--plies", type=int, default=60, help="plies before a game counts open")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--old", help="the defenders play engine/ai.py as at this commit")
    parser.add_argument(
        "--show", action="store_true", help="list the games the defenders did not win"
    )
    args = parser.parse_args()
    refuse_unknown_commit(parser, args.old)
    if not all(n > 0 for n in (args.before, args.plies, args.processes, args.time)):
        parser.error("--before, --plies, --processes and --time take positive numbers")
    if args.nodes < 0:
        parser.error("--nodes takes a positive number (or 0: --time)")
    starts = list(fort_games(args.before))
    budget = f"{args.nodes} nodes" if args.nodes else f"{args.time:g} s"
    defenders = f"engine/ai.py at {args.old}" if args.old else "engine/ai.py (working tree)"
    print(
        f"{len(starts)} real Copenhagen games won by an exit fort, from {args.before} defenders' "
        f"moves before it; defenders {defenders}, attackers engine/ai.py (working tree), "
        f"{budget} a move, at most {args.plies} plies"
    )
    started = time.perf_counter()
    count, pace = len(starts), Pace(args.time, args.nodes)
    workers = ProcessPoolExecutor(args.processes, initializer=_start_worker, initargs=(args.old,))
    with workers as pool:
        results = list(pool.map(play_out, starts, [pace] * count, [args.plies] * count))
    won = [r for r in results if r.winner is Side.DEFENDERS]
    lost = [r for r in results if r.winner is Side.ATTACKERS]
    low, high = wilson(len(won) / len(results), len(results)) if results else (0.0, 0.0)
    how_fast = f", in {statistics.mean(r.plies for r in won):.0f} plies on average" if won else ""
    print(
        f"defenders won {len(won)} of {len(results)} ({len(won) / max(1, len(results)):.1%}, "
        f"95% interval {low:.1%} to {high:.1%}{how_fast}); attackers won {len(lost)}; "
        f"open {len(results) - len(won) - len(lost)}"
    )
    endings = Counter(r.reason for r in results)
    print("  endings: " + ", ".join(f"{n} {reason}" for reason, n in sorted(endings.items())))
    if args.show:
        for result in results:
            if result.winner is not Side.DEFENDERS:
                print(
                    f"    game {result.start.number}: {result.reason} after {result.plies} "
                    f"plies, at {result.final}"
                )
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
