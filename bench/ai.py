"""AI strength per second: search speed and depth, and matches against the old AI and random play.

    python bench/ai.py [--variants brandubh,copenhagen,tablut,halatafl] [--games 10]
                       [--seconds 0.2] [--max-plies 120] [--old 8f55938] [--seed 1] [--depth D]

Per variant: nodes per second and the depth completed in 0.5 s and 1 s from the start and from
a position ten random plies in; then ``--games`` games of the AI (engine/ai.py) against the AI
of commit ``--old`` (engine/ai.py as it was there, loaded from git into a temporary module) and
against a random player, at ``--seconds`` per move, sides alternating. Each pair of games starts
from the same two random opening plies (Halatafl's first move otherwise decides too much), with
the sides swapped. A game still running after ``--max-plies`` plies counts as a draw.
``--games 0`` prints the search figures alone; ``--depth D`` replaces the timed figures with
the nodes and CPU time of a search to depth D (steadier on a busy machine). The "10 plies in"
position is the first one (from ``--seed`` on) where a 3-ply search finds no forced result; the
start of Halatafl is one: White wins at once by jumping into d4 from b2, d2 or f2, leaving Black
no move.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import Game, Move  # noqa: E402
from engine import ai as new_ai  # noqa: E402

OLD_AI = "8f55938"
"""The last commit with the AI before the transposition-table keys, quiescence and bitboard
evaluation."""
OPENING_PLIES = 2
FORCED_MARGIN = 1_000
"""Scores this close to a win are forced results."""
Player = Callable[[Game, float, int], Move]


def refuse_unknown_commit(parser: argparse.ArgumentParser, commit: str | None) -> None:
    """Stop with ``parser``'s one-line error when ``--old``'s ``commit`` has no engine/ai.py in
    this repository's history (before any worker loads it)."""
    if commit is None:
        return
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}:engine/ai.py"], cwd=ROOT, capture_output=True
    )
    if found.returncode != 0:
        parser.error(f"--old: no engine/ai.py at {commit!r} in this repository's history")


def load_old_ai(commit: str) -> ModuleType:
    """engine/ai.py as it was at ``commit``, as a module of its own. Only that file comes from
    the commit: it imports the rest of the engine as it is now, so an older AI runs in this
    tree, but an AI newer than the tree (say, one calling a function the tree lacks) does not."""
    source = subprocess.run(
        ["git", "show", f"{commit}:engine/ai.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_ai.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_ai", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_ai"] = module
    spec.loader.exec_module(module)
    return module


def search_figures(module: ModuleType, game: Game, seconds: float) -> tuple[float, str]:
    """Nodes per second and the depth completed by ``module``'s search in ``seconds`` (marked
    "forced" when the search stopped there on a won or lost score)."""
    search_class = getattr(module, "Search", None) or module._Search
    completed = [0, 0]

    class Counting(search_class):  # type: ignore[misc, valid-type]
        def _root(self, moves: list[Move], depth: int, previous: Move) -> Any:
            found = super()._root(moves, depth, previous)
            completed[:] = [depth, found[1]]
            return found

    start = time.perf_counter()
    search = Counting(game, start + seconds)
    search.best_move(game.legal_moves(), module.MAX_DEPTH)
    elapsed = time.perf_counter() - start
    depth, score = completed
    forced = " (forced)" if abs(score) >= module.WIN - FORCED_MARGIN else ""
    return search.nodes / elapsed, f"{depth}{forced}"


def fixed_depth_figures(module: ModuleType, game: Game, depth: int) -> tuple[int, float]:
    """The nodes and the CPU seconds of ``module``'s search to ``depth`` plies: the count is
    repeatable and CPU time is less disturbed than wall time by other work on the machine."""
    search_class = getattr(module, "Search", None) or module._Search
    search = search_class(game, time.perf_counter() + 3600)
    start = time.process_time()
    search.best_move(game.legal_moves(), depth)
    return search.nodes, time.process_time() - start


def open_position(variant: str, plies: int, seed: int) -> Game:
    """The start, or a position ``plies`` random plies in where a 3-ply search finds no
    forced result."""
    if not plies:
        return Game(variant)
    while True:
        game = random_position(variant, plies, random.Random(seed))
        search = new_ai.Search(game, time.perf_counter() + 60)
        search.best_move(game.legal_moves(), 3)
        if abs(search.score) < new_ai.WIN - FORCED_MARGIN:
            return game
        seed += 1


def random_position(variant: str, plies: int, rng: random.Random) -> Game:
    """A game ``plies`` random plies in (none of them ending it)."""
    while True:
        game = Game(variant)
        for _ in range(plies):
            game.push(rng.choice(game.legal_moves()))
            if game.outcome is not None:
                break
        if game.outcome is None:
            return game


def ai_player(module: ModuleType) -> Player:
    def play(game: Game, seconds: float, seed: int) -> Move:
        move: Move = module.choose_move(game, time_limit=seconds, seed=seed)
        return move

    return play


def random_player(game: Game, seconds: float, seed: int) -> Move:
    return random.Random(seed).choice(game.legal_moves())


def match(
    variant: str, opponent: Player, games: int, seconds: float, max_plies: int, seed: int
) -> tuple[int, int, int, float]:
    """The new AI's wins, draws and losses against ``opponent``, and its longest think."""
    wins = draws = losses = 0
    longest = 0.0
    new = ai_player(new_ai)
    for number in range(games):
        rng = random.Random(seed * 1000 + number // 2)
        game = random_position(variant, OPENING_PLIES, rng)
        new_side = game.turn if number % 2 == 0 else game.turn.opponent
        for ply in range(max_plies):
            if game.outcome is not None:
                break
            if game.turn == new_side:
                start = time.perf_counter()
                move = new(game, seconds, seed + ply)
                longest = max(longest, time.perf_counter() - start)
            else:
                move = opponent(game, seconds, seed + ply)
            game.push(move)
        winner = game.outcome.winner if game.outcome is not None else None
        if winner is None:
            draws += 1
        elif winner == new_side:
            wins += 1
        else:
            losses += 1
    return wins, draws, losses, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="brandubh,copenhagen,tablut,halatafl")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=0.2)
    parser.add_argument("--max-plies", type=int, default=120)
    parser.add_argument("--old", default=OLD_AI, help="the commit whose engine/ai.py to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--depth", type=int, default=0, help="search to this depth instead of 0.5 s and 1 s"
    )
    args = parser.parse_args()
    refuse_unknown_commit(parser, args.old)
    old_ai = load_old_ai(args.old)
    print(f"new = engine/ai.py (working tree), old = engine/ai.py at {args.old}")
    for variant in args.variants.split(","):
        print(f"\n{variant}")
        for plies in (0, 10):
            label = "start" if plies == 0 else f"{plies} plies in"
            for name, module in (("new", new_ai), ("old", old_ai)):
                if args.depth:
                    nodes, cpu = fixed_depth_figures(
                        module, open_position(variant, plies, args.seed), args.depth
                    )
                    print(
                        f"  {label:11} {name}: {nodes / cpu:7.0f} nodes/s CPU, {nodes} nodes to "
                        f"depth {args.depth} in {cpu:.2f} s"
                    )
                    continue
                figures = [
                    search_figures(module, open_position(variant, plies, args.seed), seconds)
                    for seconds in (0.5, 1.0)
                ]
                print(
                    f"  {label:11} {name}: {figures[1][0]:7.0f} nodes/s, depth {figures[0][1]} "
                    f"at 0.5 s, {figures[1][1]} at 1 s"
                )
        if not args.games:
            continue
        for name, opponent in (("old AI", ai_player(old_ai)), ("random", random_player)):
            w, d, lost, longest = match(
                variant, opponent, args.games, args.seconds, args.max_plies, args.seed
            )
            print(
                f"  new vs {name}: +{w} ={d} -{lost} over {args.games} games at "
                f"{args.seconds} s/move (longest think {longest:.3f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
