"""The exact proof that the defenders hold an endgame (bench/proofs.py), which the endgame suite
leaves out of its conversion figure: it must call held what the king escapes from or draws by
going round, and never what the attackers can win."""

from __future__ import annotations

from dataclasses import replace

from bench.proofs import defenders_hold
from engine import Game, Side
from engine.rules import Repetition, Rules
from engine.variants import resolve_rules
from tests.engine.tafl_setup import otn

GOING_ROUND = "/3t3/7/7/t5t/1t5/5t1/2K1t2/"
"""Brandubh game 215 of tests/data at ply 28 (the king on c7): the king's threats from c7 and c3
force the attackers' answers, and the positions come round again."""


def brandubh_where_repetition(rule: Repetition) -> Rules:
    rules = resolve_rules("brandubh")
    assert isinstance(rules, Rules)
    return replace(rules, repetition=rule)


def test_a_king_whose_threats_come_round_holds_where_repetition_draws() -> None:
    assert defenders_hold("brandubh", GOING_ROUND, 5, 500_000) is True
    assert defenders_hold(brandubh_where_repetition(Repetition.IGNORED), GOING_ROUND, 5, 500_000)


def test_going_round_does_not_hold_where_repetition_loses_for_the_defenders() -> None:
    for rule in (Repetition.DEFENDERS_LOSE, Repetition.REPEATER_WINS):
        rules = brandubh_where_repetition(rule)
        assert defenders_hold(rules, GOING_ROUND, 5, 500_000) is False


def test_a_proof_shorter_than_the_circle_finds_nothing() -> None:
    assert defenders_hold("brandubh", GOING_ROUND, 4, 500_000) is False


def test_a_king_with_a_file_open_both_ways_holds_at_once() -> None:
    # One attackers' move closes one way along the a-file, and none can take him on a4.
    position = otn(7, t="d7 e6 f5 g3", K="a4")
    assert defenders_hold("brandubh", position, 1, 10_000) is True


def test_a_king_the_attackers_take_next_move_is_not_held() -> None:
    position = otn(7, t="a5 c2 e6 f5", K="b5")
    game = Game.from_position("brandubh", position, Side.ATTACKERS)
    game.play("c2-c5")
    assert game.outcome is not None and game.outcome.winner is Side.ATTACKERS
    for plies in (1, 3, 6):
        assert defenders_hold("brandubh", position, plies, 500_000) is False


def test_a_proof_over_its_budget_says_it_does_not_know() -> None:
    assert defenders_hold("brandubh", GOING_ROUND, 5, 100) is None
