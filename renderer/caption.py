"""One line of plain text to go with a board image."""

from __future__ import annotations

from engine.game import Game
from engine.types import Reason

SEPARATOR = " · "


def caption(game: Game) -> str:
    """``Move 12 · attackers played d1-d4 capturing d5 · defenders to move``.

    Moves are numbered in pairs, like chess: the first side's ply and the reply share a number.
    Once the game is over the last part says who won and why.
    """
    parts = [f"Move {max(1, (len(game.history) + 1) // 2)}"]
    if game.history:
        ply = game.history[-1]
        captured = list(ply.captures)
        if game.outcome is not None and game.outcome.reason is Reason.KING_CAPTURED:
            captured.append("the king")
        played = f"{ply.side} played {ply.move}"
        parts.append(f"{played} capturing {_listing(captured)}" if captured else played)
    if game.outcome is None:
        parts.append(f"{game.turn} to move")
    elif game.outcome.winner is None:
        result = "void" if game.outcome.void else "draw"
        parts.append(f"{result}: {game.outcome.reason.description}")
    else:
        parts.append(f"{game.outcome.winner} win: {game.outcome.reason.description}")
    return SEPARATOR.join(parts)


def _listing(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
