"""Colour themes: the default wooden board and a high-contrast one."""

from __future__ import annotations

from dataclasses import dataclass

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Theme:
    """Every colour the renderer paints with; tints carry their opacity as alpha."""

    name: str
    frame: RGB
    """The border around the board, where the coordinates are."""
    coordinates: RGB
    square: RGB
    square_alt: RGB
    """Every other square, faintly different, so long files are easy to count."""
    grid: RGB
    special: RGB
    """Throne and corners (Halatafl: the marked corners and centre)."""
    special_mark: RGB
    attacker: RGB
    attacker_rim: RGB
    defender: RGB
    defender_rim: RGB
    king: RGB
    king_rim: RGB
    crown: RGB
    shadow_alpha: int
    last_move: RGBA
    """Tint of the last move's from- and to-squares."""
    path: RGBA
    """The line along the last move's path, and the dots where a chain landed on its way."""
    capture: RGB
    capture_outline: RGB
    selection: RGB
    target: RGBA
    """The dots on the squares a chosen piece can move to."""


WOOD = Theme(
    name="wood",
    frame=(74, 46, 26),
    coordinates=(246, 228, 196),
    square=(232, 196, 140),
    square_alt=(224, 186, 128),
    grid=(150, 104, 60),
    special=(176, 118, 66),
    special_mark=(118, 72, 36),
    attacker=(40, 32, 30),
    attacker_rim=(98, 84, 76),
    defender=(250, 245, 232),
    defender_rim=(70, 48, 30),
    king=(250, 245, 232),
    king_rim=(196, 146, 24),
    crown=(38, 30, 28),
    shadow_alpha=90,
    last_move=(20, 100, 245, 100),
    path=(20, 90, 230, 150),
    capture=(214, 34, 34),
    capture_outline=(255, 255, 255),
    selection=(20, 90, 200),
    target=(30, 20, 10, 110),
)

CONTRAST = Theme(
    name="contrast",
    frame=(0, 0, 0),
    coordinates=(255, 255, 255),
    square=(255, 255, 255),
    square_alt=(236, 236, 236),
    grid=(0, 0, 0),
    special=(150, 150, 150),
    special_mark=(0, 0, 0),
    attacker=(0, 0, 0),
    attacker_rim=(255, 255, 255),
    defender=(255, 255, 255),
    defender_rim=(0, 0, 0),
    king=(255, 255, 255),
    king_rim=(0, 0, 0),
    crown=(0, 0, 0),
    shadow_alpha=0,
    last_move=(0, 110, 255, 120),
    path=(0, 90, 255, 200),
    capture=(230, 0, 90),
    capture_outline=(0, 0, 0),
    selection=(0, 90, 255),
    target=(0, 0, 0, 150),
)

THEMES: dict[str, Theme] = {theme.name: theme for theme in (WOOD, CONTRAST)}
"""Themes by name; the first is the default."""


def resolve_theme(theme: str | Theme) -> Theme:
    """The theme itself, or the one named ``theme``; ValueError names the choices."""
    if isinstance(theme, Theme):
        return theme
    try:
        return THEMES[theme.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown theme {theme!r}; choose one of: {', '.join(THEMES)}") from None
