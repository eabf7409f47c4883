"""The AI's evaluation, term by term: built positions where one term makes one move clearly
better at a shallow depth (so that the evaluation decides, not the search), and seeded games at a
fixed depth against a random and a greedy player. Each test here fails when its term's sign is
flipped (or the quiescence is turned off)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import Game, Move, Reason, Side, TaflGame
from engine.ai import (
    CORNER_WEIGHTS,
    ENCIRCLING_WEIGHTS,
    TAFL_TERMS,
    _Tafl,
    choose_move,
)
from engine.opentafl import format_position
from engine.record import parse_data_line
from engine.types import parse_square

DATA = Path(__file__).resolve().parent.parent / "data"


def position(size: int, king: str, defenders: str, attackers: str) -> str:
    """The OTN position with the king and the men on the named squares."""
    pieces = {parse_square(king, size): "K"}
    for letter, names in (("T", defenders), ("t", attackers)):
        pieces |= {parse_square(name, size): letter for name in names.split()}
    return format_position(pieces, size)


def chosen(game: Game, depth: int) -> str:
    return str(choose_move(game, depth=depth, time_limit=60, seed=0))


def capturing(game: Game) -> list[str]:
    return [str(m) for m in game.legal_moves() if game.captures_of(m)]


# -- one term, one move --------------------------------------------------------------------------

# Brandubh; the king on the throne shut in by his men. f6-b6 takes b5 (against b4); f6-d6 takes
# d5 (against the king); nothing threatens the defenders.
FREE_MEN = position(7, "d4", "d2 d3 b4 c4 e4 f4 f6", "b5 d5 g3")


@pytest.mark.parametrize("depth", [1, 3])
def test_the_defenders_take_a_free_man(depth: int) -> None:
    """The attackers' material."""
    game = Game.from_position("brandubh", FREE_MEN, "defenders")
    assert sorted(capturing(game)) == ["f6-b6", "f6-d6"]
    assert chosen(game, depth) in capturing(game)


# The same shut-in king; f6-b6 takes b5, but then a5-b5 takes the man on b6 (against b7), and
# the defenders have nothing to take back: it costs a defender for an attacker.
POISONED = position(7, "d4", "d2 d3 b4 c4 e4 f4 c5 d5 f6", "a5 b5 b7 c7 g3")


def test_the_defenders_leave_a_man_that_costs_one_of_theirs() -> None:
    """The quiescence: at depth 1 only it sees the reply that takes back."""
    game = Game.from_position("brandubh", POISONED, "defenders")
    assert capturing(game) == ["f6-b6"]
    game.play("f6-b6")
    assert capturing(game) == ["a5-b5"]
    game.undo()
    assert chosen(game, 1) != "f6-b6"


# Brandubh; the king on b3 (b2 and c3 his men, a5 and b5 attackers). b3-a3 opens the a-file to
# the a1 corner, and it wins: the attackers cannot close a2 in time. No other move opens a line.
ONE_LINE = position(7, "b3", "b2 c3", "g4 a5 b5 f5")


@pytest.mark.parametrize("depth", [1, 2])
def test_the_king_opens_a_line_to_a_corner(depth: int) -> None:
    """The king's open lines (at depth 1 the evaluation alone sees it)."""
    game = Game.from_position("brandubh", ONE_LINE, "defenders")
    assert chosen(game, depth) == "b3-a3"


# Copenhagen; the king on the throne boxed in by his men with room to go east only (g6, h6,
# i6), no line of his reaching the edge, and the attackers far away: he steps towards the
# corners, as far as he can.
BOXED_KING = position(
    11,
    "f6",
    "f7 g7 h7 i7 j7 f5 g5 h5 i5 j5 e6 d6 j6 f8 f4",
    "a4 a8 k4 k8 d2 h10",
)


def test_the_king_walks_towards_the_corners() -> None:
    """The king's distance to the escape squares."""
    game = Game.from_position("copenhagen", BOXED_KING, "defenders")
    assert capturing(game) == []
    assert chosen(game, 1) == "f6-i6"


# Brandubh; a lone king on the throne inside a diamond of attackers with one gap, on c5, that
# c7-c5 closes: then no square free of attackers leads from him to a corner.
RING_WITH_A_GAP = position(7, "d4", "", "b4 c3 d2 e3 f4 e5 d6 c7")


def terms_of(game: Game) -> dict[str, int]:
    assert isinstance(game, TaflGame)
    counted = _Tafl(game).terms()
    assert counted is not None
    return dict(zip(TAFL_TERMS, counted, strict=True))


def test_the_king_shut_in_counts_his_room_and_no_way_out() -> None:
    game = Game.from_position("brandubh", RING_WITH_A_GAP, "attackers")
    assert (terms_of(game)["king shut in"], terms_of(game)["ways out"]) == (0, 4)
    game.play("c7-c5")
    counted = terms_of(game)
    assert (counted["king shut in"], counted["king room"], counted["ways out"]) == (1, 5, 0)


def test_the_attackers_close_the_ring() -> None:
    """The king's ways out and whether he is shut in (one ply deep: two plies deep the search
    finds a forced capture of the king instead)."""
    game = Game.from_position("brandubh", RING_WITH_A_GAP, "attackers")
    assert capturing(game) == []
    assert chosen(game, 1) == "c7-c5"


@pytest.mark.parametrize(
    ("attackers", "ways_out", "open_guards"),
    [
        # a3, b2 and c1 shut the a1 corner off: its guards (they and d1) no longer count.
        ("a3 b2 c1 d1 c11 j2", 3, 2),
        # Without b2 the king's region reaches a1 again, and its guards count.
        ("a3 c1 d1 c11 j2", 4, 5),
    ],
)
def test_the_open_corner_guards_guard_the_corners_the_king_still_reaches(
    attackers: str, ways_out: int, open_guards: int
) -> None:
    """Copenhagen, a lone king on the throne: every attacker here is two or three steps from a
    corner (c11 from a11, j2 from k1, the rest from a1)."""
    game = Game.from_position("copenhagen", position(11, "f6", "", attackers), "attackers")
    counted = terms_of(game)
    assert counted["corner guard"] == len(attackers.split())
    assert (counted["ways out"], counted["open corner guard"]) == (ways_out, open_guards)


# Copenhagen, a lone king on the throne: the a11, k11 and k1 corners are shut off; b5-b2 shuts
# off a1, the last, and the king with it, in a region of 97 squares.
LAST_CORNER_OPEN = "a9 b10 c11 i11 j10 k9 i1 j2 k3 a3 c1"


@pytest.mark.parametrize("variant", ["copenhagen", "fetlar", "hnefatafl"])
@pytest.mark.parametrize("defenders", ["", "e5 g7", "e5 f5 g5 e7 f7 g7"])
def test_shutting_the_king_in_outweighs_any_room_he_keeps(variant: str, defenders: str) -> None:
    """The fitted weights count a shut-in king's room, and a region of more than 64 squares
    outweighed the way out it closed; on an 11x11 board it has up to 121."""
    games = {
        where: Game.from_position(
            variant, position(11, "f6", defenders, f"{LAST_CORNER_OPEN} {where}"), "defenders"
        )
        for where in ("b5", "b2")
    }
    assert isinstance(shut := games["b2"], TaflGame) and isinstance(games["b5"], TaflGame)
    assert (terms_of(shut)["king shut in"], terms_of(shut)["king room"]) == (1, 97)
    assert _Tafl(shut).evaluate(0) < _Tafl(games["b5"]).evaluate(0)


def test_the_attackers_shut_off_the_last_corner() -> None:
    layout = position(11, "f6", "", f"{LAST_CORNER_OPEN} b5")
    game = Game.from_position("copenhagen", layout, "attackers")
    assert chosen(game, 2) == "b5-b2"


@pytest.mark.parametrize(
    ("defenders", "attackers", "edge_room"),
    [
        ("", "", 40),  # every square of the edge, the corners too
        ("", "a3 b2 c1", 35),  # a3 and c1 stand on the edge, and a1, a2, b1 are cut off
        ("e6", "a3 b2 c1", 35),  # and for a king with his last men (three at most)
        ("e6 e5 e4", "a3 b2 c1", 35),
        ("e6 e5 e4 e3", "a3 b2 c1", 0),  # not with four
    ],
)
def test_the_edge_room_counts_the_edge_squares_of_the_king_s_region_in_the_ending(
    defenders: str, attackers: str, edge_room: int
) -> None:
    layout = position(11, "f6", defenders, attackers)
    game = Game.from_position("copenhagen", layout, "attackers")
    assert terms_of(game)["edge room"] == edge_room


def test_the_defenders_own_search_counts_the_edge_room_for_a_lone_king_only() -> None:
    """A search's root side decides: the defenders seeking the edge with their last men held
    fewer endings, so their own searches leave the term out while they have men."""
    alone = position(11, "f6", "", "a3 b2 c1")
    with_a_man = position(11, "f6", "e6", "a3 b2 c1")
    assert terms_of(Game.from_position("copenhagen", alone, "defenders"))["edge room"] == 35
    assert terms_of(Game.from_position("copenhagen", with_a_man, "defenders"))["edge room"] == 0


@pytest.mark.parametrize(("variant", "size"), [("brandubh", 7), ("hnefatafl", 11)])
def test_the_edge_room_counts_for_a_lone_king_only_where_the_attackers_cannot_encircle(
    variant: str, size: int
) -> None:
    centre = f"{'abcdefghijk'[size // 2]}{size // 2 + 1}"
    alone = position(size, centre, "", "a3 b2 c1")
    with_a_man = position(size, centre, "b4", "a3 b2 c1")
    assert terms_of(Game.from_position(variant, alone, "attackers"))["edge room"] > 0
    assert terms_of(Game.from_position(variant, with_a_man, "attackers"))["edge room"] == 0


@pytest.mark.parametrize(
    ("variant", "weighed"),
    [("copenhagen", True), ("fetlar", True), ("hnefatafl", False), ("brandubh", False)],
)
def test_a_lone_king_s_edge_room_is_weighed_where_the_attackers_may_encircle(
    variant: str, weighed: bool
) -> None:
    game = Game(variant)
    assert isinstance(game, TaflGame) and game.rules.encirclement == weighed
    counted = dict(zip(TAFL_TERMS, _Tafl(game).ending_weights, strict=True))
    assert (counted["edge room"] != 0) == weighed


@pytest.mark.parametrize(
    ("variant", "size", "attackers", "neighbours"),
    [
        # a2, b1, k2 and j11 touch a corner; b2 (diagonal) and c1 (two steps) do not.
        ("copenhagen", 11, "a2 b1 k2 j11 b2 c1 f11", 4),
        ("brandubh", 7, "a2 b7 g6 f1 b2 c1", 4),
        ("tablut", 9, "a2 b1 i8", 0),  # the king escapes to the edge: no corners
    ],
)
def test_the_corner_neighbours_count_the_attackers_next_to_a_corner(
    variant: str, size: int, attackers: str, neighbours: int
) -> None:
    king = "f6" if size == 11 else ("e5" if size == 9 else "d4")
    game = Game.from_position(variant, position(size, king, "", attackers), "attackers")
    assert terms_of(game)["corner neighbour"] == neighbours


def test_an_attacker_next_to_a_corner_is_worth_less_to_the_attackers() -> None:
    """Copenhagen, the king on the throne among his men: the same man on b1, next to the a1
    corner, or on c9, where no other term sees a difference (on e1 he would shorten the e6
    man's file: "men freedom")."""
    defenders = "d6 e6 g6 h6 f4 f5 f7 f8"
    worth = {}
    for square in ("b1", "c9"):
        layout = position(11, "f6", defenders, f"{square} a6 k6 f11 e11 g11")
        game = Game.from_position("copenhagen", layout, "defenders")
        assert isinstance(game, TaflGame)
        counted = terms_of(game)
        worth[square] = (_Tafl(game).evaluate(0), counted)
    differing = {term for term in TAFL_TERMS if worth["b1"][1][term] != worth["c9"][1][term]}
    assert differing == {"corner neighbour"}
    assert worth["b1"][0] > worth["c9"][0]  # the defenders to move: better for them


# Copenhagen; the king on the edge at f1 with e1 and g1 free beside him: the wall of a fort
# around them is d1, e2, f2, g2 and h1.
@pytest.mark.parametrize(
    ("variant", "king", "defenders", "attackers", "fort"),
    [
        ("copenhagen", "f1", "d1 e2 f2", "a6 k6 f11", 3),
        ("copenhagen", "f1", "d1 e2 f2 g2 h1 j5", "a6 k6 f11", 5),  # j5 is not in the wall
        ("copenhagen", "f1", "d1 e2 f2", "h1 k6 f11", 0),  # an attacker in the wall
        ("copenhagen", "f1", "e1 e2 f2", "a6 k6 f11", 2),  # e1 taken: the wall is e1 f2 g2 h1
        ("copenhagen", "f2", "e2 g2 f3", "a6 k6 f11", 0),  # the king off the edge
        ("fetlar", "f1", "d1 e2 f2", "a6 k6 f11", 0),  # no exit forts in Fetlar
    ],
)
def test_the_fort_wall_counts_the_defenders_around_the_king_on_the_edge(
    variant: str, king: str, defenders: str, attackers: str, fort: int
) -> None:
    game = Game.from_position(variant, position(11, king, defenders, attackers), "attackers")
    assert terms_of(game)["king fort"] == fort


def test_the_defenders_build_the_exit_fort_of_a_real_game() -> None:
    """Three of their moves before the exit fort that ended real Copenhagen game 451, the
    defenders at depth 2 build one within 20 plies in most games (8 of 10 seeds; without the
    fort's wall in none)."""
    line = (DATA / "copenhagen.csv").read_text(encoding="utf-8").splitlines()[450]
    moves = [recorded.move for recorded in parse_data_line(line).moves]
    game = Game("copenhagen")
    for move in moves:
        if game.outcome is not None:
            break
        game.play(move)
    assert game.outcome is not None and game.outcome.reason is Reason.EXIT_FORT
    start = len(game.history) - 5
    forts = 0
    for seed in range(10):
        while len(game.history) > start:
            game.undo()
        assert game.turn is Side.DEFENDERS
        for ply in range(20):
            if game.outcome is not None:
                break
            game.push(choose_move(game, depth=2, time_limit=60, seed=seed * 100 + ply, book=False))
        forts += game.outcome is not None and game.outcome.reason is Reason.EXIT_FORT
    assert forts >= 6


@pytest.mark.parametrize(("attacker", "fork"), [("c4", 1), ("c3", 0)])
def test_a_fork_square_where_the_king_would_be_taken_is_no_fork(attacker: str, fork: int) -> None:
    """Brandubh, the defenders to move: the king on c2 reaches a2, next to the corner a1, where
    one move cannot stop him; but from c3 an attacker reaches a3 and takes him there (between
    it and the corner) first."""
    game = Game.from_position("brandubh", position(7, "c2", "d2", f"b1 {attacker}"), "defenders")
    assert terms_of(game)["king fork next"] == fork


def weighed(weights: dict[str, int], game: Game) -> int:
    """The defenders' value of ``game`` by ``weights``."""
    return sum(weights[term] * count for term, count in terms_of(game).items())


@pytest.mark.parametrize(
    "defenders", ["", "e5", "e5 f5 g5 e6 g6", "f4 e5 f5 g5 d6 e6 g6 h6 e7 f7 g7 f8"]
)
def test_the_large_board_evaluation_tapers_to_the_fitted_weights(defenders: str) -> None:
    """Copenhagen weighs a position by hand with the defenders' twelve men, by the fitted
    weights and the edge room with the king alone, and in proportion in between; the attackers
    to move count it against them."""
    layout = position(11, "f6", defenders, "a4 a5 b6 k6 d1 e1 f1")
    game = Game.from_position("copenhagen", layout, "attackers")
    assert isinstance(game, TaflGame)
    men = len(defenders.split())
    by_hand, fitted = weighed(CORNER_WEIGHTS, game), weighed(ENCIRCLING_WEIGHTS, game)
    assert by_hand != fitted
    assert _Tafl(game).evaluate(0) == -((by_hand * men + fitted * (12 - men)) // 12)


# -- games ---------------------------------------------------------------------------------------


def random_move(game: Game, rng: random.Random) -> Move:
    return rng.choice(game.legal_moves())


def greedy_move(game: Game, rng: random.Random) -> Move:
    """A move that wins at once if there is one, else one that takes the most men, else any."""
    moves = game.legal_moves()
    rng.shuffle(moves)
    mover = game.turn

    def gain(move: Move) -> int:
        game.push(move)
        won = game.outcome is not None and game.outcome.winner == mover
        game.undo()
        return 100 if won else len(game.captures_of(move))

    return max(moves, key=gain)


def play(variant: str, ai_side: Side, opponent: str, seed: int, depth: int) -> Game:
    """A game of the AI at ``depth`` against ``opponent`` ("random" or "greedy", seeded), up to
    150 plies; the AI searches from the first move (no opening book: these test the search)."""
    rng = random.Random(seed)
    game = Game(variant)
    other = random_move if opponent == "random" else greedy_move
    for ply in range(150):
        if game.outcome is not None:
            break
        if game.turn is ai_side:
            move = choose_move(game, depth=depth, time_limit=60, seed=seed + ply, book=False)
        else:
            move = other(game, rng)
        game.push(move)
    return game


def won_by(game: Game, side: Side) -> bool:
    return game.outcome is not None and game.outcome.winner is side


@pytest.mark.parametrize("side", [Side.ATTACKERS, Side.DEFENDERS])
@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_the_ai_beats_simple_players(side: Side, opponent: str) -> None:
    games = [play("brandubh", side, opponent, seed, depth=2) for seed in range(4)]
    assert all(won_by(game, side) for game in games)


def test_the_attackers_trade_men_well_against_a_greedy_player() -> None:
    """At depth 1 the evaluation and the quiescence do the work: the attackers win and lose
    fewer men than they take."""
    taken = lost = 0
    for seed in range(4):
        game = play("brandubh", Side.ATTACKERS, "greedy", seed, depth=1)
        assert won_by(game, Side.ATTACKERS)
        for ply in game.history:
            if ply.side is Side.ATTACKERS:
                taken += len(ply.captures)
            else:
                lost += len(ply.captures)
    assert lost < taken


@pytest.mark.parametrize("opponent", ["random", "greedy"])
def test_the_king_finds_his_way_out_of_copenhagen(opponent: str) -> None:
    """The defenders at depth 2 against attackers who play at random or take what they can:
    the king escapes within 40 plies, every game."""
    for seed in range(4):
        game = play("copenhagen", Side.DEFENDERS, opponent, seed, depth=2)
        assert game.outcome is not None and game.outcome.reason is Reason.KING_ESCAPED
        assert len(game.history) <= 40, (seed, len(game.history))


@pytest.mark.parametrize(
    ("variant", "size", "men", "attackers", "freedom"),
    [
        # c3: up to c11, down to c1, a3 b3 to the west, d3 e3 to the east (f3 stands there).
        ("copenhagen", 11, "c3", "f3", 8 + 2 + 2 + 2),
        # c3 and c5 share the file: each stops at the other.
        ("copenhagen", 11, "c3 c5", "f3 f5", (1 + 2 + 2 + 2) + (6 + 1 + 2 + 2)),
        ("fetlar", 11, "c3", "f3", 14),
        ("hnefatafl", 11, "c3", "f3", 0),  # no encirclement: not weighed, not counted
        ("brandubh", 7, "b2", "e2", 0),
    ],
)
def test_the_men_freedom_counts_the_squares_the_men_reach_where_it_weighs(
    variant: str, size: int, men: str, attackers: str, freedom: int
) -> None:
    king = "f6" if size == 11 else "d4"
    game = Game.from_position(variant, position(size, king, men, attackers), "attackers")
    assert terms_of(game)["men freedom"] == freedom
    # With every man of the start the taper gives the ending's weights no share: not counted.
    assert terms_of(Game(variant))["men freedom"] == 0


def test_a_man_boxed_in_is_worth_less_to_the_defenders() -> None:
    """Copenhagen, the king and one man: the same attacker on c4, on the man's file next to
    him, or on h8, far from both, where no other term sees a difference. Where it shuts the
    man in, the position is worth less to the defenders."""
    worth = {}
    for square in ("c4", "h8"):
        layout = position(11, "f6", "c3", f"{square} b3 d3 f3 a6 k6")
        game = Game.from_position("copenhagen", layout, "defenders")
        assert isinstance(game, TaflGame)
        worth[square] = (_Tafl(game).evaluate(0), terms_of(game))
    differing = {term for term in TAFL_TERMS if worth["c4"][1][term] != worth["h8"][1][term]}
    assert differing == {"men freedom"}
    assert worth["c4"][1]["men freedom"] == 2  # c2, c1
    assert worth["h8"][1]["men freedom"] == 2 + 8
    assert worth["c4"][0] < worth["h8"][0]


@pytest.mark.parametrize("seed", range(6))
def test_the_moves_counted_on_the_bitboards_are_the_men_s_legal_moves(seed: int) -> None:
    """Tawlbwrdd has no throne and no corners: there each man may stop on every empty square
    his lines reach, so ``Geometry.moves_count`` is the number of his side's legal moves
    (the king's left out), on either edge of the board."""
    game = Game("tawlbwrdd")
    rng = random.Random(seed)
    for _ in range(rng.randrange(20, 80)):
        if game.outcome is not None:
            break
        game.push(rng.choice(game.legal_moves()))
    assert isinstance(game, TaflGame)
    g, (att, dfd, king) = _Tafl(game).geometry, game.bitboards
    empty = g.full & ~(att | dfd | g.bit[king])
    for side, men in ((Side.ATTACKERS, att), (Side.DEFENDERS, dfd)):
        game.turn = side
        legal = [m for m in game.legal_moves() if m.path[0] != king]
        assert g.moves_count(men, empty) == len(legal)
