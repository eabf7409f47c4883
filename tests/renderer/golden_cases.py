"""The positions kept as golden images: each name gives the PNG the renderer makes for it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import engine
from renderer import render
from tests.renderer.games import halatafl_chain, new_game, played

GOLDEN_DIR = Path(__file__).parent / "golden"


def _brandubh_start() -> bytes:
    return render(new_game("brandubh"), width=280)


def _copenhagen_capture_defenders_view() -> bytes:
    # a recorded opening (shared/data/copenhagen.csv): g3-e3 captures e2; e7's moves shown
    game = played("copenhagen", "d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3")
    return render(game, viewer="defenders", width=360, moves_of="e7")


def _halatafl_chain_contrast() -> bytes:
    game = halatafl_chain()
    return render(game, theme="contrast", width=280)


def _brandubh_king_captured() -> bytes:
    game = engine.Game.from_position("brandubh", "/7/7/7/7/tK5/7/2t4/", "attackers")
    game.play("c7-c5")
    return render(game, width=280)


CASES: dict[str, Callable[[], bytes]] = {
    "brandubh-start": _brandubh_start,
    "copenhagen-capture-defenders-view": _copenhagen_capture_defenders_view,
    "halatafl-chain-contrast": _halatafl_chain_contrast,
    "brandubh-king-captured": _brandubh_king_captured,
}


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.png"
