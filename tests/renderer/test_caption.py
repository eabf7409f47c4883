"""The plain-text line that goes with each image."""

from __future__ import annotations

import engine
from renderer import caption
from tests.renderer.games import halatafl_chain, new_game, played


def test_before_the_first_move() -> None:
    assert caption(new_game("copenhagen")) == "Move 1 · attackers to move"
    assert caption(new_game("halatafl")) == "Move 1 · white to move"


def test_moves_are_numbered_in_pairs() -> None:
    assert caption(played("copenhagen", "d1-d3")) == (
        "Move 1 · attackers played d1-d3 · defenders to move"
    )
    assert caption(played("copenhagen", "d1-d3", "e5-e2")) == (
        "Move 1 · defenders played e5-e2 · attackers to move"
    )
    assert caption(played("copenhagen", "d1-d3", "e5-e2", "g1-g3")).startswith("Move 2 · ")


def test_captures_are_listed() -> None:
    game = played("copenhagen", "d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3")
    assert caption(game) == "Move 3 · attackers played g3-e3 capturing e2 · defenders to move"


def test_a_halatafl_chain_is_written_with_every_landing() -> None:
    game = halatafl_chain()
    assert caption(game) == "Move 2 · black played d6-f4-d2 capturing e3 · white to move"


def test_the_captured_king_and_the_result() -> None:
    game = engine.Game.from_position("brandubh", "/7/7/7/7/tK5/7/2t4/", "attackers")
    game.play("c7-c5")
    assert caption(game) == (
        "Move 1 · attackers played c7-c5 capturing the king · attackers win: the king was captured"
    )


def test_a_resignation_and_a_draw() -> None:
    game = played("tablut", "e2-c2")
    game.resign("defenders")
    assert caption(game).endswith(" · attackers win: resignation")
    game = new_game("tablut")
    game.agree_draw()
    assert caption(game) == "Move 1 · draw: a draw was agreed"
