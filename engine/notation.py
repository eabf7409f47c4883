"""Reading move text: ``d1-d4``, ``d1d4``, ``D1 D4``, ``d4``, ``d1-d4xd5xe6``, ``e5-c3-a5``.

A move is squares (a letter and one or two digits), each after the first optionally preceded by
a ``-``, then any captures, each an ``x`` (or ``X``) and a square; spaces may go anywhere between
these parts. The text is read in one pass, so its length alone bounds the time taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from engine.errors import NotationError, shorten
from engine.types import Square, parse_square

FORMAT_HELP = (
    "write a move as from-to, like d1-d4 (d1d4 and 'd1 d4' work too), "
    "or just the destination when only one piece can go there"
)

MAX_MOVE_TEXT = 400
"""The longest move text read; longer text is refused unread. The longest real move is a
Halatafl jump chain over each of the 43 other pieces: 44 squares (``c3-``, 3 characters each)
and up to 22 captures (``xd4``), under 200 characters written plainly; this leaves as much
again for spaces. (On 19x19 a move captures at most about 20 men: under 90 characters.)"""

MAX_PATH = 44
"""The most squares a move visits: a Halatafl piece jumping each of the 43 others once."""
MAX_CAPTURES = 22
"""The most captures a move can list: every piece of one Halatafl side."""

_MAX_DIGITS = 2
"""Digits in a square's rank: boards go up to 19x19."""


@dataclass(frozen=True, slots=True)
class ParsedMove:
    """What the text says: the squares visited (one square = destination only) and any captures."""

    path: tuple[Square, ...]
    captures: frozenset[Square] | None
    """None when the text gives no capture suffix."""


def parse_move_text(text: str, size: int) -> ParsedMove:
    """Parse move text for a board of ``size``; NotationError says what the format is."""
    if len(text) > MAX_MOVE_TEXT:
        raise NotationError(
            f"that text is {len(text):,} characters long, too long for a move "
            f"(at most {MAX_MOVE_TEXT}): {FORMAT_HELP}"
        )
    written = _scan(text)
    if written is None:
        raise NotationError(f"can't read {shorten(text.strip())!r} as a move: {FORMAT_HELP}")
    path_names, capture_names = written
    try:
        path = tuple(parse_square(name, size) for name in path_names)
        captures = (
            frozenset(parse_square(name, size) for name in capture_names) if capture_names else None
        )
    except ValueError as error:
        raise NotationError(str(error)) from None
    if any(a == b for a, b in pairwise(path)):
        raise NotationError("a move must go somewhere: the from and to squares are the same")
    return ParsedMove(path, captures)


def _scan(text: str) -> tuple[list[str], list[str]] | None:
    """The squares of the path and of the captures as written, or None if ``text`` is not a move;
    NotationError if it names more squares than any move has.

    Each character is looked at a bounded number of times: no backtracking.
    """
    end = len(text)
    at = _skip_spaces(text, 0)
    path: list[str] = []
    while True:
        after = _square_end(text, at)
        if after is None:
            return None
        path.append(text[at:after])
        if len(path) > MAX_PATH:
            raise NotationError(f"a move visits at most {MAX_PATH} squares: {FORMAT_HELP}")
        at = _skip_spaces(text, after)
        if at < end and text[at] == "-":
            at = _skip_spaces(text, at + 1)
        elif _square_end(text, at) is None:
            break
    captures: list[str] = []
    while at < end and text[at] in "xX":
        at = _skip_spaces(text, at + 1)
        after = _square_end(text, at)
        if after is None:
            return None
        captures.append(text[at:after])
        if len(captures) > MAX_CAPTURES:
            raise NotationError(f"a move captures at most {MAX_CAPTURES} pieces")
        at = _skip_spaces(text, after)
    return (path, captures) if at == end else None


def _skip_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _square_end(text: str, at: int) -> int | None:
    """Where the square written at ``at`` ends (a letter a-z, then one or two digits), if any."""
    if at >= len(text) or not ("a" <= text[at] <= "z" or "A" <= text[at] <= "Z"):
        return None
    digits = at + 1
    while digits < len(text) and digits - at <= _MAX_DIGITS and text[digits].isdecimal():
        digits += 1
    return digits if digits > at + 1 else None
