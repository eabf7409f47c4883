"""Board images for tafl games: PNG positions, GIF replays and captions.

Knows Pillow and the engine's types, nothing of Discord.
"""

from engine import __version__
from renderer.caption import caption
from renderer.chart import rating_chart
from renderer.geometry import Geometry
from renderer.image import DEFAULT_WIDTH, board_geometry, render, render_image
from renderer.replay import ReplayTooLarge, render_replay
from renderer.scene import BoardView
from renderer.theme import CONTRAST, THEMES, WOOD, Theme

__all__ = [
    "CONTRAST",
    "DEFAULT_WIDTH",
    "THEMES",
    "WOOD",
    "BoardView",
    "Geometry",
    "ReplayTooLarge",
    "Theme",
    "__version__",
    "board_geometry",
    "caption",
    "rating_chart",
    "render",
    "render_image",
    "render_replay",
]
