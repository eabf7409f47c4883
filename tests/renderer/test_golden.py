"""Whole images against the golden ones in golden/ (see README.md to regenerate them)."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from tests.renderer.golden_cases import CASES, golden_path

MEAN_DIFFERENCE = 1.0
"""Largest mean difference per channel (0..255) over the whole image."""
OFF_PIXELS = 0.002
"""Largest share of pixels that may differ by more than ``OFF_BY``."""
OFF_BY = 48


def rgb(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.mark.parametrize("name", list(CASES))
def test_the_image_matches_its_golden_one(name: str) -> None:
    path = golden_path(name)
    assert path.exists(), f"{path} is missing: run python -m tests.renderer.regenerate"
    made, golden = rgb(CASES[name]()), rgb(path.read_bytes())
    assert made.size == golden.size
    difference = ImageChops.difference(made, golden).convert("L")
    histogram = difference.histogram()
    pixels = made.width * made.height
    mean = sum(level * count for level, count in enumerate(histogram)) / pixels
    off = sum(histogram[OFF_BY + 1 :]) / pixels
    assert mean <= MEAN_DIFFERENCE and off <= OFF_PIXELS, (
        f"{name} differs from {path.name}: mean {mean:.2f}, {off:.2%} of pixels off by more "
        f"than {OFF_BY}; if the change is meant, regenerate (tests/renderer/README.md)"
    )
