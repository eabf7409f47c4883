"""Where each square lies in the image: shared by the renderer, its tests and callers."""

from __future__ import annotations

from dataclasses import dataclass

from engine.types import Square

MIN_SIZE, MAX_SIZE = 5, 26
"""Board sizes the renderer draws (files are lettered a..z)."""
MIN_CELL = 12
"""The smallest square, in pixels, that still shows a piece."""
BORDER = 0.05
"""Width of the coordinate border on each side, as a share of the image width."""


@dataclass(frozen=True, slots=True)
class Geometry:
    """A square image ``width`` pixels wide with a ``size`` x ``size`` board in its middle.

    ``flipped`` turns the board half round: a1 top right instead of bottom left.
    """

    size: int
    width: int
    flipped: bool = False

    def __post_init__(self) -> None:
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise ValueError(
                f"board size {self.size} is not drawable; sizes go from {MIN_SIZE} to {MAX_SIZE}"
            )
        if self.cell < MIN_CELL:
            raise ValueError(
                f"an image {self.width} px wide is too small for a {self.size}x{self.size} "
                f"board; use at least {min_width(self.size)} px"
            )

    @property
    def cell(self) -> int:
        """The side of one square in pixels."""
        return (self.width - 2 * border_width(self.width)) // self.size

    @property
    def origin(self) -> int:
        """The pixel where the board starts, on both axes (the board is centred)."""
        return (self.width - self.cell * self.size) // 2

    @property
    def board_box(self) -> tuple[int, int, int, int]:
        """``(left, top, right, bottom)`` of the playing area, right and bottom exclusive."""
        end = self.origin + self.cell * self.size
        return (self.origin, self.origin, end, end)

    def column(self, file: int) -> int:
        """The column (0 = left) where ``file`` (0 = a) is drawn."""
        return self.size - 1 - file if self.flipped else file

    def row(self, rank: int) -> int:
        """The row (0 = top) where ``rank`` (0 = rank 1) is drawn."""
        return rank if self.flipped else self.size - 1 - rank

    def box(self, square: Square) -> tuple[int, int, int, int]:
        """``(left, top, right, bottom)`` of ``square``, right and bottom exclusive."""
        self._check(square)
        left = self.origin + self.column(square % self.size) * self.cell
        top = self.origin + self.row(square // self.size) * self.cell
        return (left, top, left + self.cell, top + self.cell)

    def center(self, square: Square) -> tuple[int, int]:
        """The pixel at the middle of ``square``."""
        left, top, _, _ = self.box(square)
        return (left + self.cell // 2, top + self.cell // 2)

    def square_at(self, x: int, y: int) -> Square | None:
        """The square drawn at pixel ``(x, y)``, or None for the border."""
        column, row = (x - self.origin) // self.cell, (y - self.origin) // self.cell
        if not (0 <= column < self.size and 0 <= row < self.size):
            return None
        file = self.size - 1 - column if self.flipped else column
        rank = row if self.flipped else self.size - 1 - row
        return rank * self.size + file

    def _check(self, square: Square) -> None:
        if not 0 <= square < self.size * self.size:
            raise ValueError(f"square {square} is off a {self.size}x{self.size} board")


def border_width(width: int) -> int:
    """The least width of the coordinate border of an image ``width`` pixels wide."""
    return max(10, round(width * BORDER))


def min_width(size: int) -> int:
    """The narrowest image that draws a ``size`` x ``size`` board."""
    width = size * MIN_CELL
    while (width - 2 * border_width(width)) // size < MIN_CELL:
        width += 1
    return width
