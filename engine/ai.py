"""A computer player for every variant, over the generic ``Game`` interface.

Iterative-deepening negamax with alpha-beta pruning, a transposition table, and move ordering
(the table's best move, likely captures, king moves, killer moves, history). Leaves are scored
by an evaluation per kind of game: for the hnefatafl family material, the king's freedom, his
distance to the escape squares and the attackers around him; for Halatafl material and advance.
The search plays the moves on the game itself and takes every one back before returning.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from itertools import pairwise

from engine.errors import IllegalMoveError
from engine.game import Game
from engine.halatafl import HalataflRules
from engine.rules import Escape
from engine.types import Move, Piece, Side, Square

WIN = 1_000_000
"""The score of a won position; a win found ``n`` plies ahead scores ``WIN - n``."""
MAX_DEPTH = 64
_CHECK_EVERY = 8
"""Nodes between two looks at the clock."""
_TABLE_LIMIT = 300_000

# Evaluation weights, in hundredths of an attacker.
ATTACKER_VALUE = 100
DEFENDER_VALUE = 180
KING_FREEDOM = 6
"""Per square the king can reach in one move."""
KING_OPEN_ESCAPE = 250
"""Per escape square the king can reach in one move."""
KING_ESCAPE_DISTANCE = 12
"""Per square between the king and his nearest escape square."""
KING_PRESSED = 45
"""Per side of the king closed by an attacker or a square hostile to him."""
HALATAFL_PIECE = 100
HALATAFL_ADVANCE = 4
"""Per rank a Halatafl piece has come forward."""

_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))


class _OutOfTime(Exception):
    """Raised inside the search when the clock runs out."""


def choose_move(
    game: Game, *, time_limit: float = 1.0, depth: int | None = None, seed: int | None = None
) -> Move:
    """A good legal move for the side to move, found within about ``time_limit`` seconds.

    ``depth`` caps the search depth (plies); ``seed`` makes the choice among equal moves
    repeatable. Raises IllegalMoveError when the game is over or there is no move.
    """
    if game.outcome is not None:
        raise IllegalMoveError("the game is over")
    moves = game.legal_moves()
    if not moves:
        raise IllegalMoveError(f"the {game.turn} have no legal move")
    rng = random.Random(seed)
    rng.shuffle(moves)
    winning = _immediate_win(game, moves)
    if winning is not None or len(moves) == 1:
        return winning or moves[0]
    search = _Search(game, time.perf_counter() + max(time_limit, 0.0))
    return search.best_move(moves, depth or MAX_DEPTH)


def _immediate_win(game: Game, moves: list[Move]) -> Move | None:
    mover = game.turn
    for move in moves:
        game.push(move)
        won = game.outcome is not None and game.outcome.winner == mover
        game.undo()
        if won:
            return move
    return None


@dataclass
class _Entry:
    depth: int
    score: int
    bound: int
    """0 exact, -1 upper bound (fail low), 1 lower bound (fail high)."""
    move: Move | None


class _Search:
    def __init__(self, game: Game, deadline: float) -> None:
        self.game = game
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[Hashable, _Entry] = {}
        self.killers: dict[int, list[Move]] = {}
        self.history: dict[Move, int] = {}
        self.evaluate = _evaluator(game)
        self.order_hint = _order_hint(game)

    def best_move(self, moves: list[Move], max_depth: int) -> Move:
        best = self._ordered(moves, None, 0)[0]
        for depth in range(1, max_depth + 1):
            try:
                best, score = self._root(moves, depth, best)
            except _OutOfTime as partial:
                found = partial.args[0] if partial.args else None
                return found or best
            if abs(score) >= WIN - MAX_DEPTH:
                break  # a forced result: searching deeper changes nothing
        return best

    def _root(self, moves: list[Move], depth: int, previous: Move) -> tuple[Move, int]:
        ordered = [previous, *(m for m in self._ordered(moves, None, 0) if m != previous)]
        alpha, best, best_score = -WIN - 1, previous, -WIN - 1
        for index, move in enumerate(ordered):
            try:
                score = -self._child(move, depth - 1, -WIN - 1, -alpha, 1)
            except _OutOfTime:
                # The moves searched so far were searched in full: the best of them stands,
                # provided the previous best (searched first) is among them.
                raise _OutOfTime(best if index > 0 else None) from None
            if score > best_score:
                best, best_score = move, score
                alpha = max(alpha, score)
        return best, best_score

    def _child(self, move: Move, depth: int, alpha: int, beta: int, ply: int) -> int:
        game = self.game
        game.push(move)
        try:
            return self._negamax(depth, alpha, beta, ply)
        finally:
            game.undo()

    def _negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        game = self.game
        self.nodes += 1
        if self.nodes % _CHECK_EVERY == 0 and time.perf_counter() > self.deadline:
            raise _OutOfTime
        outcome = game.outcome
        if outcome is not None:
            if outcome.winner is None:
                return 0
            return WIN - ply if outcome.winner == game.turn else -(WIN - ply)
        if depth <= 0:
            return self.evaluate(game)
        key = (game._key(), game.turn)  # the board hook every kind of game has
        entry = self.table.get(key)
        if entry is not None and entry.depth >= depth:
            if entry.bound == 0:
                return entry.score
            if entry.bound > 0:
                alpha = max(alpha, entry.score)
            else:
                beta = min(beta, entry.score)
            if alpha >= beta:
                return entry.score
        original_alpha = alpha
        best_score, best_move = -WIN - 1, None
        for move in self._ordered(game.legal_moves(), entry.move if entry else None, ply):
            score = -self._child(move, depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_move = score, move
            alpha = max(alpha, score)
            if alpha >= beta:
                self._remember_cutoff(move, depth, ply)
                break
        if best_move is None:
            return -(WIN - ply)  # no legal move: the engine calls this a loss
        bound = 1 if best_score >= beta else (-1 if best_score <= original_alpha else 0)
        if len(self.table) > _TABLE_LIMIT:
            self.table.clear()
        self.table[key] = _Entry(depth, best_score, bound, best_move)
        return best_score

    def _remember_cutoff(self, move: Move, depth: int, ply: int) -> None:
        killers = self.killers.setdefault(ply, [])
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]
        self.history[move] = self.history.get(move, 0) + depth * depth

    def _ordered(self, moves: list[Move], first: Move | None, ply: int) -> list[Move]:
        hint = self.order_hint(self.game)
        killers = self.killers.get(ply, ())
        history = self.history

        def rank(move: Move) -> int:
            if move == first:
                return 1 << 30
            return hint(move) * 100_000 + (50_000 if move in killers else 0) + history.get(move, 0)

        return sorted(moves, key=rank, reverse=True)


# -- evaluation --------------------------------------------------------------------------------


def _evaluator(game: Game) -> Callable[[Game], int]:
    """The evaluation for the kind of game, with what it needs of the board worked out once."""
    if isinstance(game.rules, HalataflRules):
        return _halatafl_score
    escapes = _escape_squares(game)
    return lambda position: _tafl_score(position, escapes)


def _tafl_score(game: Game, escapes: frozenset[Square]) -> int:
    """The position's worth to the side to move (hnefatafl family)."""
    pieces = game.pieces()
    size = game.size
    attackers = defenders = 0
    king: Square | None = None
    for square, piece in pieces.items():
        if piece is Piece.ATTACKER:
            attackers += 1
        elif piece is Piece.DEFENDER:
            defenders += 1
        elif piece is Piece.KING:
            king = square
    value = defenders * DEFENDER_VALUE - attackers * ATTACKER_VALUE
    if king is not None:
        reach = _king_reach(king, pieces, size)
        value += KING_FREEDOM * len(reach) + KING_OPEN_ESCAPE * len(reach & escapes)
        value -= KING_ESCAPE_DISTANCE * min((_distance(king, e, size) for e in escapes), default=0)
        value -= KING_PRESSED * _sides_closed(king, pieces, game)
    return value if game.turn is Side.DEFENDERS else -value


def _escape_squares(game: Game) -> frozenset[Square]:
    if game.rules.escape is Escape.CORNERS:
        return game.corners
    n = game.size
    return frozenset(s for s in range(n * n) if s % n in (0, n - 1) or s // n in (0, n - 1))


def _king_reach(king: Square, pieces: dict[Square, Piece], size: int) -> set[Square]:
    """The empty squares along the king's four lines, up to the first piece."""
    reach = set()
    file, rank = king % size, king // size
    for df, dr in _ORTHOGONAL:
        f, r = file + df, rank + dr
        while 0 <= f < size and 0 <= r < size and (r * size + f) not in pieces:
            reach.add(r * size + f)
            f, r = f + df, r + dr
    return reach


def _sides_closed(king: Square, pieces: dict[Square, Piece], game: Game) -> int:
    size = game.size
    file, rank = king % size, king // size
    closed = 0
    for df, dr in _ORTHOGONAL:
        f, r = file + df, rank + dr
        if not (0 <= f < size and 0 <= r < size):
            continue
        square = r * size + f
        if pieces.get(square) is Piece.ATTACKER or (
            square not in pieces and (square in game.corners or square == game.throne)
        ):
            closed += 1
    return closed


def _is_jump(a: Square, b: Square, size: int) -> bool:
    """A Halatafl leg two squares long (one jumped square between)."""
    return max(abs(a % size - b % size), abs(a // size - b // size)) == 2


def _distance(a: Square, b: Square, size: int) -> int:
    return abs(a % size - b % size) + abs(a // size - b // size)


def _halatafl_score(game: Game) -> int:
    """The position's worth to the side to move (Halatafl): material and advance."""
    size = game.size
    value = 0
    for square, piece in game.pieces().items():
        rank = square // size
        if piece is Piece.WHITE:
            value += HALATAFL_PIECE + HALATAFL_ADVANCE * rank
        else:
            value -= HALATAFL_PIECE + HALATAFL_ADVANCE * (size - 1 - rank)
    return value if game.turn is Side.WHITE else -value


# -- move ordering -----------------------------------------------------------------------------


def _order_hint(game: Game) -> Callable[[Game], Callable[[Move], int]]:
    """For a position, a cheap guess (higher first) of how forcing each move is."""
    if isinstance(game.rules, HalataflRules):
        return _halatafl_hint
    return _tafl_hint


def _halatafl_hint(game: Game) -> Callable[[Move], int]:
    pieces = game.pieces()
    size = game.size
    own = Piece.WHITE if game.turn is Side.WHITE else Piece.BLACK

    def hint(move: Move) -> int:
        jumped = ((a + b) // 2 for a, b in pairwise(move.path) if _is_jump(a, b, size))
        return sum(2 for s in jumped if pieces.get(s) not in (None, own))

    return hint


def _tafl_hint(game: Game) -> Callable[[Move], int]:
    pieces = game.pieces()
    size = game.size
    attacking = game.turn is Side.ATTACKERS
    king = next((s for s, p in pieces.items() if p is Piece.KING), None)
    near_king = _neighbours(king, size) if king is not None else set()

    def own(square: Square) -> bool:
        piece = pieces.get(square)
        return piece is Piece.ATTACKER if attacking else piece in (Piece.DEFENDER, Piece.KING)

    def enemy_man(square: Square) -> bool:
        return pieces.get(square) is (Piece.DEFENDER if attacking else Piece.ATTACKER)

    def hint(move: Move) -> int:
        target = move.target
        file, rank = target % size, target // size
        score = 0
        for df, dr in _ORTHOGONAL:
            f, r = file + 2 * df, rank + 2 * dr
            if 0 <= f < size and 0 <= r < size and enemy_man(target + dr * size + df):
                beyond = r * size + f
                if own(beyond) and beyond != move.origin:
                    score += 3  # likely a capture
        if attacking and target in near_king:
            score += 2
        if not attacking and move.origin == king:
            score += 2
        return score

    return hint


def _neighbours(square: Square, size: int) -> set[Square]:
    file, rank = square % size, square // size
    return {
        (rank + dr) * size + file + df
        for df, dr in _ORTHOGONAL
        if 0 <= file + df < size and 0 <= rank + dr < size
    }
