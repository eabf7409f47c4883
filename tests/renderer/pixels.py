"""Reading rendered images back: colours at squares and where two images differ."""

from __future__ import annotations

import io

from PIL import Image, ImageChops

from engine.types import Piece, Square
from renderer import BoardView, Geometry, Theme

RGB = tuple[int, int, int]
TOLERANCE = 24
"""How far (largest channel difference) a pixel may be from the theme colour it shows."""


def open_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def probe(geometry: Geometry, view: BoardView, square: Square) -> tuple[int, int]:
    """Where to read a square's colour: its centre, or for an empty corner square a point
    between the arms of its saltire (the arms cross in the centre)."""
    x, y = geometry.center(square)
    if square in view.corners and square not in view.pieces:
        return (x + geometry.cell // 4, y)
    return (x, y)


def probe_colour(image: Image.Image, geometry: Geometry, view: BoardView, square: Square) -> RGB:
    pixel = image.getpixel(probe(geometry, view, square))
    assert isinstance(pixel, tuple)
    return (pixel[0], pixel[1], pixel[2])


def expected_colour(theme: Theme, view: BoardView, square: Square) -> RGB:
    """The colour ``square`` shows at its probe point when no mark covers it: a man's body,
    the king's crown, or the empty square."""
    piece = view.pieces.get(square)
    if piece in (Piece.ATTACKER, Piece.BLACK):
        return theme.attacker
    if piece in (Piece.DEFENDER, Piece.WHITE):
        return theme.defender
    if piece is Piece.KING:
        return theme.crown
    if square == view.throne or square in view.corners:
        return theme.special
    file, rank = square % view.size, square // view.size
    return theme.square if (file + rank) % 2 == 0 else theme.square_alt


def close(a: RGB, b: RGB) -> bool:
    return max(abs(x - y) for x, y in zip(a, b, strict=True)) <= TOLERANCE


def mismatched_squares(
    image: Image.Image, geometry: Geometry, theme: Theme, view: BoardView, skip: set[Square]
) -> list[tuple[Square, RGB, RGB]]:
    """Squares (not in ``skip``) that do not show what ``view`` holds there."""
    wrong = []
    for square in range(view.size * view.size):
        if square in skip:
            continue
        seen = probe_colour(image, geometry, view, square)
        wanted = expected_colour(theme, view, square)
        if not close(seen, wanted):
            wrong.append((square, seen, wanted))
    return wrong


def changed_squares(a: Image.Image, b: Image.Image, geometry: Geometry) -> set[Square]:
    """The squares where two images of the same layout differ anywhere inside the square."""
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 8 else 0)
    changed = set()
    for square in range(geometry.size * geometry.size):
        if diff.crop(geometry.box(square)).getbbox() is not None:
            changed.add(square)
    return changed


def changed_outside_board(a: Image.Image, b: Image.Image, geometry: Geometry) -> bool:
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 8 else 0)
    left, top, right, bottom = geometry.board_box
    diff.paste(0, (left, top, right, bottom))
    return diff.getbbox() is not None
