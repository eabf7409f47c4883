"""The rating chart: a PNG of the chart's size whose line climbs as the rating does."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from renderer.chart import _LINE, CHART_SIZE, rating_chart


def line_rows(png: bytes) -> list[int]:
    """For each column, the mean row of the line's colour in it (columns without it left out)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == CHART_SIZE
    width, height = image.size
    rows = []
    for x in range(width):
        found = [y for y in range(height) if image.getpixel((x, y)) == _LINE]
        if found:
            rows.append(sum(found) // len(found))
    return rows


def test_a_rising_rating_draws_a_rising_line() -> None:
    png = rating_chart([1500, 1600, 1700, 1800], [350, 200, 120, 80])
    assert Image.open(io.BytesIO(png)).format == "PNG"
    rows = line_rows(png)
    assert len(rows) > CHART_SIZE[0] // 2
    assert rows[0] > rows[-1] + 25  # lower on the image is a lower rating


def test_one_game_is_a_point_and_nothing_is_refused() -> None:
    assert line_rows(rating_chart([1500], [350]))
    with pytest.raises(ValueError, match="a rating and a deviation for each game"):
        rating_chart([], [])
    with pytest.raises(ValueError, match="a rating and a deviation for each game"):
        rating_chart([1500, 1510], [300])
