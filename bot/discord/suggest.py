"""The moves /tafl move suggests as a player types: the most relevant first, at most Discord's
25 choices, worked out once per position."""

from __future__ import annotations

import re
from collections.abc import Callable

import engine
from bot.models import GameState
from engine import Move, Piece

MAX_CHOICES = 25
"""The most choices Discord shows for an option."""


class MoveSuggestions:
    """The legal moves of the games being played, ranked once per version of each game."""

    def __init__(self) -> None:
        self._ranked: dict[int, tuple[int, list[str]]] = {}
        """Per game: the version and its legal moves, most relevant first."""

    def of(self, state: GameState, typed: str = "") -> list[str]:
        """Up to 25 legal moves of the player to move in ``state`` that start with ``typed``
        (partial, in any accepted form: "d1-d", "d1d4", "D1 d"), most relevant first."""
        cached = self._ranked.get(state.id)
        if cached is None or cached[0] != state.version:
            cached = (state.version, ranked_moves(state.game))
            self._ranked[state.id] = cached
        matches = typed_matcher(typed)
        return [move for move in cached[1] if matches(move)][:MAX_CHOICES]

    def forget(self, game_id: int) -> None:
        """Drop a game's moves (it has ended)."""
        self._ranked.pop(game_id, None)


def ranked_moves(game: engine.Game) -> list[str]:
    """A legal move to each position the player can reach (``distinct_moves``: every move in
    the hnefatafl games, one jump chain per end in Halatafl): captures first (most first), then
    king moves, then in board order."""
    pieces = game.pieces()
    size = game.size

    def rank(move: Move) -> tuple[int, bool, list[tuple[int, int]]]:
        captures = len(game.captures_of(move))
        king = pieces.get(move.origin) is Piece.KING
        return -captures, not king, [(square % size, square // size) for square in move.path]

    return [str(move) for move in sorted(game.distinct_moves(), key=rank)]


def typed_matcher(typed: str) -> Callable[[str], bool]:
    """Whether a move in canonical form ("d1-d4") starts with what was typed, in any form.

    "d1d4", "D1 d4" and "d1-d4xd5" read as "d1-d4"; "d1-" or "d1d" never match a d11 move.
    """
    text = _SEPARATORS.sub("-", typed.strip().lower()).split("x")[0]
    text = _SQUARE_END.sub(r"\1-\2", text)

    def matches(move: str) -> bool:
        return move.startswith(text)

    return matches


_SEPARATORS = re.compile(r"[\s-]+")
_SQUARE_END = re.compile(r"(\d)([a-z])")
