"""One error hierarchy: every error a player causes is a TaflError, and every refused move says
why as a Refusal a program can act on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from engine import (
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    NotationError,
    PositionError,
    RecordError,
    Refusal,
    RulesError,
    TaflError,
    UnknownVariantError,
)
from engine.record import game_from_record, parse_data_line

HALATAFL_MIDGAME = "/7/1W3W1/2WWW2/7/2BBB2/1B3B1/7/"
"""White on b2 c3 d3 e3 f2, Black on c5 d5 e5 b6 f6; the corners and most squares free."""
HALATAFL_CORNERED = "/W6/1W3W1/2WWW2/7/2BBB2/1B3B1/7/"
"""The same with a White piece on the corner a1, which must leave first."""
BRANDUBH_START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"


@dataclass(frozen=True)
class Case:
    """A move refused in a position: the variant, the position (None: the start), the text."""

    variant: str
    position: str | None
    move: str
    reason: Refusal


REFUSED = [
    Case("copenhagen", None, "c3-c4", Refusal.NO_PIECE),
    Case("copenhagen", None, "e5-e4", Refusal.NOT_YOUR_PIECE),
    Case("copenhagen", None, "c3", Refusal.UNREACHABLE),
    Case("copenhagen", None, "d1-e2", Refusal.NOT_A_MOVE_SHAPE),
    Case("copenhagen", None, "d1-e1", Refusal.OCCUPIED),
    Case("copenhagen", None, "f1-f3", Refusal.BLOCKED),
    Case("copenhagen", None, "d1-a1", Refusal.RESTRICTED_SQUARE),
    Case("copenhagen", None, "d1-d3xd4", Refusal.WRONG_CAPTURES),
    Case("halatafl", HALATAFL_MIDGAME, "a4-a5", Refusal.NO_PIECE),
    Case("halatafl", HALATAFL_MIDGAME, "c5-c4", Refusal.NOT_YOUR_PIECE),
    Case("halatafl", HALATAFL_MIDGAME, "c3-c2", Refusal.BACKWARD),
    Case("halatafl", HALATAFL_MIDGAME, "c3-d3", Refusal.OCCUPIED),
    Case("halatafl", HALATAFL_MIDGAME, "c3-c6", Refusal.NOT_A_MOVE_SHAPE),
    Case("halatafl", HALATAFL_MIDGAME, "e3-g3", Refusal.NOTHING_TO_JUMP),
    Case("halatafl", HALATAFL_MIDGAME, "b2-d4-b2", Refusal.JUMPED_TWICE),
    Case("halatafl", HALATAFL_MIDGAME, "c3-a1", Refusal.RESTRICTED_SQUARE),
    Case("halatafl", HALATAFL_CORNERED, "c3-c4", Refusal.MUST_LEAVE_CORNER),
    Case("halatafl", None, "b2-d4", Refusal.OPENING),
]


def start(case: Case) -> Game:
    if case.position is None:
        return Game(case.variant)
    return Game.from_position(case.variant, case.position, Game(case.variant).turn)


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: f"{c.variant}-{c.move}-{c.reason}")
def test_each_refused_move_gives_its_reason_and_changes_nothing(case: Case) -> None:
    game = start(case)
    before = (game.position(), game.turn, len(game.history))
    with pytest.raises(IllegalMoveError) as refused:
        game.play(case.move)
    assert refused.value.reason is case.reason
    assert str(refused.value)
    assert (game.position(), game.turn, len(game.history)) == before


def test_game_over_and_nothing_to_undo_have_their_reasons() -> None:
    game = Game("brandubh")
    with pytest.raises(IllegalMoveError) as refused:
        game.undo()
    assert refused.value.reason is Refusal.NOTHING_TO_UNDO
    game.resign("attackers")
    for act in (lambda: game.play("d2-c2"), lambda: game.resign("defenders")):
        with pytest.raises(IllegalMoveError) as refused:
            act()
        assert refused.value.reason is Refusal.GAME_OVER


def test_every_reason_but_the_catch_all_is_given_somewhere() -> None:
    shown = {case.reason for case in REFUSED}
    shown |= {Refusal.NOTHING_TO_UNDO, Refusal.GAME_OVER}
    assert set(Refusal) - shown == {Refusal.NOT_LEGAL}


@pytest.mark.parametrize(
    ("cause", "error"),
    [
        (lambda: Game("copenhagen").play("d1 to d4!"), NotationError),
        (lambda: Game("copenhagen").play("z99"), NotationError),
        (lambda: Game("copenhagen").play("b5"), AmbiguousMoveError),
        (lambda: Game("chess"), UnknownVariantError),
        (lambda: Game("dim:5 start:/5/5/5/5/5/"), RulesError),
        (lambda: Game("dim:7 bogus:1 start:/7/7/7/3K3/7/7/7/"), RulesError),
        (lambda: Game.from_position("brandubh", "/7/7/7/7/7/7/7/", "attackers"), PositionError),
        (lambda: Game.from_position("brandubh", "/3t3/", "attackers"), PositionError),
        (
            lambda: Game.from_position("brandubh", Game("brandubh").position(), "white"),
            PositionError,
        ),
        (lambda: Game.from_position("brandubh", Game("brandubh").position(), "up"), PositionError),
        (lambda: game_from_record("1. d1-d4\n"), RecordError),
        (lambda: game_from_record("[rules:brandubh]\n\n1. d1-d4\n"), RecordError),
        (lambda: parse_data_line("d2-c2,0,0"), RecordError),
    ],
)
def test_every_error_a_user_causes_is_a_tafl_error_of_its_kind(
    cause: Callable[[], object], error: type[TaflError]
) -> None:
    with pytest.raises(error) as raised:
        cause()
    assert isinstance(raised.value, TaflError) and isinstance(raised.value, ValueError)
    assert str(raised.value)
