"""The computer player on built positions: legal, takes a win, parries the threat in front of it,
sees a win or a loss two moves ahead; the table and the move ordering do not change what the
search finds."""

from __future__ import annotations

import dataclasses
import gc
import random
import threading
import time
from collections.abc import Iterator

import pytest

from engine import (
    VARIANTS,
    Game,
    HalataflGame,
    IllegalMoveError,
    Move,
    Outcome,
    Reason,
    Side,
    Square,
    TaflGame,
)
from engine.ai import (
    ENDGAME_CONTEMPT,
    LEVELS,
    WIN,
    NodeClock,
    Search,
    _Halatafl,
    _Kind,
    _kind_of,
    _Tafl,
    choose_move,
    choose_move_at,
)
from engine.presets import COPENHAGEN
from engine.rules import Repetition, Rules
from engine.tafl import tables_for
from engine.types import parse_square, square_name
from tests.engine.tafl_setup import otn, setup

# Brandubh (7x7): corners hostile to all; the king is captured by two away from the throne.


def brandubh(position: str, turn: str) -> Game:
    return Game.from_position("brandubh", position, turn)


def pushed_each(game: Game, moves: list[Move] | None = None) -> Iterator[Move]:
    """Each of ``moves`` (else each legal move) of the side to move, played while the caller
    looks (then taken back)."""
    for move in game.legal_moves() if moves is None else moves:
        game.push(move)
        try:
            yield move
        finally:
            game.undo()


def replies_reaching(game: Game, reason: Reason) -> list[str]:
    """The moves of the side to move that end the game for ``reason``."""
    found = []
    for move in pushed_each(game):
        if game.outcome is not None and game.outcome.reason is reason:
            found.append(str(move))
    return found


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_legal_move_in_every_variant(variant: str) -> None:
    game = Game(variant)
    move = choose_move(game, time_limit=0.2, seed=0)
    assert move in game.legal_moves()


@pytest.mark.parametrize("variant", ["copenhagen", "brandubh", "halatafl"])
def test_the_cycle_collector_is_off_while_the_ai_thinks(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = Game(variant)
    game.push(game.legal_moves()[0])
    kind = type(_kind_of(game))
    evaluate = kind.evaluate
    collector_on: list[bool] = []

    def spied(self: _Kind, ply: int) -> int:
        collector_on.append(gc.isenabled())
        return evaluate(self, ply)

    monkeypatch.setattr(kind, "evaluate", spied)
    assert gc.isenabled()
    choose_move(game, depth=3, time_limit=30, seed=0, book=False)
    assert len(collector_on) > 100 and not any(collector_on)
    assert gc.isenabled()  # on again after
    gc.disable()
    try:
        choose_move_at(game, LEVELS["easy"], seed=0)
        assert not gc.isenabled()  # left off, as the caller had it
    finally:
        gc.enable()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_search_leaves_no_reference_cycles(variant: str) -> None:
    game = Game(variant)
    rng = random.Random(variant)
    for _ in range(6):
        game.push(rng.choice(game.legal_moves()))
    gc.collect()
    gc.disable()
    try:
        choose_move(game, depth=2, time_limit=30, seed=0)
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_the_game_is_left_as_it_was() -> None:
    game = Game("brandubh")
    game.play("d2-e2")
    before = (game.position(), game.turn, list(game.history), game.outcome)
    positions_seen = dict(game._seen)
    choose_move(game, depth=3, time_limit=30, seed=1)
    assert (game.position(), game.turn, list(game.history), game.outcome) == before
    assert game._seen == positions_seen  # not the thousands of positions the search tried
    game.play("d3-g3")  # the game plays on normally afterwards


def test_even_no_time_gives_a_legal_move() -> None:
    game = Game("copenhagen")
    assert choose_move(game, time_limit=0.0) in game.legal_moves()


def test_same_seed_same_depth_same_move() -> None:
    game = Game("tablut")
    first = choose_move(game, depth=2, time_limit=30, seed=7)
    assert choose_move(game, depth=2, time_limit=30, seed=7) == first


@pytest.mark.parametrize("variant", ["brandubh", "copenhagen", "tablut"])
def test_a_budget_of_nodes_gives_the_same_move_under_any_load(variant: str) -> None:
    """On a clock that counts its readings, the search stops after the same number of nodes,
    whatever else the machine does meanwhile (here: nothing, then a busy thread of Python)."""
    game = Game(variant)
    for _ in range(6):
        game.push(choose_move(game, depth=1, seed=len(game.history), book=False))
    quiet_clock, busy_clock = NodeClock(), NodeClock()
    quiet = choose_move(game, time_limit=2_000, seed=3, book=False, clock=quiet_clock)
    done = threading.Event()

    def spin() -> None:
        while not done.is_set():
            sum(range(1_000))

    busy = threading.Thread(target=spin)
    busy.start()
    try:
        busy_move = choose_move(game, time_limit=2_000, seed=3, book=False, clock=busy_clock)
    finally:
        done.set()
        busy.join()
    assert busy_move == quiet
    assert busy_clock.readings == quiet_clock.readings
    assert 1_000 < quiet_clock.readings <= 2_000


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


def test_halatafl_never_opens_with_the_step_that_loses_at_once() -> None:
    """After c4-d4, Black's e6-c4 jumps its own d5 and leaves White without a move: a quiet
    move the leaves' captures do not look at. The levels that search one ply (medium, the
    default) played c4-d4 in most games; easy still may, by its random moves."""
    game = Game("halatafl")
    losing = Move.parse("c4-d4", 7)
    game.push(losing)
    assert replies_reaching(game, Reason.NO_LEGAL_MOVES) == ["e6-c4"]
    game.undo()
    for seed in range(12):
        assert choose_move(game, depth=1, seed=seed, book=False) != losing
        for level in ("medium", "hard"):
            assert choose_move_at(game, LEVELS[level], seed=seed) != losing


@pytest.mark.parametrize("seed", range(16))
def test_halatafl_leaves_see_every_move_that_leaves_the_other_side_without_a_move(
    seed: int,
) -> None:
    """Along a random game: the evaluation calls the position won for the side to move when one
    of its moves leaves the other side without a move, and only when one of its moves wins (a
    quarter of the games open with c4-d4, after which Black has such a move)."""
    rng = random.Random(seed)
    game = Game("halatafl")
    while game.outcome is None and len(game.history) < 40:
        moves, mover = game.distinct_moves(), game.turn
        outcomes: list[Outcome | None] = [game.outcome for _ in pushed_each(game, moves)]
        wins = [outcome for outcome in outcomes if outcome is not None and outcome.winner is mover]
        assert isinstance(game, HalataflGame)
        called_won = _Halatafl(game).evaluate(0) == WIN - 1
        assert called_won >= any(won.reason is Reason.NO_LEGAL_MOVES for won in wins)
        assert called_won <= bool(wins)
        game.push(rng.choice(moves))


def test_no_move_to_choose_when_the_game_is_over() -> None:
    game = Game("brandubh")
    game.resign(Side.DEFENDERS)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        choose_move(game)


# -- looking further ahead -----------------------------------------------------------------------


def escapes_by_force(game: Game, move: Move) -> bool:
    """Whether the defenders' ``move`` lets the king out at once, or next move whatever the
    attackers reply."""
    game.push(move)
    try:
        if game.outcome is not None:
            return game.outcome.reason is Reason.KING_ESCAPED
        for reply in game.legal_moves():
            game.push(reply)
            escapes = game.outcome is None and bool(replies_reaching(game, Reason.KING_ESCAPED))
            game.undo()
            if not escapes:
                return False
        return True
    finally:
        game.undo()


# The king on c3 cannot escape at once; c3-a3 (then a1, or a2-a1 is closed...) and c3-c1
# (capturing b1 against the corner) win by force whatever the attackers do.
KING_ON_C3 = "/1t2t2/7/2K1t2/7/t6/2t4/7/"


def test_the_king_finds_an_escape_in_two() -> None:
    game = brandubh(KING_ON_C3, "defenders")
    assert replies_reaching(game, Reason.KING_ESCAPED) == []
    winning = [str(m) for m in game.legal_moves() if escapes_by_force(game, m)]
    assert winning and len(winning) < len(game.legal_moves())
    assert str(choose_move(game, depth=3, seed=0)) in winning


def test_the_attackers_stop_an_escape_in_two() -> None:
    # The same position with the attackers to move: only b1-b2 and b1-b3 leave the king no
    # way out by force (every other move allows one of the escapes above).
    game = brandubh(KING_ON_C3, "attackers")

    def stops_it(move: Move) -> bool:
        game.push(move)
        try:
            return not any(escapes_by_force(game, reply) for reply in game.legal_moves())
        finally:
            game.undo()

    stopping = [str(m) for m in game.legal_moves() if stops_it(m)]
    assert stopping and len(stopping) < len(game.legal_moves())
    assert str(choose_move(game, depth=3, seed=0)) in stopping


def test_the_attackers_take_a_hanging_man() -> None:
    # The defender on b5 stands next to the attacker on b4; d6-b6 takes him, and nothing
    # else is going on.
    game = brandubh("/3t3/3t3/3T3/ttTKTtt/1T5/3t3/3t3/", "attackers")
    capturing = [m for m in game.legal_moves() if game.captures_of(m)]
    assert len(capturing) == 1
    for depth in (1, 2, 3):
        assert choose_move(game, depth=depth, seed=depth) == capturing[0]


def test_halatafl_keeps_its_pieces_out_of_reach() -> None:
    # White's c3 can be jumped by Black's d4 (onto b2) unless it moves, b2 is filled or d4 is
    # taken first.
    game = Game.from_position("halatafl", "/1WWWW2/7/2W4/3B3/7/7/1BBBB2/", "white")
    taken_next = []
    for move in game.legal_moves():
        game.push(move)
        if any(game.captures_of(reply) for reply in game.legal_moves()):
            taken_next.append(move)
        game.undo()
    assert taken_next and len(taken_next) < len(game.legal_moves())
    move = choose_move(game, depth=2, seed=0)
    assert move not in taken_next


# -- the search's parts ----------------------------------------------------------------------


def played_in(variant: str, plies: int, seed: int) -> Game:
    """A game ``plies`` random plies in (fewer if it ends)."""
    rng = random.Random(seed)
    game = Game(variant)
    for _ in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.push(rng.choice(moves))
        if game.outcome is not None:
            game.undo()
            break
    return game


def plain_score(game: Game, depth: int) -> tuple[Move, int]:
    search = Search(
        game,
        time.perf_counter() + 60,
        table=False,
        ordering=False,
        reductions=False,
        null_moves=False,
        futility=False,
    )
    return search.best_move(game.legal_moves(), depth), search.score


@pytest.mark.parametrize(
    ("variant", "plies", "seed"),
    [
        ("brandubh", 6, 1),
        ("brandubh", 12, 3),
        ("tablut", 8, 3),
        ("copenhagen", 6, 1),
        ("halatafl", 8, 1),  # seed 0 now plays into a forced win (the fixed opening)
        ("halatafl", 8, 3),
    ],
)
def test_the_table_and_the_ordering_change_no_result(variant: str, plies: int, seed: int) -> None:
    """At a fixed depth the full search finds the plain alpha-beta's score, and its move is
    worth that score to the plain search too."""
    game = played_in(variant, plies, seed)
    depth = 3
    _, score = plain_score(game, depth)
    full = Search(
        game, time.perf_counter() + 60, reductions=False, null_moves=False, futility=False
    )
    move = full.best_move(game.legal_moves(), depth)
    assert full.score == score
    assert abs(score) < WIN - 100  # no forced result: the positions test the evaluation
    game.push(move)
    assert game.outcome is None
    _, reply_score = plain_score(game, depth - 1)
    assert -reply_score == score
    game.undo()


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_legal_move_in_the_middle_of_every_variant(variant: str) -> None:
    for seed in range(3):
        game = played_in(variant, 10 + 7 * seed, seed)
        if game.outcome is None:
            assert choose_move(game, time_limit=0.02, seed=seed) in game.legal_moves()


@pytest.mark.parametrize("variant", ["copenhagen", "hnefatafl", "tablut", "brandubh"])
def test_the_quiescence_looks_at_every_capturing_move(variant: str) -> None:
    """The captures the search looks at past its depth are the legal moves that take a man."""
    for seed in range(4):
        game = played_in(variant, 20 + 10 * seed, seed)
        assert isinstance(game, TaflGame)
        found = _Tafl(game).captures()
        assert sorted(map(str, found)) == sorted(
            str(m) for m in game.legal_moves() if taken(game, m)
        )


def quiescence_gain(game: Game) -> int:
    """What looking on through captures adds to the leaf's evaluation, for the side to move
    (without the king's checks, which in these open positions walk him out whatever happens)."""
    search = Search(game, time.perf_counter() + 60, checks=False)
    return search._leaf(-WIN - 1, WIN + 1, 0) - search.kind.evaluate(0)


@pytest.mark.parametrize(
    ("variant", "turn", "pieces"),
    [
        ("copenhagen", "attackers", {"t": "b2 c2 d5", "T": "b1 c1 g7", "K": "h9"}),
        ("copenhagen", "defenders", {"t": "d1 e1 h4", "T": "c1 d2 e2 f5", "K": "h9"}),
    ],
)
def test_the_quiescence_sees_a_shieldwall_capture(
    variant: str, turn: str, pieces: dict[str, str]
) -> None:
    """d5-d1 (f5-f1) closes a shieldwall of two men: the search's own capture code missed it."""
    assert quiescence_gain(setup(variant, turn, **pieces)) > 150


@pytest.mark.parametrize("seed", range(3))
def test_one_ply_deep_the_attackers_stop_a_shieldwall(seed: int) -> None:
    """d1 e1 f1 on the edge, faced by d2 e2 f2 and shut by c1: g5-g1 would take all three, and
    only k3-g3 stops it. One ply deep, the search sees that reply only in its quiescence (its
    own capture code missed shieldwalls, and it played f1 along the edge)."""
    game = setup("copenhagen", t="d1 e1 f1 k3 a9", T="c1 d2 e2 f2 f3 g5 e6 g6 f5 f7", K="f6")
    assert str(choose_move(game, depth=1, seed=seed)) == "k3-g3"


def test_the_quiescence_sees_a_linnaean_capture() -> None:
    """a7-e7 takes e6 against the king's throne, with attackers on his three other sides."""
    game = setup("tablut-linnaean", t="d5 f5 e4 a7 e9 d6 f6", T="e6 b2", K="e5")
    assert quiescence_gain(game) > 150


def taken(game: Game, move: Move) -> list[Square]:
    """The squares of the men ``move`` captures."""
    names = game.push(move).captures
    game.undo()
    return [parse_square(name, game.size) for name in names]


# -- repetition --------------------------------------------------------------------------------
# Copenhagen-like rules: the king shut in on the a-file edge (never captured there), a defender
# man free on d2, and an attacker on h8 free to shuffle: nothing is decided for many moves.

SHUT_IN = otn(11, t="a3 a8 b4 b5 b6 b7 h8", T="d2", K="a5")


def shuffled(rules: Rules, turn: str, moves: list[str], plies: int) -> Game:
    """The shut-in position with ``turn`` to move after ``plies`` plies of ``moves`` in a loop."""
    game = Game.from_position(rules, SHUT_IN, turn)
    for i in range(plies):
        assert not game.play(moves[i % len(moves)]).captures
    return game


def with_repetition(repetition: Repetition) -> Rules:
    return dataclasses.replace(COPENHAGEN, id="custom", repetition=repetition)


def searched(game: Game, depth: int) -> tuple[str, int, int]:
    """The move, score and node count of a search to ``depth``."""
    search = Search(game, time.perf_counter() + 60)
    move = search.best_move(game.legal_moves(), depth)
    return str(move), search.score, search.nodes


ATTACKERS_FIRST = ["h8-h9", "d2-e2", "h9-h8", "e2-d2"]
DEFENDERS_FIRST = ["d2-e2", "h8-h9", "e2-d2", "h9-h8"]


@pytest.mark.parametrize(
    "rules", [COPENHAGEN, with_repetition(Repetition.REPEATER_LOSES)], ids=["dl", "w"]
)
def test_the_defenders_never_make_a_losing_third_repetition(rules: Rules) -> None:
    game = shuffled(rules, "attackers", ATTACKERS_FIRST, 7)
    assert replies_reaching(game, Reason.REPETITION) == ["e2-d2"]  # the start a third time
    for depth in (1, 2, 3):
        assert searched(game, depth)[0] != "e2-d2"
    game.push(choose_move(game, time_limit=0.3, seed=0))
    assert game.outcome is None


def test_the_defenders_make_a_third_repetition_that_wins() -> None:
    game = shuffled(with_repetition(Repetition.REPEATER_WINS), "attackers", ATTACKERS_FIRST, 7)
    assert str(choose_move(game, time_limit=0.3, seed=0)) == "e2-d2"


@pytest.mark.parametrize(
    ("repetition", "taken"),
    [
        (Repetition.DEFENDERS_LOSE, True),
        (Repetition.REPEATER_WINS, True),
        (Repetition.REPEATER_LOSES, False),
    ],
)
def test_the_attackers_make_a_third_repetition_only_when_it_wins(
    repetition: Repetition, taken: bool
) -> None:
    game = shuffled(with_repetition(repetition), "defenders", DEFENDERS_FIRST, 7)
    assert replies_reaching(game, Reason.REPETITION) == ["h9-h8"]
    assert (str(choose_move(game, time_limit=0.3, seed=0)) == "h9-h8") is taken


@pytest.mark.parametrize(
    ("men", "attackers_draw"), [("e3", -ENDGAME_CONTEMPT), ("e3 e5", 0), ("", -ENDGAME_CONTEMPT)]
)
def test_a_draw_costs_the_attackers_against_a_king_with_at_most_one_man(
    men: str, attackers_draw: int
) -> None:
    game = setup("brandubh", t="b6 f2 e6 b2", T=men, K="c3")
    for text in ("b6-b5", "c3-c4", "b5-b6", "c4-c3"):
        game.play(text)
    assert (game.occurrences(), game.turn) == (2, Side.ATTACKERS)
    search = Search(game, time.perf_counter() + 60)
    assert search._repeated(0) == attackers_draw  # the rules' draw, as the attackers see it
    game.play("b6-b5")
    assert (game.occurrences(), game.turn) == (2, Side.DEFENDERS)
    assert search._repeated(0) == -attackers_draw  # and as the defenders see it


def test_the_attackers_steer_into_a_repetition_that_wins() -> None:
    # After d2-e2 h8-h9 e2-d2, h9-h8 brings the start back: a second occurrence, which the
    # search scores as the third (the defenders lose) but short of a forced win.
    game = shuffled(COPENHAGEN, "defenders", DEFENDERS_FIRST, 3)
    for depth in (1, 2, 3):
        move, score, _ = searched(game, depth)
        assert move == "h9-h8"
        assert 0 < score < WIN - 1_000
    # Where a repetition is a draw (the attackers are ahead here) or ignored, they play on.
    for repetition in (Repetition.DRAW, Repetition.IGNORED):
        again = shuffled(with_repetition(repetition), "defenders", DEFENDERS_FIRST, 3)
        assert searched(again, 3)[0] != "h9-h8"


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_defenders_turn_aside_from_a_second_occurrence(depth: int) -> None:
    # The defenders' favourite with no history, played once and taken back: now it would bring
    # a position back, which loses in Copenhagen, so they choose another move.
    favourite, _, _ = searched(Game.from_position(COPENHAGEN, SHUT_IN, "defenders"), depth)
    back = "-".join(reversed(favourite.split("-")))
    game = shuffled(COPENHAGEN, "defenders", [favourite, "h8-h9", back, "h9-h8"], 4)
    move, score, _ = searched(game, depth)
    assert move != favourite
    assert abs(score) < WIN - 1_000
    # Under a draw rule the defenders, behind here, take the repetition: with one man beside the
    # king, a draw is worth ENDGAME_CONTEMPT to them.
    drawn = shuffled(
        with_repetition(Repetition.DRAW), "defenders", [favourite, "h8-h9", back, "h9-h8"], 4
    )
    assert searched(drawn, depth)[:2] == (favourite, ENDGAME_CONTEMPT)


def just_after_a_capture(variant: str, seed: int) -> Game:
    """A random game (seeded) stopped at its first capture after the sixth ply."""
    rng = random.Random(seed)
    game = Game(variant)
    while True:
        game.push(rng.choice(game.legal_moves()))
        if game.outcome is not None:
            game.undo()
        elif game.history[-1].captures and len(game.history) > 6:
            return game


@pytest.mark.parametrize(("variant", "seed"), [("brandubh", 2), ("copenhagen", 1), ("tablut", 4)])
def test_history_without_possible_repetition_changes_no_search(variant: str, seed: int) -> None:
    """After a capture no earlier position can come back: the search of the game with its
    history and of the same position without it are the same search."""
    game = just_after_a_capture(variant, seed)
    fresh = Game.from_position(variant, game.position(), game.turn)
    assert searched(game, 3) == searched(fresh, 3)


def test_the_table_changes_no_result_with_repetitions_about() -> None:
    for plies in (3, 4, 5, 6):
        game = shuffled(COPENHAGEN, "defenders", DEFENDERS_FIRST, plies)
        _, score = plain_score(game, 3)
        full = Search(
            game, time.perf_counter() + 60, reductions=False, null_moves=False, futility=False
        )
        full.best_move(game.legal_moves(), 3)
        assert full.score == score, plies


def test_the_table_keeps_only_the_move_of_a_score_found_through_a_repetition() -> None:
    # After d2-e2 h8-h9 e2-d2 the attackers' h9-h8 brings the start back: the node's score
    # holds for this game only. The same position with no history gets a full entry.
    game = shuffled(COPENHAGEN, "defenders", DEFENDERS_FIRST, 3)
    fresh = Game.from_position(COPENHAGEN, game.position(), game.turn)
    entries = []
    for position in (game, fresh):
        search = Search(position, time.perf_counter() + 60, futility=False)
        search._negamax(1, -WIN - 1, WIN + 1, 0)  # a full window: every move is searched
        entries.append(search.table[search.kind.key()])
    (depth, _, _, move), (fresh_depth, _, _, fresh_move) = entries
    assert (depth, str(move)) == (-1, "h9-h8")
    assert fresh_depth == 1 and str(fresh_move) != "h9-h8"


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen"])
def test_the_attackers_try_few_late_quiet_moves_in_their_own_search_only(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Near its leaves the attackers' search tries only their first quiet moves (LATE_MOVES):
    fewer nodes to the same depth. A search for the defenders is node for node the same with
    or without the limit: it never leaves out a move of the side it plays against."""
    games = [played_in(variant, plies, seed) for seed in range(3) for plies in (10, 11)]
    limited = [searched(game, 3) for game in games]
    monkeypatch.setattr("engine.ai.LATE_MOVES", {})
    full = [searched(game, 3) for game in games]
    for game, with_limit, without in zip(games, limited, full, strict=True):
        if game.turn is Side.DEFENDERS:
            assert with_limit == without
    attackers = [i for i, game in enumerate(games) if game.turn is Side.ATTACKERS]
    assert len(attackers) == 3
    assert sum(limited[i][2] for i in attackers) < sum(full[i][2] for i in attackers)


def test_the_attackers_late_quiet_moves_left_untried_make_no_loss() -> None:
    """A node that leaves late quiet moves untried (LATE_MOVES) scores no worse than its window:
    the moves it tried may all lose while one it left out holds. In this Copenhagen ending (from
    bench/positions/opentafl_endings.txt, game 4a, ten plies on), every move of the attackers
    searched to depth 5 once scored a loss, and they gave the game away; the full search finds
    no loss."""
    position = "/7t1t1/7t3/5tT3T/11/10t/4t5t/t1T8/11/5t4t/1t9/3tt2tK2/"
    game = Game.from_position("copenhagen", position, "attackers")
    full = Search(game, time.perf_counter() + 60, futility=False)
    full.best_move(game.legal_moves(), 5)
    limited = Search(game, time.perf_counter() + 60)
    limited.best_move(game.legal_moves(), 5)
    assert full.score > -(WIN - 1_000)
    assert limited.depth_reached == 5
    assert limited.score > -(WIN - 1_000)


# -- threats answered at the leaves, passes --------------------------------------------------------


def leaf_score(game: Game, *, threats: bool) -> int:
    """The quiescence's score of ``game`` for the side to move."""
    search = Search(game, time.perf_counter() + 60, threats=threats)
    return search._leaf(-WIN - 1, WIN + 1, 0)


# Brandubh, the attackers to move; the king on d7 has one open line, e7 f7 to the g7 corner. His
# men on c7, d6, e6 and f6 keep every attacker off e7, f7 and the squares next to him.
UNSTOPPABLE = {"K": "d7", "T": "c7 d6 e6 f6", "t": "b2 c2 g3"}


def test_a_leaf_facing_an_escape_no_move_can_stop_is_lost() -> None:
    game = setup("brandubh", **UNSTOPPABLE)
    assert leaf_score(game, threats=True) == -(WIN - 2)  # whatever they play, he walks out
    assert leaf_score(game, threats=False) > -(WIN - 1_000)  # the evaluation alone misses it


def test_a_leaf_facing_an_escape_a_move_can_stop_is_not_lost() -> None:
    """e2-e7 closes the line once e6 is empty."""
    game = setup("brandubh", **(UNSTOPPABLE | {"T": "c7 d6 f6", "t": "b2 c2 e2"}))
    assert "e2-e7" in map(str, game.legal_moves())
    assert abs(leaf_score(game, threats=True)) < WIN - 1_000


def escapes_next(game: Game) -> bool:
    """Whether the defenders, to move, can walk the king out at once."""
    return bool(replies_reaching(game, Reason.KING_ESCAPED))


def king_facing_few(variant: str, rng: random.Random) -> TaflGame:
    """The king, up to three of his men and four to twelve attackers on random squares (none
    on an escape square or the centre), the attackers to move."""
    empty = Game(variant)
    size, escape = empty.size, tables_for(empty.rules).escape
    free = [
        square_name(s, size)
        for s in range(size * size)
        if not escape >> s & 1 and s != size * size // 2
    ]
    king, *men = rng.sample(free, 1 + rng.randint(0, 3) + rng.randint(4, 12))
    defenders = rng.randint(0, 3)
    return setup(variant, K=king, T=" ".join(men[:defenders]), t=" ".join(men[defenders:]))


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen", "fetlar"])
def test_the_answers_to_an_open_line_are_every_move_that_does_not_lose_at_once(
    variant: str,
) -> None:
    """Where the king has an open line, the leaves try only the attackers' moves that close a
    line or may take him: every move left out lets him walk out next move."""
    rng = random.Random(variant)
    checked = left_out = 0
    while checked < 12:
        game = king_facing_few(variant, rng)
        if game.outcome is not None or not _Tafl(game).must_answer():
            continue
        answers = {str(move) for move in _Tafl(game).answers() or []}
        for move in pushed_each(game):
            if str(move) in answers:
                continue
            assert game.outcome is None and escapes_next(game), (game.start, str(move))
            left_out += 1
        checked += 1
    assert left_out > 0


def test_a_move_next_to_a_strong_king_that_cannot_take_him_is_no_answer() -> None:
    """Copenhagen: the king on a5 has an open line down the edge to the a1 corner; d5-b5
    lands next to him but takes nothing (not on the edge), so it is no answer; d3-a3 closes
    the line."""
    game = setup("copenhagen", K="a5", t="a8 d5 d3")
    assert _Tafl(game).must_answer()
    answers = {str(move) for move in _Tafl(game).answers() or []}
    assert "d3-a3" in answers and "d5-b5" not in answers
    game.play("d5-b5")
    assert escapes_next(game)


@pytest.mark.parametrize(
    ("turn", "pieces"),
    [
        ("defenders", {"K": "d7", "T": "d4", "t": "b3 f3 c1"}),  # d7-g7 walks out
        ("attackers", {"K": "c6", "T": "e3", "t": "b6 d2 g4"}),  # d2-d6 takes the weak king
    ],
)
def test_a_node_whose_side_to_move_wins_next_move_looks_no_further(
    turn: str, pieces: dict[str, str]
) -> None:
    """The search scores a win on the next move without trying a move (its depth would only
    find the same win)."""
    game = setup("brandubh", turn, **pieces)
    assert replies_reaching(game, Reason.KING_ESCAPED) or replies_reaching(
        game, Reason.KING_CAPTURED
    )
    search = Search(game, time.perf_counter() + 60)
    assert search._negamax(4, -WIN - 1, WIN + 1, 0) == WIN - 1
    assert search.nodes == 1


def test_the_king_makes_an_escape_no_move_can_stop() -> None:
    """One ply deep, the defenders see a king move that leaves the attackers no answer (d5-d7
    or d5-g5; without the threats answered at the leaves, an open line is worth less than a
    man)."""
    game = setup("brandubh", "defenders", K="d5", T="c7 d3 e6 f6", t="b2 c2 g3 c5 e4")
    move = choose_move(game, depth=1, seed=0, book=False)
    game.push(move)
    assert all(escapes_next(game) for _ in pushed_each(game)), str(move)
    game.undo()
    search = Search(game, time.perf_counter() + 60)
    search.best_move(game.legal_moves(), 1)
    assert search.score >= WIN - 1_000


def king_to_move(variant: str, rng: random.Random) -> TaflGame:
    """``king_facing_few``'s position with the defenders to move."""
    game = Game.from_position(variant, king_facing_few(variant, rng).position(), "defenders")
    assert isinstance(game, TaflGame)
    return game


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen", "fetlar"])
def test_the_kings_checks_open_a_line_where_no_attacker_takes_him(variant: str) -> None:
    """The king's quiet moves the leaves look at as checks are those after which the attackers
    must close a line to an escape square; a quiet king move left out opens none, or an attacker
    could take him next move. (His captures are the quiescence's captures.)"""
    rng = random.Random(variant)
    checks_seen = left_out = 0
    for _ in range(40):
        game = king_to_move(variant, rng)
        if game.outcome is not None or _Tafl(game).must_answer():
            continue
        checks = {str(move) for move in _Tafl(game).checks()}
        for move in game.king_moves():
            if game.captures_of(move):
                continue
            game.push(move)
            after = _Tafl(game)
            opens_a_line = game.outcome is None and after.must_answer()
            takeable = after._king_takeable()
            game.undo()
            if str(move) in checks:
                assert opens_a_line, (game.start, str(move))
                checks_seen += 1
            else:
                assert not opens_a_line or takeable, (game.start, str(move))
                left_out += 1
    assert checks_seen > 0 and left_out > 0


def test_the_leaves_see_a_check_that_leaves_no_answer() -> None:
    """Brandubh, the defenders to move: d5-d7 or d5-g5 opens a line no attacker can close. The
    leaf's evaluation alone calls it a likely escape; looking at the king's checks, a won one."""
    game = setup("brandubh", "defenders", K="d5", T="c7 d3 e6 f6", t="b2 c2 g3 c5 e4")
    assert _Tafl(game).evaluate(0) < WIN - 1_000
    with_checks = Search(game, time.perf_counter() + 60)
    without = Search(game, time.perf_counter() + 60, checks=False)
    assert with_checks._leaf(-WIN - 1, WIN + 1, 0) >= WIN - 1_000
    assert without._leaf(-WIN - 1, WIN + 1, 0) < WIN - 1_000


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen"])
def test_futile_quiet_moves_are_pruned(variant: str) -> None:
    """Near the leaves, a position far below what the side to move needs skips its quiet
    moves: fewer nodes at a fixed depth, and still a legal move."""
    nodes = {True: 0, False: 0}
    for seed in range(3):
        game = played_in(variant, 14, seed)
        for futility in (True, False):
            search = Search(game, time.perf_counter() + 60, futility=futility)
            assert search.best_move(game.legal_moves(), 4) in game.legal_moves()
            nodes[futility] += search.nodes
    assert nodes[True] < nodes[False]


def test_a_man_moving_out_of_the_kings_way_is_never_futile() -> None:
    """The defenders' moves that may open one of the king's lines (the first man along each)
    count among the forcing moves, which the futility pruning keeps; other men's are quiet."""
    game = setup("brandubh", "defenders", K="d7", T="e7 d4 b3", t="c2 g3 f1")
    forcing, quiet = _Tafl(game).split(game.legal_moves())
    origins = {str(move)[:2] for move in forcing}, {str(move)[:2] for move in quiet}
    assert origins == ({"d7", "e7", "d4"}, {"b3"})


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen"])
def test_passing_prunes_and_leaves_the_game_as_it_was(variant: str) -> None:
    """Null moves cut the tree at a fixed depth; the position and turn come back intact."""
    nodes = {True: 0, False: 0}
    for seed in range(3):
        game = played_in(variant, 14, seed)
        before = (game.position(), game.turn, len(game.history))
        for null_moves in (True, False):
            search = Search(game, time.perf_counter() + 60, null_moves=null_moves)
            move = search.best_move(game.legal_moves(), 4)
            assert move in game.legal_moves()
            assert (game.position(), game.turn, len(game.history)) == before
            nodes[null_moves] += search.nodes
    assert nodes[True] < nodes[False]


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen"])
def test_an_evaluation_kept_for_a_position_holds_for_its_side_to_move_only(variant: str) -> None:
    """One evaluator over a whole game, each side to move in turn (as a pass makes it), scores
    every position as a new evaluator does."""
    rng = random.Random(variant)
    game = Game(variant)
    kept = _kind_of(game)
    while game.outcome is None and len(game.history) < 60:
        for _ in range(2):
            ply = len(game.history)
            assert kept.evaluate(ply) == _kind_of(game).evaluate(ply)
            game.turn = game.turn.opponent
        game.push(rng.choice(game.legal_moves()))
    assert len(game.history) >= 20


def random_turns(variant: str, side: Side, seed: int, games: int, plies: int) -> Iterator[TaflGame]:
    """Random games of ``variant``, each up to ``plies`` plies: the game at each turn of
    ``side`` (to be looked at and left as it was)."""
    rng = random.Random(seed)
    for _ in range(games):
        game = Game(variant)
        while game.outcome is None and len(game.history) < plies:
            if game.turn is side:
                assert isinstance(game, TaflGame)
                yield game
            game.push(rng.choice(game.legal_moves()))


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "hnefatafl", "tablut-corner"])
def test_the_search_knows_when_an_attacker_can_take_the_king(variant: str) -> None:
    """``_king_takeable`` (squares where an arriving attacker takes him, and an attacker to
    reach one) agrees with playing every attackers' move, in random games."""
    seen = {True: 0, False: 0}
    for game in random_turns(variant, Side.ATTACKERS, seed=7, games=12, plies=200):
        takes = replies_reaching(game, Reason.KING_CAPTURED) != []
        assert _Tafl(game)._king_takeable() is takes
        seen[takes] += 1
    assert seen[True] and seen[False]


@pytest.mark.parametrize("variant", ["brandubh", "tablut", "copenhagen", "tawlbwrdd"])
def test_the_search_knows_where_the_king_would_be_taken(variant: str) -> None:
    """``_king_takeable(square)``, the king imagined on ``square``, agrees with moving him
    there and playing every attackers' reply (moves of his that capture are left out: they
    change more than his square)."""
    seen = {True: 0, False: 0}
    for game in random_turns(variant, Side.DEFENDERS, seed=11, games=8, plies=160):
        kind = _Tafl(game)
        men = len(game.pieces())
        for move in game.legal_moves():
            king, square = move.path
            if king != game.bitboards[2]:
                continue
            imagined = kind._king_takeable(square)
            game.push(move)
            if game.outcome is None and len(game.pieces()) == men:
                takes = replies_reaching(game, Reason.KING_CAPTURED) != []
                assert imagined is takes, move
                seen[takes] += 1
            game.undo()
    assert seen[True] and seen[False]


def test_a_leaf_where_every_move_leaves_the_king_to_be_taken_is_lost() -> None:
    """Brandubh, the defenders to move; the king on f3 (weak away from the throne) between
    attackers' reaches: whatever they play, an attacker takes him. The leaves answer that
    threat (the evaluation alone scores a man's worth or so)."""
    game = brandubh("/1t5/tt1TTt1/3t1K1/6t/4Tt1/2t4/7/", "defenders")
    for move in pushed_each(game):
        assert replies_reaching(game, Reason.KING_CAPTURED), move
    assert leaf_score(game, threats=True) <= -(WIN - 1_000)
    assert leaf_score(game, threats=False) > -(WIN - 1_000)


class SteppingClock:
    """A clock that moves on ``step`` seconds each time it is read (a search whose nodes all
    cost the same), and remembers the last reading."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize(("variant", "step"), [("copenhagen", 0.001), ("halatafl", 0.004)])
def test_the_search_stops_before_its_deadline_when_its_steps_take_as_long_as_before(
    variant: str, step: float
) -> None:
    """It never looks at the clock past the deadline: it stops when one more step like the
    longest so far would go past it, not once it has."""
    game = played_in(variant, 12, 2)
    clock = SteppingClock(step)
    search = Search(game, 0.25, clock=clock)
    move = search.best_move(game.distinct_moves(), 64)
    assert move in game.legal_moves()
    assert search.nodes > 10
    assert clock.now <= 0.25


def test_the_search_of_halatafl_tries_one_move_per_position_reached() -> None:
    """Of the thousands of jump chains that end in the same few positions, it tries one each."""
    game = Game.from_position(
        "halatafl", "/2W4/WWBWWW1/WWW1W1W/1WWWW1W/B1B1BBB/BB1BBBB/2BBB2/", Side.BLACK
    )
    black_step = Move.parse("a5-a4", 7)
    game.push(black_step)
    replies, chains = len(game.distinct_moves()), len(game.legal_moves())
    assert replies * 100 < chains
    game.undo()
    search = Search(
        game,
        time.perf_counter() + 60,
        quiescence=False,
        threats=False,
        null_moves=False,
        futility=False,
        reductions=False,
    )
    search.best_move([black_step], 2)
    # Depth 1 looks at the reply, depth 2 at it and each of White's answers (and a few more
    # nodes where an answer repeats a position); with every chain it would be some 17,000.
    assert replies < search.nodes <= replies + 4


ONE_MAN = "/3t3t3/2t6t1/6t4/t9t/5K2T2/2t8/4t6/10t/8t2/t1t7t/5t3t1/"
"""Copenhagen: the king (f7) and one man (i7) against sixteen attackers, the corners sealed."""
FOUR_MEN = "/3t3t3/2t6t1/1T4t4/t9t/5K2T2/2t8/4t5T/10t/8tT1/t1t7t/5t3t1/"
"""The same with three more men (b9, k5, j3)."""


BRANDUBH_ONE_MAN = "/3t3/1t4t/7/t2K3/5T1/1t5/3t3/"
"""Brandubh: the king (d4) and one man (f3); b2-f2 and g6-g3 go next to the man."""
TABLUT_ONE_MAN = "/4t4/9/9/9/t3K4/8t/6T2/t8/9/"
"""Tablut: the king (e5) and one man (g3); a2-g2 and i4-g4 go next to the man."""


@pytest.mark.parametrize(
    ("variant", "position", "hunted"),
    [
        ("copenhagen", ONE_MAN, True),
        ("copenhagen", FOUR_MEN, False),
        ("fetlar", ONE_MAN, True),
        ("brandubh", BRANDUBH_ONE_MAN, False),  # the king is taken where he stands
        ("tablut", TABLUT_ONE_MAN, False),
    ],
)
def test_the_attackers_moves_next_to_the_last_men_are_threats(
    variant: str, position: str, hunted: bool
) -> None:
    """With at most a quarter of the men of the start left (three in Copenhagen), the attackers'
    moves next to a man come among the forcing moves where they must take the last men to win
    (Copenhagen, Fetlar); with more men, or elsewhere, they stay quiet (unless they capture or
    close in on the king)."""
    game = Game.from_position(variant, position, "attackers")
    assert isinstance(game, TaflGame)
    kind = _Tafl(game)
    g, (att, dfd, king) = kind.geometry, game.bitboards
    next_to_men = g.spread(dfd) & ~dfd
    by_king = g.neighbours[king] | kind._king_lines(king, att | dfd | g.bit[king])[2]
    moves = game.legal_moves()
    forcing, quiet = kind.split(moves)
    ordinary = by_king | game.capture_targets()
    hunting = [m for m in moves if (next_to_men & ~ordinary) >> m.path[1] & 1]
    assert len(hunting) >= 2
    assert hunted == (dfd.bit_count() <= kind.hunted_men)
    assert all((m in forcing) == hunted and (m in quiet) != hunted for m in hunting)
    assert len(forcing) + len(quiet) == len(moves)
