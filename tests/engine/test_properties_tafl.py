"""Properties of every hnefatafl-family variant, on random games and random positions."""

from __future__ import annotations

import contextlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    NotationError,
    Piece,
    Reason,
    Side,
)
from engine.opentafl import format_position
from tests.engine.tafl_setup import SIZES, reference_moves

VARIANTS = sorted(SIZES)
PLAYER_ERRORS = (NotationError, IllegalMoveError, AmbiguousMoveError)


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, str, str]:
    """(variant, OTN position, side to move): one king and some men on random squares."""
    variant = draw(st.sampled_from(VARIANTS))
    size = SIZES[variant]
    squares = draw(st.lists(st.integers(0, size * size - 1), min_size=1, max_size=40, unique=True))
    men = draw(st.lists(st.sampled_from("tT"), min_size=len(squares) - 1, max_size=len(squares)))
    cells = dict(zip(squares, ["K", *men], strict=False))
    turn = draw(st.sampled_from(["attackers", "defenders"]))
    return variant, format_position(cells, size), turn


def random_text(rng: random.Random, size: int) -> str:
    """Something a player might type: squares on or off the board, odd separators, suffixes."""

    def square() -> str:
        return f"{rng.choice('abcdefghijklmnopqrstuvwxyz')}{rng.randint(0, size + 2)}"

    forms = [
        lambda: f"{square()}-{square()}",
        lambda: f"{square()}{square()}",
        lambda: f"{square()} {square()}",
        lambda: square(),
        lambda: f"{square()}-{square()}x{square()}",
        lambda: rng.choice(["", "-", "xx", "resign", "d1--d4", "1-2"]),
    ]
    return rng.choice(forms)()


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_random_games_raise_only_the_three_errors(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(variant)
    for _ in range(120):
        with contextlib.suppress(*PLAYER_ERRORS):
            game.play(random_text(rng, game.size))
        moves = game.legal_moves()
        if not moves:
            assert game.outcome is not None
            break
        move = rng.choice(moves)
        ply = game.play(str(move))
        assert ply.move == move and ply.side is not game.turn
        king = next(s for s, p in game.pieces().items() if p is Piece.KING)
        assert game.square_name(king) not in ply.captures


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1))
def test_undo_restores_position_turn_and_outcome(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game(variant)
    seen = []
    for _ in range(rng.randint(1, 150)):
        moves = game.legal_moves()
        if not moves:
            break
        seen.append((game.position(), game.turn, game.outcome, sorted(map(str, moves))))
        game.push(rng.choice(moves))
    while seen:
        game.undo()
        position, turn, outcome, names = seen.pop()
        assert (game.position(), game.turn, game.outcome) == (position, turn, outcome)
        assert sorted(map(str, game.legal_moves())) == names
    assert game.history == []


@settings(max_examples=100, deadline=None)
@given(positions())
def test_position_round_trip(case: tuple[str, str, str]) -> None:
    variant, position, turn = case
    game = Game.from_position(variant, position, turn)
    assert game.position() == position
    assert game.turn is Side(turn)
    assert list(game.pieces().values()).count(Piece.KING) == 1


@settings(max_examples=150, deadline=None)
@given(positions())
def test_legal_moves_match_the_reference_generator(case: tuple[str, str, str]) -> None:
    variant, position, turn = case
    game = Game.from_position(variant, position, turn)
    moves = [str(m) for m in game.legal_moves()]
    assert len(moves) == len(set(moves))
    assert set(moves) == reference_moves(game)


@settings(max_examples=300, deadline=None)
@given(positions())
def test_a_side_loses_for_want_of_moves_exactly_when_it_has_none(
    case: tuple[str, str, str],
) -> None:
    variant, position, turn = case
    game = Game.from_position(variant, position, turn)
    outcome = game.standing_outcome()
    if outcome is None or outcome.reason is Reason.NO_LEGAL_MOVES:
        assert (outcome is None) == bool(reference_moves(game))


@settings(max_examples=50, deadline=None)
@given(positions(), st.integers(0, 2**32 - 1))
def test_reference_generator_agrees_along_random_games(
    case: tuple[str, str, str], seed: int
) -> None:
    variant, position, turn = case
    rng = random.Random(seed)
    game = Game.from_position(variant, position, turn)
    for _ in range(30):
        moves = game.legal_moves()
        assert {str(m) for m in moves} == reference_moves(game)
        if not moves:
            break
        game.push(rng.choice(moves))
