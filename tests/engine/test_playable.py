"""Custom rules whose start cannot be played are refused when a game is created."""

from __future__ import annotations

import pytest

from engine import VARIANTS, Game, new_game, playable_problem

UNPLAYABLE = {
    "no attackers": ("dim:7 start:/7/7/7/3K3/7/7/7/", "the attackers have no pieces"),
    "a full board": (
        "dim:7 start:/1ttttt1/ttttttt/ttttttt/tttKttt/ttttttt/ttttttt/1ttttt1/",
        "the attackers, who move first, have no legal move",
    ),
    "a full board, defenders first": (
        "dim:7 atkf:n start:/1ttttt1/ttttttt/ttttttt/tttKttt/ttttttt/ttttttt/1ttttt1/",
        "the defenders, who move first, have no legal move",
    ),
    "the king on a corner": (
        "dim:7 start:/K6/7/7/7/7/7/3t3/",
        "the king starts on a1, on a corner, where he has already escaped",
    ),
    "the king on the edge, edge escape": (
        "dim:7 esc:e start:/7/7/7/6K/7/7/3t3/",
        "the king starts on g4, on the edge, where he has already escaped",
    ),
    "the king on a listed corner": (
        "dim:7 cor:b2 start:/7/1K5/7/7/7/7/3t3/",
        "the king starts on b2, on a corner, where he has already escaped",
    ),
    "a man on a corner": (
        "dim:7 start:/7/7/7/3K3/7/7/6t/",
        "a man starts on g7, where men may not stand",
    ),
    "a man on the throne": (
        "dim:7 start:/7/7/7/3T3/7/7/2K1t2/",
        "a man starts on d4, where men may not stand",
    ),
    "the king already captured": (
        "dim:7 start:/7/2t4/1tKt3/2t4/7/7/7/",
        "the game would be over before the first move: the king was captured",
    ),
    "a weak king already captured": (
        "dim:7 ks:w start:/7/7/1tKt3/7/7/7/7/",
        "the game would be over before the first move: the king was captured",
    ),
    "the defenders already encircled": (
        "dim:7 surf:y start:/1tttt2/1tKTt2/1tttt2/7/7/7/7/",
        "the game would be over before the first move: the defenders were encircled",
    ),
    "the king already in an exit fort": (
        "dim:7 efe:y start:/1TK1T2/1TTTT2/7/7/7/7/3t3/",
        "the game would be over before the first move: the king built an exit fort",
    ),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_preset_can_be_played(variant: str) -> None:
    assert playable_problem(variant) is None
    assert new_game(variant).rules is VARIANTS[variant]


@pytest.mark.parametrize(("rules", "problem"), UNPLAYABLE.values(), ids=UNPLAYABLE.keys())
def test_a_start_that_cannot_be_played_is_refused_naming_the_problem(
    rules: str, problem: str
) -> None:
    assert playable_problem(rules) == problem
    with pytest.raises(ValueError, match=f"^start: {problem}$"):
        new_game(rules)


@pytest.mark.parametrize(("rules", "problem"), UNPLAYABLE.values(), ids=UNPLAYABLE.keys())
def test_games_already_stored_with_such_rules_still_load(rules: str, problem: str) -> None:
    """Only new games are checked: a game saved before the check can still be loaded (and
    resigned)."""
    game = Game(rules)
    game.resign(game.turn)
    assert game.outcome is not None


def test_a_custom_start_that_can_be_played_is_accepted() -> None:
    game = new_game("dim:7 start:/7/7/7/3K3/7/7/3t3/")
    assert game.legal_moves()


def test_a_custom_start_without_a_king_is_refused_by_the_rules_reader() -> None:
    with pytest.raises(ValueError, match="exactly one king"):
        new_game("dim:7 start:/7/7/7/3T3/7/7/3t3/")
