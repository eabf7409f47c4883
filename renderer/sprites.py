"""Pieces, marks and special squares, drawn once per square size and theme, smoothly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter

from engine.types import Piece
from renderer.theme import RGB, Theme

SUPERSAMPLE = 4
"""Sprites are drawn this many times larger, then reduced: smooth edges at any size."""

MAN_RADIUS, KING_RADIUS = 0.39, 0.45
"""Piece radii as a share of the square's side."""

Draw = Callable[[ImageDraw.ImageDraw, float], None]
"""Draws a sprite on a square of side ``S`` (the float) with its centre at ``S / 2``."""


@dataclass(frozen=True)
class Sprites:
    """Square-sized RGBA images to paste with themselves as the mask."""

    pieces: dict[Piece, Image.Image]
    throne: Image.Image
    corner: Image.Image
    capture: Image.Image
    """The cross on a square whose man was just captured."""
    fallen: Image.Image
    """The cross laid over a captured king."""
    target: Image.Image
    selection: Image.Image
    waypoint: Image.Image
    """The dot on a square where a Halatafl chain landed on its way."""


@lru_cache(maxsize=16)
def sprites(cell: int, theme: Theme) -> Sprites:
    """The sprites for squares ``cell`` pixels wide (cached)."""
    dark = _shadowed(cell, theme, MAN_RADIUS, _man(theme.attacker, theme.attacker_rim, MAN_RADIUS))
    light = _shadowed(cell, theme, MAN_RADIUS, _man(theme.defender, theme.defender_rim, MAN_RADIUS))
    return Sprites(
        pieces={
            Piece.ATTACKER: dark,
            Piece.DEFENDER: light,
            Piece.BLACK: dark,
            Piece.WHITE: light,
            Piece.KING: _shadowed(cell, theme, KING_RADIUS, _king(theme, KING_RADIUS)),
        },
        throne=_drawn(cell, _special(theme, diamond=True)),
        corner=_drawn(cell, _special(theme, diamond=False)),
        capture=_drawn(cell, _cross(theme.capture, theme.capture_outline, 0.30, 0.085)),
        fallen=_drawn(cell, _cross(theme.capture, theme.capture_outline, 0.20, 0.10)),
        target=_drawn(cell, _disc(theme.target, 0.14)),
        selection=_drawn(cell, _frame(theme.selection, 0.075)),
        waypoint=_drawn(cell, _disc((*theme.path[:3], 255), 0.12)),
    )


def _drawn(cell: int, draw: Draw) -> Image.Image:
    big = cell * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw(ImageDraw.Draw(image), float(big))
    return image.resize((cell, cell), Image.Resampling.LANCZOS)


def _shadowed(cell: int, theme: Theme, radius: float, body: Draw) -> Image.Image:
    """A round piece of ``radius`` (share of the square) with a soft shadow below right."""
    big = cell * SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    if theme.shadow_alpha:
        shadow = Image.new("L", (big, big), 0)
        offset = big * 0.035
        r = big * radius
        c = big / 2
        ImageDraw.Draw(shadow).ellipse(
            (c - r + offset, c - r + offset * 1.4, c + r + offset, c + r + offset * 1.4),
            fill=theme.shadow_alpha,
        )
        image.putalpha(shadow.filter(ImageFilter.GaussianBlur(big * 0.025)))
    body(ImageDraw.Draw(image), float(big))
    return image.resize((cell, cell), Image.Resampling.LANCZOS)


def _circle(draw: ImageDraw.ImageDraw, c: float, r: float, **style: object) -> None:
    draw.ellipse((c - r, c - r, c + r, c + r), **style)  # type: ignore[arg-type]


def _man(fill: RGB, rim: RGB, radius: float) -> Draw:
    def draw(d: ImageDraw.ImageDraw, s: float) -> None:
        c = s / 2
        _circle(d, c, s * radius, fill=fill, outline=rim, width=round(s * 0.035))
        _circle(d, c, s * radius * 0.64, outline=rim, width=round(s * 0.025))

    return draw


def _king(theme: Theme, radius: float) -> Draw:
    def draw(d: ImageDraw.ImageDraw, s: float) -> None:
        c, u = s / 2, s * radius
        _circle(d, c, u, fill=theme.king_rim, outline=theme.crown, width=round(s * 0.02))
        _circle(d, c, u * 0.82, fill=theme.king)
        d.polygon(
            [
                (c + x * u, c + y * u)
                for x, y in (
                    (-0.52, 0.20),
                    (-0.66, -0.40),
                    (-0.30, -0.08),
                    (0.0, -0.58),
                    (0.30, -0.08),
                    (0.66, -0.40),
                    (0.52, 0.20),
                )
            ],
            fill=theme.crown,
        )
        d.rectangle((c - 0.52 * u, c + 0.28 * u, c + 0.52 * u, c + 0.48 * u), fill=theme.crown)
        for x, y in ((-0.66, -0.42), (0.0, -0.60), (0.66, -0.42)):
            r = 0.12 * u
            d.ellipse(
                (c + (x * u) - r, c + y * u - r, c + x * u + r, c + y * u + r), fill=theme.crown
            )

    return draw


def _special(theme: Theme, *, diamond: bool) -> Draw:
    """Throne (a diamond) or corner (a saltire) square: darker wood with a carved mark."""

    def draw(d: ImageDraw.ImageDraw, s: float) -> None:
        line = round(s * 0.03)
        d.rectangle((0, 0, s, s), fill=theme.special)
        inset = s * 0.12
        d.rectangle((inset, inset, s - inset, s - inset), outline=theme.special_mark, width=line)
        if diamond:
            c = s / 2
            r = c - inset
            d.polygon(
                [(c, c - r), (c + r, c), (c, c + r), (c - r, c)],
                outline=theme.special_mark,
                width=line,
            )
        else:
            d.line((inset, inset, s - inset, s - inset), fill=theme.special_mark, width=line)
            d.line((inset, s - inset, s - inset, inset), fill=theme.special_mark, width=line)

    return draw


def _cross(colour: RGB, outline: RGB, inset: float, thickness: float) -> Draw:
    def draw(d: ImageDraw.ImageDraw, s: float) -> None:
        lo, hi = s * inset, s * (1 - inset)
        for stroke, width in ((outline, thickness + 0.05), (colour, thickness)):
            w = round(s * width)
            for line in ((lo, lo, hi, hi), (lo, hi, hi, lo)):
                d.line(line, fill=stroke, width=w)
                for x, y in (line[:2], line[2:]):
                    d.ellipse((x - w / 2, y - w / 2, x + w / 2, y + w / 2), fill=stroke)

    return draw


def _disc(colour: tuple[int, int, int, int], radius: float) -> Draw:
    def draw(d: ImageDraw.ImageDraw, s: float) -> None:
        _circle(d, s / 2, s * radius, fill=colour)

    return draw


def _frame(colour: RGB, thickness: float) -> Draw:
    def draw(d: ImageDraw.ImageDraw, s: float) -> None:
        w = round(s * thickness)
        d.rounded_rectangle(
            (w / 2, w / 2, s - w / 2, s - w / 2), radius=s * 0.12, outline=colour, width=w
        )

    return draw
