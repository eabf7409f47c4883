"""Moving in tafl: rook moves, throne and corner rules, refusals, notation forms, positions."""

from __future__ import annotations

import dataclasses
import re

import pytest

from engine import (
    VARIANTS,
    AmbiguousMoveError,
    Game,
    IllegalMoveError,
    NotationError,
    Piece,
    Side,
    TaflGame,
)
from engine.presets import COPENHAGEN, PRESETS
from engine.rules import Rules
from tests.engine.tafl_setup import SIZES, moves_from, otn, setup, square

# -- presets and start positions ---------------------------------------------------------------

RULES_ORDER = [
    "copenhagen",
    "fetlar",
    "hnefatafl",
    "tablut",
    "tablut-corner",
    "tablut-linnaean",  # OpenTafl's Tablut, not in RULES.md: after the other Tablut presets
    "brandubh",
    "tawlbwrdd",
    "alea-evangelii",
]
PIECE_COUNTS = {  # attackers, defenders (without the king)
    "copenhagen": (24, 12),
    "fetlar": (24, 12),
    "hnefatafl": (24, 12),
    "tablut": (16, 8),
    "tablut-corner": (16, 8),
    "tablut-linnaean": (16, 8),
    "brandubh": (8, 4),
    "tawlbwrdd": (24, 12),
    "alea-evangelii": (48, 24),
}


def test_presets_follow_rules_md_order_and_say_what_they_are() -> None:
    assert list(PRESETS) == RULES_ORDER
    assert list(VARIANTS)[: len(RULES_ORDER)] == RULES_ORDER
    for rules in PRESETS.values():
        sentences = [s for s in re.split(r"(?<=\.)\s+", rules.summary) if s]
        assert 2 <= len(sentences) <= 4, rules.id
        assert rules.name and rules.source


@pytest.mark.parametrize("variant", RULES_ORDER)
def test_start_positions(variant: str) -> None:
    game = Game(variant)
    assert isinstance(game, TaflGame)
    assert game.size == SIZES[variant]
    assert game.position() == PRESETS[variant].start
    pieces = list(game.pieces().values())
    attackers, defenders = PIECE_COUNTS[variant]
    assert pieces.count(Piece.ATTACKER) == attackers
    assert pieces.count(Piece.DEFENDER) == defenders
    assert pieces.count(Piece.KING) == 1
    assert game.turn is Side.ATTACKERS
    king = next(s for s, p in game.pieces().items() if p is Piece.KING)
    assert king == (game.size * game.size) // 2  # the centre
    if PRESETS[variant].throne is not None:
        assert game.throne == king


def test_marked_squares() -> None:
    names = {v: {Game(v).square_name(s) for s in Game(v).corners} for v in RULES_ORDER}
    assert names["copenhagen"] == {"a1", "k1", "a11", "k11"}
    assert names["tablut"] == set() and names["tawlbwrdd"] == set()
    assert len(names["alea-evangelii"]) == 16 and {"b2", "r18"} <= names["alea-evangelii"]
    assert Game("tawlbwrdd").throne is None


def test_copenhagen_opens_with_116_moves() -> None:
    assert len(Game("copenhagen").legal_moves()) == 116


# -- movement ----------------------------------------------------------------------------------


def test_pieces_move_like_rooks_until_blocked() -> None:
    game = setup("copenhagen", t="d4 d7 b4", T="k9", K="h9")
    assert moves_from(game, "d4") == {"c4", "e4", "f4", "g4", "h4", "i4", "j4", "k4"} | {
        "d1",
        "d2",
        "d3",
        "d5",
        "d6",
    }


def test_only_the_king_stops_on_a_corner() -> None:
    man = setup("copenhagen", t="a4", K="f6", T="k9")
    assert moves_from(man, "a4") == {"a2", "a3", "a5", "a6", "a7", "a8", "a9", "a10"} | {
        "b4",
        "c4",
        "d4",
        "e4",
        "f4",
        "g4",
        "h4",
        "i4",
        "j4",
        "k4",
    }
    king = setup("copenhagen", "defenders", t="k9", K="a4")
    assert {"a1", "a11"} <= moves_from(king, "a4")


def test_men_pass_the_empty_throne_but_do_not_stop_on_it() -> None:
    game = setup("copenhagen", t="c6", K="b9", T="k9")
    assert {"e6", "g6", "k6"} <= moves_from(game, "c6")
    assert "f6" not in moves_from(game, "c6")


def test_the_king_may_return_to_the_throne_in_copenhagen_but_not_in_tablut() -> None:
    copenhagen = setup("copenhagen", "defenders", t="k9", K="f3")
    assert "f6" in moves_from(copenhagen, "f3")
    tablut = setup("tablut", "defenders", t="h8", K="e2", T="g7")
    assert "e5" not in moves_from(tablut, "e2")
    assert "e7" in moves_from(tablut, "e2")  # he passes it


def test_nothing_passes_a_corner_block_square() -> None:
    game = setup("alea-evangelii", t="b6 f2", K="j10", T="p9")
    assert moves_from(game, "b6") & {"b1", "b2"} == set()
    assert "c2" in moves_from(game, "f2") and "a2" not in moves_from(game, "f2")


def test_a_throne_nobody_passes() -> None:
    rules = dataclasses.replace(COPENHAGEN, id="custom", throne_pass=False)
    game = Game.from_position(rules, otn(11, t="c6", K="b9", T="k9"), "attackers")
    assert moves_from(game, "c6") >= {"d6", "e6"}
    assert moves_from(game, "c6") & {"f6", "g6"} == set()


# -- refusals ----------------------------------------------------------------------------------

REFUSALS = [
    ("d4-d6", "there is no piece on d4"),
    ("k9-k8", "that is not your piece: it is the attackers' turn"),
    ("c3-d4", "pieces move in a straight line along a rank or file; c3-d4 is neither"),
    ("c3-c8", "c6 blocks the way"),
    ("c3-c6", "c6 is taken"),
    ("e6-f6", "only the king may stop on the throne"),
    ("a3-a1", "only the king may stop on a corner"),
]


@pytest.mark.parametrize(("text", "reason"), REFUSALS)
def test_refusals_say_why(text: str, reason: str) -> None:
    game = setup("copenhagen", t="c3 e6 a3", T="c6 k9", K="h9")
    with pytest.raises(IllegalMoveError, match=re.escape(reason)):
        game.play(text)


def test_refusal_names_the_side_to_move() -> None:
    game = setup("copenhagen", "defenders", t="c3", T="k9", K="h9")
    with pytest.raises(IllegalMoveError, match="it is the defenders' turn"):
        game.play("c3-c5")


def test_refusals_for_thrones_nobody_stops_on_and_corners_nothing_passes() -> None:
    tablut = setup("tablut", "defenders", t="h8", K="e2", T="g7")
    with pytest.raises(IllegalMoveError, match="nobody may stop on the throne"):
        tablut.play("e2-e5")
    alea = setup("alea-evangelii", t="b6", K="j10", T="p9")
    with pytest.raises(IllegalMoveError, match=re.escape("nothing may pass a corner (b2)")):
        alea.play("b6-b1")
    rules = dataclasses.replace(COPENHAGEN, id="custom", throne_pass=False)
    closed = Game.from_position(rules, otn(11, t="c6", K="b9", T="k9"), "attackers")
    with pytest.raises(IllegalMoveError, match=re.escape("only the king may pass the throne (f6)")):
        closed.play("c6-h6")


def test_moves_after_the_end_are_refused() -> None:
    game = setup("copenhagen", "defenders", t="e5", K="a4", T="h9")
    game.play("a4-a1")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play("h9-h8")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play("h8")


def test_undo_with_no_history_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        Game("copenhagen").undo()


# -- notation ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["d1-d4", "d1d4", "D1-D4", "d1 d4", " d1 - d4 ", "d4"])
def test_notation_forms(text: str) -> None:
    game = setup("copenhagen", t="d1", T="k9", K="h9")
    ply = game.play(text)
    assert str(ply.move) == "d1-d4"
    assert ply.notation == "d1-d4"


def test_destination_only_with_several_candidates_lists_them() -> None:
    game = setup("copenhagen", t="d1 a4", T="k9", K="h9")
    with pytest.raises(AmbiguousMoveError, match="a4-d4, d1-d4"):
        game.play("d4")


def test_destination_nobody_reaches() -> None:
    game = setup("copenhagen", t="d1", T="k9", K="h9")
    with pytest.raises(IllegalMoveError, match="none of the attackers' pieces can move to e5"):
        game.play("e5")


def test_a_capture_suffix_is_checked() -> None:
    game = setup("copenhagen", t="c5 e1", T="d5", K="h9")
    with pytest.raises(IllegalMoveError, match="e1-e5 captures d5, not f5"):
        game.play("e1-e5xf5")
    with pytest.raises(IllegalMoveError, match="e1-e5 captures d5, not d5, d6"):
        game.play("e1-e5xd5xd6")
    assert game.play("e1-e5xd5").notation == "e1-e5xd5"


def test_a_capture_suffix_on_a_quiet_move_is_refused() -> None:
    game = setup("copenhagen", t="e1", T="d5", K="h9")
    with pytest.raises(IllegalMoveError, match="e1-e5 captures nothing, not d5"):
        game.play("e1-e5xd5")


def test_bad_text_is_a_notation_error() -> None:
    game = setup("copenhagen", t="d1", T="k9", K="h9")
    for text in ("d1-", "hello", "d1-z4", "d1-d12"):
        with pytest.raises(NotationError):
            game.play(text)


# -- positions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/", "the position has 6 ranks; a 7x7 board needs 7"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t4/", "rank 7 ('3t4') has 8 squares; expected 7"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3x3/", "rank 7: 'x' is not a piece here"),
        ("/3t3/3t3/3T3/ttTTTtt/3T3/3t3/3t3/", "exactly one king (K); this one has 0"),
        ("/3t3/3t3/3K3/ttTKTtt/3T3/3t3/3t3/", "exactly one king (K); this one has 2"),
        ("3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3", "a position starts and ends with '/'"),
    ],
)
def test_bad_positions_say_what_is_wrong(position: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Game.from_position("brandubh", position, "attackers")


def test_the_side_to_move_must_be_a_tafl_side() -> None:
    with pytest.raises(ValueError, match="attackers or defenders"):
        Game.from_position("brandubh", PRESETS["brandubh"].start, "white")


def test_position_round_trip_and_piece_queries() -> None:
    position = otn(11, t="a2 c3 k11", T="e5 j1", K="f6")
    game = Game.from_position("copenhagen", position, "defenders")
    assert game.position() == position
    assert game.turn is Side.DEFENDERS
    assert game.piece_at(square(game, "a2")) is Piece.ATTACKER
    assert game.piece_at(square(game, "j1")) is Piece.DEFENDER
    assert game.piece_at(square(game, "f6")) is Piece.KING
    assert game.piece_at(square(game, "b2")) is None
    assert len(game.pieces()) == 6


def test_rules_string_rebuilds_the_rules() -> None:
    for variant in RULES_ORDER:
        game = Game(variant)
        assert game.rules_string == variant
        assert game.variant == variant
    custom: Rules = dataclasses.replace(COPENHAGEN, id="custom", exit_fort=False)
    game = Game(custom)
    rebuilt = Game(game.rules_string)
    same_text = {"name": custom.name, "summary": custom.summary, "source": custom.source}
    assert dataclasses.replace(rebuilt.rules, **same_text) == custom
