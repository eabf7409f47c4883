"""Whether a game can be played from its variant's start: custom rules can describe a start that
would never end (a side without pieces) or end before the first move; a new game refuses them."""

from __future__ import annotations

from typing import Any

from engine.errors import RulesError
from engine.game import Game
from engine.tafl import TaflGame, tables_for
from engine.types import Piece, Square


def new_game(variant: Any) -> Game:
    """A new game of ``variant``, as ``Game(variant)``; RulesError (naming the problem) also when
    its start cannot be played."""
    game = Game(variant)
    problem = _start_problem(game)
    if problem is not None:
        raise RulesError(f"start: {problem}")
    return game


def playable_problem(variant: Any) -> str | None:
    """Why a game of ``variant`` (preset id, rules string or rules record) can't be played from
    its start, or None when it can."""
    return _start_problem(Game(variant))


def _start_problem(game: Game) -> str | None:
    """The first problem of ``game``'s position (a game not yet played), or None."""
    pieces = game.pieces()
    for side in (game.turn, game.turn.opponent):
        if not any(piece.side is side for piece in pieces.values()):
            return f"the {side} have no pieces"
    if isinstance(game, TaflGame):
        problem = _tafl_start_problem(game, pieces)
        if problem is not None:
            return problem
    if not game.legal_moves():
        return f"the {game.turn}, who move first, have no legal move"
    outcome = game.standing_outcome()
    if outcome is not None:
        return f"the game would be over before the first move: {outcome.reason.description}"
    return None


def _tafl_start_problem(game: TaflGame, pieces: dict[Square, Piece]) -> str | None:
    """A king on a square he escapes to, or a man where only the king may stand."""
    tables = tables_for(game.rules)
    for square, piece in sorted(pieces.items()):
        name = game.square_name(square)
        if piece is Piece.KING and tables.escape >> square & 1:
            where = "a corner" if square in tables.corner_squares else "the edge"
            return f"the king starts on {name}, on {where}, where he has already escaped"
        if piece is not Piece.KING and not tables.may_stop(square, king=False):
            return f"a man starts on {name}, where men may not stand"
    return None
