"""How long the AI really thinks against its time limit, per variant: self-play on busy cores.

    python bench/thinks.py [--seconds 0.1] [--games 6] [--plies 200] [--processes 2]
                           [--variants halatafl,copenhagen] [--old COMMIT]

Per variant, ``--games`` games of the AI against itself from two random opening plies, at most
``--plies`` plies each, ``--processes`` games at once (as many as the cores: the thinks then
compete for the machine as they do in the bot's worker processes under load). Prints, per
variant, the thinks, how many went over the limit (and how many of those used more CPU time
than the limit: the others were held up by the machine, not by the search), the 99th percentile
and the longest with its CPU time, in milliseconds. With ``--old``, the AI of that commit
(loaded from git as bench/ai.py does) plays the same games in the same way, and its figures are
printed beside.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai import OPENING_PLIES, load_old_ai, random_position  # noqa: E402
from engine import VARIANTS  # noqa: E402
from engine import ai as current_ai  # noqa: E402

_modules: dict[str, ModuleType] = {}
"""The AIs by commit ("" for the current one), loaded once per worker process."""


def _ai(commit: str) -> ModuleType:
    if commit not in _modules:
        _modules[commit] = load_old_ai(commit) if commit else current_ai
    return _modules[commit]


def thinks(
    commit: str, variant: str, seed: int, seconds: float, plies: int
) -> list[tuple[float, float]]:
    """Every think of one self-play game: its length and the CPU time it used, in seconds."""
    ai = _ai(commit)
    game = random_position(variant, OPENING_PLIES, random.Random(seed))
    lengths: list[tuple[float, float]] = []
    for ply in range(plies):
        if game.outcome is not None:
            break
        start, start_cpu = time.perf_counter(), time.process_time()
        move = ai.choose_move(game, time_limit=seconds, seed=ply)
        lengths.append((time.perf_counter() - start, time.process_time() - start_cpu))
        game.push(move)
    return lengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--plies", type=int, default=200)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--old", default="", help="also measure the AI of this commit")
    args = parser.parse_args()
    variants = args.variants.split(",")
    commits = ["", args.old] if args.old else [""]
    jobs = [(c, v, seed) for c in commits for v in variants for seed in range(args.games)]
    with ProcessPoolExecutor(args.processes) as pool:
        futures = {job: pool.submit(thinks, *job, args.seconds, args.plies) for job in jobs}
        results = {job: future.result() for job, future in futures.items()}
    print(f"self-play at {args.seconds} s a move, {args.processes} games at once")
    print(
        f"{'variant':16} {'AI':8} {'thinks':>7} {'over':>5} {'over in CPU':>12} "
        f"{'p99 ms':>8} {'longest ms':>11} {'its CPU ms':>11}"
    )
    for variant in variants:
        for commit in commits:
            played = [
                think
                for (c, v, _), game_thinks in results.items()
                if (c, v) == (commit, variant)
                for think in game_thinks
            ]
            if len(played) < 2:
                continue
            walls = [wall for wall, _ in played]
            over = sum(wall > args.seconds for wall in walls)
            over_cpu = sum(wall > args.seconds and cpu > args.seconds for wall, cpu in played)
            p99 = statistics.quantiles(walls, n=100)[98]
            longest, its_cpu = max(played)
            print(
                f"{variant:16} {commit or 'current':8} {len(played):7} {over:5} {over_cpu:12} "
                f"{p99 * 1000:8.1f} {longest * 1000:11.1f} {its_cpu * 1000:11.1f}"
            )


if __name__ == "__main__":
    main()
