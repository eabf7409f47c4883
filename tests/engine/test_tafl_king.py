"""Capturing the king in each strength mode (RULES.md sections 1 and 2)."""

from __future__ import annotations

import dataclasses

import pytest

from engine import Game, Outcome, Piece, Reason, Side
from engine.presets import COPENHAGEN
from engine.rules import KingStrength
from tests.engine.tafl_setup import otn, setup, square

CAPTURED = Outcome(Side.ATTACKERS, Reason.KING_CAPTURED)


def test_strong_king_needs_four_attackers() -> None:
    game = setup("copenhagen", t="c8 e8 d9 h7", K="d8", T="k5")
    game.play("h7-d7")
    assert game.outcome == CAPTURED


def test_strong_king_is_not_taken_by_three() -> None:
    game = setup("copenhagen", t="c8 e8 h9", K="d8", T="k5")
    game.play("h9-d9")
    assert game.outcome is None


def test_strong_king_next_to_the_throne_is_taken_by_three_and_the_empty_throne() -> None:
    game = setup("copenhagen", t="e7 g7 h8", K="f7", T="k5")
    game.play("h8-f8")
    assert game.outcome == CAPTURED


def test_strong_king_on_the_throne_needs_four() -> None:
    three = setup("copenhagen", t="e6 g6 h7", K="f6", T="k5")
    three.play("h7-f7")
    assert three.outcome is None
    four = setup("copenhagen", t="e6 g6 f5 h7", K="f6", T="k5")
    four.play("h7-f7")
    assert four.outcome == CAPTURED


def test_strong_king_cannot_be_captured_on_the_edge() -> None:
    game = setup("copenhagen", t="a4 a6 c3", K="a5", T="k5")
    game.play("c3-c5")
    game.play("k5-k4")
    game.play("c5-b5")
    assert game.outcome is None


def test_fetlar_lone_king_is_captured_on_the_edge() -> None:
    game = setup("fetlar", t="a4 a6 c5", K="a5")
    game.play("c5-b5")
    assert game.outcome == CAPTURED


def test_fetlar_king_with_a_defender_left_is_safe_on_the_edge() -> None:
    game = setup("fetlar", t="a4 a6 c5", K="a5", T="k6")
    game.play("c5-b5")
    assert game.outcome is None


def test_the_hammer_must_touch_the_king() -> None:
    # Only the moving piece is the hammer: a move elsewhere does not capture a surrounded king.
    position = otn(11, t="c8 e8 d9 d7 b2", K="d8", T="k5")
    game = Game.from_position("copenhagen", position, "attackers")
    game.play("b2-b3")
    assert game.outcome is None


def test_a_captured_king_stays_on_the_board() -> None:
    game = setup("copenhagen", t="c8 e8 d9 h7", K="d8", T="k5")
    ply = game.play("h7-d7")
    assert ply.captures == ()
    assert game.piece_at(square(game, "d8")) is Piece.KING
    assert game.legal_moves() == []


@pytest.mark.parametrize("variant", ["hnefatafl", "tablut-corner"])
def test_strong_or_three_at_edge_king_falls_to_three_on_the_edge(variant: str) -> None:
    game = setup(variant, t="a4 a6 c5", K="a5", T="h7")
    game.play("c5-b5")
    assert game.outcome == CAPTURED


@pytest.mark.parametrize("variant", ["hnefatafl", "tablut-corner"])
def test_strong_or_three_at_edge_king_needs_four_inside(variant: str) -> None:
    three = setup(variant, t="c3 e3 g4", K="d3", T="h7")
    three.play("g4-d4")
    assert three.outcome is None
    four = setup(variant, t="c3 e3 d2 g4", K="d3", T="h7")
    four.play("g4-d4")
    assert four.outcome == CAPTURED


def test_hnefatafl_corner_counts_as_an_attacker_around_the_king() -> None:
    game = setup("hnefatafl", t="b2 c3", K="b1", T="h7")
    game.play("c3-c1")
    assert game.outcome == CAPTURED


def test_hnefatafl_empty_throne_counts_as_an_attacker_around_the_king() -> None:
    game = setup("hnefatafl", t="e7 g7 h8", K="f7", T="k5")
    game.play("h8-f8")
    assert game.outcome == CAPTURED


def test_tablut_corner_throne_does_not_count_around_the_king() -> None:
    game = setup("tablut-corner", t="d6 f6 g7", K="e6", T="h3")
    game.play("g7-e7")
    assert game.outcome is None


def test_tablut_king_is_weak_away_from_the_throne() -> None:
    game = setup("tablut", t="b3 d8", K="c3", T="h7")
    game.play("d8-d3")
    assert game.outcome == CAPTURED


def test_tablut_king_next_to_the_throne_needs_three_and_the_throne() -> None:
    two = setup("tablut", t="d6 g6", K="e6", T="h3")
    two.play("g6-f6")
    assert two.outcome is None
    three = setup("tablut", t="d6 f6 g7", K="e6", T="h3")
    three.play("g7-e7")
    assert three.outcome == CAPTURED


def test_tablut_king_on_the_throne_needs_four() -> None:
    three = setup("tablut", t="d5 f5 g6", K="e5", T="h3")
    three.play("g6-e6")
    assert three.outcome is None
    four = setup("tablut", t="d5 f5 e4 g6", K="e5", T="h3")
    four.play("g6-e6")
    assert four.outcome == CAPTURED


def test_brandubh_king_strength_by_distance_from_the_throne() -> None:
    on_throne = setup("brandubh", t="c4 e4 d3 f5", K="d4", T="a6")
    on_throne.play("f5-d5")
    assert on_throne.outcome == CAPTURED
    next_to = setup("brandubh", t="c5 e5 f6", K="d5", T="a3")
    next_to.play("f6-d6")
    assert next_to.outcome == CAPTURED
    elsewhere = setup("brandubh", t="b3 e2", K="b2", T="f6")
    elsewhere.play("e2-c2")
    assert elsewhere.outcome is None  # a2 is no attacker: the weak king needs the far side too
    weak = setup("brandubh", t="a2 e2", K="b2", T="f6")
    weak.play("e2-c2")
    assert weak.outcome == CAPTURED


def test_weak_king_falls_between_two_attackers() -> None:
    game = setup("tawlbwrdd", t="c5 e1", K="d5", T="h9")
    game.play("e1-e5")
    assert game.outcome == CAPTURED


def test_weak_king_may_move_between_two_attackers() -> None:
    game = setup("tawlbwrdd", "defenders", t="c5 e5", K="d8", T="h9")
    game.play("d8-d5")
    assert game.outcome is None


def test_weak_king_is_not_taken_by_two_attackers_off_line() -> None:
    game = setup("tawlbwrdd", t="c5 e1", K="d5", T="h9")
    game.play("e1-e4")
    assert game.outcome is None


def test_alea_evangelii_king_is_strong() -> None:
    three = setup("alea-evangelii", t="c8 e8 h9", K="d8", T="p5")
    three.play("h9-d9")
    assert three.outcome is None
    four = setup("alea-evangelii", t="c8 e8 d9 h7", K="d8", T="p5")
    four.play("h7-d7")
    assert four.outcome == CAPTURED


def test_a_weak_king_with_a_hostile_edge_falls_against_it() -> None:
    # A custom rule set: weak king, edge hostile (like a man).
    rules = dataclasses.replace(
        COPENHAGEN,
        id="custom",
        king_strength=KingStrength.WEAK,
        edge_hostile=True,
        shieldwall=False,
        exit_fort=False,
        encirclement=False,
    )
    game = Game.from_position(rules, otn(11, t="c4", K="a4", T="h9"), "attackers")
    game.play("c4-b4")
    assert game.outcome == CAPTURED
