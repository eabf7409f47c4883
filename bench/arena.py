"""The AI levels against each other, or this AI against an older one: scores with 95% intervals.

    python bench/arena.py [--variants brandubh,copenhagen] [--games 10] [--time-scale 0.2]
                          [--max-plies N] [--processes 2] [--seed 1]
    python bench/arena.py --old 8f55938 [--seconds 0.2] [...]
    python bench/arena.py --book [--seconds 0.2] [...]
    python bench/arena.py --engine 'java -cp /opt/opentafl Harness' [--seconds 1] [...]
    python bench/arena.py [...] --records games/   # and each game's record (OpenTafl's format)
    python bench/arena.py [...] --rules "dim:7 esc:e start:/3t3/..."  # an OpenTafl rules string too

Levels: each level of engine/ai.py's LEVELS plays the one below it, ``--games`` games per variant;
the levels that search by time (no depth limit) think ``--time-scale`` times their own time, so
that a short run keeps their ratio (the others stop at their depth as they would). Versions
(``--old``): engine/ai.py as it is plays engine/ai.py as it was at that commit (loaded from git as
bench/ai.py does), both through ``choose_move`` at ``--seconds`` per move. Book (``--book``): the
AI with its opening book (engine/book.py) plays the same AI without it, from the variant's start
instead of a random opening, at ``--seconds`` per move. Engine (``--engine``): this AI against an
independent engine, both at ``--seconds`` per move, our engine refereeing the variant as the engine
reads its OpenTafl rules string (without our own entries, repetition a draw: printed where that
differs). The engine is a command that reads lines and answers each with one line: ``rules
<OpenTafl rules string>`` (a new game; ``ok``), ``moves <the game's moves from its start, in
OpenTafl notation>`` (``ok``, or ``error <why>``), ``position`` (``position <the board in
OpenTafl's notation>``, which must be ours) and ``think <seconds>`` (``move <a1-a4>``: its move for
the side to move); it ends when its input does. A move our engine refuses, a board that differs
from ours (the two read the rules apart) or an engine that fails leaves the game out of the scores,
and is printed.

Games come in pairs from the same random two-ply opening with the sides swapped; a game still
running after ``--max-plies`` plies is a draw (by default 200, twice that on a board larger than
13x13: Alea Evangelii's games run longer). Per pairing and variant, and over all variants,
it prints wins, draws and losses of the stronger side, its score with a 95% confidence interval
(Wilson's, per game) and the Elo difference that score means (and its interval's), the same
for each side the stronger one played (where a variant favours one side, the score as the other
shows what the pair of games can give), then
whether every level scores at least 70% against the one below. Games run in up to two
processes (``--processes``), which collect garbage between moves and not during a search (as
engine/ai.py itself sees to, and older AIs did not); the longest think per player, and how many
thinks went over the player's limit, are printed to check the ceilings.
"""

from __future__ import annotations

import argparse
import gc
import math
import multiprocessing
import random
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.ai import (  # noqa: E402
    OPENING_PLIES,
    ai_player,
    load_old_ai,
    random_position,
    refuse_unknown_commit,
)
from engine import VARIANTS, Game, Move, Rules, TaflError  # noqa: E402
from engine import ai as current_ai  # noqa: E402
from engine.ai import LEVELS, Level, choose_move_at  # noqa: E402
from engine.opentafl import as_opentafl_plays, rules_to_opentafl  # noqa: E402
from engine.record import to_opentafl_record  # noqa: E402

TARGET = 0.70
"""What each level must score against the one below."""
Z95 = 1.96
_old_ai: ModuleType | None = None
"""The older AI, loaded once per worker process."""
_engine: Engine | None = None
"""The independent engine, started once per worker process."""
ENGINE = "engine"
"""The independent engine's name as a player."""
MAX_PLIES = 200
"""The plies before a game is called a draw, by default; twice as many on a board larger than
``LARGE_BOARD``."""
LARGE_BOARD = 13


def max_plies_for(variant: str, given: int | None) -> int:
    """The plies a game of ``variant`` (a preset's name or an OpenTafl rules string) may last:
    ``given``, else the default for its board."""
    if given is not None:
        return given
    return 2 * MAX_PLIES if Game(variant).size > LARGE_BOARD else MAX_PLIES


class EngineFailed(Exception):
    """The independent engine did not answer as the protocol says, or chose a move our engine
    refuses: the game tells nothing of strength."""


class Engine:
    """An independent engine in a process of its own, spoken to by lines (see the module's
    docstring)."""

    def __init__(self, command: str) -> None:
        self.command = command
        self._process = subprocess.Popen(
            shlex.split(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def close(self) -> None:
        """End its input, and wait for it to exit."""
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()

    def ask(self, line: str) -> str:
        """Send ``line``; the engine's one-line answer."""
        assert self._process.stdin is not None and self._process.stdout is not None
        try:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
        except BrokenPipeError as error:
            raise EngineFailed(f"{self.command!r} exited") from error
        answer = self._process.stdout.readline()
        if not answer:
            raise EngineFailed(f"{self.command!r} exited after {line.split()[0]!r}")
        return answer.strip()

    def move(self, game: Game, seconds: float) -> Move:
        """The engine's move in ``game`` (replayed to it from its start, which the rules sent
        give as theirs), after ``seconds``."""
        position, first = game.start
        for line in (
            f"rules {rules_to_opentafl(replace(game.rules, start=position, first=first))}",
            "moves " + " ".join(ply.notation for ply in game.history),
        ):
            answer = self.ask(line)
            if answer != "ok":
                raise EngineFailed(f"{line.split()[0]}: {answer}")
        board = self.ask("position").removeprefix("position ")
        if board != game.position():
            last = game.history[-1].notation if game.history else "the start"
            raise EngineFailed(f"after {last}, its board is {board}, ours {game.position()}")
        answer = self.ask(f"think {seconds:g}")
        notation = answer.removeprefix("move ").strip()
        try:
            return game.parse_move(notation)
        except TaflError as error:
            failure = f"its move {answer!r} after {len(game.history)} plies: {error}"
            raise EngineFailed(failure) from error


@dataclass(frozen=True)
class Task:
    """One game: ``first`` and ``second`` are the two players' names (a level's, or "new" and
    "old" for the versions); ``first`` plays the side to move after the opening when ``swap``
    is false."""

    variant: str
    first: str
    second: str
    pair: int
    swap: bool
    time_scale: float
    seconds: float
    max_plies: int
    seed: int
    opening_plies: int = OPENING_PLIES
    """Random plies before the players take over."""
    records: Path | None = None
    """Where to write the game's record, if anywhere."""


@dataclass(frozen=True)
class Result:
    task: Task
    score: float
    """``first``'s score: 1 win, 0.5 draw, 0 loss."""
    first_side: str
    """The side ``first`` played (attackers or defenders; white or black)."""
    longest: dict[str, float]
    """The longest think of each player, in seconds."""
    thinks: dict[str, int]
    over: dict[str, int]
    """Per player, the moves it thought over and how many of those took longer than its limit."""
    failure: str | None = None
    """Why the independent engine's game tells nothing (``EngineFailed``), if it does not."""


def _move(name: str, task: Task, game: Game, seed: int) -> Move:
    if name == "new":
        return ai_player(current_ai)(game, task.seconds, seed)
    if name == "old":
        assert _old_ai is not None
        return ai_player(_old_ai)(game, task.seconds, seed)
    if name == ENGINE:
        assert _engine is not None
        return _engine.move(game, task.seconds)
    if name in ("book", "no book"):
        return current_ai.choose_move(game, time_limit=task.seconds, seed=seed, book=name == "book")
    return choose_move_at(game, _scaled(LEVELS[name], task.time_scale), seed=seed)


def _limit(name: str, task: Task) -> float:
    """The time ``name`` may think per move."""
    if name in LEVELS:
        return _scaled(LEVELS[name], task.time_scale).seconds
    return task.seconds


def _scaled(level: Level, time_scale: float) -> Level:
    """``level`` with its time scaled, when time is what limits it (not a depth)."""
    return level if level.depth else replace(level, seconds=level.seconds * time_scale)


def play(task: Task) -> Result:
    """Play one game of ``task``."""
    rng = random.Random(task.seed * 1000 + task.pair)
    game = random_position(task.variant, task.opening_plies, rng)
    first_side = game.turn.opponent if task.swap else game.turn
    longest = {task.first: 0.0, task.second: 0.0}
    thinks = {task.first: 0, task.second: 0}
    over = {task.first: 0, task.second: 0}
    for _ in range(task.max_plies):
        if game.outcome is not None:
            break
        name = task.first if game.turn == first_side else task.second
        gc.collect()
        start = time.perf_counter()
        try:
            move = _move(name, task, game, rng.randrange(1 << 30))
        except EngineFailed as failure:
            return Result(task, 0.5, first_side.value, longest, thinks, over, str(failure))
        took = time.perf_counter() - start
        longest[name] = max(longest[name], took)
        thinks[name] += 1
        over[name] += took > _limit(name, task)
        game.push(move)
    winner = game.outcome.winner if game.outcome is not None else None
    score = 0.5 if winner is None else float(winner == first_side)
    if task.records is not None:
        names = {first_side: task.first, first_side.opponent: task.second}
        tags = {str(side): name for side, name in names.items()}
        write_record(
            task.records, f"{game.rules.name}-{task.pair}{'b' if task.swap else 'a'}", game, tags
        )
    return Result(task, score, first_side.value, longest, thinks, over)


def write_record(folder: Path, name: str, game: Game, tags: dict[str, str]) -> None:
    """``game``'s record (OpenTafl's format, ``tags`` first) written to ``folder``, in a file
    named after ``name`` (its words joined by underscores, in lower case)."""
    stem = re.sub(r"[^\w-]+", "_", name).strip("_").lower()
    (folder / f"{stem}.txt").write_text(to_opentafl_record(game, tags))


def _start_worker(old_commit: str | None, engine: str | None) -> None:
    """Load the older AI or start the independent engine, and collect garbage only between
    moves: older AIs do not hold off the cycle collector while they think, as engine/ai.py now
    does."""
    global _old_ai, _engine
    gc.disable()
    if old_commit is not None:
        _old_ai = load_old_ai(old_commit)
    if engine is not None:
        _engine = Engine(engine)


@dataclass(frozen=True)
class Tally:
    """The stronger side's results over some games."""

    wins: int
    draws: int
    losses: int
    score: float
    low: float
    high: float

    @classmethod
    def of(cls, results: list[Result]) -> Tally:
        scores = [r.score for r in results]
        low, high = wilson(statistics.fmean(scores), len(scores))
        return cls(
            scores.count(1.0),
            scores.count(0.5),
            scores.count(0.0),
            statistics.fmean(scores),
            low,
            high,
        )


def wilson(score: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a score over ``games`` games (a draw counts as half a win, which
    makes it wider than it need be, never narrower)."""
    z2 = Z95 * Z95
    centre = (score + z2 / (2 * games)) / (1 + z2 / games)
    margin = Z95 * math.sqrt(score * (1 - score) / games + z2 / (4 * games * games))
    margin /= 1 + z2 / games
    return max(0.0, centre - margin), min(1.0, centre + margin)


def elo(score: float) -> float:
    """The rating difference that makes ``score`` the expected score (infinite at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1) + 0.0


def _as_engine_plays(variant: str) -> str:
    """``variant`` as the independent engine plays it: the OpenTafl rules string it is sent,
    which leaves out our own entries and reads our repetition rule as a draw (printed where
    that differs from the variant), so that both engines referee the same game."""
    rules = Game(variant).rules
    played = as_opentafl_plays(rules)
    differ = [f.name for f in fields(Rules) if getattr(rules, f.name) != getattr(played, f.name)]
    if not differ:
        return variant
    print(f"{rules.name}: played as the engine reads its rules string, {', '.join(differ)} apart")
    return rules_to_opentafl(played)


def _row(label: str, tally: Tally) -> str:
    games = tally.wins + tally.draws + tally.losses
    return (
        f"{label:32} {games:5}  +{tally.wins:<3} ={tally.draws:<3} -{tally.losses:<3} "
        f"{tally.score:6.1%}  [{tally.low:6.1%}, {tally.high:6.1%}]  "
        f"{elo(tally.score):+6.0f} [{elo(tally.low):+.0f}, {elo(tally.high):+.0f}]"
    )


def tasks(pairings: list[tuple[str, str]], args: argparse.Namespace) -> Iterable[Task]:
    for variant in args.variants:
        for stronger, weaker in pairings:
            for number in range(args.games):
                yield Task(
                    variant,
                    stronger,
                    weaker,
                    number // 2,
                    number % 2 == 1,
                    args.time_scale,
                    args.seconds,
                    max_plies_for(variant, args.max_plies),
                    args.seed,
                    0 if args.book else OPENING_PLIES,
                    args.records,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="brandubh,copenhagen")
    parser.add_argument(
        "--rules", action="append", default=[], help="an OpenTafl rules string to play too"
    )
    parser.add_argument("--games", type=int, default=10, help="games per pairing and variant")
    parser.add_argument(
        "--time-scale", type=float, default=0.2, help="times each level's own think time"
    )
    parser.add_argument("--old", help="play this commit's engine/ai.py instead of the levels")
    parser.add_argument("--book", action="store_true", help="the AI with its book against without")
    parser.add_argument("--engine", help="play this independent engine's command (see above)")
    parser.add_argument(
        "--seconds", type=float, default=0.2, help="per move, with --old, --book or --engine"
    )
    parser.add_argument(
        "--max-plies",
        type=int,
        help=f"a draw after this many plies (default {MAX_PLIES}, more on large boards)",
    )
    parser.add_argument(
        "--records", type=Path, help="write each game's record (OpenTafl's format) to this folder"
    )
    parser.add_argument("--processes", type=int, default=2, choices=(1, 2))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.games < 2 or args.games % 2:
        parser.error("--games must be even and at least 2 (games come in pairs)")
    if (
        not args.time_scale > 0
        or args.seconds < 0
        or (args.max_plies is not None and args.max_plies < 1)
    ):
        parser.error("--time-scale must be above 0, --seconds 0 or more, --max-plies 1 or more")
    if args.records is not None:
        args.records.mkdir(parents=True, exist_ok=True)
    presets = [v for v in args.variants.split(",") if v]  # --variants "": the --rules only
    unknown = [v for v in presets if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant {unknown[0]!r}: one of {', '.join(VARIANTS)}")
    args.variants = presets + args.rules
    if not args.variants:
        parser.error("no variant to play: give --variants or --rules")
    for rules in args.rules:
        try:
            Game(rules)
        except TaflError as error:
            parser.error(f"--rules {rules!r}: {error}")
    refuse_unknown_commit(parser, args.old)
    if sum(map(bool, (args.old, args.book, args.engine))) > 1:
        parser.error("--old, --book and --engine measure different things: give one")
    if args.engine:
        pairings = [("new", ENGINE)]
        print(f"new = engine/ai.py (working tree), {ENGINE} = {args.engine}, ", end="")
        print(f"{args.seconds} s per move")
        args.variants = [_as_engine_plays(variant) for variant in args.variants]
    elif args.book:
        pairings = [("book", "no book")]
        print(f"engine/ai.py with its opening book against without, {args.seconds} s per move,")
        print("from each variant's start")
    elif args.old:
        pairings = [("new", "old")]
        print(f"new = engine/ai.py (working tree), old = engine/ai.py at {args.old}, ", end="")
        print(f"{args.seconds} s per move")
    else:
        names = list(LEVELS)
        pairings = list(zip(names[1:], names, strict=False))
        print("levels at", ", ".join(_describe(LEVELS[n], args.time_scale) for n in names))
    print(f"{args.games} games per pairing and variant, {args.processes} processes, ", end="")
    limits = sorted({max_plies_for(variant, args.max_plies) for variant in args.variants})
    print(f"draw after {' or '.join(map(str, limits))} plies, seed {args.seed}\n")
    start = time.perf_counter()
    context = multiprocessing.get_context("fork")
    with context.Pool(args.processes, _start_worker, (args.old, args.engine)) as pool:
        played = pool.map(play, list(tasks(pairings, args)), chunksize=1)
    results = [r for r in played if r.failure is None]
    for r in played:
        if r.failure is not None:
            print(
                f"left out: {r.task.variant} game {r.task.pair}{'b' if r.task.swap else 'a'}: ",
                end="",
            )
            print(r.failure)
    longest: dict[str, float] = {}
    thinks: dict[str, int] = {}
    over: dict[str, int] = {}
    print(f"{'pairing (stronger first)':32} {'games':>5}  {'results':14}{'score':>6}  ", end="")
    print(f"{'95% interval':18}  Elo [95% interval]")
    totals: list[tuple[str, Tally]] = []
    for stronger, weaker in pairings:
        mine = [r for r in results if (r.task.first, r.task.second) == (stronger, weaker)]
        for variant in args.variants:
            here = [r for r in mine if r.task.variant == variant]
            label = variant if variant in VARIANTS else Game(variant).rules.name
            if not here:
                print(f"{stronger} v {weaker}, {label}: no game counted")
                continue
            print(_row(f"{stronger} v {weaker}, {label}", Tally.of(here)))
            for side in sorted({r.first_side for r in here}):
                as_side = [r for r in here if r.first_side == side]
                print(_row(f"  {stronger} as {side}", Tally.of(as_side)))
        if not mine:
            continue
        totals.append((stronger, Tally.of(mine)))
        print(_row(f"{stronger} v {weaker}, all", totals[-1][1]))
        for r in mine:
            for name, seconds in r.longest.items():
                longest[name] = max(longest.get(name, 0.0), seconds)
                thinks[name] = thinks.get(name, 0) + r.thinks[name]
                over[name] = over.get(name, 0) + r.over[name]
    print("\nlongest think:", ", ".join(f"{n} {s:.2f} s" for n, s in longest.items()))
    print("over the limit:", ", ".join(f"{n} {over[n]} of {thinks[n]:,}" for n in thinks))
    if not args.old and not args.book and not args.engine:
        met = all(tally.score >= TARGET for _, tally in totals)
        scores = ", ".join(f"{name} {tally.score:.0%}" for name, tally in totals)
        print(
            f"each level >= {TARGET:.0%} against the one below: {'yes' if met else 'NO'} ({scores})"
        )
    print(f"{len(results)} games in {time.perf_counter() - start:.0f} s")


def _describe(level: Level, scale: float) -> str:
    level = _scaled(level, scale)
    limits = f"{level.seconds:g} s" + (f", depth {level.depth}" if level.depth else "")
    chance = f", noise {level.noise}" if level.noise else ""
    chance += f", {level.random_share:.0%} random" if level.random_share else ""
    return f"{level.name} ({limits}{chance})"


if __name__ == "__main__":
    main()
