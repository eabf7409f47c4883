"""Rendering speed and size: per board size the median and 95th percentile time to render and
encode a mid-game position with the PNG size; the PNG zlib level tradeoff at 11x11; and replay
GIFs of 200, 600 and 1,500 plies on 11x11 and 19x19: time, size, and the peak memory the render
adds to its process (VmHWM, measured in a fresh subprocess per game, Linux only).

Run from the repository root: ``python bench/render.py [--runs N] [--replays-only]``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine
from engine.opentafl import parse_position
from renderer import BoardView, render, render_replay
from renderer import board as board_module
from renderer.image import render_image
from tests.renderer.games import unending_game

SIZES = {7: "brandubh", 9: "tablut", 11: "copenhagen", 13: None, 19: "alea-evangelii"}
"""The variant played at each benchmarked size; 13x13 has no preset and uses a made-up layout."""

LAYOUT_13 = "/4ttttt4/6t6/13/t5T5t/t5T5t/t4TTT4t/tt1TTTKTTT1tt/t4TTT4t/t5T5t/t5T5t/13/6t6/4ttttt4/"
MID_GAME_PLIES = 30
REPLAY_CASES = [("copenhagen", 200), ("copenhagen", 600), ("copenhagen", 1500)]
REPLAY_CASES += [("alea-evangelii", 200), ("alea-evangelii", 600), ("alea-evangelii", 1500)]


def mid_game(size: int, seed: int = 1) -> BoardView:
    """A position some way into a game of the variant of ``size``, with its last ply marked."""
    variant = SIZES[size]
    if variant is None:
        pieces = parse_position(LAYOUT_13, 13, "tTK")
        rng = random.Random(seed)
        for square in rng.sample(sorted(pieces), len(pieces) // 4):
            if pieces[square] is not engine.Piece.KING:
                del pieces[square]
        corners = frozenset({0, 12, 156, 168})
        return BoardView(13, pieces, 84, corners, last_move=(4, 30), captures=frozenset({43}))
    game = played(variant, MID_GAME_PLIES, seed, prefer_captures=True)
    return BoardView.from_game(game)


def played(variant: str, plies: int, seed: int, *, prefer_captures: bool = False) -> engine.Game:
    """A game of up to ``plies`` seeded random moves (captures first when asked)."""
    rng = random.Random(seed)
    game = engine.Game(variant)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves or game.outcome is not None:
            break
        capturing = [m for m in moves if prefer_captures and game.captures_of(m)]
        game.push(rng.choice(capturing or moves))
    return game


def _memory_kb(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def measure_replay(variant: str, plies: int) -> dict[str, float]:
    """Render one replay here (after making the game) and say what it took: seconds, MiB
    written, and the MiB the process's peak resident memory rose above where it stood."""
    game = unending_game(variant, plies)
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # resets VmHWM to the current resident size
    before = _memory_kb("VmRSS")
    start = time.perf_counter()
    gif = render_replay(game)
    seconds = time.perf_counter() - start
    peak = _memory_kb("VmHWM")
    return {"seconds": seconds, "mib": len(gif) / 2**20, "peak_mib": (peak - before) / 1024}


def replay_figures() -> None:
    print("\nreplay GIF, 800 px, random games that never end, each in a fresh process")
    print(f"{'variant':>15} {'plies':>6} {'seconds':>8} {'MiB':>6} {'peak +MiB':>10}")
    for variant, plies in REPLAY_CASES:
        done = subprocess.run(
            [sys.executable, __file__, "--measure-replay", variant, str(plies)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(done.stdout)
        print(
            f"{variant:>15} {plies:>6} {figures['seconds']:>8.1f} {figures['mib']:>6.2f} "
            f"{figures['peak_mib']:>10.0f}"
        )


def timings(action: Callable[[], object], runs: int) -> list[float]:
    action()
    result = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        result.append((time.perf_counter() - start) * 1000)
    return result


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="renders per board size")
    parser.add_argument("--replays-only", action="store_true", help="only the replay GIFs")
    parser.add_argument(
        "--measure-replay", nargs=2, metavar=("VARIANT", "PLIES"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.measure_replay:
        variant, plies = args.measure_replay
        print(json.dumps(measure_replay(variant, int(plies))))
        return
    if not args.replays_only:
        single_images(args.runs)
    replay_figures()


def single_images(runs: int) -> None:
    """Rendering and encoding one position per board size, and the PNG zlib level tradeoff."""
    print(f"render + PNG encode, 800 px, mid-game position, {runs} runs")
    print(f"{'size':>5} {'median ms':>10} {'p95 ms':>8} {'PNG KB':>8} {'first ms':>9}")
    for size in SIZES:
        view = mid_game(size)
        start = time.perf_counter()
        png = render(view)
        first = (time.perf_counter() - start) * 1000
        times = timings(partial(render, view), runs)
        print(
            f"{size:>5} {statistics.median(times):>10.1f} {percentile(times, 0.95):>8.1f} "
            f"{len(png) / 1024:>8.1f} {first:>9.0f}"
        )
    print("(first = the first render of a layout, which draws and caches its board and sprites)")

    print("\nPNG zlib level at 11x11: encode time and size")
    image = render_image(mid_game(11))
    saved_level = board_module.PNG_COMPRESS_LEVEL
    for level in (1, 3, 6, 9):
        board_module.PNG_COMPRESS_LEVEL = level
        times = timings(lambda: board_module.encode_png(image), runs // 2)
        size_kb = len(board_module.encode_png(image)) / 1024
        print(f"  level {level}: {statistics.median(times):5.1f} ms  {size_kb:6.1f} KB")
    board_module.PNG_COMPRESS_LEVEL = saved_level
    colour = image.convert("RGB")
    times = timings(lambda: board_module.encode_png(colour), runs // 2)
    size_kb = len(board_module.encode_png(colour)) / 1024
    print(
        f"  RGB without the palette, level {saved_level}: {statistics.median(times):5.1f} ms  "
        f"{size_kb:6.1f} KB"
    )


if __name__ == "__main__":
    main()
