"""The engine's game API in python-chess's manner: copy, equality, a repr to paste back, the start
position, Move.parse, and rules records checked when they are built."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, Move, NotationError, Reason, RulesError, Side
from engine.presets import BRANDUBH
from engine.record import game_from_record, to_opentafl_record

CUSTOM = "dim:7 name:Little esc:e start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"


def played(variant: str, *moves: str) -> Game:
    game = Game(variant)
    for move in moves:
        game.play(move)
    return game


@pytest.mark.parametrize(
    ("variant", "moves", "more"),
    [
        ("brandubh", ("d2-c2", "d3-e3"), "c2-c3"),
        ("halatafl", ("c3-d4", "e5-c3"), "b2-d4"),
    ],
)
def test_a_copy_plays_on_alone_and_undoes_the_same_moves(
    variant: str, moves: tuple[str, ...], more: str
) -> None:
    game = played(variant, *moves)
    copy = game.copy()
    assert copy == game and copy is not game and copy.history == game.history
    before = game.position()
    copy.play(more)
    assert copy != game and (game.position(), len(game.history)) == (before, len(moves))
    for _ in range(len(moves) + 1):
        copy.undo()
    assert copy == Game(variant) and len(game.history) == len(moves)


def test_a_copy_keeps_the_repetition_count() -> None:
    game = played("brandubh", "d2-c2", "d3-e3", "c2-d2", "e3-d3", "d2-c2", "d3-e3", "c2-d2")
    copy = game.copy()
    game.play("e3-d3")
    copy.play("e3-d3")
    assert game.outcome == copy.outcome and copy.outcome is not None
    assert copy.outcome.reason is Reason.REPETITION


def test_games_are_equal_when_the_position_is_however_it_was_reached() -> None:
    one = played("brandubh", "d2-c2", "d3-e3", "a4-a3")
    other = played("brandubh", "a4-a3", "d3-e3", "d2-c2")
    assert one == other and one.history != other.history
    assert played("brandubh", "d2-c2", "d3-e3", "c2-b2") != played("brandubh", "d2-b2", "d3-e3")
    assert Game("brandubh") == Game("brandubh") != Game("copenhagen")
    assert Game("brandubh") != Game(CUSTOM)  # the same board under other rules
    assert Game("brandubh") != "brandubh"
    with pytest.raises(TypeError):
        hash(Game("brandubh"))


@pytest.mark.parametrize(
    "game",
    [
        Game("brandubh"),
        played("brandubh", "d2-c2"),
        played("copenhagen", "d1-d3", "f4-d4"),
        played(CUSTOM, "d2-c2", "d3-e3"),
        played("halatafl", "c3-d4"),
        Game.from_position("brandubh", "/3t3/7/3T3/ttTK1tt/7/3t3/3t3/", "defenders"),
    ],
    ids=repr,
)
def test_the_repr_is_code_that_builds_an_equal_game(game: Game) -> None:
    rebuilt = eval(repr(game), {"Game": Game})
    assert rebuilt == game and type(rebuilt) is type(game)
    assert repr(rebuilt) == repr(game)


def test_the_start_is_where_the_game_began_whatever_was_played() -> None:
    position = "/3t3/7/3T3/ttTK1tt/7/3t3/3t3/"
    game = Game.from_position("brandubh", position, "defenders")
    game.play("d3-e3")
    assert game.start == (position, Side.DEFENDERS)
    assert Game("brandubh").start == (BRANDUBH.start, Side.ATTACKERS)


def test_writing_a_record_leaves_the_game_as_it_was() -> None:
    game = Game.from_position("brandubh", "/3t3/7/3T3/ttTK1tt/7/3t3/3t3/", "defenders")
    game.play("d3-e3")
    game.resign("attackers")
    before = (game.copy(), list(game.history), game.outcome)
    record = to_opentafl_record(game)
    assert (game.copy(), list(game.history), game.outcome) == before
    replayed = game_from_record(record)
    assert replayed == game and replayed.outcome == game.outcome and replayed.start == game.start


def test_move_parse_reads_the_squares_a_piece_visits() -> None:
    move = Move.parse(" d1-d4 ", 11)
    assert move == Move(11, (3, 36)) and str(move) == "d1-d4"
    assert Move.parse("e5-c3-a5", 7).path == (32, 16, 28)
    assert eval(repr(move), {"Move": Move}) == move
    for text in ("d4", "d1-d4xd5", "d1-z4", "hello"):
        with pytest.raises(NotationError):
            Move.parse(text, 11)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"throne": "z99", "size": 5}, "the board is 5x5"),
        ({"throne": "z99"}, "throne square 'z99'"),
        ({"corners": frozenset({"a1", "h9"})}, "corner square 'h9'"),
        ({"corners": frozenset()}, "no corners"),
        ({"start": "/7/7/7/7/7/7/7/"}, "exactly one king"),
        ({"start": "/3t3/"}, "start position"),
        ({"first": Side.WHITE}, "attackers or defenders"),
    ],
)
def test_rules_records_are_checked_when_built(changes: dict[str, object], problem: str) -> None:
    with pytest.raises(RulesError, match=problem):
        replace(BRANDUBH, **changes)  # type: ignore[arg-type]
