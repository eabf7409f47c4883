"""Drawing a BoardView: a cached empty board per layout, then pieces and marks pasted on it."""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from PIL import Image, ImageDraw, ImageFont

from engine.types import Piece, Square
from renderer.geometry import Geometry
from renderer.scene import BoardView
from renderer.sprites import SUPERSAMPLE, Sprites, sprites
from renderer.theme import RGB, Theme

PALETTE_COLOURS = 255
"""Colours of the palette every image is reduced to; one index stays free for GIF transparency."""
PNG_COMPRESS_LEVEL = 3
"""zlib level for PNGs (see bench/render.py for the time/size tradeoff)."""
FALLEN_TINT = 110
"""Opacity of the capture colour on a captured king's square."""
PATH_WIDTH = 0.14
"""Width of the last move's path line, as a share of the square's side."""


@dataclass(frozen=True)
class Canvas:
    """What every image of one layout shares: geometry, the empty board, sprites, palette."""

    geometry: Geometry
    theme: Theme
    background: Image.Image
    sprites: Sprites
    palette: Image.Image


@lru_cache(maxsize=32)
def canvas(
    size: int,
    throne: Square | None,
    corners: frozenset[Square],
    theme: Theme,
    width: int,
    flipped: bool,
) -> Canvas:
    """The shared drawing material for one layout (cached)."""
    geometry = Geometry(size, width, flipped)
    art = sprites(geometry.cell, theme)
    background = _background(geometry, theme, art, throne, corners)
    palette = _palette(size, throne, corners, theme, width)
    return Canvas(geometry, theme, background, art, palette)


def canvas_for(view: BoardView, theme: Theme, width: int, flipped: bool) -> Canvas:
    return canvas(view.size, view.throne, view.corners, theme, width, flipped)


def draw(view: BoardView, canvas: Canvas, base: Image.Image | None = None) -> Image.Image:
    """The view as an RGB image, drawn on a copy of ``base`` (the empty board by default)."""
    image = (canvas.background if base is None else base).copy()
    geometry, theme, art = canvas.geometry, canvas.theme, canvas.sprites
    if view.last_move:
        for square in (view.last_move[0], view.last_move[-1]):
            _tint(image, geometry, square, theme.last_move)
        for start, end in pairwise(view.last_move):
            _path(image, geometry, start, end, theme.path)
        for square in view.last_move[1:-1]:
            _paste(image, geometry, square, art.waypoint)
    if view.fallen_king is not None:
        _tint(image, geometry, view.fallen_king, (*theme.capture, FALLEN_TINT))
    for square, piece in view.pieces.items():
        _paste(image, geometry, square, art.pieces[piece])
    for square in view.captures:
        _paste(image, geometry, square, art.capture)
    if view.fallen_king is not None:
        _paste(image, geometry, view.fallen_king, art.fallen)
    if view.selected is not None:
        _paste(image, geometry, view.selected, art.selection)
    for square in view.targets:
        _paste(image, geometry, square, art.target)
    return image


def reduce(image: Image.Image, canvas: Canvas) -> Image.Image:
    """The image in the layout's palette (P mode): smaller files, same look."""
    return image.quantize(palette=canvas.palette, dither=Image.Dither.NONE)


def encode_png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()


# -- pasting -----------------------------------------------------------------------------------


def _paste(image: Image.Image, geometry: Geometry, square: Square, sprite: Image.Image) -> None:
    left, top, _, _ = geometry.box(square)
    image.paste(sprite, (left, top), sprite)


def _tint(
    image: Image.Image, geometry: Geometry, square: Square, colour: tuple[int, int, int, int]
) -> None:
    image.paste(
        colour[:3], geometry.box(square), _solid_mask(geometry.cell, geometry.cell, colour[3])
    )


@lru_cache(maxsize=64)
def _solid_mask(width: int, height: int, alpha: int) -> Image.Image:
    return Image.new("L", (width, height), alpha)


def _path(
    image: Image.Image,
    geometry: Geometry,
    start: Square,
    end: Square,
    colour: tuple[int, int, int, int],
) -> None:
    """A line from the centre of ``start`` to the centre of ``end``."""
    (x0, y0), (x1, y1) = geometry.center(start), geometry.center(end)
    mask = _segment_mask(
        (x1 - x0) // geometry.cell, (y1 - y0) // geometry.cell, geometry.cell, colour[3]
    )
    half = geometry.cell // 2
    image.paste(colour[:3], (min(x0, x1) - half, min(y0, y1) - half), mask)


@lru_cache(maxsize=256)
def _segment_mask(columns: int, rows: int, cell: int, alpha: int) -> Image.Image:
    """A smooth line between the centres of two squares ``columns`` and ``rows`` apart."""
    width, height = (abs(columns) + 1) * cell, (abs(rows) + 1) * cell
    k = SUPERSAMPLE
    big = Image.new("L", (width * k, height * k), 0)
    half = cell * k / 2
    xs = (half, width * k - half) if columns >= 0 else (width * k - half, half)
    ys = (half, height * k - half) if rows >= 0 else (height * k - half, half)
    thickness = round(cell * k * PATH_WIDTH)
    draw = ImageDraw.Draw(big)
    draw.line((xs[0], ys[0], xs[1], ys[1]), fill=alpha, width=thickness)
    for x, y in zip(xs, ys, strict=True):
        r = thickness / 2
        draw.ellipse((x - r, y - r, x + r, y + r), fill=alpha)
    return big.resize((width, height), Image.Resampling.BOX)


# -- the empty board ---------------------------------------------------------------------------


def _background(
    geometry: Geometry,
    theme: Theme,
    art: Sprites,
    throne: Square | None,
    corners: frozenset[Square],
) -> Image.Image:
    image = Image.new("RGB", (geometry.width, geometry.width), theme.frame)
    draw = ImageDraw.Draw(image)
    size = geometry.size
    for square in range(size * size):
        file, rank = square % size, square // size
        colour = theme.square if (file + rank) % 2 == 0 else theme.square_alt
        draw.rectangle(geometry.box(square), fill=colour)
        if square == throne:
            _paste(image, geometry, square, art.throne)
        elif square in corners:
            _paste(image, geometry, square, art.corner)
    _grid(draw, geometry, theme.grid)
    _coordinates(draw, geometry, theme.coordinates)
    return image


def _grid(draw: ImageDraw.ImageDraw, geometry: Geometry, colour: RGB) -> None:
    left, top, right, bottom = geometry.board_box
    line = max(1, geometry.cell // 40)
    for i in range(1, geometry.size):
        at = left + i * geometry.cell
        draw.rectangle((at - line // 2, top, at - line // 2 + line - 1, bottom - 1), fill=colour)
        draw.rectangle((left, at - line // 2, right - 1, at - line // 2 + line - 1), fill=colour)
    edge = max(2, line * 2)
    draw.rectangle(
        (left - edge, top - edge, right - 1 + edge, bottom - 1 + edge), outline=colour, width=edge
    )


def _coordinates(draw: ImageDraw.ImageDraw, geometry: Geometry, colour: RGB) -> None:
    """Files (a..) above and below the board, ranks (1..) left and right of it."""
    left, top, right, bottom = geometry.board_box
    font = _font(round((geometry.width - right) * 0.58))
    cell = geometry.cell
    for index in range(geometry.size):
        file_x = left + geometry.column(index) * cell + cell // 2
        rank_y = top + geometry.row(index) * cell + cell // 2
        letter, number = chr(97 + index), str(index + 1)
        for y in (top / 2, (bottom + geometry.width) / 2):
            draw.text((file_x, y), letter, fill=colour, font=font, anchor="mm")
        for x in (left / 2, (right + geometry.width) / 2):
            draw.text((x, rank_y), number, fill=colour, font=font, anchor="mm")


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


# -- the palette -------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _palette(
    size: int, throne: Square | None, corners: frozenset[Square], theme: Theme, width: int
) -> Image.Image:
    """A palette fitted to every colour a layout can show, whichever way round: the border, and
    each piece and mark on each look of square (plain, throne, corner), plain and tinted."""
    geometry = Geometry(size, width)
    art = sprites(geometry.cell, theme)
    background = _background(geometry, theme, art, throne, corners)
    draft = Canvas(geometry, theme, background, art, Image.new("P", (1, 1)))
    typical = _typical_squares(size, throne, corners)
    tinted, fallen = draft.background.copy(), draft.background.copy()
    for square in typical:
        _tint(tinted, geometry, square, theme.last_move)
        _tint(fallen, geometry, square, (*theme.capture, FALLEN_TINT))
    kinds = [Piece.ATTACKER, Piece.DEFENDER, Piece.KING, None]
    boards = []
    for shift in range(len(kinds)):
        pieces = {s: p for s in typical if (p := kinds[(s + shift) % len(kinds)]) is not None}
        empty = frozenset(s for s in typical if s not in pieces)
        boards.append(draw(BoardView(size, pieces, throne, corners, captures=empty), draft))
        boards.append(draw(BoardView(size, pieces, throne, corners, targets=empty), draft, tinted))
        for square in typical:
            _paste(boards[-1], geometry, square, art.selection)
    kings = {s: Piece.KING for s in typical}
    boards.append(draw(BoardView(size, kings, throne, corners), draft, fallen))
    for square in typical:
        _paste(boards[-1], geometry, square, art.fallen)
    patches = [board.crop(geometry.box(square)) for board in boards for square in typical]
    left, top, right, bottom = geometry.board_box
    patches += [
        draft.background.crop((0, 0, geometry.width, top)),
        draft.background.crop((0, 0, left, geometry.width)),
    ]
    edge_and_middle = ((0, size - 1, size * size - 1), (size // 2, size * size - 1 - size // 2))
    for path in edge_and_middle:
        board = draw(BoardView(size, {}, throne, corners, last_move=path), draft)
        patches.append(board.crop((left, top, right, bottom)))
    return _sheet(patches, geometry.width).quantize(
        PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT
    )


def _typical_squares(size: int, throne: Square | None, corners: frozenset[Square]) -> list[Square]:
    """Two squares of each plain colour, the throne and a corner: every look a square has."""
    special = {*corners, *([] if throne is None else [throne])}
    plain = [s for s in range(size * size) if s not in special]
    light = [s for s in plain if (s % size + s // size) % 2 == 0][:2]
    dark = [s for s in plain if (s % size + s // size) % 2 == 1][:2]
    return [*light, *dark, *sorted(special)[:1], *([] if throne is None else [throne])]


def _sheet(images: list[Image.Image], width: int) -> Image.Image:
    """The images packed left to right in rows ``width`` pixels wide."""
    rows: list[list[Image.Image]] = [[]]
    used = 0
    for image in images:
        if rows[-1] and used + image.width > width:
            rows.append([])
            used = 0
        rows[-1].append(image)
        used += image.width
    height = sum(max(image.height for image in row) for row in rows)
    sheet = Image.new("RGB", (max(width, *(i.width for i in images)), height))
    y = 0
    for row in rows:
        x = 0
        for image in row:
            sheet.paste(image, (x, y))
            x += image.width
        y += max(image.height for image in row)
    return sheet
