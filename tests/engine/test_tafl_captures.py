"""Capturing men (RULES.md section 1): custodial captures, hostile squares, the armed king."""

from __future__ import annotations

import dataclasses

import pytest

from engine import Game, Side
from engine.presets import COPENHAGEN, TABLUT_LINNAEAN
from tests.engine.tafl_setup import captured, otn, setup, square

# -- custodial capture -------------------------------------------------------------------------


def test_a_man_between_the_moved_piece_and_a_friend_is_captured() -> None:
    game = setup("copenhagen", t="c5 e1", T="d5", K="h9")
    ply = game.play("e1-e5")
    assert ply.captures == ("d5",)
    assert game.piece_at(square(game, "d5")) is None
    assert game.outcome is None


def test_defenders_capture_attackers_the_same_way() -> None:
    game = setup("copenhagen", "defenders", t="d5", T="c5 e1", K="h9")
    assert captured(game.play("e1-e5")) == {"d5"}


def test_moving_between_two_enemies_is_safe() -> None:
    game = setup("copenhagen", t="d1", T="c5 e5", K="h9")
    ply = game.play("d1-d5")
    assert ply.captures == ()
    assert str(game.piece_at(square(game, "d5"))) == "t"


def test_a_man_flanked_on_the_other_axis_is_not_captured() -> None:
    # d5 has attackers on c5 and e5 already; the move to d6 closes nothing on d5's column.
    game = setup("copenhagen", t="c5 e5 a6", T="d5", K="h9")
    assert game.play("a6-d6").captures == ()


def test_several_men_fall_to_one_move() -> None:
    game = setup("copenhagen", t="c5 e7 g5 e1", T="d5 f5 e6", K="h9")
    assert captured(game.play("e1-e5")) == {"d5", "f5", "e6"}


def test_only_the_moving_piece_is_the_hammer() -> None:
    # d5 stands between attackers c5 and e5 after an unrelated move: not captured.
    game = setup("copenhagen", "defenders", t="c5 e5 a9", T="d6", K="h9")
    game.play("d6-d5")
    assert game.play("a9-a8").captures == ()
    assert game.piece_at(square(game, "d5")) is not None


# -- Linnaean capture (OpenTafl's Tablut) -------------------------------------------------------

OPENTAFL_TABLUT = (
    "dim:9 name:Tablut esc:e atkf:y ks:c nj:n cor: cenp:tcnkTCNK cens: cenh: cenhe:tcnkTCNK "
    "linc:y start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
)


@pytest.mark.parametrize("variant", ["tablut-linnaean", OPENTAFL_TABLUT])
def test_a_defender_beside_the_enthroned_king_falls_against_the_throne(variant: str) -> None:
    # The king on the throne e5, attackers on three of his sides (d5 f5 e6), a defender on the
    # fourth (e4): an attacker moving beyond it (e3) captures it against the king and throne.
    game = Game.from_position(variant, otn(9, t="d5 f5 e6 a3", T="e4", K="e5"), "attackers")
    assert game.play("a3-e3").captures == ("e4",)
    assert game.piece_at(square(game, "e4")) is None
    assert game.outcome is None


def test_without_the_rule_the_enthroned_king_shields_his_defender() -> None:
    game = setup("tablut", t="d5 f5 e6 a3", T="e4", K="e5")
    assert game.play("a3-e3").captures == ()


def test_two_attackers_beside_the_king_are_not_enough() -> None:
    game = setup("tablut-linnaean", t="d5 f5 a3", T="e4", K="e5")
    assert game.play("a3-e3").captures == ()
    game = setup("tablut-linnaean", t="d5 e6 a3", T="e4", K="e5")
    assert game.play("a3-e3").captures == ()


def test_the_king_off_the_throne_shields_his_defender() -> None:
    # The same shape around the king on c7, away from the throne.
    game = setup("tablut-linnaean", t="b7 d7 c8 a5", T="c6", K="c7")
    assert game.play("a5-c5").captures == ()
    # Nor does the empty throne become an anvil (here where it is not hostile when empty).
    rules = dataclasses.replace(TABLUT_LINNAEAN, id="custom", empty_throne_hostile_to=frozenset())
    plain = Game.from_position(rules, otn(9, t="b7 d7 c8 a3", T="e4", K="c7"), "attackers")
    assert plain.play("a3-e3").captures == ()


def test_only_an_attacker_moving_beyond_the_defender_captures_it() -> None:
    # e3 already stands beyond the defender; the attacker closing the king's third side (e6)
    # is not next to the defender, so it captures nothing.
    game = setup("tablut-linnaean", t="d5 f5 e3 e8", T="e4", K="e5")
    assert game.play("e8-e6").captures == ()
    assert game.piece_at(square(game, "e4")) is not None


def test_the_rule_never_takes_an_attacker_against_the_king() -> None:
    # Mirrored, with an unarmed king so that only the Linnaean rule could take e4: it does not.
    rules = dataclasses.replace(TABLUT_LINNAEAN, id="custom", king_hammer=False, king_anvil=False)
    game = Game.from_position(rules, otn(9, t="e4", T="d5 f5 e6 a3", K="e5"), "defenders")
    assert game.play("a3-e3").captures == ()


# -- hostile squares ---------------------------------------------------------------------------


def test_a_corner_is_an_anvil_against_defenders() -> None:
    game = setup("copenhagen", t="c4", T="b1", K="h9")
    assert game.play("c4-c1").captures == ("b1",)


def test_a_corner_is_an_anvil_against_attackers() -> None:
    game = setup("copenhagen", "defenders", t="a2", T="c3", K="h9")
    assert game.play("c3-a3").captures == ("a2",)


def test_the_empty_throne_is_an_anvil_against_defenders_in_copenhagen() -> None:
    game = setup("copenhagen", t="h8", T="f7", K="b9")
    assert game.play("h8-f8").captures == ("f7",)


def test_the_occupied_throne_is_no_anvil_against_defenders_in_copenhagen() -> None:
    game = setup("copenhagen", t="h8", T="f7", K="f6")
    assert game.play("h8-f8").captures == ()


def test_the_throne_is_an_anvil_against_attackers_empty_or_not_in_copenhagen() -> None:
    empty = setup("copenhagen", "defenders", t="f7", T="h8", K="b9")
    assert empty.play("h8-f8").captures == ("f7",)
    # With the king on it, an unarmed king would not help: the throne itself is the anvil.
    rules = dataclasses.replace(COPENHAGEN, id="custom", king_hammer=False, king_anvil=False)
    occupied = Game.from_position(rules, otn(11, t="f7", T="h8", K="f6"), "defenders")
    assert occupied.play("h8-f8").captures == ("f7",)


def test_the_occupied_throne_is_no_anvil_in_hnefatafl() -> None:
    # Seed 001: the throne is hostile only when empty, and the king is unarmed.
    game = setup("hnefatafl", "defenders", t="f7", T="h8", K="f6")
    assert game.play("h8-f8").captures == ()
    empty = setup("hnefatafl", "defenders", t="f7", T="h8", K="b9")
    assert empty.play("h8-f8").captures == ("f7",)


def test_the_edge_is_an_anvil_in_hnefatafl_only() -> None:
    hnefatafl = setup("hnefatafl", "defenders", t="a5", T="c5", K="h9")
    assert hnefatafl.play("c5-b5").captures == ("a5",)
    copenhagen = setup("copenhagen", "defenders", t="a5", T="c5", K="h9")
    assert copenhagen.play("c5-b5").captures == ()


def test_nothing_is_hostile_in_tablut_corner() -> None:
    corner = setup("tablut-corner", t="c4", T="b1", K="h7")
    assert corner.play("c4-c1").captures == ()
    throne = setup("tablut-corner", t="g7", T="e6", K="b7")
    assert throne.play("g7-e7").captures == ()
    edge = setup("tablut-corner", "defenders", t="a5", T="c5", K="h7")
    assert edge.play("c5-b5").captures == ()


def test_the_empty_throne_is_hostile_to_all_in_tablut() -> None:
    game = setup("tablut", t="g7", T="e6", K="b7")
    assert game.play("g7-e7").captures == ("e6",)


def test_a_corner_block_square_is_an_anvil_in_alea_evangelii() -> None:
    game = setup("alea-evangelii", "defenders", t="c2", T="d5", K="j15")
    assert game.play("d5-d2").captures == ("c2",)


# -- the king as hammer and anvil ----------------------------------------------------------------


def test_the_armed_king_captures_as_the_hammer() -> None:
    game = setup("copenhagen", "defenders", t="d5", T="c5", K="e8")
    assert game.play("e8-e5").captures == ("d5",)


def test_the_armed_king_is_an_anvil() -> None:
    game = setup("copenhagen", "defenders", t="d5", T="e1", K="c5")
    assert game.play("e1-e5").captures == ("d5",)


def test_the_unarmed_king_is_neither_hammer_nor_anvil() -> None:
    hammer = setup("hnefatafl", "defenders", t="d5", T="c5", K="e8")
    assert hammer.play("e8-e5").captures == ()
    anvil = setup("hnefatafl", "defenders", t="d5", T="e1", K="c5")
    assert anvil.play("e1-e5").captures == ()


def test_a_king_that_is_only_the_anvil_does_not_capture_when_he_moves() -> None:
    rules = dataclasses.replace(COPENHAGEN, id="custom", king_hammer=False)
    moving = Game.from_position(rules, otn(11, t="d5", T="c5", K="e8"), "defenders")
    assert moving.play("e8-e5").captures == ()
    standing = Game.from_position(rules, otn(11, t="d5", T="e1", K="c5"), "defenders")
    assert standing.play("e1-e5").captures == ("d5",)


def test_the_king_is_never_listed_among_captures() -> None:
    game = setup("tawlbwrdd", t="c5 e1", K="d5")
    ply = game.play("e1-e5")
    assert ply.captures == ()
    assert game.outcome is not None and game.outcome.winner is Side.ATTACKERS
