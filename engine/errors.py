"""Every error a player or user can cause: a ``TaflError`` (a ValueError) with a message they
can act on. Anything else raised is a bug.

The engine raises the first six; the bot adds its own (service refusals, configuration) under the
same root, so an adapter needs to catch only ``TaflError``.
"""

from __future__ import annotations

from enum import StrEnum

QUOTE_LIMIT = 30
"""The most characters of a player's text that an error message quotes back."""


class TaflError(ValueError):
    """A request a player or user got wrong; ``str(error)`` says what and what is expected."""


class NotationError(TaflError):
    """The text cannot be read as a move or a square."""


class Refusal(StrEnum):
    """Why a move is not allowed, for a program to act on (the message is for people)."""

    GAME_OVER = "game_over"
    NO_PIECE = "no_piece"
    """No piece stands on the square the move starts from."""
    NOT_YOUR_PIECE = "not_your_piece"
    UNREACHABLE = "unreachable"
    """Only a destination was given, and no piece of the side to move can go there."""
    NOT_A_MOVE_SHAPE = "not_a_move_shape"
    """Not along a rank or file (Halatafl: not a step or a jump)."""
    OCCUPIED = "occupied"
    """The destination is taken."""
    BLOCKED = "blocked"
    """A piece stands in the way."""
    RESTRICTED_SQUARE = "restricted_square"
    """The piece may not stop on or pass that square (throne, corner)."""
    BACKWARD = "backward"
    """Halatafl: a step never goes backward."""
    NOTHING_TO_JUMP = "nothing_to_jump"
    JUMPED_TWICE = "jumped_twice"
    MUST_LEAVE_CORNER = "must_leave_corner"
    """Halatafl: a piece left on a corner must move away first."""
    OPENING = "opening"
    """Halatafl: in the start position the first move is a step into the centre."""
    WRONG_CAPTURES = "wrong_captures"
    """The text names captures the move does not make."""
    NOTHING_TO_UNDO = "nothing_to_undo"
    NOT_LEGAL = "not_legal"
    """Any other reason."""


class IllegalMoveError(TaflError):
    """The move is understood but not allowed here; ``reason`` says why."""

    def __init__(self, message: str, reason: Refusal) -> None:
        super().__init__(message)
        self.reason = reason


class AmbiguousMoveError(TaflError):
    """The text fits more than one legal move."""


class UnknownVariantError(TaflError):
    """No variant has that id, and it is not a rules string."""


class RulesError(TaflError):
    """Rules (a rules string or a rules record) that cannot be played."""


class PositionError(TaflError):
    """A position (or side to move) that cannot be read or set up under the rules."""


class RecordError(TaflError):
    """A game record cannot be read or replayed; the message names the move and the reason."""


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a message may quote it: at most ``limit`` characters, the last an ellipsis
    when it had to be cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
