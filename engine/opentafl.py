"""OpenTafl notation (OTN): position strings, and rules strings for custom variants.

placeholder for the rules strings: being written.
"""

from __future__ import annotations

import re

from engine.rules import Rules
from engine.types import Piece, Square

_RANK_TOKEN = re.compile(r"\d+|\D")


def parse_position(text: str, size: int, letters: str) -> dict[Square, Piece]:
    """The pieces of an OTN position (rank 1 first) on a ``size`` board, using only ``letters``.

    ``parse_position("/3t3/.../", 7, "tTK")``; ValueError says what is wrong.
    """
    body = text.strip()
    if len(body) < 2 or not (body.startswith("/") and body.endswith("/")):
        raise ValueError(
            f"a position starts and ends with '/' and lists the ranks from rank 1 up, "
            f"digits counting empty squares, like /3t3/...; got {text.strip()!r}"
        )
    ranks = body[1:-1].split("/")
    if len(ranks) != size:
        raise ValueError(f"the position has {len(ranks)} ranks; a {size}x{size} board needs {size}")
    pieces: dict[Square, Piece] = {}
    for rank, row in enumerate(ranks):
        file = 0
        for token in _RANK_TOKEN.findall(row):
            if token.isdigit():
                file += int(token)
                continue
            if token not in letters:
                allowed = ", ".join(letters)
                raise ValueError(
                    f"rank {rank + 1}: {token!r} is not a piece here; the pieces are {allowed}"
                )
            if file < size:
                pieces[rank * size + file] = Piece(token)
            file += 1
        if file != size:
            raise ValueError(f"rank {rank + 1} ({row!r}) has {file} squares; expected {size}")
    return pieces


def rules_from_opentafl(text: str) -> Rules:
    raise NotImplementedError


def rules_to_opentafl(rules: Rules) -> str:
    raise NotImplementedError
