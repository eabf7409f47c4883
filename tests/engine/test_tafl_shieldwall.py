"""Copenhagen shieldwall captures (RULES.md section 1, 'Shieldwall')."""

from __future__ import annotations

from engine import Piece
from tests.engine.tafl_setup import captured, setup, square


def test_a_faced_row_closed_by_a_corner_is_captured() -> None:
    game = setup("copenhagen", t="b2 c2 d5", T="b1 c1", K="h9")
    assert captured(game.play("d5-d1")) == {"b1", "c1"}


def test_a_faced_row_closed_by_attackers_at_both_ends_is_captured() -> None:
    game = setup("copenhagen", t="c1 d2 e2 f2 g5", T="d1 e1 f1", K="h9")
    assert captured(game.play("g5-g1")) == {"d1", "e1", "f1"}


def test_the_king_in_the_row_stays_while_the_others_fall() -> None:
    game = setup("copenhagen", t="c1 d2 e2 f2 g5", T="d1 f1 k6", K="e1")
    assert captured(game.play("g5-g1")) == {"d1", "f1"}
    assert game.piece_at(square(game, "e1")) is Piece.KING
    assert game.outcome is None


def test_a_row_with_an_unfaced_member_is_not_captured() -> None:
    game = setup("copenhagen", t="c1 d2 f2 g5", T="d1 e1 f1", K="h9")
    assert game.play("g5-g1").captures == ()


def test_a_row_open_at_the_far_end_is_not_captured() -> None:
    game = setup("copenhagen", t="d2 e2 f2 g5", T="d1 e1 f1", K="h9")
    assert game.play("g5-g1").captures == ()


def test_a_move_onto_the_inner_line_completing_the_row_captures_nothing() -> None:
    game = setup("copenhagen", t="c1 g1 d2 f2 e5", T="d1 e1 f1", K="h9")
    assert game.play("e5-e2").captures == ()
    assert game.piece_at(square(game, "e1")) is Piece.DEFENDER


def test_defenders_capture_an_attackers_row_with_the_king_in_front() -> None:
    game = setup("copenhagen", "defenders", t="d1 e1", T="c1 d2 f5", K="e2")
    assert captured(game.play("f5-f1")) == {"d1", "e1"}


def test_the_king_may_close_a_shieldwall() -> None:
    game = setup("copenhagen", "defenders", t="d1 e1", T="c1 d2 e2", K="f5")
    assert captured(game.play("f5-f1")) == {"d1", "e1"}


def test_a_shieldwall_along_a_side_edge() -> None:
    open_end = setup("copenhagen", t="b4 b5 e6", T="a4 a5", K="h9")
    assert open_end.play("e6-a6").captures == ()  # nothing closes the lower end
    closed = setup("copenhagen", t="a3 b4 b5 e6", T="a4 a5", K="h9")
    assert captured(closed.play("e6-a6")) == {"a4", "a5"}


def test_fetlar_has_no_shieldwall() -> None:
    game = setup("fetlar", t="b2 c2 d5", T="b1 c1", K="h9")
    assert game.play("d5-d1").captures == ()
