"""A player's rating over their rated games, as a small PNG line chart with its uncertainty."""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

CHART_SIZE = (480, 200)
_MARGIN_LEFT, _MARGIN_RIGHT, _MARGIN_TOP, _MARGIN_BOTTOM = 48, 12, 14, 24
_BACKGROUND = (43, 45, 49)
_GRID = (78, 80, 88)
_TEXT = (219, 222, 225)
_LINE = (240, 178, 50)
_BAND = (92, 78, 48)


def rating_chart(ratings: Sequence[float], deviations: Sequence[float]) -> bytes:
    """The ``ratings`` after each game (oldest first), each with a band of two ``deviations``
    around it, as a PNG. ValueError without a rating, or with the two of unequal length."""
    if not ratings or len(ratings) != len(deviations):
        raise ValueError("a chart needs a rating and a deviation for each game")
    width, height = CHART_SIZE
    image = Image.new("RGB", CHART_SIZE, _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=11)
    low = min(r - 2 * d for r, d in zip(ratings, deviations, strict=True))
    high = max(r + 2 * d for r, d in zip(ratings, deviations, strict=True))
    low, high = _nice_range(low, high)
    plot_w = width - _MARGIN_LEFT - _MARGIN_RIGHT
    plot_h = height - _MARGIN_TOP - _MARGIN_BOTTOM

    def x(index: int) -> float:
        return _MARGIN_LEFT + (plot_w * index / (len(ratings) - 1) if len(ratings) > 1 else plot_w)

    def y(value: float) -> float:
        return _MARGIN_TOP + plot_h * (high - value) / (high - low)

    step = _grid_step(high - low)
    tick = low
    while tick <= high:
        draw.line([(_MARGIN_LEFT, y(tick)), (width - _MARGIN_RIGHT, y(tick))], fill=_GRID)
        draw.text((_MARGIN_LEFT - 6, y(tick)), f"{tick:.0f}", fill=_TEXT, font=font, anchor="rm")
        tick += step
    upper = [(x(i), y(r + 2 * d)) for i, (r, d) in enumerate(zip(ratings, deviations, strict=True))]
    lower = [(x(i), y(r - 2 * d)) for i, (r, d) in enumerate(zip(ratings, deviations, strict=True))]
    if len(ratings) > 1:
        draw.polygon(upper + lower[::-1], fill=_BAND)
        draw.line([(x(i), y(r)) for i, r in enumerate(ratings)], fill=_LINE, width=2)
    else:
        draw.line([upper[0], lower[0]], fill=_BAND, width=6)
    last = (x(len(ratings) - 1), y(ratings[-1]))
    draw.ellipse([last[0] - 3, last[1] - 3, last[0] + 3, last[1] + 3], fill=_LINE)
    games = f"{len(ratings)} rated game{'s' if len(ratings) != 1 else ''}"
    draw.text((width / 2, height - 6), games, fill=_TEXT, font=font, anchor="ms")
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


def _grid_step(span: float) -> float:
    """A round distance between grid lines: some three to six of them."""
    for step in (25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 6:
            return float(step)
    return 2000.0


def _nice_range(low: float, high: float) -> tuple[float, float]:
    """``low`` and ``high`` widened to multiples of the grid step, at least 100 apart."""
    if high - low < 100:
        middle = (high + low) / 2
        low, high = middle - 50, middle + 50
    step = _grid_step(high - low)
    return step * (low // step), step * -(-high // step)
