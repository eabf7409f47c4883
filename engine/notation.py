"""Reading move text: ``d1-d4``, ``d1d4``, ``D1 D4``, ``d4``, ``d1-d4xd5xe6``, ``e5-c3-a5``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from engine.errors import NotationError
from engine.types import Square, parse_square

FORMAT_HELP = (
    "write a move as from-to, like d1-d4 (d1d4 and 'd1 d4' work too), "
    "or just the destination when only one piece can go there"
)

_SQUARE = r"[a-zA-Z]\d{1,2}"
_MOVE = re.compile(
    rf"^\s*(?P<path>{_SQUARE}(?:\s*[-\s]?\s*{_SQUARE})*)\s*(?P<caps>(?:[xX]\s*{_SQUARE}\s*)*)$"
)
_SQUARES = re.compile(_SQUARE)


@dataclass(frozen=True, slots=True)
class ParsedMove:
    """What the text says: the squares visited (one square = destination only) and any captures."""

    path: tuple[Square, ...]
    captures: frozenset[Square] | None
    """None when the text gives no capture suffix."""


def parse_move_text(text: str, size: int) -> ParsedMove:
    """Parse move text for a board of ``size``; NotationError says what the format is."""
    match = _MOVE.match(text)
    if not match:
        raise NotationError(f"can't read {text.strip()!r} as a move: {FORMAT_HELP}")
    try:
        path = tuple(parse_square(s, size) for s in _SQUARES.findall(match["path"]))
        caps_text = match["caps"]
        captures = (
            frozenset(parse_square(s, size) for s in _SQUARES.findall(caps_text))
            if caps_text
            else None
        )
    except ValueError as error:
        raise NotationError(str(error)) from None
    if any(a == b for a, b in pairwise(path)):
        raise NotationError("a move must go somewhere: the from and to squares are the same")
    return ParsedMove(path, captures)
