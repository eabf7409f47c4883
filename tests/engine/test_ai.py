"""The computer player on built positions: legal, takes a win, parries the threat in front of it."""

from __future__ import annotations

import pytest

from engine import VARIANTS, Game, IllegalMoveError, Reason, Side
from engine.ai import choose_move

# Brandubh (7x7): corners hostile to all; the king is captured by two away from the throne.


def brandubh(position: str, turn: str) -> Game:
    return Game.from_position("brandubh", position, turn)


def replies_reaching(game: Game, reason: Reason) -> list[str]:
    """The moves of the side to move that end the game for ``reason``."""
    found = []
    for move in game.legal_moves():
        game.push(move)
        if game.outcome is not None and game.outcome.reason is reason:
            found.append(str(move))
        game.undo()
    return found


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_legal_move_in_every_variant(variant: str) -> None:
    game = Game(variant)
    move = choose_move(game, time_limit=0.2, seed=0)
    assert move in game.legal_moves()


def test_the_game_is_left_as_it_was() -> None:
    game = Game("brandubh")
    game.play("d2-e2")
    before = (game.position(), game.turn, list(game.history), game.outcome)
    choose_move(game, depth=3, time_limit=30, seed=1)
    assert (game.position(), game.turn, list(game.history), game.outcome) == before
    game.play("d3-g3")  # the game plays on normally afterwards


def test_even_no_time_gives_a_legal_move() -> None:
    game = Game("copenhagen")
    assert choose_move(game, time_limit=0.0) in game.legal_moves()


def test_same_seed_same_depth_same_move() -> None:
    game = Game("tablut")
    first = choose_move(game, depth=2, time_limit=30, seed=7)
    assert choose_move(game, depth=2, time_limit=30, seed=7) == first


def test_the_king_takes_an_open_corner() -> None:
    # Defenders to move; the king on a5 sees a7 (and a1) along the a-file.
    game = brandubh("/7/7/3t3/2T3t/K6/7/4t2/", "defenders")
    move = choose_move(game, time_limit=0.5, seed=0)
    game.push(move)
    assert game.outcome is not None and game.outcome.reason is Reason.KING_ESCAPED


def test_the_attackers_take_the_king_when_they_can() -> None:
    # The king on b6 has an attacker on a6; c4-c6 closes him in.
    game = brandubh("/7/7/7/2t1T2/7/tK5/4t2/", "attackers")
    assert replies_reaching(game, Reason.KING_CAPTURED) == ["c4-c6"]
    move = choose_move(game, time_limit=0.5, seed=0)
    assert str(move) == "c4-c6"


def test_the_defenders_parry_a_capture_of_the_king() -> None:
    game = brandubh("/7/7/7/2t1T2/7/tK5/4t2/", "defenders")
    # Not every move parries it: leaving the board as it is loses the king.
    game.play("e4-e3")
    assert replies_reaching(game, Reason.KING_CAPTURED)
    game.undo()
    move = choose_move(game, depth=2, time_limit=30, seed=0)
    game.push(move)
    assert game.outcome is None
    assert replies_reaching(game, Reason.KING_CAPTURED) == []


def test_the_attackers_close_an_open_escape() -> None:
    # The king on c7 sees the a7 corner along rank 7; only b7 can be closed in time.
    game = brandubh("/7/7/1t5/2T4/6t/7/2K1t2/", "attackers")
    game.play("g5-g6")  # a wasted move shows the threat is real
    assert replies_reaching(game, Reason.KING_ESCAPED) == ["c7-a7"]
    game.undo()
    move = choose_move(game, depth=2, time_limit=30, seed=0)
    game.push(move)
    assert replies_reaching(game, Reason.KING_ESCAPED) == []


def test_halatafl_takes_the_double_capture() -> None:
    position = "/1WWWWW1/7/7/1B1B3/4W2/7/1BBBBB1/"
    game = Game.from_position("halatafl", position, "white")
    assert str(choose_move(game, depth=1, time_limit=30, seed=0)) == "e5-c3-a5"


def test_halatafl_wins_by_leaving_black_too_few_pieces() -> None:
    position = "/1WWWWW1/7/7/3B3/4W2/7/1BBBB2/"
    game = Game.from_position("halatafl", position, "white")
    move = choose_move(game, time_limit=0.5, seed=0)
    game.push(move)
    assert game.outcome is not None and game.outcome.winner is Side.WHITE


def test_no_move_to_choose_when_the_game_is_over() -> None:
    game = Game("brandubh")
    game.resign(Side.DEFENDERS)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        choose_move(game)
