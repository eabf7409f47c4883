"""Replays: an animated GIF with one frame per ply after the start, the last one lingering."""

from __future__ import annotations

import io
import random
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageSequence

import engine
from renderer import (
    DEFAULT_WIDTH,
    BoardView,
    ReplayTooLarge,
    board_geometry,
    render_image,
    render_replay,
)
from renderer.replay import FIRST_MS, FRAME_MS, LAST_MS
from renderer.theme import WOOD
from tests.renderer.games import halatafl_chain, new_game, played, unending_game
from tests.renderer.pixels import mismatched_squares

MAX_REPLAY_BYTES = 8 * 1024 * 1024
"""Discord's upload limit without boosts."""


def frames(gif: bytes) -> list[Image.Image]:
    image = Image.open(io.BytesIO(gif))
    assert image.format == "GIF"
    return [frame.convert("RGB") for frame in ImageSequence.Iterator(image)]


def durations(gif: bytes) -> list[int]:
    image = Image.open(io.BytesIO(gif))
    return [frame.info["duration"] for frame in ImageSequence.Iterator(image)]


def random_game(variant: str, plies: int, seed: int) -> engine.Game:
    """``plies`` random legal moves; seeds whose game ends sooner are skipped."""
    for attempt in range(seed, seed + 50):
        rng = random.Random(attempt)
        game = new_game(variant)
        while len(game.history) < plies and game.outcome is None:
            game.push(rng.choice(game.legal_moves()))
        if len(game.history) == plies:
            return game
    raise AssertionError(f"no random {variant} game lasted {plies} plies")


def test_one_frame_for_the_start_and_one_per_ply_each_showing_its_position() -> None:
    game = halatafl_chain()
    gif = render_replay(game, start=game.start[0])
    shown = frames(gif)
    assert len(shown) == len(game.history) + 1
    assert shown[0].size == (DEFAULT_WIDTH, DEFAULT_WIDTH)
    geometry = board_geometry(7, width=DEFAULT_WIDTH)
    replay = engine.Game.from_position(game.rules_string, *game.start)
    for index, frame in enumerate(shown):
        if index:
            replay.play(str(game.history[index - 1].move))
        view = BoardView.from_game(replay)
        marked = set(view.last_move) | set(view.captures)
        # a chain's diagonal path grazes the squares around it: leave the marked area out
        near = {s + d for s in marked for d in (-8, -7, -6, -1, 0, 1, 6, 7, 8) if 0 <= s + d < 49}
        assert mismatched_squares(frame, geometry, WOOD, view, near) == [], f"frame {index}"


def test_the_final_position_lingers() -> None:
    gif = render_replay(played("brandubh", "d6-f6", "d5-d6", "f6-f5"))
    times = durations(gif)
    assert len(times) == 4
    assert times[1:-1] == [FRAME_MS, FRAME_MS]
    assert times[-1] == LAST_MS > FRAME_MS


def test_a_game_set_up_from_a_position_replays_from_it() -> None:
    start = "/7/7/7/7/tK5/7/2t4/"
    game = engine.Game.from_position("brandubh", start, "attackers")
    game.play("c7-c5")
    with pytest.raises(ValueError, match="ply 1 \\(c7-c5\\) is not legal"):
        render_replay(game)
    shown = frames(render_replay(game, start=start))
    assert len(shown) == 2


def test_a_200_ply_11x11_replay_fits_in_a_discord_upload() -> None:
    game = random_game("copenhagen", 200, seed=1)
    gif = render_replay(game)
    assert len(gif) < MAX_REPLAY_BYTES
    assert len(frames(gif)) == 201


def test_a_long_game_has_a_frame_per_ply_its_durations_and_its_last_position() -> None:
    game = unending_game("copenhagen", 300)
    gif = render_replay(game, width=320)
    assert durations(gif) == [FIRST_MS, *[FRAME_MS] * 299, LAST_MS]
    shown = frames(gif)
    assert len(shown) == 301
    final = render_image(game, width=320).convert("RGB")
    assert shown[-1].tobytes() == final.tobytes()


def test_past_max_bytes_the_replay_is_refused() -> None:
    game = unending_game("brandubh", 40)
    gif = render_replay(game, width=320)
    assert render_replay(game, width=320, max_bytes=len(gif)) == gif
    with pytest.raises(ReplayTooLarge, match=f"over {len(gif) // 2:,} bytes"):
        render_replay(game, width=320, max_bytes=len(gif) // 2)


PEAK_SCRIPT = """
import sys
from renderer import render_replay
from tests.renderer.games import unending_game

def kb(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))

game = unending_game("copenhagen", int(sys.argv[1]))
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # VmHWM starts again from the resident size now
before = kb("VmRSS")
render_replay(game, width=480)
print(kb("VmHWM") - before)
"""


def replay_peak_kb(plies: int) -> int:
    """How far a fresh process's resident memory rises while it renders a ``plies`` replay."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(plies)],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc")
def test_the_memory_a_replay_takes_does_not_grow_with_the_game() -> None:
    """Pillow's pixels are not Python objects (tracemalloc does not see them): the process's
    peak resident memory is measured instead. Holding every frame, 400 plies took 4 times
    what 100 did."""
    assert replay_peak_kb(400) < 1.3 * replay_peak_kb(100)
