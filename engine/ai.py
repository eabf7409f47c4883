"""A computer player for every variant.

Iterative-deepening principal-variation search (negamax alpha-beta) with a transposition table keyed
by the board and the side to move (bounds and best move), move ordering (the table's move, captures,
threats around the king and the defenders' last men, killer moves, history), null moves, futility
pruning of quiet moves next to the leaves, and at the leaves a short capture quiescence in which a
side facing a threat to end the game next move (the king's open line, his capture) must answer it,
and in which the defenders may make such a threat (a check: the king onto an open line). Leaves are
scored from the engine's bitboards by an evaluation per kind of game:

- hnefatafl family: named terms (``_Tafl.terms``) times weights (``FITTED_WEIGHTS``, fitted to the
  real games, ``CORNER_WEIGHTS`` tapering to them as the defenders fall, or ``EDGE_WEIGHTS``):
  material; the king's open lines to the escape squares (the defenders to move with an open line,
  the attackers able to take him, win outright), the squares he reaches next from which he could
  walk out (where no attacker can take him first), his distance to them and his freedom; the
  attackers around him against the number his strength rule needs; attackers guarding the
  corners; defenders next to the king; his region through squares free of attackers (shut in,
  its size, the corners or sides it reaches); where exit forts win, the defenders walling him in
  on the edge;
- Halatafl: material (with a margin near the five-piece limit), advance, pieces open to a jump.

The search plays the moves on the game itself and takes every one back before returning, so it
sees the game's own count of each position (the game so far and the line being searched). A third
occurrence ends the game as the variant's rule says (a draw, a loss for the defenders, a win or a
loss for the side that repeats). A move that brings back a position already seen, in the game or
the line, is scored as that rule scores the third occurrence, as chess engines score a repetition
at the second occurrence (whichever side gains by repeating can repeat again), though short of a
forced result: the other side may still turn aside. Such scores depend on the path, so the table
keeps only the best move of a node whose subtree met a repetition. A draw is worth 0, but for
the attackers against a king with at most one man left, to whom it costs ``ENDGAME_CONTEMPT``.
Timing: the clock runs from the call and is read at every node; the search stops before
``TIME_USED`` of ``time_limit`` when the longest step between two readings so far could take it
past that (bench/thinks.py prints the longest thinks per variant). A step is tens of
microseconds in the hnefatafl games, up to some 15 ms in Halatafl on busy cores, where the
search tries one jump chain per position reached (``Game.distinct_moves``: a crowded board has
thousands of chains and a few dozen ends). Python's cycle collector is held off while the AI
thinks: its full passes over the table took up to 0.1 s. With a ``seed`` and a ``depth`` the
choice is repeatable; with only a time limit it depends on how far the search gets.
"""

from __future__ import annotations

import functools
import gc
import operator
import random
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from engine.board import Geometry, squares_of
from engine.book import book_move
from engine.errors import IllegalMoveError, Refusal
from engine.game import Game
from engine.halatafl import MIN_PIECES, HalataflGame
from engine.rules import Escape, KingStrength
from engine.tafl import TaflGame, tables_for
from engine.types import Bitboard, Move, Outcome, Side, Square

WIN = 1_000_000
"""The score of a won position; a win found ``n`` plies ahead scores ``WIN - n``."""
MAX_DEPTH = 64
_WON = WIN - 1_000
"""Scores beyond this (either sign) are wins or losses at a known distance."""
_REPEATED = _WON - 1
"""A position seen once before, where the repetition rule favours the side to move: above any
evaluation, below a forced result (less ``ply``, like a win)."""
TIME_USED = 0.95
"""The share of its time limit the search plans to use: the rest is for returning the move."""
_TABLE_LIMIT = 200_000
"""Entries the table holds before it starts again (some 50 MB at most)."""
QUIESCENCE_PLIES = 2
"""How many captures in a row the leaves still look at."""
THREAT_PLIES = 3
"""How many answers to a threat to end the game (the king's open line, his capture) the leaves
still look at before they trust the evaluation."""
CHECK_PLIES = 1
"""How many moves that make such a threat (the king onto an open line) the leaves look at."""
NULL_FROM_DEPTH = 3
NULL_REDUCTION = 2
"""From this depth on, a node whose evaluation is already above what the other side allows
first lets the side to move pass, searched this much shallower (null-move pruning)."""
ENDGAME_CONTEMPT = 300
ENDGAME_MEN = 1
"""Where the defenders are down to their king and at most ``ENDGAME_MEN`` men at the root, a
draw costs the attackers this much (and gains the defenders as much): they have the men to win,
and a repetition throws it away. A draw is otherwise worth 0."""
FUTILITY_MARGINS = (0, 100, 250)
"""At depth 1 and 2 of a zero-window search, a position whose evaluation is this far below what
the side to move needs tries only its forcing moves (the quiet ones are taken as futile)."""
LATE_MOVES = {1: 10, 2: 20}
"""By depth: the most quiet moves the attackers try at a node of their own search, one or two
plies from the leaves (their many men give them several times the defenders' moves). Two plies
from the leaves the quiet moves come by history, one ply from them in the order they are made:
sorting those by history too converted as many endings at 20,000 nodes a move (lone kings 53
of 57, hard ones 5 of 18, with two defenders or fewer 27 of 40; against 54, 6 and 27), and by
distance to the king fewer (2 of the 18 hard ones). A Copenhagen ending's depth 4 took a fifth of
the nodes. At 20,000 nodes a move against the same defence, the attackers converted 25 of 40
Copenhagen endings with two defenders or fewer (19 without the cap) and 52 of 57 lone kings
(50); in full Copenhagen games at 1 s a move it scored 51.3% against the AI without it (40
games)."""
HUNTED_SHARE = 4
"""Where the defenders are down to ``1 / HUNTED_SHARE`` of their men of the start or fewer (three
in Copenhagen and Fetlar), the attackers' moves next to one of those men count among their
threats: tried whatever the late-move cap, never a ply shallower. In Copenhagen a king on the
edge can be neither taken nor encircled (in Fetlar taken only alone), so the attackers must take
his last men, in nets deeper than the capped plies near the leaves see. From there on, in the
attackers' searches, the edge squares of the king's region count against the defenders too, as
for a lone king: a ring that leaves the defenders the edge cannot encircle them. See
``ENCIRCLING_WEIGHTS`` for what these convert. Elsewhere the king is taken where he stands, and
hunting his men cost Brandubh's attackers 3 of the 14 one-man endings of its real games they
converted without it (20,000 nodes a move, 60 plies; none converted that was not before)."""
REDUCE_FROM_DEPTH = 3
REDUCE_AFTER = 4
"""From this depth on, quiet moves after this many tried are first searched a ply shallower
(and again in full only when that finds them better than the best so far)."""

_ROOMS_KEPT = 50_000
"""Attacker layouts whose regions the evaluation keeps before it starts again."""
_WORTHS_KEPT = 50_000
"""Positions whose evaluation a search keeps before it starts again: it evaluates a fifth to a
third of its positions more than once."""

_HISTORY_CAP = 1 << 22
"""The most a move's history score (the cutoffs it made, by depth squared) grows to."""

FITTED_WEIGHTS: dict[str, int] = {
    "defender": 205,
    "attacker": -100,
    "king two lines": 5_000,
    "king open line": 262,
    "king fork next": 2_500,
    "king line next": -14,
    "king freedom": 20,
    "king escape distance": -54,
    "king pressed": -37,
    "king nearly taken": -191,
    "king guard": 50,
    "corner guard": -13,
    "king shut in": -211,
    "king room": 5,
    "ways out": 107,
    "open corner guard": 0,
    "edge room": 0,
    "king fort": 40,
    "corner neighbour": 30,
    "men freedom": 0,
}
"""The evaluation of the games on a small board (7x7) where the king escapes to a corner
(Brandubh): each term's weight, in hundredths of an attacker, for the defenders (the attackers
count it against them). Fitted to the real Copenhagen and Brandubh games by bench/fit_weights.py,
but for the two terms that stand for a near-certain escape (two lines, fork next), which the
search confirms and the records seldom show (players resign), and the king's fort, set by hand
(it counts only where exit forts win: Copenhagen). The terms, as ``_Tafl.terms``
counts them:

- defender, attacker: the men on the board;
- king two lines: the attackers to move cannot close every open line of the king (two, or the
  escape square next to him); king open line: otherwise, per open line to an escape square;
- king fork next: the king can reach a square from which one move cannot close every way out
  and where no attacker can take him at once (the defenders to move), or two such squares along
  different lines (the attackers to move); king line next: per line of the king leading to a
  square where he would be safe and have an open line (twice when it cannot be closed);
- king freedom: per empty square the king reaches in one move; king escape distance: per step
  to his nearest escape square;
- king pressed: per side of the king closed by an attacker or a square hostile to him (scaled
  by the sides his strength rule needs); king nearly taken: when one more closed side would
  capture him;
- king guard: per defender next to the king; corner guard: per attacker two or three steps from
  a corner;
- king shut in: no square free of attackers leads from the king to an escape square (weighed
  more on larger boards, ``_weights_for``); king room:
  per square of that region (his room while the ring holds); ways out: per corner (or side of
  the board, where the whole edge is an escape) the region reaches; open corner guard: per
  attacker two or three steps from a corner the region reaches (where the ring is still open);
  edge room: with the king alone (where the attackers may encircle, with his last men too:
  ``HUNTED_SHARE``), per edge square of that region;
- king fort: where an exit fort wins, with the king on the edge, per defender on the squares next
  to him and to his free squares beside him on the edge (the wall of a fort around them), none
  where an attacker stands there. From three of their moves before each of the 48 forts of the
  real Copenhagen games, the defenders (20,000 nodes a move, against the attackers at the same)
  built 15 forts and won 25 games without it, 28 and 37 with it;
- corner neighbour: per attacker on a square next to a corner, a man the king (or a defender)
  takes against the corner from the square beyond it along the edge. The fit gives it 29 on the
  Brandubh games alone, 49 on the Copenhagen ones and 77 on both, and it lowers the held-out
  log-loss of every one of those fits. At 30 the attackers converted the same 41 of Brandubh's
  42 lone kings (20,000 nodes a move, three seeds), and full Brandubh games scored 53.3% against
  the AI without it (60 games, 1 s a move);
- men freedom: per empty square the defenders' men reach in one move (``ENCIRCLING_WEIGHTS``
  only).
"""
EDGE_WEIGHTS: dict[str, int] = FITTED_WEIGHTS | {
    "defender": 180,
    "king open line": 180,
    "king line next": 60,
    "king freedom": 5,
    "king escape distance": -14,
    "king pressed": -40,
    "king nearly taken": -160,
    "king guard": 12,
    "corner guard": -18,
    "king shut in": 0,
    "king room": 0,
    "ways out": 0,
}
"""The evaluation of the games where the king escapes to the edge (Tablut, Tawlbwrdd): set by
hand, as no records teach them; the fitted weights played worse there."""
CORNER_WEIGHTS: dict[str, int] = (
    EDGE_WEIGHTS
    | {term: FITTED_WEIGHTS[term] for term in ("king shut in", "king room", "ways out")}
    | {"open corner guard": -30, "corner neighbour": 60}
)
"""The evaluation of the games on a board larger than 7x7 where the king escapes to a corner
(Copenhagen, Fetlar, Hnefatafl, corner Tablut) while the defenders have all their men: the
hand-set weights with the fitted ones of the king's region, and the open corner guards, which
draw the attackers to the corners the king can still reach (they sealed the easy corners early
and then left the last one open for a hundred plies). As the defenders' men fall it slides
towards ``FITTED_WEIGHTS`` (``ENCIRCLING_WEIGHTS`` where the attackers may encircle), which alone
weigh a lone king. With the fitted weights throughout,
the AI scored 46.7% against the AI before them in Copenhagen (30 games, 1 s a move); with these
throughout, 61.7%, but it converted fewer lone-king endgames (13 or 14 of 19, against 15 or 16).
The open corner guards took Copenhagen from 58.3% to 65.8% against the AI of issue 13 (60 games
each, 1 s a move): as attackers 19 draws and 11 losses in 30 games, against 11 and 19. Until
``_weights_for`` weighed shutting the king in by the board's size, these weights (and the fitted
ones) scored a king shut in with more than 63 squares of room above one with a corner still open,
the likely cause of the last corner left open. The attackers next to a corner, at 60 here and in
``ENCIRCLING_WEIGHTS``: in the hard endings of ``bench/positions/opentafl_endings.txt`` (self-play,
20,000 nodes a move, two seeds) the attackers converted 6 of 18 instead of 3 and the king escaped
6 times instead of 10; lone kings 54 of 57 instead of 52; full Copenhagen games 56.3% against the
AI without it (40 games, 1 s a move; as attackers it won 3 of 20, the AI without it 2)."""
ENCIRCLING_WEIGHTS: dict[str, int] = FITTED_WEIGHTS | {
    "edge room": -30,
    "corner neighbour": 60,
    "men freedom": 7,
}
"""The evaluation of a lone king on a board larger than 7x7 where the attackers also win by
encirclement (Copenhagen, Fetlar): the fitted weights, and the edge squares of his region
counted for the attackers. That weight was measured, not reasoned: the attackers converted 18,
17, 18, 17 and 17 of Copenhagen's 19 lone-king endgames at 1 s a move with it, 15 in each of four
runs without it. That gain did not repeat where the machine's speed cannot move the figures: at
20,000 nodes a move, three games from each position (bench/endgames.py --nodes 20000 --seeds
3), 50 of 57 with it and 49 without (and 17 of 19 in a run at 1 s without it): the term may be
worth nothing. Counted while the defenders still had men (as the evaluation tapers), it scored
39.3% in 28 Copenhagen games against the AI without it, losing all 14 as the attackers, so it
counts for a lone king and his last men only (see below). Measured on one side at a time
(``bench/endgames.py --old``, the 25 hard lone kings of bench/positions/, 20,000 nodes a move, 60
plies), it is worth something to the attackers and costs the defenders nothing: against the same
defence (this AI's) the attackers converted 14 with it and 9 without; against a defence without
it, 16.

With men left, the men's freedom (7 a square they reach, here only: it weighs as the men fall)
and the attackers' moves next to the last men searched as threats (``HUNTED_SHARE``) were
measured together against the defence of the AI before them (``bench/endgames.py --old
c62c3d8``, the 21 hard one-man endings of bench/positions/, 20,000 nodes a move, 60 plies): the
attackers took the man in 14 games and converted 5 (4 left the king no move), where they had
taken it in 4 and converted none; no king escaped either way. Alone, each converted 2 (the
freedom at 10). At 10 a square the two converted 7, but the defenders then moved a man into the
open rather than take a hanging attacker (tests/engine/test_ai_evaluation.py); at 7 they take it.
The defence of this AI values its men's freedom too, and holds those endings better: against it
these attackers took the man in 2 games and converted 1 (one king was taken), and the attackers
of c62c3d8 took it once and let the king escape once (``--old c62c3d8 --old-attacks``).

In the attackers' own searches the edge room counts with the last men too (``HUNTED_SHARE``: three
or fewer in Copenhagen), as for a lone king: a ring that leaves the defenders the edge cannot
encircle them, and the sixteen attackers had stood in four corner seals watching the king and his
man. In the same 21 endings, against the defence of the AI without it (``--old 5eaf0aa``), the
attackers converted 9 instead of 1 (2 encircled, 2 kings taken, 2 left without a move, 3 by
repetition), took 9 men instead of 2, and no king escaped: 9 games better for the attackers and 1
worse (a sign test, ``--compare``: p = 0.02). Played on to 120 plies, they converted 18 of the 21
and let 1 king out; the AI without it converted none of the 10 of its open games played on as far.
Counted in the defenders' searches as well, it cost them: the attackers of 5eaf0aa converted 3
against them instead of 1 (``--old-attacks``), so their searches count it for a lone king only
(``_Tafl.edge_room_men``), and this AI's defence of these endings is that of 5eaf0aa, move for move.
In the 33 two- and three-man endings of bench/positions/ (self-play) the attackers converted 9
instead of 3, and 11 kings escaped instead of 7: sharper play both ways, and no gain a sign test
tells from chance (8 games better for the attackers, 7 worse; p = 1.00). At 120 plies: 14 converted,
13 escaped and 6 open, against 6, 9 and 18 (10 better, 7 worse; p = 0.63)."""
SMALL_BOARD = 7
"""The largest board that plays with ``FITTED_WEIGHTS``."""
TAFL_TERMS = tuple(FITTED_WEIGHTS)
HALATAFL_PIECE = 100
HALATAFL_ADVANCE = 4
"""Per rank a Halatafl piece has come forward."""
HALATAFL_LAST_PIECES = 60
"""Per piece short of two above the five-piece limit."""
HALATAFL_CAN_JUMP = 60
"""The side to move can take something."""
HALATAFL_OPEN = 20
"""Per piece the side to move could jump; the same against it per own piece open to a jump."""


class _OutOfTime(Exception):
    """Raised inside the search when the clock runs out."""


_Args = ParamSpec("_Args")
_Result = TypeVar("_Result")


def _collector_held(think: Callable[_Args, _Result]) -> Callable[_Args, _Result]:
    """``think`` with Python's cycle collector off until it returns (and then as it was): its
    passes over a search's table took up to 0.1 s, enough to overrun a time limit. The search
    makes no reference cycles, and its table is freed before the collector is back."""

    @functools.wraps(think)
    def held(*args: _Args.args, **kwargs: _Args.kwargs) -> _Result:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return think(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return held


@_collector_held
def choose_move(
    game: Game,
    *,
    time_limit: float = 1.0,
    depth: int | None = None,
    seed: int | None = None,
    book: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Move:
    """A good legal move for the side to move, found within about ``time_limit`` seconds.

    ``depth`` caps the search depth (plies); ``seed`` makes the choice among equal moves
    repeatable; ``book`` plays the opening book's move where it has one (engine/book.py);
    ``clock`` is what the time limit is read on (``NodeClock``: a number of nodes instead).
    Raises IllegalMoveError when the game is over or there is no move.
    """
    deadline = clock() + max(time_limit, 0.0) * TIME_USED
    if game.outcome is not None:
        raise IllegalMoveError("the game is over", Refusal.GAME_OVER)
    moves = game.distinct_moves()
    if not moves:
        raise IllegalMoveError(f"the {game.turn} have no legal move", Refusal.NOT_LEGAL)
    random.Random(seed).shuffle(moves)
    winning = _immediate_win(game, moves)
    if winning is not None or len(moves) == 1:
        return winning or moves[0]
    if book and (opening := book_move(game, seed)) is not None:
        return opening
    search = Search(game, deadline, clock=clock)
    return search.best_move(moves, depth or MAX_DEPTH)


class NodeClock:
    """A clock that counts its readings: the search reads it once a node, so a time limit of
    ``n`` on it is a budget of some ``n * TIME_USED`` nodes, the same on any machine and load
    (the benches' repeatable measure)."""

    def __init__(self) -> None:
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return float(self.readings)


def _immediate_win(game: Game, moves: list[Move]) -> Move | None:
    mover = game.turn
    for move in moves:
        game.push(move)
        won = game.outcome is not None and game.outcome.winner == mover
        game.undo()
        if won:
            return move
    return None


_Entry = tuple[int, int, int, Move | None]
"""depth, score, bound (0 exact, -1 upper bound, 1 lower bound), best move; depth -1: the best
move alone (the score depended on the path)."""


class Search:
    """One search over ``game`` until ``deadline`` (a reading of ``clock``). ``table``,
    ``ordering``, ``quiescence``, ``reductions``, ``threats`` (answered at the leaves), ``checks``
    (made at the leaves), ``null_moves`` and ``futility`` (with which goes the cap on the attackers'
    late moves) off give a plain alpha-beta."""

    def __init__(
        self,
        game: Game,
        deadline: float,
        *,
        table: bool = True,
        ordering: bool = True,
        quiescence: bool = True,
        reductions: bool = True,
        threats: bool = True,
        checks: bool = True,
        null_moves: bool = True,
        futility: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.game = game
        self.deadline = deadline
        self.clock = clock
        self.last_look = clock()
        self.longest_step = 0.0
        """The longest time between two looks at the clock so far: the search stops when the
        next step could take it past the deadline."""
        self.nodes = 0
        self.depth_reached = 0
        self.use_table = table
        self.use_ordering = ordering
        self.use_reductions = reductions
        self.score = 0
        self.quiescence_plies = QUIESCENCE_PLIES if quiescence else 0
        self.answers_threats = threats
        self.check_plies = CHECK_PLIES if threats and checks else 0
        self.table: dict[Hashable, _Entry] = {}
        self.killers: list[list[tuple[Square, ...]]] = [[] for _ in range(MAX_DEPTH + 1)]
        self.history: dict[tuple[Square, ...], int] = {}
        self.kind = _kind_of(game)
        self.use_null = null_moves and self.kind.passes_are_safe
        self.use_futility = futility and ordering
        self.capped_side = (
            Side.ATTACKERS if self.use_futility and game.turn is Side.ATTACKERS else None
        )
        """The side whose late quiet moves near the leaves are capped (``LATE_MOVES``): the
        attackers, in their own search only (a search never leaves out its opponent's moves)."""
        self.scores_repetition = game.repetition_outcome() is not None
        """Whether the rules end a game on repetition (not when they ignore it)."""
        self.attackers_draw = self.kind.attackers_draw()
        self.repetitions = 0
        """Repeated positions scored so far: a node's score depends on its path when this grows
        while its subtree is searched."""

    def best_move(self, moves: list[Move], max_depth: int) -> Move:
        """The best of ``moves`` (the legal moves) by iterative deepening up to ``max_depth``;
        ``depth_reached`` and ``score`` tell how deep the last full iteration went and what it
        found (for the side to move)."""
        best = self._ordered(moves, 1)[0]
        for depth in range(1, max_depth + 1):
            try:
                best, self.score = self._root(moves, depth, best)
            except _OutOfTime as partial:
                found = partial.args[0] if partial.args else None
                return found or best
            self.depth_reached = depth
            if abs(self.score) >= _WON:
                break  # a forced result: searching deeper changes nothing
        return best

    def _root(self, moves: list[Move], depth: int, previous: Move) -> tuple[Move, int]:
        rest = self._ordered(moves, depth)
        ordered = [previous, *(m for m in rest if m.path != previous.path)]
        alpha, best = -WIN - 1, previous
        for index, move in enumerate(ordered):
            try:
                if index == 0:
                    score = -self._child(move, depth - 1, -WIN - 1, -alpha, 1)
                else:
                    score = -self._child(move, depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self._child(move, depth - 1, -WIN - 1, -alpha, 1)
            except _OutOfTime:
                # The moves searched so far were searched in full: the best of them stands,
                # provided the previous best (searched first) is among them.
                raise _OutOfTime(best if index > 0 else None) from None
            if index == 0 or score > alpha:
                best, alpha = move, score
        return best, alpha

    def _child(self, move: Move, depth: int, alpha: int, beta: int, ply: int) -> int:
        game = self.game
        game.push(move)
        try:
            if self.scores_repetition and game.occurrences() > 1:
                self._tick()
                return self._repeated(ply)
            if depth <= 0:
                return self._leaf(alpha, beta, ply)
            return self._negamax(depth, alpha, beta, ply)
        finally:
            game.undo()

    def _passed(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score after the side to move passes (a null move): when even that holds the
        other side below what is needed, a real move surely would too."""
        game = self.game
        game.turn = game.turn.opponent
        self.use_null = False  # never two passes on one line
        try:
            if depth <= 0:
                return self._leaf(alpha, beta, ply)
            return self._negamax(depth, alpha, beta, ply)
        finally:
            self.use_null = True
            game.turn = game.turn.opponent

    def _repeated(self, ply: int) -> int:
        """The score, for the side to move, of a position seen before in the game or the line:
        a third occurrence ends the game; a second scores as the rules score the third, short
        of a forced result (the other side may still turn aside). It depends on the path."""
        self.repetitions += 1
        game = self.game
        outcome = game.outcome or game.repetition_outcome()
        assert outcome is not None
        if outcome.winner is None:
            return self.attackers_draw if game.turn is Side.ATTACKERS else -self.attackers_draw
        if game.outcome is not None:
            return _final_score(game.outcome, game.turn, ply)
        score = _REPEATED - ply
        return score if outcome.winner == game.turn else -score

    def _tick(self) -> None:
        self.nodes += 1
        now = self.clock()
        step = now - self.last_look
        self.last_look = now
        if step > self.longest_step:
            self.longest_step = step
        if now + self.longest_step > self.deadline:
            raise _OutOfTime

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        game = self.game
        self._tick()
        if game.outcome is not None:
            return _final_score(game.outcome, game.turn, ply)
        key = self.kind.key() if self.use_table else None
        entry = self.table.get(key) if key is not None else None
        if entry is not None and entry[0] >= depth:
            score, bound = _from_table(entry[1], ply), entry[2]
            if bound == 0:
                return score
            if bound > 0:
                alpha = max(alpha, score)
            else:
                beta = min(beta, score)
            if alpha >= beta:
                return score
        static = self.kind.evaluate(ply)
        if static >= _WON:
            return static  # the side to move wins with its next move
        futile = False
        if beta - alpha == 1 and abs(beta) < _WON:
            if self.use_null and depth >= NULL_FROM_DEPTH:
                if static >= beta and not self.kind.must_answer():
                    score = -self._passed(depth - 1 - NULL_REDUCTION, -beta, 1 - beta, ply + 1)
                    if score >= beta:
                        return score if score < _WON else beta
            elif self.use_futility and depth < len(FUTILITY_MARGINS):
                futile = static + FUTILITY_MARGINS[depth] <= alpha and not self.kind.must_answer()
        original_alpha = alpha
        repetitions = self.repetitions
        best_score, best_move = -WIN - 1, None
        reduce_from = REDUCE_AFTER if self.use_reductions and depth >= REDUCE_FROM_DEPTH else -1
        late = LATE_MOVES.get(depth, -1) if game.turn is self.capped_side else -1
        quiet_tried = 0
        for index, (move, quiet) in enumerate(self._moves(entry[3] if entry else None, ply, depth)):
            if quiet:
                if late >= 0:
                    quiet_tried += 1
                # The quiet moves come last. Futile: none of them can reach alpha. Late: the
                # attackers' quiet moves near the leaves past their first few. Either way the
                # moves left untried make what was found a bound, not a score (a loss found in
                # every move tried is no loss).
                if futile or (
                    quiet_tried > late >= 0 and best_move is not None and abs(alpha) < _WON
                ):
                    best_score = max(best_score, alpha)
                    break
            if index == 0:
                score = -self._child(move, depth - 1, -beta, -alpha, ply + 1)
            else:
                if quiet and 0 <= reduce_from <= index:
                    score = -self._child(move, depth - 2, -alpha - 1, -alpha, ply + 1)
                    if score <= alpha:
                        continue
                score = -self._child(move, depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self._child(move, depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._remember_cutoff(move, depth, ply)
                        break
        if best_move is None:
            if futile:
                return best_score
            return -(WIN - ply)  # no legal move: the engine calls this a loss
        if key is not None:
            if len(self.table) > _TABLE_LIMIT:
                self.table.clear()
            if self.repetitions != repetitions:  # the score holds for this path only
                self.table[key] = (-1, 0, 0, best_move)
            else:
                bound = 1 if best_score >= beta else (-1 if best_score <= original_alpha else 0)
                self.table[key] = (depth, _to_table(best_score, ply), bound, best_move)
        return best_score

    def _moves(self, first: Move | None, ply: int, depth: int) -> Iterator[tuple[Move, bool]]:
        """The legal moves, best first, each with whether it is quiet (no capture, no threat,
        no killer). The table's move comes before the others are even worked out."""
        if first is not None:
            yield first, False
        moves = self.game.distinct_moves()
        if not self.use_ordering:
            yield from ((m, False) for m in moves if first is None or m.path != first.path)
            return
        forcing, quiet = self._split(moves, ply, depth)
        skip = first.path if first is not None else None
        for move in forcing:
            if move.path != skip:
                yield move, False
        for move in quiet:
            if move.path != skip:
                yield move, True

    def _split(self, moves: list[Move], ply: int, depth: int) -> tuple[list[Move], list[Move]]:
        """The forcing moves (captures, threats, killers) best first, and the rest, by
        history where the subtree is worth it."""
        forcing, quiet = self.kind.split(moves)
        killers = self.killers[ply] if ply < len(self.killers) else []
        if killers:
            forcing += [m for m in quiet if m.path in killers]
            quiet = [m for m in quiet if m.path not in killers]
        if depth >= 2 and self.history:
            history = self.history.get
            quiet.sort(key=lambda m: history(m.path, 0), reverse=True)
        return forcing, quiet

    def _ordered(self, moves: list[Move], depth: int) -> list[Move]:
        """The root's ``moves`` in the order the search tries them."""
        if not self.use_ordering:
            return list(moves)
        forcing, quiet = self._split(list(moves), 0, depth)
        return forcing + quiet

    def _leaf(self, alpha: int, beta: int, ply: int) -> int:
        """The score of a node at the search's depth: its quiescence."""
        return self._quiesce(
            alpha, beta, ply, self.quiescence_plies, THREAT_PLIES, self.check_plies
        )

    def _quiesce(
        self,
        alpha: int,
        beta: int,
        ply: int,
        plies_left: int,
        answers_left: int,
        checks_left: int,
    ) -> int:
        """The leaf's score, looking on through captures for ``plies_left`` more plies, through
        the answers to threats to end the game for ``answers_left``, and through the moves that
        make such threats for ``checks_left``."""
        game = self.game
        self._tick()
        if game.outcome is not None:
            return _final_score(game.outcome, game.turn, ply)
        answers = self.kind.answers() if self.answers_threats and answers_left > 0 else None
        if answers is not None:
            # A threat to end the game next move: no standing pat; answer it or lose.
            if not answers:
                return -(WIN - ply - 2)  # the other side wins with the move after next
            moves = answers
            answers_left -= 1
        else:
            stand = self.kind.evaluate(ply)
            if stand >= beta or abs(stand) >= _WON:
                return stand
            moves = self.kind.captures() if plies_left > 0 else []
            if checks_left > 0 and answers_left > 0 and (checks := self.kind.checks()):
                moves += checks  # (they capture nothing: no move is in both)
                checks_left -= 1
            if not moves:
                return stand
            alpha = max(alpha, stand)
            plies_left -= 1
        best = -WIN - 1
        for move in moves:
            game.push(move)
            try:
                score = -self._quiesce(
                    -beta, -alpha, ply + 1, plies_left, answers_left, checks_left
                )
            finally:
                game.undo()
            best = max(best, score)
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
        return alpha if answers is None else best

    def _remember_cutoff(self, move: Move, depth: int, ply: int) -> None:
        killers = self.killers[ply] if ply < len(self.killers) else []
        path = move.path
        if path not in killers:
            killers.insert(0, path)
            del killers[2:]
        self.history[path] = min(self.history.get(path, 0) + depth * depth, _HISTORY_CAP)


def _to_table(score: int, ply: int) -> int:
    """A score as stored: wins counted from this node, not from the root."""
    if score >= _WON:
        return score + ply
    if score <= -_WON:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score >= _WON:
        return score - ply
    if score <= -_WON:
        return score + ply
    return score


# -- the kinds of game -------------------------------------------------------------------------


class _Kind:
    """What the search needs to know of one kind of game."""

    passes_are_safe = False
    """Whether a side is almost never worse off for having to move (no zugzwang), so that the
    search may try a pass to prune."""
    leaves_see_every_win = False
    """Whether a leaf of the search sees every way the side to move could win with its next
    move (else a move scored one ply deep may hand the other side a win)."""

    def key(self) -> Hashable:
        """The board and the side to move."""
        raise NotImplementedError

    def evaluate(self, ply: int) -> int:
        """The position's worth to the side to move (``ply`` plies from the root)."""
        raise NotImplementedError

    def split(self, moves: list[Move]) -> tuple[list[Move], list[Move]]:
        """The moves that capture or threaten, most promising first, and the others."""
        raise NotImplementedError

    def captures(self) -> list[Move]:
        """The legal moves that capture, most promising first."""
        raise NotImplementedError

    def must_answer(self) -> bool:
        """Whether the side to move faces a threat to end the game on the next move."""
        return False

    def attackers_draw(self) -> int:
        """What a draw is worth to the attackers here (the defenders count it against them)."""
        return 0

    def answers(self) -> list[Move] | None:
        """The moves that could parry the threat ``must_answer`` finds (none: the game is lost),
        or None when there is no such threat."""
        return None

    def checks(self) -> list[Move]:
        """The quiet moves of the side to move that threaten to end the game next move."""
        return []


def _kind_of(game: Game) -> _Kind:
    if isinstance(game, TaflGame):
        return _Tafl(game)
    if isinstance(game, HalataflGame):
        return _Halatafl(game)
    raise TypeError(f"the AI plays hnefatafl-family games and Halatafl, not {type(game).__name__}")


class _Tafl(_Kind):
    """The hnefatafl family, on the engine's bitboards."""

    passes_are_safe = True

    def __init__(self, game: TaflGame) -> None:
        self.game = game
        tables = tables_for(game.rules)
        self.tables = tables
        g = tables.geometry
        self.geometry = g
        n = self.size = game.size
        rules = game.rules
        self.escape = tables.escape
        escapes = [s for s in range(n * n) if tables.escape >> s & 1]
        self.escape_distance = [
            min(abs(s % n - e % n) + abs(s // n - e // n) for e in escapes) for s in range(n * n)
        ]
        self.corner_guards = _guard_squares(g, tables.corners, tables.corners)
        self.corner_neighbours = g.spread(tables.corners) & ~tables.corners
        self.on_escape_lines = sum(
            g.bit[s]
            for s in range(n * n)
            if not tables.escape >> s & 1
            and any(s % n == e % n or s // n == e // n for e in escapes)
        )
        """The squares that share a rank or a file with an escape square."""
        self.strength = rules.king_strength
        # Copenhagen and Fetlar: the attackers may encircle, and a king on the edge can be
        # taken only alone (Fetlar) or never (Copenhagen).
        encircling = rules.escape is Escape.CORNERS and n > SMALL_BOARD and rules.encirclement
        if rules.escape is not Escape.CORNERS:
            weights = ending = EDGE_WEIGHTS
        else:
            weights = FITTED_WEIGHTS if n <= SMALL_BOARD else CORNER_WEIGHTS
            ending = ENCIRCLING_WEIGHTS if encircling else FITTED_WEIGHTS
        self.weights = _weights_for(weights, n)
        self.ending_weights = _weights_for(ending, n)
        """The weights with the king alone: the evaluation slides from ``weights`` to these as
        the defenders' men fall (a tapered evaluation)."""
        self.tapered = self.ending_weights != self.weights
        self.forts = rules.exit_fort
        self.men_at_start = max(1, rules.start.count("T"))
        men_freedom = TAFL_TERMS.index("men freedom")
        self.men_freedom_below = 0
        """"men freedom" is counted with fewer men than this: always where the game's weights
        weigh it, once a man is lost where only the ending's do (the taper gives them no share
        before), never where neither does. It costs a fifth of the evaluation's time."""
        if self.weights[men_freedom]:
            self.men_freedom_below = n * n + 1
        elif self.ending_weights[men_freedom]:
            self.men_freedom_below = self.men_at_start
        self.hunted_men = self.men_at_start // HUNTED_SHARE if encircling else 0
        """The defenders' men at most, when the attackers' moves next to one are threats (none
        where the king on the edge can be taken with men left)."""
        self.edge_room_men = self.hunted_men if game.turn is Side.ATTACKERS else 0
        """The defenders' men at most, when "edge room" counts: the last men in the attackers'
        own searches, the lone king in the defenders' (who held fewer endings seeking the edge
        with their men: ``ENCIRCLING_WEIGHTS``). A search's root decides, as its side to move."""
        self.may_be_hostile = tables.hostile_to(Side.DEFENDERS, 0) | tables.hostile_to(
            Side.DEFENDERS, g.full
        )
        """The squares that are hostile to the king when empty or occupied."""
        self.rooms: dict[Bitboard, list[Bitboard]] = {}
        """By the attackers' squares: the regions found so far (``_room``)."""
        self.worths: dict[Hashable, int] = {}
        """By position (``key``): its evaluation for the defenders, WIN where the side to move
        wins with its next move."""
        corners = rules.escape is Escape.CORNERS
        self.ways_out = _ways_out(g, tables.escape, corners)
        """The corners (each a group of escape squares), or the four sides of the board."""
        self.guards_of_ways = [
            _guard_squares(g, way, tables.corners) if corners else 0 for way in self.ways_out
        ]
        """Per way out, its corner guards' squares (none for a side of the board)."""

    def key(self) -> Hashable:
        return self.game.bitboards, self.game.turn

    def attackers_draw(self) -> int:
        if self.game.bitboards[1].bit_count() > ENDGAME_MEN:
            return 0
        return -ENDGAME_CONTEMPT

    def _king_lines(
        self, king: Square, occupied: Bitboard
    ) -> tuple[int, int, Bitboard, list[Bitboard]]:
        """How many of the king's lines are open up to an escape square (which can only be at
        a line's end), how many squares he reaches, the squares of his open lines, and the
        squares he reaches along each line."""
        escape = self.escape
        open_lines = reach = 0
        on_open_lines: Bitboard = 0
        reached: list[Bitboard] = []
        for ray in self.geometry.rays[king]:
            line: Bitboard = 0
            for square in ray:
                if occupied >> square & 1:
                    break
                reach += 1
                line |= 1 << square
                if escape >> square & 1:
                    open_lines += 1
                    on_open_lines |= line
                    break
            reached.append(line)
        return open_lines, reach, on_open_lines, reached

    def _in_kings_way(self, king: Square, occupied: Bitboard) -> Bitboard:
        """The first piece along each of the king's lines (moving one may open the line)."""
        first: Bitboard = 0
        reached = self._king_lines(king, occupied)[3]
        for ray, line in zip(self.geometry.rays[king], reached, strict=True):
            steps = line.bit_count()
            if steps < len(ray) and occupied >> ray[steps] & 1:
                first |= 1 << ray[steps]
        return first

    def _escape_threat(self, square: Square, occupied: Bitboard) -> int:
        """From ``square``: 0 with no open line to an escape square, 1 with one open line that
        one move can close, 2 when one move cannot close them (two lines, or an escape square
        next to it). Where the whole edge escapes, that makes every square of the second line
        such a threat, though a man may stop on the edge square next to it, or stand there
        already. Counting only the escape squares where no man may stop (the corners) scored
        47.5% in Tablut (40 games) and 40.0% in Tawlbwrdd (20 games) against this, 1 s a move:
        no gain, so it stays."""
        escape = self.escape
        lines = 0
        for ray in self.geometry.rays[square]:
            if not ray:
                continue
            if escape >> ray[0] & 1:
                return 2
            for step in ray:
                if occupied >> step & 1:
                    break
                if escape >> step & 1:
                    lines += 1
                    break
        return min(lines, 2)

    def _safe_threat(self, square: Square, occupied: Bitboard, above: int = 0) -> int:
        """The king's ``_escape_threat`` from ``square`` where it is above ``above`` and no
        attacker could take him there (where he would be taken, he could not walk out); else 0."""
        threat = self._escape_threat(square, occupied)
        return threat if threat > above and not self._king_takeable(square) else 0

    def _next_threats(self, reached: list[Bitboard], occupied: Bitboard) -> tuple[int, int]:
        """Of the king's lines (``occupied`` without him), how many lead to a square he could
        escape from next unless one move closes it, and how many to a square where one move
        cannot close every way out; only squares where no attacker can take him count."""
        one = sure = 0
        candidates = self.on_escape_lines
        for line in reached:
            best = 0
            for square in squares_of(line & candidates):
                threat = self._safe_threat(square, occupied, best)
                if threat:
                    best = threat
                    if best == 2:
                        break
            if best == 2:
                sure += 1
            elif best:
                one += 1
        return one, sure

    def evaluate(self, ply: int) -> int:
        key = self.key()
        value = self.worths.get(key)
        if value is None:
            if len(self.worths) > _WORTHS_KEPT:
                self.worths.clear()
            value = self.worths[key] = self._worth()
        if value == WIN:
            return WIN - ply - 1  # the king walks out, or is taken
        return value if self.game.turn is Side.DEFENDERS else -value

    def _worth(self) -> int:
        """The weighted sum of the position's terms, for the defenders (WIN where the side to
        move wins with its next move)."""
        terms = self.terms()
        if terms is None:
            return WIN
        value: int = sum(map(operator.mul, self.weights, terms))
        if self.tapered:
            ending: int = sum(map(operator.mul, self.ending_weights, terms))
            men, full = min(terms[0], self.men_at_start), self.men_at_start
            value = (value * men + ending * (full - men)) // full
        return value

    def terms(self) -> list[int] | None:
        """The position's count of each of TAFL_TERMS, or None when the side to move
        wins with its next move: the defenders with the king on an open line to an escape
        square, the attackers by taking him."""
        game = self.game
        g = self.geometry
        att, dfd, king = game.bitboards
        king_bit = g.bit[king]
        occupied = att | dfd | king_bit
        defending = game.turn is Side.DEFENDERS
        open_lines, reach, _, reached = self._king_lines(king, occupied)
        if (open_lines and defending) or (not defending and self._king_takeable()):
            return None
        two_lines = open_lines and self._escape_threat(king, occupied) == 2
        if two_lines:
            one = sure = fork = 0
        else:
            one, sure = self._next_threats(reached, occupied ^ king_bit)
            fork = sure and (defending or sure > 1)
        pressed, nearly = self._king_pressed(king, att, occupied)
        room = self._room(king_bit, att)
        ways_out = open_guards = 0
        for way, guards in zip(self.ways_out, self.guards_of_ways, strict=True):
            if room & way:
                ways_out += 1
                open_guards += (att & guards).bit_count()
        men = dfd.bit_count()
        return [
            men,
            att.bit_count(),
            1 if two_lines else 0,
            0 if two_lines else open_lines,
            1 if fork else 0,
            one + 2 * sure,
            reach,
            self.escape_distance[king],
            pressed,
            nearly,
            (g.neighbours[king] & dfd).bit_count(),
            (att & self.corner_guards).bit_count(),
            0 if ways_out else 1,
            room.bit_count() if not ways_out else 0,
            ways_out,
            open_guards,
            0 if men > self.edge_room_men else (room & g.edge).bit_count(),
            self._fort_wall(king, att, dfd, occupied) if self.forts else 0,
            (att & self.corner_neighbours).bit_count(),
            g.moves_count(dfd, g.full & ~occupied) if men < self.men_freedom_below else 0,
        ]

    def _fort_wall(self, king: Square, att: Bitboard, dfd: Bitboard, occupied: Bitboard) -> int:
        """With the king on the edge: the defenders around him and his free squares beside him
        on the edge (an exit fort's wall); none where an attacker stands there."""
        g = self.geometry
        if not g.edge >> king & 1:
            return 0
        inside = g.bit[king] | (g.neighbours[king] & g.edge & ~occupied)
        wall = g.spread(inside) & ~inside
        if wall & att:
            return 0
        return (wall & dfd).bit_count()

    def _room(self, king_bit: Bitboard, att: Bitboard) -> Bitboard:
        """The squares the king's square connects to through squares free of attackers."""
        rooms = self.rooms.get(att)
        if rooms is None:
            if len(self.rooms) > _ROOMS_KEPT:
                self.rooms.clear()
            rooms = self.rooms[att] = []
        else:
            for room in rooms:
                if room & king_bit:
                    return room
        room = self.geometry.flood(king_bit, self.geometry.full & ~att)
        rooms.append(room)
        return room

    def _king_pressed(self, king: Square, att: Bitboard, occupied: Bitboard) -> tuple[int, int]:
        """The sides of the king closed by attackers or squares hostile to him, in quarters of
        what his strength rule needs (a king taken between two counts each side twice), and
        how many more moves could take him at once (the last side but one closed; for a king
        taken between two, per line closed on one side and empty on the other)."""
        g = self.geometry
        closed_by = att | self.tables.hostile_to(Side.DEFENDERS, occupied)
        off_board = g.off_board
        needed = self._sides_to_capture(king)
        sides = g.sides[king]  # north, south, east, west
        closed = [side != off_board and bool(closed_by >> side & 1) for side in sides]
        if needed == 2:
            empty = [side != off_board and not occupied >> side & 1 for side in sides]
            return 2 * sum(closed), sum(closed[i] and empty[i ^ 1] for i in range(4))
        count = sum(closed)
        if self.strength is KingStrength.STRONG_OR_3_AT_EDGE:
            count += sides.count(off_board)
        return count * 4 // needed, 1 if count >= needed - 1 else 0

    def _sides_to_capture(self, king: Square) -> int:
        strength = self.strength
        if strength is KingStrength.STRONG_NEAR_THRONE:
            return 4 if self.tables.throne_zone >> king & 1 else 2
        if strength is KingStrength.WEAK:
            return 2
        if strength is KingStrength.STRONG_OR_3_AT_EDGE and self.geometry.edge >> king & 1:
            return 3
        return 4

    def split(self, moves: list[Move]) -> tuple[list[Move], list[Move]]:
        game = self.game
        targets = game.capture_targets()
        att, dfd, king = game.bitboards
        captures: list[Move] = []
        threats: list[Move] = []
        quiet: list[Move] = []
        if game.turn is Side.ATTACKERS:
            _, _, lines, _ = self._king_lines(king, att | dfd | self.geometry.bit[king])
            near = self.geometry.neighbours[king] | lines
            if dfd.bit_count() <= self.hunted_men:
                near |= self.geometry.spread(dfd)
            for move in moves:
                target = move.path[1]
                if targets >> target & 1:
                    captures.append(move)
                elif near >> target & 1:
                    threats.append(move)
                else:
                    quiet.append(move)
        else:
            by_king = game.capture_targets(king=True)
            in_his_way = self._in_kings_way(king, att | dfd) & dfd
            for move in moves:
                origin, target = move.path
                if origin == king:
                    (captures if by_king >> target & 1 else threats).append(move)
                elif targets >> target & 1:
                    captures.append(move)
                elif in_his_way >> origin & 1:
                    threats.append(move)
                else:
                    quiet.append(move)
        return captures + threats, quiet

    def captures(self) -> list[Move]:
        return self.game.capturing_moves()

    def answers(self) -> list[Move] | None:
        """The moves that may parry a threat: the attackers' onto the king's open lines or onto
        a square where they would take him (any other move lets him walk out); the defenders'
        that move him, that stand where an attacker would pass or stop to take him, or that
        capture."""
        game = self.game
        att, dfd, king = game.bitboards
        g = self.geometry
        if game.turn is Side.DEFENDERS:
            ways = self._ways_to_take_king()
            if not ways:
                return None
            # Move him, stand in an attacker's way (or on a square hostile to him), or capture.
            targets = ways | self.may_be_hostile | game.capture_targets()
            return [
                move
                for move in game.legal_moves()
                if move.path[0] == king or targets >> move.path[1] & 1
            ]
        open_lines, _, lines, _ = self._king_lines(king, att | dfd | g.bit[king])
        if not open_lines:
            return None
        targets = lines | game.king_capture_squares()
        return [move for move in game.legal_moves() if targets >> move.path[1] & 1]

    def _king_takeable(self, king: Square | None = None) -> bool:
        """Whether an attacker can reach, in one move, a square where he would take the king
        (or would, were he on ``king``)."""
        return bool(self._ways_to_take_king(king))

    def checks(self) -> list[Move]:
        """The defenders to move: the king's moves that capture nothing and open a line to an
        escape square from where no attacker can take him (the attackers must answer)."""
        game = self.game
        if game.turn is not Side.DEFENDERS:
            return []
        att, dfd, _ = game.bitboards
        occupied = att | dfd
        candidates = self.on_escape_lines & ~game.capture_targets(king=True)
        return [
            move
            for move in game.king_moves()
            if candidates >> (target := move.path[1]) & 1 and self._safe_threat(target, occupied)
        ]

    def _ways_to_take_king(self, king: Square | None = None) -> Bitboard:
        """The squares where an arriving attacker would take the king (or would, were he on
        ``king``) and that an attacker can reach in one move, with the squares it crosses to
        get there (none: he is safe)."""
        game = self.game
        att, dfd, standing = game.bitboards
        king = standing if king is None else king
        if not (att | self.may_be_hostile) & self.geometry.neighbours[king]:
            return 0  # nothing next to him to take him against
        squares = game.king_capture_squares(king)
        if not squares:
            return 0
        occupied = att | dfd | self.geometry.bit[king]
        passable = self.tables.men_pass
        bit = self.geometry.bit
        ways: Bitboard = 0
        for square in squares_of(squares & self.tables.men_stops):
            for ray in self.geometry.rays[square]:
                crossed = bit[square]
                for step in ray:
                    if occupied >> step & 1:
                        if att >> step & 1:
                            ways |= crossed
                        break
                    if not passable >> step & 1:
                        break
                    crossed |= bit[step]
        return ways

    def must_answer(self) -> bool:
        """The attackers to move, and the king has an open line to an escape square; or the
        defenders to move, and an attacker can take the king."""
        game = self.game
        if game.turn is not Side.ATTACKERS:
            return self._king_takeable()
        att, dfd, king = game.bitboards
        return self._king_lines(king, att | dfd | self.geometry.bit[king])[0] > 0


def _weights_for(weights: dict[str, int], size: int) -> tuple[int, ...]:
    """``weights`` in the order of TAFL_TERMS, for a board of ``size``: with "king shut in"
    at most "ways out" less "king room" per square of the board, so that no room, however
    large, makes shutting the king in look worse than leaving him a way out (by the fitted
    weights, from 7x7 boards, a room of 64 squares or more did; an 11x11 king has up to 121)."""
    sized = dict(weights)
    room = weights["king room"] * size * size
    sized["king shut in"] = min(weights["king shut in"], weights["ways out"] - room)
    return tuple(sized[term] for term in TAFL_TERMS)


def _guard_squares(g: Geometry, corners: Bitboard, excluded: Bitboard) -> Bitboard:
    """The squares two or three steps from a square of ``corners``, but for ``excluded``."""
    n = g.size
    targets = list(squares_of(corners))
    return sum(
        g.bit[s]
        for s in range(n * n)
        if not excluded >> s & 1
        and any(2 <= abs(s % n - c % n) + abs(s // n - c // n) <= 3 for c in targets)
    )


def _ways_out(g: Geometry, escape: Bitboard, corners: bool) -> list[Bitboard]:
    """The escape squares in groups: each corner's, or each side's where the edge escapes."""
    if not corners:
        return [g.first_rank, g.last_rank, g.first_file, g.last_file]
    groups: list[Bitboard] = []
    left = escape
    while left:
        group = g.flood(left & -left, left)
        groups.append(group)
        left &= ~group
    return groups


class _Halatafl(_Kind):
    """Halatafl, on the engine's two bitboards."""

    leaves_see_every_win = True
    """Its wins: a capture that leaves the other side too few pieces (the leaves look on
    through captures), or a move that leaves it without a move (``_wins_by_blocking``)."""

    def __init__(self, game: HalataflGame) -> None:
        self.game = game
        n = self.size = game.size
        self.full: Bitboard = (1 << n * n) - 1
        self.ranks = [((1 << n) - 1) << (r * n) for r in range(n)]
        # Per direction: the step as a square offset, and the squares two steps from the edge.
        self.directions: list[tuple[int, Bitboard]] = []
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if (df, dr) == (0, 0):
                    continue
                sources = sum(
                    1 << s
                    for s in range(n * n)
                    if 0 <= s % n + 2 * df < n and 0 <= s // n + 2 * dr < n
                )
                self.directions.append((dr * n + df, sources))

    def key(self) -> Hashable:
        return self.game.bitboards, self.game.turn

    def _open_to_jump(self, jumpers: Bitboard, victims: Bitboard, empty: Bitboard) -> Bitboard:
        """The ``victims`` one of ``jumpers`` could jump now."""
        found = 0
        for step, sources in self.directions:
            if step > 0:
                ready = jumpers & sources & empty >> 2 * step
                found |= ready << step & victims
            else:
                ready = jumpers & sources & empty << -2 * step
                found |= ready >> -step & victims
        return found

    def evaluate(self, ply: int) -> int:
        if self._wins_by_blocking():
            return WIN - ply - 1
        game = self.game
        white, black = game.bitboards
        n = self.size
        whites, blacks = white.bit_count(), black.bit_count()
        value = HALATAFL_PIECE * (whites - blacks)
        value -= HALATAFL_LAST_PIECES * (
            max(0, MIN_PIECES + 2 - whites) - max(0, MIN_PIECES + 2 - blacks)
        )
        ranks = self.ranks
        for r in range(1, n - 1):
            value += HALATAFL_ADVANCE * (
                r * (white & ranks[r]).bit_count() - (n - 1 - r) * (black & ranks[r]).bit_count()
            )
        value += HALATAFL_ADVANCE * (n - 1) * ((white & ranks[n - 1]).bit_count())
        value -= HALATAFL_ADVANCE * (n - 1) * ((black & ranks[0]).bit_count())
        if game.turn is Side.WHITE:
            own, other = white, black
        else:
            own, other, value = black, white, -value
        empty = self.full & ~(white | black)
        can_take = self._open_to_jump(own, other, empty).bit_count()
        open_own = self._open_to_jump(other, own, empty).bit_count()
        if can_take:
            value += HALATAFL_CAN_JUMP
        return value + HALATAFL_OPEN * (can_take - open_own)

    def _wins_by_blocking(self) -> bool:
        """Whether the side to move can leave the other without a legal move (and so win) with
        a move the leaves' captures may not look at: the other side must have at most one
        square to move to now, which that move fills."""
        game = self.game
        other = game.turn.opponent
        steps = game.step_landings(other)
        if steps & (steps - 1):
            return False  # two squares or more: one move cannot fill them all
        landings = steps | game.jump_landings(other)
        if landings & (landings - 1):
            return False
        moves = game.distinct_moves()
        if landings:
            moves = [move for move in moves if landings >> move.target & 1]
        return _immediate_win(game, moves) is not None

    def split(self, moves: list[Move]) -> tuple[list[Move], list[Move]]:
        captures_of = self.game.captures_of
        ranked = [(len(captures_of(m)), m) for m in moves]
        captures = [m for taken, m in sorted(ranked, key=lambda pair: -pair[0]) if taken]
        return captures, [m for taken, m in ranked if not taken]

    def captures(self) -> list[Move]:
        return self.split(self.game.distinct_moves())[0]


def _final_score(outcome: Outcome, turn: Side, ply: int) -> int:
    """A finished game's score for the side to move: a win sooner is worth more, a draw 0."""
    if outcome.winner is None:
        return 0
    return WIN - ply if outcome.winner == turn else -(WIN - ply)


# -- levels ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Level:
    """How strongly the AI plays: how long and how deep it searches and, below full strength,
    how much chance enters its choice."""

    name: str
    seconds: float
    """The longest it thinks on a move (a caller's shorter limit wins)."""
    depth: int | None = None
    """The deepest it searches, in plies (None: as deep as the time allows)."""
    noise: int = 0
    """The spread (standard deviation, in evaluation units) of the chance added to each move's
    score before the best is taken: a weak player misjudges close moves (not forced results)."""
    random_share: float = 0.0
    """The share of moves it plays at random, missing whatever there was to see."""

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise ValueError(f"a level thinks for some time: seconds {self.seconds} is not > 0")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"a level searches at least one ply, not {self.depth}")
        if self.noise < 0 or not 0 <= self.random_share <= 1:
            raise ValueError("a level's noise is >= 0 and its random share from 0 to 1")
        if self.noise and self.depth is None:
            raise ValueError("a level with noise scores every move, so it needs a depth")


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("easy", seconds=0.5, depth=1, noise=200, random_share=0.4),
        Level("medium", seconds=1.0, depth=1, noise=40),
        Level("hard", seconds=2.0, depth=2),
        Level("max", seconds=10.0),
    )
}
"""The levels by name, weakest first; bench/arena.py checks that each scores at least 70%
against the one below."""
DEFAULT_LEVEL = LEVELS["medium"]


@_collector_held
def choose_move_at(
    game: Game,
    level: Level = DEFAULT_LEVEL,
    *,
    time_limit: float | None = None,
    seed: int | None = None,
) -> Move:
    """A legal move for the side to move as ``level`` plays, within its time or ``time_limit``
    seconds, whichever is shorter. ``seed`` makes the chance repeatable (and, with a depth, the
    move). Raises IllegalMoveError when the game is over or there is no move."""
    seconds = level.seconds if time_limit is None else min(level.seconds, time_limit)
    deadline = time.perf_counter() + max(seconds, 0.0) * TIME_USED
    if not level.noise and not level.random_share:
        return choose_move(game, time_limit=seconds, depth=level.depth, seed=seed)
    moves = game.distinct_moves() if game.outcome is None else []
    if len(moves) < 2:
        return choose_move(game, time_limit=seconds, seed=seed)  # raises when there is no move
    rng = random.Random(seed)
    if rng.random() < level.random_share:
        return rng.choice(moves)
    rng.shuffle(moves)
    search = Search(game, deadline)
    scored = _scored_moves(search, moves, level.depth or 1)
    if not scored:
        return moves[0]

    def judged(score: int) -> float:
        return score if abs(score) >= _WON else score + rng.gauss(0, level.noise)

    ranked = sorted(scored, key=lambda pair: judged(pair[1]), reverse=True)
    if search.kind.leaves_see_every_win:
        return ranked[0][0]
    for move, _ in ranked:
        if time.perf_counter() > deadline or not _gives_a_win_in_one(game, move):
            return move
    return ranked[0][0]


def _gives_a_win_in_one(game: Game, move: Move) -> bool:
    """Whether after ``move`` the other side has a move that wins at once: a check for the
    levels that score moves one ply deep, whose leaves see captures and the king's threats but
    not every quiet win (a third repetition, an encirclement, an exit fort, a side left without
    a move)."""
    game.push(move)
    try:
        return game.outcome is None and _immediate_win(game, game.distinct_moves()) is not None
    finally:
        game.undo()


def _scored_moves(search: Search, moves: list[Move], depth: int) -> list[tuple[Move, int]]:
    """Each of ``moves`` with its score at ``depth`` plies for the side to move, as many as
    ``search``'s time allows (the most promising first)."""
    scored: list[tuple[Move, int]] = []
    for move in search._ordered(moves, depth):
        search.depth_reached = search.score = 0
        search.best_move([move], depth)
        if search.depth_reached < depth and abs(search.score) < _WON:
            break  # out of time
        scored.append((move, search.score))
    return scored
