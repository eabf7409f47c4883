"""Engine speed: plies per second of random games in every variant, against pyhnefatafl.

    python bench/engine.py [--seconds 2] [--seed 1]

The workload, the same for every engine: from the start position, take the legal moves, pick one
with a seeded random generator, play it, look at the outcome; until the game ends or 300 plies,
then a new game; for ``--seconds`` of CPU time per variant, after a short warm-up.
pyhnefatafl 0.3.2 (a bench-only dependency, ``pip install pyhnefatafl==0.3.2``) is run the same
way on its 11x11 board when it is importable, in rounds alternating with Copenhagen. Also prints
how long ``import engine`` takes in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MAX_PLIES = 300
WARM_UP = 0.5
"""Seconds of play before measuring (caches, CPU clock)."""
clock = time.process_time
"""CPU time of this process: steadier than the wall clock on a shared machine."""
Engine = tuple[Callable[[], Any], Callable[[Any, random.Random], bool]]


def random_games(
    new_game: Callable[[], Any],
    play_one: Callable[[Any, random.Random], bool],
    seconds: float,
    seed: int,
) -> tuple[int, int, float]:
    """Play random games for about ``seconds``: (games, plies, elapsed seconds)."""
    rng = random.Random(seed)
    games = plies = 0
    start = clock()
    while clock() - start < seconds:
        game = new_game()
        games += 1
        for _ in range(MAX_PLIES):
            plies += 1
            if play_one(game, rng):
                break
    return games, plies, clock() - start


def rate(engine: Engine, seconds: float, seed: int) -> float:
    """Plies per second after a short warm-up."""
    random_games(*engine, WARM_UP, seed + 1)
    _, plies, elapsed = random_games(*engine, seconds, seed)
    return plies / elapsed


def ours(variant: str) -> Engine:
    Game = importlib.import_module("engine").Game  # this script is engine.py too

    def new_game() -> Any:
        return Game(variant)

    def play_one(game: Any, rng: random.Random) -> bool:
        game.push(rng.choice(game.legal_moves()))
        return game.outcome is not None

    return new_game, play_one


def pyhnefatafl() -> Engine | None:
    try:
        hnefatafl = importlib.import_module("hnefatafl")  # pyhnefatafl's module
    except ImportError:
        return None

    def new_game() -> Any:
        return hnefatafl.Board()

    def play_one(board: Any, rng: random.Random) -> bool:
        board.push(rng.choice(list(board.legal_moves)))
        return board.outcome() is not None

    return new_game, play_one


def import_time(runs: int = 7) -> float:
    """The fastest of ``runs`` fresh-interpreter timings of ``import engine``, in seconds."""
    code = "import time; t = time.perf_counter(); import engine; print(time.perf_counter() - t)"
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
        )
        times.append(float(out.stdout))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="rounds against pyhnefatafl")
    args = parser.parse_args()

    variants = importlib.import_module("engine").VARIANTS

    rates: dict[str, float] = {}
    print(f"random games, up to {MAX_PLIES} plies, {args.seconds:g} s of CPU time per variant")
    for variant in variants:
        try:
            engine = ours(variant)
            engine[0]()
        except Exception as error:  # a variant still being written: say so and go on
            print(f"  {variant:16s} skipped: {type(error).__name__}: {error}")
            continue
        rates[variant] = rate(engine, args.seconds, args.seed)
        print(f"  {variant:16s} {rates[variant]:9,.0f} plies/s")

    if "copenhagen" in rates and "alea-evangelii" in rates:
        share = rates["alea-evangelii"] / rates["copenhagen"]
        print(f"19x19 (alea-evangelii) runs at {share:.2f} of 11x11 (copenhagen)")

    theirs = pyhnefatafl()
    if theirs is None:
        print("pyhnefatafl is not installed (pip install pyhnefatafl==0.3.2): no comparison")
    else:
        print(f"copenhagen against pyhnefatafl 0.3.2, {args.rounds} alternating rounds:")
        mine, their = [], []
        for round_ in range(args.rounds):
            mine.append(rate(ours("copenhagen"), args.seconds, args.seed + round_))
            their.append(rate(theirs, args.seconds, args.seed + round_))
            print(f"  round {round_ + 1}: {mine[-1]:9,.0f} against {their[-1]:7,.0f} plies/s")
        ratio = statistics.median(mine) / statistics.median(their)
        print(f"copenhagen is {ratio:.1f}x pyhnefatafl 0.3.2 (medians)")

    print(f"import engine: {import_time() * 1000:.1f} ms (fresh interpreter, best of 7)")


if __name__ == "__main__":
    main()
