"""Endgames: from positions where the defenders are down to a few men, how often and how fast the
AI as attackers converts (captures the king, or encircles) against the AI defending.

The positions come from the real games in tests/data of the variants of ``--real`` (Copenhagen,
Brandubh): in each game, the first position where the defenders have at most ``--men`` men
beside the king and the attackers at least ``--attackers``, with the attackers to move; and, for
every variant of ``--random``, random ones: the king on a square that is not an escape square, a
third to two thirds of the variant's attackers (at least ``--attackers``) and at most ``--men``
defenders on free squares, the attackers to move, kept when the king has no open line, nobody
can win at once and a 4-ply search finds no forced escape; and those of each ``--positions``
file (bench/positions/; the option repeats). Both sides are played by the same AI at ``--time``
seconds a move, or ``--nodes`` nodes a move (the same games on any machine and load: figures
that runs, and changes, can be compared by), for at most ``--plies`` plies; ``--seeds`` plays
each position that many times, the AI choosing among equal moves by another seed each time.

Prints per variant: positions, the attackers' wins within the limit (and their mean length),
the defenders' wins, and the games still open or drawn; for the real games' positions, also how
many of those the attackers went on to win in the real game the AI converted (a position the
defenders won for real may be lost for the attackers whoever plays it); with ``--show``, every
position not converted, where it came from and where it ended. Positions where a 4-ply search
finds that the defenders win whatever the attackers do (the king escapes by force), and those
``bench.proofs`` proves held (whatever the attackers do, the king escapes or the game comes round
to a repetition, which the variant makes a draw), are counted, and the conversions are also given
without them: nobody converts those. The issue's goal: the attackers convert at least 90% of
lone-king positions within 60 plies.

With ``--engine CMD`` the defenders are an independent engine instead (bench/arena.py's
protocol), at the same time a move, and the game is played as the engine plays the rules: the
position is sent as its start, and repetition counts as the engine's rules string says (OpenTafl
reads Copenhagen's "a third repetition loses for the defenders" as a draw). With
``--engine-attacks`` the engine takes the attackers and the AI defends: the same positions, to
compare our technique with the engine's. A game the engine fails in, or whose board differs from
ours, is printed and left out.

With ``--old COMMIT`` the defenders are the AI of that commit (its engine/ai.py, loaded from git,
as in bench/forts.py) at the same pace: in self-play a change to the evaluation changes the
defence as much as the attack, and a conversion may only say that the defenders got worse;
against a fixed defence it says what the attackers do. With ``--old-attacks`` that AI takes the
attackers instead: what a change does to the defence, against a fixed attack.

Run from the repository root: ``python bench/endgames.py [--time 0.2 | --nodes 20000]
[--seeds 1] [--plies 60] [--men 0] [--limit 20] [--real copenhagen,brandubh]
[--random brandubh,tablut,copenhagen] [--positions FILE]... [--processes 2] [--show]
[--engine CMD [--engine-attacks] | --old COMMIT [--old-attacks]] [--records DIR]``; ``--records``
writes each game's record (OpenTafl's format, from its start position) to a folder, to replay
with ``tafl replay``.

``python bench/endgames.py --compare BEFORE AFTER`` reads two such folders (two runs of the same
positions, say before and after a change to the AI) and prints, for the games both played (the
same position and seed), each run's results, the men each side lost, the attackers' points game
by game with a sign test (how often chance alone would change as many games as one-sidedly), and
every game whose result differs: what a change did, game by game, without playing anything.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ai import load_old_ai, refuse_unknown_commit  # noqa: E402
from bench.arena import Engine, EngineFailed, wilson, write_record  # noqa: E402
from bench.proofs import defenders_hold, going_round_holds  # noqa: E402
from engine import Game, Move, Piece, Side, TaflGame  # noqa: E402
from engine import ai as current_ai  # noqa: E402
from engine.ai import _WON, Search, _immediate_win, _Tafl  # noqa: E402
from engine.opentafl import as_opentafl_plays, format_position  # noqa: E402
from engine.record import game_from_record, parse_data_line  # noqa: E402
from engine.tafl import tables_for  # noqa: E402

DATA = ROOT / "tests" / "data"
LOST_DEPTH = 4
LOST_SECONDS = 20.0
"""The search that tells a position already lost for the attackers: its depth, and the time it
may take (a search cut short tells nothing)."""
HELD_PLIES = 10
HELD_BUDGET = 3_000_000
"""The proof that the defenders hold a position: how many plies it looks ahead at most (it tries
1, 2, ... in turn), and how many positions it may try in all (some 20 s a Brandubh position)."""
VARIANTS = {"copenhagen": DATA / "copenhagen.csv", "brandubh": DATA / "brandubh.csv"}
FAILED = "engine failed"
"""The reason of a game the independent engine failed in: it tells nothing of technique."""
_engine: Engine | None = None
"""The independent engine, started once per worker process."""
_old_ai: ModuleType | None = None
"""With ``--old``: the AI of that commit (per worker process)."""
_their_side = Side.DEFENDERS
"""The side the engine or the older AI plays (never both in one run)."""


@dataclass(frozen=True)
class Start:
    """An endgame position: variant, OTN position, the game and ply it came from, (for a real
    game's position) who won that game, and (where its maker has asked) ``lost_at_start``."""

    variant: Any
    """A variant's name, or its rules."""
    position: str
    source: str
    real_winner: Side | None = None
    lost: bool | None = None

    def as_engine_plays(self) -> Start:
        """This start in the variant as OpenTafl plays its rules string (repetition, above all,
        which OpenTafl cannot score as a loss for the defenders)."""
        return replace(self, variant=as_opentafl_plays(Game(self.variant).rules))

    def game(self) -> Game:
        """The game from this position, the attackers to move, under the variant's own rules:
        the AI sees the men the defenders had at the variant's start (its evaluation slides
        to the ending's weights as they fall), as it would in a game played from there. A game
        whose rules began at this position had them start with the men they have now, and
        played every ending with men as the middlegame."""
        return Game.from_position(self.variant, self.position, Side.ATTACKERS)


@dataclass(frozen=True)
class Pace:
    """How long the AI thinks on a move: ``seconds``, or ``nodes`` when not 0; and the seed it
    chooses among equal moves by (with the ply)."""

    seconds: float
    nodes: int = 0
    seed: int = 0

    def move(self, game: Game, ai: ModuleType = current_ai) -> Move:
        """``ai``'s move (engine/ai.py, or an older one loaded from git) at this pace."""
        seed = self.seed * 10_000 + len(game.history)
        move: Move
        if self.nodes:
            move = ai.choose_move(game, time_limit=self.nodes, seed=seed, clock=ai.NodeClock())
        else:
            move = ai.choose_move(game, time_limit=self.seconds, seed=seed)
        return move


@dataclass(frozen=True)
class Verdict:
    """What is known of a position before it is played: no technique converts it when either
    holds."""

    lost: bool
    """A search of ``LOST_DEPTH`` plies finds that the defenders win whatever the attackers
    play."""
    held: bool
    """``defenders_hold`` proves that the attackers cannot win it."""

    @property
    def convertible(self) -> bool:
        return not (self.lost or self.held)

    def describe(self) -> str:
        return "lost at the start" if self.lost else "held at the start" if self.held else ""


@dataclass(frozen=True)
class Result:
    start: Start
    winner: Side | None
    plies: int
    reason: str
    final: str
    """The last position, in OTN."""
    verdict: Verdict


def endgames(variant: str, men: int, attackers: int) -> Iterator[Start]:
    """The first qualifying position (attackers to move) of each recorded game of ``variant``."""
    for number, line in enumerate(VARIANTS[variant].read_text().splitlines(), start=1):
        if not line.strip():
            continue
        game = Game(variant)
        record = parse_data_line(line)
        for ply_number, recorded in enumerate(record.moves, start=1):
            if game.outcome is not None:
                break
            game.play(recorded.move)
            counts = {piece: 0 for piece in Piece}
            for piece in game.pieces().values():
                counts[piece] += 1
            if (
                game.outcome is None
                and game.turn is Side.ATTACKERS
                and counts[Piece.KING] == 1
                and counts[Piece.DEFENDER] <= men
                and counts[Piece.ATTACKER] >= attackers
            ):
                source = f"game {number}, ply {ply_number}"
                yield Start(variant, game.position(), source, record.result.outcome_winner)
                break


def random_endgames(variant: str, men: int, attackers: int, count: int) -> Iterator[Start]:
    """``count`` random positions of ``variant``: the king, at most ``men`` defenders and a third
    to two thirds of the attackers it starts with (at least ``attackers``), the attackers to
    move, nobody winning at once, and no forced escape that the 4-ply search sees (a king set
    down at random mostly walks out: in Brandubh 17 positions of 20, in Copenhagen 13, which
    measured nothing but that)."""
    rng = random.Random(variant)
    start = Game(variant)
    size = start.size
    at_start = sum(piece is Piece.ATTACKER for piece in start.pieces().values())
    tables = tables_for(start.rules)
    barred = tables.escape | tables.corners
    free = [s for s in range(size * size) if not barred >> s & 1 and s != tables.throne_square]
    found = 0
    while found < count:
        men_here = rng.randint(0, men)
        least, most = max(attackers, at_start // 3), max(attackers, 2 * at_start // 3)
        squares = rng.sample(free, 1 + men_here + rng.randint(least, most))
        pieces = {squares[0]: "K"}
        pieces |= {s: "T" for s in squares[1 : 1 + men_here]}
        pieces |= {s: "t" for s in squares[1 + men_here :]}
        position = format_position(pieces, size)
        game = Game.from_position(variant, position, Side.ATTACKERS)
        assert isinstance(game, TaflGame)
        if game.outcome is not None or _Tafl(game).must_answer():
            continue
        if _immediate_win(game, game.legal_moves()) is not None or lost_at_start(game):
            continue
        found += 1
        yield Start(variant, position, f"random {found}", lost=False)


def read_positions(path: Path) -> list[Start]:
    """The positions of a file with one a line: the variant, the OTN position (the attackers to
    move) and where it comes from, separated by spaces; ``#`` starts a comment."""
    starts = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        fields = line.partition("#")[0].split(maxsplit=2)
        if fields:
            variant, position, *source = fields
            where = source[0] if source else f"line {number}"
            starts.append(Start(variant, position, f"{path.name}: {where}"))
    return starts


def lost_at_start(game: Game) -> bool:
    """Whether the defenders force a win within ``LOST_DEPTH`` plies, the attackers to move."""
    search = Search(game, time.perf_counter() + LOST_SECONDS)
    search.best_move(game.legal_moves(), LOST_DEPTH)
    return search.depth_reached > 0 and search.score <= -_WON


def held_at_start(start: Start) -> bool:
    """Whether ``defenders_hold`` proves, within ``HELD_PLIES`` and ``HELD_BUDGET``, that the
    attackers cannot win from ``start``. Not tried where a repetition wins for the attackers
    (Copenhagen): there only forced escapes hold, which the 4-ply search finds too (of
    Copenhagen's 20 random positions it proved the 7 held that the search finds lost, and of
    the 19 real ones none, in a million positions a try)."""
    game = Game.from_position(start.variant, start.position, Side.ATTACKERS)
    assert isinstance(game, TaflGame)
    if not going_round_holds(game):
        return False
    for plies in range(1, HELD_PLIES + 1):
        held = defenders_hold(start.variant, start.position, plies, HELD_BUDGET)
        if held is not False:
            return bool(held)
    return False


def judge(start: Start) -> Verdict:
    """The ``Verdict`` on ``start``."""
    lost = start.lost
    if lost is None:
        lost = lost_at_start(Game.from_position(start.variant, start.position, Side.ATTACKERS))
    return Verdict(lost=lost, held=held_at_start(start))


def _start_worker(command: str | None, side: Side, old: str | None = None) -> None:
    global _engine, _their_side, _old_ai
    _their_side = side
    if command is not None:
        _engine = Engine(command)
    if old is not None:
        _old_ai = load_old_ai(old)


def play_out(
    start: Start, pace: Pace, plies: int, verdict: Verdict, records: Path | None = None
) -> Result:
    """The AI against itself (or against the engine) from ``start``, attackers to move; the
    game's record goes to the folder ``records``, if given."""
    game = start.game()
    try:
        return _played(game, start, pace, plies, verdict)
    finally:
        if records is not None:
            tags = {str(side): _player(side) for side in Side}
            name = record_name(game.rules.name, start.source, pace.seed)
            write_record(records, name, game, tags)


def record_name(variant: str, source: str, seed: int) -> str:
    """The name of a game's record: its variant (the same source serves several), its start
    position's source and its seed, which ``record_seed`` reads back."""
    return f"{variant}-{source}-seed{seed}"


def record_seed(stem: str) -> int | None:
    """The seed in the name of a record (``record_name``); None in another bench's record."""
    found = re.search(r"-seed(\d+)$", stem)
    return None if found is None else int(found[1])


def _player(side: Side) -> str:
    """Who plays ``side`` in this worker: "engine" (``--engine``), "old ai" (``--old``) or
    "ai"."""
    if side is not _their_side:
        return "ai"
    if _engine is not None:
        return "engine"
    return "ai" if _old_ai is None else "old ai"


def _played(game: Game, start: Start, pace: Pace, plies: int, verdict: Verdict) -> Result:
    while game.outcome is None and len(game.history) < plies:
        player = _player(game.turn)
        if player == "engine":
            assert _engine is not None
            try:
                move = _engine.move(game, pace.seconds)
            except EngineFailed as failure:
                return Result(start, None, len(game.history), FAILED, str(failure), verdict)
        elif player == "old ai":
            assert _old_ai is not None
            move = pace.move(game, _old_ai)
        else:
            move = pace.move(game)
        game.push(move)
    outcome = game.outcome
    plies, final = len(game.history), game.position()
    if outcome is None:
        return Result(start, None, plies, "open", final, verdict)
    return Result(start, outcome.winner, plies, str(outcome.reason), final, verdict)


def _print_convertible(results: list[Result]) -> None:
    """The conversions among the positions not known to be lost or held already."""
    playable = [r for r in results if r.verdict.convertible]
    if len(playable) == len(results):
        return
    converted = sum(r.winner is Side.ATTACKERS for r in playable)
    lost = sum(r.verdict.lost for r in results)
    held = sum(r.verdict.held and not r.verdict.lost for r in results)
    print(
        f"  {lost} games are lost at the start (a {LOST_DEPTH}-ply search finds a forced win "
        f"for the defenders) and {held} more held (a proof that the king escapes or the game "
        f"comes round to a draw by repetition, whatever the attackers play); of the other "
        f"{len(playable)}, the attackers converted {converted} "
        f"({converted / max(1, len(playable)):.0%})"
    )


def _print_real_split(results: list[Result]) -> None:
    """For real games' positions: the conversions among those the attackers went on to win."""
    won_for_real = [r for r in results if r.start.real_winner is Side.ATTACKERS]
    if not won_for_real:
        return
    converted = sum(r.winner is Side.ATTACKERS for r in won_for_real)
    others = len(results) - len(won_for_real)
    print(
        f"  of the {len(won_for_real)} games from positions the attackers won in the real game, "
        f"the attackers converted {converted} ({converted / len(won_for_real):.0%}); the other "
        f"{others} were won by the defenders or left undecided"
    )


def _print_failure(result: Result) -> None:
    start = result.start
    notes = ""
    if start.source.startswith("game"):
        notes = f"; the real game was won by {start.real_winner or 'nobody'}"
    if not result.verdict.convertible:
        notes += f"; {result.verdict.describe()}"
    print(
        f"    {start.source}{notes}: {result.reason} after {result.plies} plies; "
        f"from {start.position} to {result.final}"
    )


@dataclass(frozen=True)
class Played:
    """A game of a ``--records`` folder, as ``--compare`` reads it."""

    result: str
    """Who won and why ("attackers: encircled"), or "open" (still going when it was cut)."""
    plies: int
    attackers_lost: int
    men_lost: int
    """The defenders' men taken (the king is not a man)."""


def read_records(folder: Path) -> dict[tuple[str, int], Played]:
    """The games ``--records`` wrote to ``folder``, by start position and seed."""
    played = {}
    for path in sorted(folder.glob("*.txt")):
        seed = record_seed(path.stem)
        if seed is None:
            continue  # not a record of this bench
        game = game_from_record(path.read_text())
        position, final = game.start[0], game.position()
        outcome = game.outcome
        result = "open" if outcome is None else f"{outcome.winner or 'drawn'}: {outcome.reason}"
        played[position, seed] = Played(
            result,
            len(game.history),
            position.count(Piece.ATTACKER) - final.count(Piece.ATTACKER),
            position.count(Piece.DEFENDER) - final.count(Piece.DEFENDER),
        )
    return played


def attackers_points(result: str) -> float:
    """A ``Played.result``'s points for the attackers: 1 won, 0.5 open or drawn, 0 lost."""
    if result.startswith(str(Side.ATTACKERS)):
        return 1.0
    return 0.0 if result.startswith(str(Side.DEFENDERS)) else 0.5


def sign_test(better: int, worse: int) -> float:
    """The two-sided p-value of an exact sign test: how often chance alone, each changed game
    going either way at even odds, splits them at least this unevenly."""
    changed = better + worse
    tail = sum(math.comb(changed, k) for k in range(min(better, worse) + 1))
    return min(1.0, 2 * tail / (1 << changed))


def compare(before: Path, after: Path) -> list[str]:
    """The lines ``--compare`` prints: each run's results over the games both played, the
    attackers' points game by game (is the difference more than chance?), and the games whose
    result differs."""
    runs = {before: read_records(before), after: read_records(after)}
    both = sorted(runs[before].keys() & runs[after].keys())
    lines = [f"games both runs played: {len(both)}"]
    lines += [
        f"  {len(games) - len(both)} only in {folder}"
        for folder, games in runs.items()
        if len(games) > len(both)
    ]
    for folder, games in runs.items():
        results = Counter(games[key].result for key in both)
        lost = (
            sum(games[key].attackers_lost for key in both),
            sum(games[key].men_lost for key in both),
        )
        won = sum(count for result, count in results.items() if result.startswith("attackers"))
        counts = ", ".join(f"{result} {count}" for result, count in sorted(results.items()))
        lines.append(
            f"{folder}: the attackers won {won} ({counts}); "
            f"men lost: attackers {lost[0]}, defenders {lost[1]}"
        )
    old, new = runs[before], runs[after]
    points = [(attackers_points(old[k].result), attackers_points(new[k].result)) for k in both]
    better = sum(then > first for first, then in points)
    worse = sum(then < first for first, then in points)
    lines.append(
        f"the attackers' points (won 1, open or drawn 0.5): "
        f"{sum(p for p, _ in points):g} then {sum(p for _, p in points):g}; "
        f"games better for them: {better}, worse: {worse} "
        f"(sign test: p = {sign_test(better, worse):.2g})"
    )
    for key in both:
        if old[key].result != new[key].result:
            lines.append(
                f"  {key[0]} seed {key[1]}: {old[key].result} after {old[key].plies} plies, "
                f"then {new[key].result} after {new[key].plies}"
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time", type=float, default=0.2, help="the AI's seconds a move")
    parser.add_argument(
        "--nodes", type=int, default=0, help="the AI's nodes a move instead (repeatable games)"
    )
    parser.add_argument("--seeds", type=int, default=1, help="games from each position")
    parser.add_argument("--plies", type=int, default=60, help="plies before a game counts open")
    parser.add_argument("--men", type=int, default=0, help="defenders beside the king, at most")
    parser.add_argument("--attackers", type=int, default=4, help="attackers, at least")
    parser.add_argument("--limit", type=int, default=20, help="positions per variant, at most")
    parser.add_argument(
        "--real", default=",".join(VARIANTS), help="variants of the real games' positions"
    )
    parser.add_argument(
        "--random", default="brandubh,tablut,copenhagen", help="variants of random positions"
    )
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--show", action="store_true", help="list each position the attackers did not convert"
    )
    parser.add_argument(
        "--positions",
        type=Path,
        action="append",
        default=[],
        help="a file of positions to play too (read_positions); repeat it for more files",
    )
    parser.add_argument(
        "--engine", help="this independent engine's command defends (bench/arena.py's protocol)"
    )
    parser.add_argument(
        "--engine-attacks",
        action="store_true",
        help="the engine takes the attackers instead, and the AI defends",
    )
    parser.add_argument(
        "--old",
        metavar="COMMIT",
        help="the defenders are the AI of this commit (engine/ai.py from git), at the same pace",
    )
    parser.add_argument(
        "--old-attacks",
        action="store_true",
        help="the AI of --old takes the attackers instead, and the AI defends",
    )
    parser.add_argument(
        "--records", type=Path, help="write each game's record (OpenTafl's format) to this folder"
    )
    parser.add_argument(
        "--compare",
        type=Path,
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="compare the games of two --records folders instead of playing",
    )
    args = parser.parse_args()
    if args.compare is not None:
        for folder in args.compare:
            if not folder.is_dir():
                parser.error(f"--compare: {folder} is not a folder (of --records)")
        print("\n".join(compare(*args.compare)))
        return 0
    if args.records is not None:
        args.records.mkdir(parents=True, exist_ok=True)
    if not all(n > 0 for n in (args.time, args.plies, args.limit, args.processes, args.seeds)):
        parser.error("--time, --plies, --limit, --processes and --seeds take positive numbers")
    if args.nodes < 0:
        parser.error("--nodes takes a positive number (or 0: --time)")
    paces = [Pace(args.time, args.nodes, seed) for seed in range(args.seeds)]
    if args.engine and args.nodes:
        parser.error("--engine thinks by time: give --time, not --nodes")
    if args.engine_attacks and not args.engine:
        parser.error("--engine-attacks needs --engine")
    if args.old_attacks and not args.old:
        parser.error("--old-attacks needs --old")
    if args.engine and args.old:
        parser.error("--engine and --old both name the other player: give one")
    refuse_unknown_commit(parser, args.old)
    their_side = Side.ATTACKERS if args.engine_attacks or args.old_attacks else Side.DEFENDERS
    budget = f"{args.nodes} nodes" if args.nodes else f"{args.time:g} s"
    players = "the AI against itself"
    if args.old:
        players = f"the AI attacking against the AI of {args.old}"
        if args.old_attacks:
            players = f"the AI of {args.old} attacking against the AI"
    if args.engine:
        players = f"the AI against {args.engine!r}"
        if args.engine_attacks:
            players = f"{args.engine!r} attacking against the AI"
    print(
        f"{players}, {budget} a move, {args.seeds} game(s) from each position "
        f"(seeds), at most {args.plies} plies, from "
        f"positions with the king and at most {args.men} defenders against at least "
        f"{args.attackers} attackers (attackers to move)"
    )
    unknown = set(filter(None, args.real.split(","))) - set(VARIANTS)
    if unknown:
        parser.error(f"--real takes {', '.join(VARIANTS)}, not {', '.join(sorted(unknown))}")
    groups = [
        (f"{variant} (real games)", list(endgames(variant, args.men, args.attackers))[: args.limit])
        for variant in filter(None, args.real.split(","))
    ]
    for variant in filter(None, args.random.split(",")):
        randoms = list(random_endgames(variant, args.men, args.attackers, args.limit))
        groups.append((f"{variant} (random)", randoms))
    groups += [(path.name, read_positions(path)) for path in args.positions]
    if args.engine:
        groups = [(label, [s.as_engine_plays() for s in positions]) for label, positions in groups]
    started = time.perf_counter()
    everything: list[Result] = []
    with ProcessPoolExecutor(
        args.processes,
        initializer=_start_worker,
        initargs=(args.engine, their_side, args.old),
    ) as pool:
        for label, positions in groups:
            verdicts = list(pool.map(judge, positions))
            starts = [start for start in positions for _ in paces]
            runs = paces * len(positions)
            judged = [verdict for verdict in verdicts for _ in paces]
            results = list(
                pool.map(
                    play_out,
                    starts,
                    runs,
                    [args.plies] * len(starts),
                    judged,
                    [args.records] * len(starts),
                )
            )
            for failed in [r for r in results if r.reason == FAILED]:
                print(f"  left out, {failed.start.source}: the engine failed: {failed.final}")
            results = [r for r in results if r.reason != FAILED]
            everything += results
            won = [r for r in results if r.winner is Side.ATTACKERS]
            lost = [r for r in results if r.winner is Side.DEFENDERS]
            share = len(won) / len(results) if results else float("nan")
            how_fast = (
                f", in {statistics.mean(r.plies for r in won):.0f} plies on average" if won else ""
            )
            print(
                f"{label}: {len(positions)} positions, {len(results)} games; "
                f"attackers won {len(won)} "
                f"({share:.0%}{how_fast}), defenders won {len(lost)}, "
                f"open or drawn {len(results) - len(won) - len(lost)}"
            )
            reasons: dict[str, int] = {}
            for result in results:
                reasons[result.reason] = reasons.get(result.reason, 0) + 1
            print("  endings: " + ", ".join(f"{n} {r}" for r, n in sorted(reasons.items())))
            _print_convertible(results)
            _print_real_split(results)
            if args.show:
                for result in results:
                    if result.winner is not Side.ATTACKERS:
                        _print_failure(result)
    _print_total(everything)
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


def _print_total(results: list[Result]) -> None:
    """The conversions of every group together, without the games lost or held at the start,
    with a 95% (Wilson) interval: the issue's measure."""
    playable = [r for r in results if r.verdict.convertible]
    if not playable:
        return
    won, n = sum(r.winner is Side.ATTACKERS for r in playable), len(playable)
    low, high = wilson(won / n, n)
    print(
        f"all: the attackers converted {won} of the {n} games not lost or held at the start "
        f"({won / n:.1%}, 95% interval {low:.1%} to {high:.1%})"
    )


if __name__ == "__main__":
    sys.exit(main())
