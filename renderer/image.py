"""Rendering one position to a PNG."""

from __future__ import annotations

from PIL import Image

from engine.game import Game
from engine.types import Side, Square
from renderer.board import canvas_for, draw, encode_png, reduce
from renderer.geometry import Geometry
from renderer.scene import BoardView
from renderer.theme import Theme, resolve_theme

DEFAULT_WIDTH = 800
"""Pixels across: sharp on desktops, still clear in Discord's smaller preview."""

_FLIPPED_VIEWERS = frozenset({Side.DEFENDERS, Side.BLACK})


def render(
    subject: Game | BoardView,
    *,
    viewer: Side | str | None = None,
    theme: str | Theme = "wood",
    width: int = DEFAULT_WIDTH,
    moves_of: Square | str | None = None,
) -> bytes:
    """A PNG of a game (its last ply marked) or of a BoardView.

    ``viewer`` is the side seen at the bottom: attackers/white (the default, a1 bottom left) or
    defenders/black (the board turned half round). ``moves_of`` marks the legal moves of the
    piece on that square (games only). Raises ValueError for a bad option.
    """
    return encode_png(
        render_image(subject, viewer=viewer, theme=theme, width=width, moves_of=moves_of)
    )


def render_image(
    subject: Game | BoardView,
    *,
    viewer: Side | str | None = None,
    theme: str | Theme = "wood",
    width: int = DEFAULT_WIDTH,
    moves_of: Square | str | None = None,
) -> Image.Image:
    """As ``render``, but the Pillow image (palette mode) instead of PNG bytes."""
    view = as_view(subject, moves_of)
    board = canvas_for(view, resolve_theme(theme), width, is_flipped(viewer))
    return reduce(draw(view, board), board)


def board_geometry(
    size: int, *, viewer: Side | str | None = None, width: int = DEFAULT_WIDTH
) -> Geometry:
    """Where ``render`` puts each square of a ``size`` x ``size`` board with these options."""
    return Geometry(size, width, is_flipped(viewer))


def as_view(subject: Game | BoardView, moves_of: Square | str | None = None) -> BoardView:
    if isinstance(subject, BoardView):
        if moves_of is not None:
            raise ValueError(
                "moves_of needs a game; for a BoardView pass it to BoardView.from_position"
            )
        return subject
    if isinstance(subject, Game):
        return BoardView.from_game(subject, moves_of=moves_of)
    raise TypeError(f"render takes an engine.Game or a BoardView, not {type(subject).__name__}")


def is_flipped(viewer: Side | str | None) -> bool:
    """Whether the board is drawn turned half round for ``viewer``."""
    if viewer is None:
        return False
    try:
        return Side(viewer) in _FLIPPED_VIEWERS
    except ValueError:
        choices = ", ".join(side.value for side in Side)
        raise ValueError(f"unknown viewer {viewer!r}; choose one of: {choices}") from None
