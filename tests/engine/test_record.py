"""Game records: OpenTafl records written and replayed, and the CSV lines of shared/data."""

from __future__ import annotations

import pytest

from engine import Game, HalataflGame, Outcome, Reason, Side
from engine.record import (
    DataMove,
    DataResult,
    RecordError,
    game_from_record,
    parse_data_line,
    replay_data_game,
    to_opentafl_record,
)

# Lines of shared/data/brandubh.csv: test data of bunburya/hnefatafl-rs (MIT licence,
# Copyright (c) 2025 Alan Bunbury).
KING_CAPTURED = "d2-e2 c4-c2 d6-c6 d3-a3 b4-b5 d4-b4 c6-c4,0,0,Black"
KING_ESCAPED = "b4-b3 d5-b5 d6-b6 c4-b4 f4-f5 e4-f4 d7-d5 d4-e4 d2-e2 e4-e7 f5-f7 e7-a7,0,0,White"
RESIGNED = "d2-e2 d3-g3 e2-g2xg3 e4-e2 b4-b3 c4-c1,1,0,White"
TIMED_OUT = "d2-c2 e4-e2 f4-f3 d4-f4 d6-f6 e2-f2xf3 timeout,0,1,White"
REPEATED = (
    "d2-e2 c4-c2 d6-c6 d3-a3 c6-c5 d4-d3 d7-d6xd5 d3-b3 d1-b1 b3-d3 b1-d1 d3-b3 d1-b1 b3-d3 "
    "b1-d1 d3-e3 f4-f3 e3-d3 f3-e3 d3-b3,1,0,Black"
)
ONGOING = "b4-b3 c4-c5 d6-c6,0,0,Ongoing"


def new_game(variant: str) -> Game:
    return Game(variant)


# -- CSV lines ---------------------------------------------------------------------------------


def test_a_data_line_is_read_into_moves_captures_and_result() -> None:
    data = parse_data_line("d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2xe2xd2,1,0,Ongoing\n")
    assert len(data.moves) == 5
    assert data.moves[0] == DataMove("d1-d3", frozenset())
    assert data.moves[-1] == DataMove("g3-e3", frozenset({"e2", "d2"}))  # duplicates collapse
    assert data.result is DataResult.ONGOING
    assert not data.timeout
    assert data.capture_counts == (1, 0)


def test_timeout_token_and_empty_result() -> None:
    data = parse_data_line("timeout,0,0,")
    assert data.moves == () and data.timeout and data.result is DataResult.NONE
    assert parse_data_line(TIMED_OUT).timeout


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("d1-d3,0,0", "4 comma-separated fields"),
        ("d1-d3 e5,0,0,Black", "ply 2: 'e5' is not a move"),
        ("d1-d3,0,0,Attackers", "the result one of"),
        ("d1-d3,x,0,Black", "the counts must be numbers"),
    ],
)
def test_bad_data_lines_are_refused(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_data_line(line)


def test_replay_ends_where_the_record_ends_and_agrees_on_the_winner() -> None:
    replay = replay_data_game(parse_data_line(KING_CAPTURED), "brandubh")
    assert replay.played == 7 and not replay.ended_early
    assert replay.game.outcome == Outcome(Side.ATTACKERS, Reason.KING_CAPTURED)
    escaped = replay_data_game(parse_data_line(KING_ESCAPED), "brandubh").game
    assert escaped.outcome == Outcome(Side.DEFENDERS, Reason.KING_ESCAPED)


def test_replay_applies_the_result_the_moves_do_not_show() -> None:
    resigned = replay_data_game(parse_data_line(RESIGNED), "brandubh").game
    assert resigned.outcome == Outcome(Side.DEFENDERS, Reason.RESIGNED)
    timed_out = replay_data_game(parse_data_line(TIMED_OUT), "brandubh").game
    assert timed_out.outcome == Outcome(Side.DEFENDERS, Reason.TIMEOUT)
    draw = replay_data_game(parse_data_line("b4-b3 c4-c5,0,0,Draw"), "brandubh").game
    assert draw.outcome == Outcome(None, Reason.DRAW_AGREED)
    assert replay_data_game(parse_data_line(ONGOING), "brandubh").game.outcome is None
    unfinished = replay_data_game(parse_data_line(RESIGNED), "brandubh", finish=False)
    assert unfinished.game.outcome is None and unfinished.played == 6


def test_replay_reports_an_engine_end_before_the_records_end() -> None:
    replay = replay_data_game(parse_data_line(REPEATED), "brandubh")
    assert replay.ended_early
    assert replay.played < len(parse_data_line(REPEATED).moves)
    assert replay.game.outcome == Outcome(None, Reason.REPETITION)


def test_replay_names_the_ply_with_a_wrong_capture() -> None:
    line = RESIGNED.replace("e2-g2xg3", "e2-g2")
    with pytest.raises(RecordError, match=r"ply 3 \(attackers: e2-g2\): the engine captured g3"):
        replay_data_game(parse_data_line(line), "brandubh")


def test_replay_names_the_illegal_ply() -> None:
    line = "d2-e2 d3-d1,0,0,Ongoing"
    with pytest.raises(RecordError, match=r"ply 2 \(defenders: d3-d1\)"):
        replay_data_game(parse_data_line(line), "brandubh")


def test_replay_refuses_a_winner_the_moves_contradict() -> None:
    with pytest.raises(RecordError, match="record's result is White"):
        replay_data_game(parse_data_line(KING_CAPTURED.replace("Black", "White")), "brandubh")


# -- OpenTafl records --------------------------------------------------------------------------


def played(variant: str, moves: str) -> Game:
    game = new_game(variant)
    for move in moves.split():
        game.play(move)
    return game


def assert_same_game(a: Game, b: Game) -> None:
    assert b.rules == a.rules
    assert [p.notation for p in b.history] == [p.notation for p in a.history]
    assert b.position() == a.position()
    assert b.turn == a.turn
    assert b.outcome == a.outcome


def test_record_layout() -> None:
    game = played("brandubh", "d2-e2 d3-g3 e2-g2 e4-e2")
    text = to_opentafl_record(game, {"attackers": "Ann", "date": "2025.01.02"})
    lines = text.splitlines()
    assert lines[:3] == ["[attackers:Ann]", "[date:2025.01.02]", "[variant:Brandubh]"]
    assert "[result:?]" in lines
    assert lines[lines.index("") - 1] == "[rules:brandubh]"  # the rules tag is the last tag
    assert lines[-2:] == ["1. d2-e2 d3-g3", "2. e2-g2xg3 e4-e2"]


def test_a_finished_game_round_trips() -> None:
    game = played("brandubh", "d2-e2 c4-c2 d6-c6 d3-a3 b4-b5 d4-b4 c6-c4")
    assert game.outcome == Outcome(Side.ATTACKERS, Reason.KING_CAPTURED)
    text = to_opentafl_record(game)
    assert "[result:1]" in text and "[termination:king_captured]" in text
    assert_same_game(game, game_from_record(text))


@pytest.mark.parametrize(
    "end",
    [
        lambda g: g.resign(Side.ATTACKERS),
        lambda g: g.time_out(Side.DEFENDERS),
        lambda g: g.agree_draw(),
    ],
)
def test_endings_the_board_cannot_show_round_trip(end: object) -> None:
    game = played("brandubh", "d2-e2 d3-g3 e2-g2")
    end(game)  # type: ignore[operator]
    again = game_from_record(to_opentafl_record(game))
    assert_same_game(game, again)


def test_a_halatafl_game_from_a_position_round_trips_with_its_chain() -> None:
    position = "/1WWWWW1/7/7/1B1B3/4W2/7/1BBB3/"
    game = HalataflGame.from_position("halatafl", position, "white")
    game.play("e5-c3-a5")
    text = to_opentafl_record(game)
    assert "1. e5-c3-a5xd4/b4" in text
    assert f"[position:{position}]" in text and "[turn:white]" in text
    assert "[rules:halatafl]" in text
    again = game_from_record(text)
    assert_same_game(game, again)
    assert again.history[0].captures == ("d4", "b4")
    assert again.outcome == Outcome(Side.WHITE, Reason.TOO_FEW_PIECES)


def test_a_position_with_the_other_side_to_move_records_the_side() -> None:
    game = played("brandubh", "d2-e2")
    fresh = Game.from_position("brandubh", game.position(), "defenders")
    fresh.play("d3-g3")
    text = to_opentafl_record(fresh)
    assert "[turn:defenders]" in text
    assert_same_game(fresh, game_from_record(text))


def test_a_custom_rules_game_round_trips() -> None:
    rules = "dim:7 name:Tiny ks:w surf:n start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
    game = played(rules, "d6-f6 d5-e5")
    text = to_opentafl_record(game)
    assert "[rules:dim:7 name:Tiny" in text
    assert_same_game(game, game_from_record(text))


def test_reading_opentafl_move_forms() -> None:
    text = """[rules:brandubh]

1. d2-e2 d3-g3+ [a comment|another]
2. e2-g2xg3 Kd4-d3-
3. ---
"""
    game = game_from_record(text)
    assert [p.notation for p in game.history] == ["d2-e2", "d3-g3", "e2-g2xg3", "d4-d3"]
    assert game.outcome == Outcome(Side.DEFENDERS, Reason.RESIGNED)


@pytest.mark.parametrize(
    ("movetext", "message"),
    [
        ("1. d2-e2 d3-d1", r"move 1 \(defenders: d3-d1\)"),
        ("1. d2-e2 d3-g3\n2. e2-g2xg3/f3", "captures g3, not f3, g3"),
        ("1. d2-e2 ---\n2. e2-d2", "moves follow a resignation"),
        ("1. d2^e2", "can't read"),
    ],
)
def test_record_errors_name_the_move_and_the_reason(movetext: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        game_from_record(f"[rules:brandubh]\n\n{movetext}\n")


def test_record_without_rules_or_with_a_false_ending_is_refused() -> None:
    with pytest.raises(RecordError, match=r"no \[rules:\.\.\.\] tag"):
        game_from_record("1. d2-e2\n")
    with pytest.raises(RecordError, match="the moves do not end it"):
        game_from_record("[termination:king_captured]\n[winner:attackers]\n[rules:brandubh]\n\n")
    text = to_opentafl_record(played("brandubh", "d2-e2 c4-c2 d6-c6 d3-a3 b4-b5 d4-b4 c6-c4"))
    with pytest.raises(RecordError, match="the record says defenders won"):
        game_from_record(text.replace("[winner:attackers]", "[winner:defenders]"))
    with pytest.raises(RecordError, match="the game is over"):
        game_from_record(text + "4. d3-d2\n")
