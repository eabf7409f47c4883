"""The three ways a move can be refused; all are ValueError, with a message a player can act on."""

QUOTE_LIMIT = 30
"""The most characters of a player's text that an error message quotes back."""


class NotationError(ValueError):
    """The text cannot be read as a move."""


class IllegalMoveError(ValueError):
    """The move is understood but not allowed here."""


class AmbiguousMoveError(ValueError):
    """The text fits more than one legal move."""


def shorten(text: str) -> str:
    """``text`` as an error message may quote it: at most QUOTE_LIMIT characters, then "…"."""
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "…"
