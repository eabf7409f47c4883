"""How tafl games end (RULES.md section 1): escape, exit forts, encirclement, repetition, no move,
and the endings players choose."""

from __future__ import annotations

import dataclasses

import pytest

from engine import Game, IllegalMoveError, Outcome, Reason, Side
from engine.presets import COPENHAGEN
from engine.rules import Repetition, ThroneStop
from tests.engine.tafl_setup import otn, setup

ATTACKERS, DEFENDERS = Side.ATTACKERS, Side.DEFENDERS
FORT = Outcome(DEFENDERS, Reason.EXIT_FORT)
ENCIRCLED = Outcome(ATTACKERS, Reason.ENCIRCLED)
FAR_ATTACKERS = "a6 k7"

# -- escape ------------------------------------------------------------------------------------


def test_the_king_escapes_to_a_corner() -> None:
    game = setup("copenhagen", "defenders", t="e5", K="a4", T="h9")
    game.play("a4-a1")
    assert game.outcome == Outcome(DEFENDERS, Reason.KING_ESCAPED)


def test_an_edge_square_is_no_escape_in_corner_variants() -> None:
    game = setup("copenhagen", "defenders", t="e5", K="d4", T="h9")
    game.play("d4-d1")
    assert game.outcome is None


@pytest.mark.parametrize(("variant", "move"), [("tablut", "c3-a3"), ("tawlbwrdd", "d5-d1")])
def test_the_king_escapes_to_any_edge_square(variant: str, move: str) -> None:
    game = setup(variant, "defenders", t="h8", K=move[:2], T="g7")
    game.play(move)
    assert game.outcome == Outcome(DEFENDERS, Reason.KING_ESCAPED)


def test_alea_evangelii_king_escapes_to_any_square_of_a_corner_block() -> None:
    inner = setup("alea-evangelii", "defenders", t="j5", K="b6", T="p9")
    inner.play("b6-b2")
    assert inner.outcome == Outcome(DEFENDERS, Reason.KING_ESCAPED)
    outer = setup("alea-evangelii", "defenders", t="j5", K="r6", T="p9")
    outer.play("r6-r2")
    assert outer.outcome == Outcome(DEFENDERS, Reason.KING_ESCAPED)


# -- exit forts --------------------------------------------------------------------------------


def test_flat_exit_fort() -> None:
    # R = e1 f1 g1; the wall d1 e2 f2 g2 h1 is complete when g3 steps down.
    game = setup("copenhagen", "defenders", t=FAR_ATTACKERS, T="d1 e2 f2 g3 h1", K="f1")
    game.play("g3-g2")
    assert game.outcome == FORT


def test_bulging_exit_fort() -> None:
    # R = d1..h1 and e2..g2; the wall steps in: c1 d2 e3 f3 g3 h2 i1.
    walls = "c1 d2 e3 f3 g5 h2 i1"
    game = setup("copenhagen", "defenders", t=FAR_ATTACKERS, T=walls, K="f1")
    game.play("g5-g3")
    assert game.outcome == FORT


def test_exit_fort_with_a_wall_piece_protected_from_outside() -> None:
    # R = f1 f2; f3 could be taken between e3 and g3, but the defender on e3 guards it.
    game = setup("copenhagen", "defenders", t=FAR_ATTACKERS, T="e1 e2 e3 f3 g1 g5", K="f1")
    game.play("g5-g2")
    assert game.outcome == FORT


def test_no_fort_with_a_capturable_wall_piece() -> None:
    game = setup("copenhagen", "defenders", t=FAR_ATTACKERS, T="e1 e2 f3 g1 g5", K="f1")
    game.play("g5-g2")
    assert game.outcome is None


def test_no_fort_with_an_attacker_inside() -> None:
    game = setup("copenhagen", "defenders", t="e1 " + FAR_ATTACKERS, T="d1 e2 f2 g3 h1", K="f1")
    game.play("g3-g2")
    assert game.outcome is None


def test_no_fort_when_the_king_cannot_move() -> None:
    game = setup("copenhagen", "defenders", t=FAR_ATTACKERS, T="e1 e2 f2 g1 g5", K="f1")
    game.play("g5-g2")
    assert game.outcome is None


def test_no_fort_with_a_gap_in_the_wall() -> None:
    game = setup("copenhagen", "defenders", t=FAR_ATTACKERS, T="d1 e2 f2 g3", K="f1")
    game.play("g3-g2")
    assert game.outcome is None


def test_a_fort_counts_only_after_a_defenders_move() -> None:
    game = setup("copenhagen", "attackers", t=FAR_ATTACKERS, T="d1 e2 f2 g2 h1 k3", K="f1")
    game.play("a6-a7")
    assert game.outcome is None
    game.play("k3-k4")
    assert game.outcome == FORT


def test_fetlar_has_no_exit_fort() -> None:
    game = setup("fetlar", "defenders", t=FAR_ATTACKERS, T="d1 e2 f2 g3 h1", K="f1")
    game.play("g3-g2")
    assert game.outcome is None


# -- encirclement ------------------------------------------------------------------------------

RING = "d6 h6 f4 f8 e5 g5 e7 g10"
"""A diamond around f6; the attacker on g10 closes it on g7."""


@pytest.mark.parametrize("variant", ["copenhagen", "fetlar"])
def test_encircled_defenders_lose(variant: str) -> None:
    game = setup(variant, t=RING, T="e6", K="f6")
    game.play("g10-g7")
    assert game.outcome == ENCIRCLED


def test_a_ring_with_a_gap_encircles_nothing() -> None:
    game = setup("copenhagen", t=RING.replace("f4 ", ""), T="e6", K="f6")
    game.play("g10-g7")
    assert game.outcome is None


def test_a_defender_outside_the_ring_saves_them() -> None:
    game = setup("copenhagen", t=RING, T="e6 b3", K="f6")
    game.play("g10-g7")
    assert game.outcome is None


def test_hnefatafl_has_no_encirclement() -> None:
    game = setup("hnefatafl", t=RING, T="e6", K="f6")
    game.play("g10-g7")
    assert game.outcome is None


# -- repetition --------------------------------------------------------------------------------

SHUFFLE = {
    ATTACKERS: ["c3-c4", "h8-h9", "c4-c3", "h9-h8"],
    DEFENDERS: ["h8-h9", "c3-c4", "h9-h8", "c4-c3"],
}


def shuffled(variant: str | object, turn: Side, plies: int) -> Game:
    """Attackers c3<->c4 and defenders h8<->h9 for ``plies`` plies, ``turn`` moving first."""
    game = Game.from_position(variant, otn(11, t="c3", T="h8", K="f6"), turn)
    for i in range(plies):
        game.play(SHUFFLE[turn][i % 4])
    return game


def test_copenhagen_third_repetition_loses_for_the_defenders() -> None:
    game = shuffled("copenhagen", ATTACKERS, 7)
    assert game.outcome is None
    game.play("h9-h8")  # the start position with the attackers to move, a third time
    assert game.outcome == Outcome(ATTACKERS, Reason.REPETITION)


def test_copenhagen_repetition_made_by_the_attackers_still_loses_for_the_defenders() -> None:
    game = shuffled("copenhagen", DEFENDERS, 7)
    assert game.outcome is None
    game.play("c4-c3")
    assert game.history[-1].side is ATTACKERS
    assert game.outcome == Outcome(ATTACKERS, Reason.REPETITION)


@pytest.mark.parametrize("variant", ["fetlar", "hnefatafl", "tawlbwrdd"])
def test_third_repetition_is_a_draw(variant: str) -> None:
    game = shuffled(variant, ATTACKERS, 7)
    assert game.outcome is None
    game.play("h9-h8")
    assert game.outcome == Outcome(None, Reason.REPETITION)


@pytest.mark.parametrize(
    ("variant", "pieces", "moves"),
    [
        ("tablut", {"t": "a3", "T": "g7", "K": "e5"}, ["a3-b3", "g7-g8", "b3-a3", "g8-g7"]),
        ("tablut-corner", {"t": "a3", "T": "g7", "K": "e5"}, ["a3-b3", "g7-g8", "b3-a3", "g8-g7"]),
        ("brandubh", {"t": "a3", "T": "f5", "K": "d4"}, ["a3-b3", "f5-f6", "b3-a3", "f6-f5"]),
        (
            "alea-evangelii",
            {"t": "c3", "T": "p8", "K": "j10"},
            ["c3-c4", "p8-p9", "c4-c3", "p9-p8"],
        ),
    ],
)
def test_third_repetition_is_a_draw_on_other_boards(
    variant: str, pieces: dict[str, str], moves: list[str]
) -> None:
    game = setup(variant, **pieces)
    for i in range(7):
        game.play(moves[i % 4])
        assert game.outcome is None
    game.play(moves[3])
    assert game.outcome == Outcome(None, Reason.REPETITION)


# OpenTafl's tfr:w and tfr:l, as its code scores them (engine.opentafl): the side to move when a
# position occurs the third time wins under w, loses under l.
@pytest.mark.parametrize(
    ("repetition", "winner_when_defenders_repeat"),
    [(Repetition.REPEATER_LOSES, ATTACKERS), (Repetition.REPEATER_WINS, DEFENDERS)],
)
def test_third_repetition_decided_by_who_made_it(
    repetition: Repetition, winner_when_defenders_repeat: Side
) -> None:
    rules = dataclasses.replace(COPENHAGEN, id="custom", repetition=repetition)
    game = shuffled(rules, ATTACKERS, 7)
    assert game.outcome is None  # the second occurrence (ply 4) decided nothing
    game.play("h9-h8")  # the defenders make the third occurrence
    assert game.outcome == Outcome(winner_when_defenders_repeat, Reason.REPETITION)

    game = shuffled(rules, DEFENDERS, 7)
    assert game.outcome is None
    game.play("c4-c3")  # now the attackers make it
    assert game.outcome == Outcome(winner_when_defenders_repeat.opponent, Reason.REPETITION)


@pytest.mark.parametrize(("value", "repeater_wins"), [("w", False), ("l", True)])
def test_opentafl_tfr_strings_score_as_opentafl_does(value: str, repeater_wins: bool) -> None:
    rules = f"dim:11 name:Copenhagen tfr:{value} sw:s efe:y start:{otn(11, t='c3', K='f6')}"
    game = shuffled(rules, ATTACKERS, 8)
    repeater = game.history[-1].side
    assert repeater is DEFENDERS
    assert game.outcome == Outcome(
        repeater if repeater_wins else repeater.opponent, Reason.REPETITION
    )


def test_the_game_counts_each_position() -> None:
    game = shuffled("copenhagen", ATTACKERS, 0)
    counts = []
    for ply in range(8):
        counts.append(game.occurrences())
        game.play(SHUFFLE[ATTACKERS][ply % 4])
    assert counts == [1, 1, 1, 1, 2, 2, 2, 2] and game.occurrences() == 3
    game.undo()
    assert game.occurrences() == 2


@pytest.mark.parametrize(
    ("repetition", "winner"),
    [
        (Repetition.DRAW, None),
        (Repetition.DEFENDERS_LOSE, ATTACKERS),
        (Repetition.REPEATER_LOSES, DEFENDERS),
        (Repetition.REPEATER_WINS, ATTACKERS),
    ],
)
def test_what_a_third_occurrence_would_do(repetition: Repetition, winner: Side | None) -> None:
    rules = dataclasses.replace(COPENHAGEN, id="custom", repetition=repetition)
    game = shuffled(rules, ATTACKERS, 5)  # the attackers moved last
    assert game.repetition_outcome() == Outcome(winner, Reason.REPETITION)
    ignored = dataclasses.replace(rules, repetition=Repetition.IGNORED)
    assert shuffled(ignored, ATTACKERS, 5).repetition_outcome() is None


def test_ignored_repetition_goes_on() -> None:
    rules = dataclasses.replace(COPENHAGEN, id="custom", repetition=Repetition.IGNORED)
    game = shuffled(rules, ATTACKERS, 12)
    assert game.outcome is None


def test_repetition_counts_the_board_with_the_side_to_move() -> None:
    # A five-ply cycle brings the board back with the other side to move: the board alone is seen
    # three times by ply 10, the board with the attackers to move only at ply 20.
    cycle = ["c3-c5", "h8-h9", "c5-c6", "h9-h8", "c6-c3"]
    cycle += ["h8-h9", "c3-c5", "h9-h10", "c5-c3", "h10-h8"]
    game = Game.from_position("fetlar", otn(11, t="c3", T="h8", K="f6"), "attackers")
    start = game.position()
    for ply in range(1, 21):
        game.play(cycle[(ply - 1) % 10])
        if ply in (5, 10, 15):
            assert game.position() == start
        if ply < 20:
            assert game.outcome is None, ply
    assert game.outcome == Outcome(None, Reason.REPETITION)


def test_undo_forgets_a_repetition() -> None:
    game = shuffled("copenhagen", ATTACKERS, 8)
    assert game.outcome is not None
    game.undo()
    assert game.outcome is None
    game.play("h9-h8")
    assert game.outcome == Outcome(ATTACKERS, Reason.REPETITION)


# -- no legal move -----------------------------------------------------------------------------


def test_defenders_without_a_move_lose() -> None:
    game = setup("copenhagen", t="a4 a6 c5", K="a5")
    game.play("c5-b5")
    assert game.outcome == Outcome(ATTACKERS, Reason.NO_LEGAL_MOVES)


def test_attackers_without_a_move_lose() -> None:
    game = setup("copenhagen", "defenders", t="b1", T="c1 b5", K="f6")
    game.play("b5-b2")
    assert game.outcome == Outcome(DEFENDERS, Reason.NO_LEGAL_MOVES)


def test_a_man_passing_the_throne_still_has_a_move() -> None:
    # The king is boxed in on the edge; the man on e6 can only go through the empty throne f6.
    pieces = {"t": "a4 a6 b5 d6 e5 e7 k9", "T": "e6", "K": "a5"}
    game = setup("copenhagen", **pieces)
    game.play("k9-k8")
    assert game.outcome is None
    assert {str(m) for m in game.legal_moves()} == {"e6-g6", "e6-h6", "e6-i6", "e6-j6", "e6-k6"}
    no_pass = dataclasses.replace(COPENHAGEN, id="custom", throne_pass=False)
    blocked = Game.from_position(no_pass, otn(11, **pieces), "attackers")
    blocked.play("k9-k8")
    assert blocked.outcome == Outcome(ATTACKERS, Reason.NO_LEGAL_MOVES)


def test_a_lone_king_beside_a_throne_he_may_not_stop_on_has_no_move() -> None:
    # The empty throne f6 is not hostile to him here, so three attackers box him in on f5.
    pieces = {"t": "e5 g5 f7 f1 a11", "K": "f5"}
    rules = dataclasses.replace(
        COPENHAGEN,
        id="custom",
        empty_throne_hostile_to=frozenset({ATTACKERS}),
        encirclement=False,
    )
    boxed = Game.from_position(
        dataclasses.replace(rules, throne_stop=ThroneStop.NOBODY), otn(11, **pieces), "attackers"
    )
    boxed.play("f1-f4")
    assert boxed.outcome == Outcome(ATTACKERS, Reason.NO_LEGAL_MOVES)
    may_sit = Game.from_position(rules, otn(11, **pieces), "attackers")
    may_sit.play("f1-f4")
    assert may_sit.outcome is None
    assert [str(move) for move in may_sit.legal_moves()] == ["f5-f6"]


# -- endings the players choose ----------------------------------------------------------------


def test_resignation_draw_and_timeout() -> None:
    resigned = Game("copenhagen")
    assert resigned.resign("attackers") == Outcome(DEFENDERS, Reason.RESIGNED)
    drawn = Game("brandubh")
    assert drawn.agree_draw() == Outcome(None, Reason.DRAW_AGREED)
    timed = Game("tablut")
    assert timed.time_out("defenders") == Outcome(ATTACKERS, Reason.TIMEOUT)
    for game in (resigned, drawn, timed):
        assert game.legal_moves() == []
        with pytest.raises(IllegalMoveError, match="the game is over"):
            game.play("d1-d3")
