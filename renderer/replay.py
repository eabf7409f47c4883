"""A whole game as an animated GIF, written one frame at a time: the memory it takes does not
grow with the game's length (Pillow's own writer keeps every frame until the end)."""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator
from itertools import chain

from PIL import GifImagePlugin, Image, ImageChops

from engine.game import Game
from engine.types import Side
from renderer.board import PALETTE_COLOURS, canvas_for, draw, reduce
from renderer.image import DEFAULT_WIDTH, is_flipped
from renderer.scene import BoardView
from renderer.theme import Theme, resolve_theme

FRAME_MS = 900
FIRST_MS = 1500
LAST_MS = 5000

_CLEAR = PALETTE_COLOURS
"""The palette index left free by every image: unchanged pixels of a frame are written as it."""
_KEEP = 1
"""GIF disposal method "do not dispose": each frame is drawn over the one before."""


class ReplayTooLarge(ValueError):
    """The GIF would be larger than the ``max_bytes`` asked for."""


def render_replay(
    game: Game,
    *,
    start: str | None = None,
    viewer: Side | str | None = None,
    theme: str | Theme = "wood",
    width: int = DEFAULT_WIDTH,
    frame_ms: int = FRAME_MS,
    last_ms: int = LAST_MS,
    max_bytes: int | None = None,
) -> bytes:
    """A looping GIF of ``game``: the start, then one frame per ply with it marked, and a long
    pause on the final position.

    The game is replayed from its variant's start, or from the OTN position ``start`` when it
    began elsewhere; ValueError if a recorded move is not legal there. With ``max_bytes`` (an
    upload limit: Discord takes 10 MiB, 8 MiB on some servers), ReplayTooLarge as soon as the
    GIF grows past it, so that the caller can send the game's record alone.
    """
    views = _views(game, start)
    first = next(views)
    board = canvas_for(first, resolve_theme(theme), width, is_flipped(viewer))
    last = len(game.history)
    gif = _GifWriter(board.palette, width, max_bytes)
    previous: Image.Image | None = None
    for index, view in enumerate(chain([first], views)):
        frame = reduce(draw(view, board), board)
        duration = FIRST_MS if index == 0 else frame_ms
        gif.add(frame, previous, max(duration, last_ms) if index == last else duration)
        previous = frame
    return gif.finish()


def _views(game: Game, start: str | None) -> Iterator[BoardView]:
    """The board before any move, then after each ply of ``game``, replayed on a new game."""
    first = game.history[0].side if game.history else game.turn
    replay = Game.from_position(game.rules_string, start or game.rules.start, first)
    yield BoardView.from_game(replay)
    for number, ply in enumerate(game.history, start=1):
        if not replay.is_legal(ply.move):
            where = "its variant's start" if start is None else "the given start"
            raise ValueError(
                f"ply {number} ({ply.notation}) is not legal when the game is replayed from "
                f"{where}; pass start= the position the game began from"
            )
        replay.push(ply.move)
        yield BoardView.from_game(replay)


class _GifWriter:
    """An animated GIF (GIF89a, looping) built frame by frame; each frame after the first is
    written as the box of pixels that changed, the unchanged ones in it transparent."""

    def __init__(self, palette: Image.Image, width: int, max_bytes: int | None) -> None:
        colours = bytes(palette.getpalette() or b"")[: 3 * 256]
        self._max_bytes = max_bytes
        self._out = io.BytesIO()
        self._out.write(
            b"GIF89a"
            + struct.pack("<HHBBB", width, width, 0xF7, 0, 0)  # a global table of 256 colours
            + colours.ljust(3 * 256, b"\0")
            + b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop for ever
        )

    def add(self, frame: Image.Image, previous: Image.Image | None, duration_ms: int) -> None:
        """Append ``frame`` (P mode, the palette's indices), shown after ``previous``."""
        offset = (0, 0)
        params: dict[str, int] = {"duration": duration_ms, "disposal": _KEEP}
        if previous is not None:
            change = ImageChops.subtract_modulo(frame, previous)
            box = change.getbbox(alpha_only=False) or (0, 0, 1, 1)
            unchanged = change.crop(box).point([255, *[0] * 255], "1")
            frame = frame.crop(box)
            frame.paste(_CLEAR, mask=unchanged)
            offset = box[:2]
            params["transparency"] = _CLEAR
        for chunk in GifImagePlugin.getdata(frame, offset, **params):
            self._out.write(chunk)
        if self._max_bytes is not None and self._out.tell() > self._max_bytes:
            raise ReplayTooLarge(
                f"the replay GIF would be over {self._max_bytes:,} bytes; the game is too long"
            )

    def finish(self) -> bytes:
        self._out.write(b";")
        return self._out.getvalue()
