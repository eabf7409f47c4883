"""A whole game as an animated GIF."""

from __future__ import annotations

import io

from engine.game import Game
from engine.types import Side
from renderer.board import canvas_for, draw, reduce
from renderer.image import DEFAULT_WIDTH, is_flipped
from renderer.scene import BoardView
from renderer.theme import Theme, resolve_theme

FRAME_MS = 900
FIRST_MS = 1500
LAST_MS = 5000


def render_replay(
    game: Game,
    *,
    start: str | None = None,
    viewer: Side | str | None = None,
    theme: str | Theme = "wood",
    width: int = DEFAULT_WIDTH,
    frame_ms: int = FRAME_MS,
    last_ms: int = LAST_MS,
) -> bytes:
    """A looping GIF of ``game``: the start, then one frame per ply with it marked, and a long
    pause on the final position.

    The game is replayed from its variant's start, or from the OTN position ``start`` when it
    began elsewhere; ValueError if a recorded move is not legal there.
    """
    views = _views(game, start)
    board = canvas_for(views[0], resolve_theme(theme), width, is_flipped(viewer))
    frames = [reduce(draw(view, board), board) for view in views]
    durations = [FIRST_MS, *[frame_ms] * (len(frames) - 1)]
    durations[-1] = max(durations[-1], last_ms)
    buffer = io.BytesIO()
    frames[0].save(
        buffer,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        optimize=True,
    )
    return buffer.getvalue()


def _views(game: Game, start: str | None) -> list[BoardView]:
    """The board before any move, then after each ply of ``game``, replayed on a new game."""
    first = game.history[0].side if game.history else game.turn
    replay = Game.from_position(game.rules_string, start or game.rules.start, first)
    stages = [BoardView.from_game(replay)]
    for number, ply in enumerate(game.history, start=1):
        if ply.move not in replay.legal_moves():
            where = "its variant's start" if start is None else "the given start"
            raise ValueError(
                f"ply {number} ({ply.notation}) is not legal when the game is replayed from "
                f"{where}; pass start= the position the game began from"
            )
        replay.push(ply.move)
        stages.append(BoardView.from_game(replay))
    return stages
