"""Halatafl (RULES.md section 3) on built positions."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    AmbiguousMoveError,
    Game,
    HalataflGame,
    IllegalMoveError,
    Move,
    Outcome,
    Piece,
    Reason,
    Refusal,
    Side,
)
from engine.halatafl import HALATAFL
from engine.opentafl import format_position
from engine.types import parse_square, square_name

SIZE = 7
# Pieces far from the action so that both sides have the five pieces a legal position needs.
WHITE_FILLER = ("b1", "c1", "d1", "e1", "f1")
BLACK_FILLER = ("b7", "c7", "d7", "e7", "f7")


def board(white: tuple[str, ...] = (), black: tuple[str, ...] = (), *, filler: bool = True) -> str:
    """An OTN position with White on ``white`` and Black on ``black`` (plus the fillers)."""
    if filler:
        white, black = white + WHITE_FILLER, black + BLACK_FILLER
    cells = {parse_square(s, SIZE): "W" for s in white}
    cells.update({parse_square(s, SIZE): "B" for s in black})
    return format_position(cells, SIZE)


def game_at(
    white: tuple[str, ...], black: tuple[str, ...], turn: str = "white", **kw: bool
) -> Game:
    return HalataflGame.from_position("halatafl", board(white, black, **kw), turn)


def moves_from(game: Game, square: str) -> set[str]:
    return {str(m) for m in game.legal_moves() if game.square_name(m.origin) == square}


def sq(name: str) -> int:
    return parse_square(name, SIZE)


# -- the start ---------------------------------------------------------------------------------


def test_start_position_and_marked_squares() -> None:
    game = Game("halatafl")
    assert isinstance(game, HalataflGame)
    assert game.turn is Side.WHITE
    assert game.position() == HALATAFL.start
    pieces = list(game.pieces().values())
    assert pieces.count(Piece.WHITE) == 22
    assert pieces.count(Piece.BLACK) == 22
    assert game.throne == sq("d4")
    assert game.corners == {sq("a1"), sq("g1"), sq("a7"), sq("g7")}
    for marked in (*game.corners, game.throne):
        assert game.piece_at(marked) is None
    assert game.rules_string == "halatafl"
    assert game.variant == "halatafl"


def test_white_opens_with_one_of_the_four_steps_into_the_centre() -> None:
    game = HalataflGame()
    assert sorted(str(m) for m in game.legal_moves()) == ["c3-d4", "c4-d4", "d3-d4", "e3-d4"]


@pytest.mark.parametrize("jump", ["b2-d4", "b4-d4", "d2-d4", "f2-d4"])
def test_the_jumps_over_own_pieces_into_the_centre_are_refused_at_the_start(jump: str) -> None:
    # RULES.md section 3: they would leave Black without a legal move on move one.
    game = HalataflGame()
    with pytest.raises(IllegalMoveError, match="may only step into the centre") as refused:
        game.play(jump)
    assert refused.value.reason is Refusal.OPENING
    assert game.position() == HALATAFL.start and not game.history


def test_the_start_position_restricts_white_wherever_it_is_set_up() -> None:
    game = HalataflGame.from_position("halatafl", HALATAFL.start, "white")
    assert len(game.legal_moves()) == 4
    as_black = HalataflGame.from_position("halatafl", HALATAFL.start, "black")
    assert "d5-d4" in {str(m) for m in as_black.legal_moves()}


def test_a_jump_over_own_pieces_into_the_centre_is_allowed_after_the_start() -> None:
    game = game_at(("b2", "c3"), ("f6",))
    assert "b2-d4" in moves_from(game, "b2")
    game.play("b2-d4")
    assert game.outcome is None


@pytest.mark.parametrize("opening", ["c3-d4", "c4-d4", "d3-d4", "e3-d4"])
def test_black_can_take_the_piece_each_opening_puts_in_the_centre(opening: str) -> None:
    game = HalataflGame()
    game.play(opening)
    assert any(game.captures_of(move) == (sq("d4"),) for move in game.legal_moves())


def test_black_answers_the_opening_by_jumping_the_piece_in_the_centre() -> None:
    game = HalataflGame()
    game.play("d3-d4")
    assert {str(m) for m in game.legal_moves()} == {"d5-d3", "b5-d3", "f5-d3", "e4-d3"}
    ply = game.play("d5-d3")
    assert ply.captures == ("d4",)
    assert game.piece_at(sq("d4")) is None
    assert game.piece_at(sq("d3")) is Piece.BLACK


# -- steps -------------------------------------------------------------------------------------


def test_white_steps_forward_sideways_and_diagonally_forward() -> None:
    game = game_at(("d3",), ())
    assert moves_from(game, "d3") == {"d3-c3", "d3-e3", "d3-c4", "d3-d4", "d3-e4"}


def test_black_steps_down_the_board() -> None:
    game = game_at((), ("d5",), turn="black")
    assert moves_from(game, "d5") == {"d5-c5", "d5-e5", "d5-c4", "d5-d4", "d5-e4"}


@pytest.mark.parametrize("move", ["d3-d2", "d3-c2", "d3-e2"])
def test_a_step_backward_is_refused(move: str) -> None:
    game = game_at(("d3",), ())
    with pytest.raises(IllegalMoveError, match="pieces never step backward"):
        game.play(move)


def test_a_step_onto_a_piece_is_refused() -> None:
    game = game_at(("b3", "c3"), ())
    with pytest.raises(IllegalMoveError, match="c3 is not empty"):
        game.play("b3-c3")


def test_no_step_ends_on_a_corner() -> None:
    game = game_at(("a6",), ("b6",), filler=True)
    assert "a6-a7" not in moves_from(game, "a6")
    with pytest.raises(IllegalMoveError, match="a step may not end on a corner"):
        game.play("a6-a7")


# -- jumps -------------------------------------------------------------------------------------


def test_jumps_go_in_all_eight_directions_over_own_and_enemy_pieces() -> None:
    neighbours = ("c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5")
    own, enemy = neighbours[::2], neighbours[1::2]
    game = game_at(("d4", *own), enemy)
    jumps = {m for m in moves_from(game, "d4") if m.count("-") == 1}
    assert jumps == {f"d4-{t}" for t in ("b2", "d2", "f2", "b4", "f4", "b6", "d6", "f6")}


def test_enemy_pieces_jumped_are_removed_own_pieces_stay() -> None:
    game = game_at(("d4", "d3"), ("e4",))
    own_jump = game.play("d4-d2")
    assert own_jump.captures == ()
    assert game.piece_at(sq("d3")) is Piece.WHITE

    game = game_at(("d4",), ("e4",))
    ply = game.play("d4-f4")
    assert ply.captures == ("e4",)
    assert game.piece_at(sq("e4")) is None
    assert game.piece_at(sq("f4")) is Piece.WHITE


def test_a_jump_needs_a_piece_to_jump_and_an_empty_square_behind_it() -> None:
    game = game_at(("d4", "d6"), ("d5",))
    assert "d4-d6" not in moves_from(game, "d4")
    with pytest.raises(IllegalMoveError, match="d6 is not empty"):
        game.play("d4-d6")
    with pytest.raises(IllegalMoveError, match="there is no piece on e4 to jump over"):
        game.play("d4-f4")


def test_double_jump_captures_both_and_every_prefix_is_a_legal_stop() -> None:
    game = game_at(("e5",), ("d4", "b4"), turn="white")
    moves = moves_from(game, "e5")
    assert {"e5-c3", "e5-c3-a5"} <= moves
    assert game.captures_of(game.parse_move("e5-c3-a5")) == (sq("d4"), sq("b4"))
    ply = game.play("e5-c3-a5")
    assert str(ply.move) == "e5-c3-a5"
    assert ply.captures == ("d4", "b4")
    assert ply.notation == "e5-c3-a5xd4xb4"
    assert game.piece_at(sq("a5")) is Piece.WHITE
    assert game.piece_at(sq("d4")) is None and game.piece_at(sq("b4")) is None


def test_stopping_after_the_first_jump_is_allowed() -> None:
    game = game_at(("e5",), ("d4", "b4"))
    ply = game.play("e5-c3")
    assert ply.captures == ("d4",)
    assert game.piece_at(sq("b4")) is Piece.BLACK


def test_a_chain_may_mix_own_and_enemy_pieces() -> None:
    game = game_at(("c2", "c3"), ("d5",))
    ply = game.play("c2-c4-e6")
    assert ply.captures == ("d5",)
    assert game.piece_at(sq("c3")) is Piece.WHITE


def test_the_same_piece_cannot_be_jumped_twice() -> None:
    # c3 over d4 to e5 and straight back would jump d4 a second time.
    game = game_at(("c3",), ("d4",))
    assert "c3-e5-c3" not in moves_from(game, "c3")
    with pytest.raises(IllegalMoveError, match="you may not jump the same piece twice"):
        game.play("c3-e5-c3")


def test_a_step_cannot_be_chained() -> None:
    game = game_at(("c3",), ("d4",))
    with pytest.raises(IllegalMoveError, match="only jumps can be chained"):
        game.play("c3-e5-e6")


def test_capture_suffix_is_checked() -> None:
    game = game_at(("e5",), ("d4", "b4"))
    assert str(game.parse_move("e5-c3-a5xd4xb4")) == "e5-c3-a5"
    with pytest.raises(IllegalMoveError, match="captures"):
        game.parse_move("e5-c3-a5xd4")


# -- corners -----------------------------------------------------------------------------------


def test_a_capturing_jump_may_land_on_a_corner_a_plain_jump_may_not() -> None:
    capture = game_at(("c3",), ("b2",), filler=True)
    assert "c3-a1" in moves_from(capture, "c3")
    own = game_at(("c3", "b2"), ())
    assert "c3-a1" not in moves_from(own, "c3")
    with pytest.raises(IllegalMoveError, match="only by jumping an enemy piece"):
        own.play("c3-a1")


def test_a_chain_may_stop_on_a_corner_in_between() -> None:
    game = game_at(("c3",), ("b2", "a2"))
    assert {"c3-a1", "c3-a1-a3"} <= moves_from(game, "c3")
    ply = game.play("c3-a1-a3")
    assert ply.captures == ("b2", "a2")


def test_a_piece_left_on_a_corner_must_move_away_next_turn() -> None:
    game = game_at(("c3",), ("b2",))
    game.play("c3-a1")
    game.play("d7-d6")
    moves = game.legal_moves()
    assert moves and all(game.square_name(m.origin) == "a1" for m in moves)
    with pytest.raises(IllegalMoveError, match="your piece on a1 must leave the corner"):
        game.play("d1-d2")
    game.play("a1-b2")


def test_a_cornered_piece_that_cannot_move_frees_the_other_pieces() -> None:
    # a1 is hemmed in: a2, b1, b2 are taken and nothing behind them is free to land on.
    white = ("a1", "a2", "b1", "b2", "a3", "c1", "c3", "e5")
    game = HalataflGame.from_position("halatafl", board(white, BLACK_FILLER, filler=False), "white")
    assert moves_from(game, "a1") == set()
    assert "e5-e6" in {str(m) for m in game.legal_moves()}


def test_returning_to_the_same_corner_is_not_leaving_it() -> None:
    white = ("a1", "d1", "e1", "f1", "g3")
    black = ("b1", "c2", "b2", *BLACK_FILLER)
    game = HalataflGame.from_position("halatafl", board(white, black, filler=False), "white")
    # a1-c1 (over b1) -c3 (over c2) -a1 (over b2) comes back to the corner it must leave.
    assert "a1-c1-c3" in moves_from(game, "a1")
    assert "a1-c1-c3-a1" not in moves_from(game, "a1")


# -- game end ----------------------------------------------------------------------------------


def test_fewer_than_five_pieces_loses() -> None:
    white = ("d4", "a4", "a5", "a6", "b6")
    black = ("e4", "g5", "g6", "f6", "e6")
    game = HalataflGame.from_position("halatafl", board(white, black, filler=False), "black")
    ply = game.play("e4-c4")
    assert ply.captures == ("d4",)
    assert game.outcome == Outcome(Side.BLACK, Reason.TOO_FEW_PIECES)
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play("a4-a5")


def test_a_player_without_a_legal_move_loses() -> None:
    # Black's pieces sit on rank 1: forward is off the board, sideways is blocked or a corner.
    white = ("d5", "e5", "f5", "b5", "c5")
    black = ("b1", "c1", "d1", "e1", "f1")
    game = HalataflGame.from_position("halatafl", board(white, black, filler=False), "white")
    game.play("d5-d6")
    assert game.outcome == Outcome(Side.WHITE, Reason.NO_LEGAL_MOVES)


def test_threefold_repetition_is_a_draw() -> None:
    game = game_at(("a4",), ("g4",))
    cycle = ["a4-b4", "g4-f4", "b4-a4", "f4-g4"]
    for move in cycle * 2:
        assert game.outcome is None
        game.play(move)
    assert game.outcome == Outcome(None, Reason.REPETITION)


def test_undo_restores_board_turn_and_outcome() -> None:
    white = ("d4", "a4", "a5", "a6", "b6")
    black = ("e4", "g5", "g6", "f6", "e6")
    game = HalataflGame.from_position("halatafl", board(white, black, filler=False), "black")
    before = game.position()
    game.play("e4-c4")
    game.undo()
    assert game.position() == before
    assert game.turn is Side.BLACK
    assert game.outcome is None


# -- bad input ---------------------------------------------------------------------------------


def test_refusals_name_the_problem() -> None:
    game = HalataflGame()
    with pytest.raises(IllegalMoveError, match="there is no piece on d4"):
        game.play("d4-d5")
    with pytest.raises(IllegalMoveError, match="black's; it is white's turn"):
        game.play("d5-d4")
    with pytest.raises(IllegalMoveError, match="is not a step"):
        game.play("d3-d6")


def test_bad_positions_are_refused() -> None:
    with pytest.raises(ValueError, match="not a piece here"):
        HalataflGame.from_position("halatafl", "/1ttttt1/7/7/7/7/7/1BBBBB1/", "white")
    with pytest.raises(ValueError, match="fewer than 5"):
        HalataflGame.from_position("halatafl", "/1WWWW2/7/7/7/7/7/1BBBBB1/", "white")
    with pytest.raises(ValueError, match="white and black"):
        HalataflGame.from_position("halatafl", HALATAFL.start, "attackers")
    with pytest.raises(ValueError, match="ranks"):
        HalataflGame.from_position("halatafl", "/7/7/", "white")


# -- properties over random games --------------------------------------------------------------


def _legs(path: tuple[int, ...]) -> list[tuple[int, int | None]]:
    """(landing square, jumped square or None for a step) for each leg of a path."""
    legs: list[tuple[int, int | None]] = []
    for a, b in pairwise(path):
        far = max(abs(a % SIZE - b % SIZE), abs(a // SIZE - b // SIZE)) == 2
        legs.append((b, (a + b) // 2 if far else None))
    return legs


def _check_move_shape(game: Game, path: tuple[int, ...]) -> None:
    own = Piece.WHITE if game.turn is Side.WHITE else Piece.BLACK
    legs = _legs(path)
    jumped = [over for _, over in legs if over is not None]
    assert len(set(jumped)) == len(jumped), "a piece jumped twice"
    for land, over in legs:
        assert game.piece_at(land) is None or land == path[0]
        if land in game.corners:
            assert over is not None and game.piece_at(over) not in (None, own)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_random_games_keep_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    game = HalataflGame()
    positions = [game.position()]
    while game.outcome is None and len(game.history) < 60:
        moves = game.legal_moves()
        assert len(set(moves)) == len(moves)
        for move in moves:
            _check_move_shape(game, move.path)
            prefix = Move(SIZE, move.path[:-1])
            back_on_its_corner = prefix.target == prefix.origin in game.corners
            if len(move.path) > 2 and not back_on_its_corner:  # a cornered piece must leave
                assert prefix in moves
        move = rng.choice(moves)
        own = Piece.WHITE if game.turn is Side.WHITE else Piece.BLACK
        enemy_jumped = {
            over
            for _, over in _legs(move.path)
            if over is not None and game.piece_at(over) not in (None, own)
        }
        ply = game.push(move)
        assert {sq(c) for c in ply.captures} == enemy_jumped
        positions.append(game.position())
    while game.history:
        positions.pop()
        game.undo()
        assert game.position() == positions[-1]


def test_why_the_opening_is_fixed_b2_d4_would_leave_black_without_a_move() -> None:
    # RULES.md section 3: with no backward steps, after b2-d4 the only empty squares Black could
    # use are b2 and the corners, and none is in reach. push() plays it without the legality check.
    game = HalataflGame()
    game.push(Move.parse("b2-d4", SIZE))
    assert game.outcome == Outcome(Side.WHITE, Reason.NO_LEGAL_MOVES)


def test_a_chain_from_a_corner_may_pass_its_corner_but_not_stop_there() -> None:
    # Found by the random games (seed 784): a chain a7-a5-c5-a7 comes back to its corner, which
    # a piece left on a corner must leave, so it is no move; going on to c7 is one.
    game = HalataflGame.from_position(
        "halatafl", "/1WWWWW1/WWWWWWW/WWW1WWW/1WBWBBB/1B1BB1B/BBBBBBB/WB1BBB1/", Side.WHITE
    )
    moves = {str(move) for move in game.legal_moves()}
    assert "a7-a5-c5-a7-c7" in moves and "a7-a5-c5-a7" not in moves


def test_a_chain_that_ends_where_it_started_keeps_its_piece() -> None:
    # Found by the random games (seed 701): c1-c3-a1-c1 takes c2 and b2, jumps its own b1 and
    # comes home; the piece that made it used to vanish (its start and end toggled as one).
    start = "/1WWBB2/1BBB2B/6B/7/4W2/B2B1W1/5W1/"
    game = HalataflGame.from_position("halatafl", start, Side.WHITE)
    assert isinstance(game, HalataflGame)
    game.push(Move.parse("c1-c3-a1-c1", SIZE))
    assert game.piece_at(sq("c1")) is game.piece_at(sq("b1")) is Piece.WHITE
    assert game.piece_at(sq("c2")) is None and game.piece_at(sq("b2")) is None
    assert [bits.bit_count() for bits in game.bitboards] == [5, 7]
    game.undo()
    assert game.position() == start


def test_captures_of_and_capturing_moves_agree_with_playing_the_move() -> None:
    """Worked out without playing, the jumped pieces are those a move really removes."""
    rng = random.Random(5)
    captures = 0
    for _ in range(4):
        game = Game("halatafl")
        for _ in range(80):
            if game.outcome is not None:
                break
            legal = game.legal_moves()
            played = {}
            for move in legal:
                played[move] = game.push(move).captures
                game.undo()
            for move in legal:
                assert tuple(game.square_name(s) for s in game.captures_of(move)) == played[move]
            assert set(game.capturing_moves()) == {move for move in legal if played[move]}
            captures += sum(bool(taken) for taken in played.values())
            game.push(rng.choice(legal))
    assert captures > 50


def _reached(game: Game, moves: list[Move]) -> list[tuple[str, Side, Outcome | None]]:
    """The position, side to move and outcome each of ``moves`` leads to."""
    reached = []
    for move in moves:
        game.push(move)
        reached.append((game.position(), game.turn, game.outcome))
        game.undo()
    return reached


CROWDED = "/2W4/WWBWWW1/WWW1W1W/1WWWW1W/B1B1BBB/BB1BBBB/2BBB2/"
"""Met in a search: White has 17,246 jump chains here, which end in 73 different positions."""


@pytest.mark.parametrize(
    ("position", "turn"),
    [
        (CROWDED, Side.WHITE),
        (CROWDED, Side.BLACK),
        ("/1WWWWW1/WWWWWWW/WWW1WWW/1WBWBBB/1B1BB1B/BBBBBBB/WB1BBB1/", Side.WHITE),  # cornered
        (HALATAFL.start, Side.WHITE),
    ],
)
def test_distinct_moves_reach_each_position_of_the_legal_moves_once(
    position: str, turn: Side
) -> None:
    game = HalataflGame.from_position("halatafl", position, turn)
    legal, distinct = game.legal_moves(), game.distinct_moves()
    assert set(distinct) <= set(legal)
    reached = _reached(game, distinct)
    assert len(set(reached)) == len(reached)
    assert set(reached) == set(_reached(game, legal))


def test_a_crowded_board_has_thousands_of_chains_and_few_ends() -> None:
    game = HalataflGame.from_position("halatafl", CROWDED, Side.WHITE)
    assert len(game.distinct_moves()) * 100 < len(game.legal_moves())


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_distinct_moves_in_random_games(seed: int) -> None:
    rng = random.Random(seed)
    game = HalataflGame()
    while game.outcome is None and len(game.history) < 60:
        legal, distinct = game.legal_moves(), game.distinct_moves()
        reached = _reached(game, distinct)
        assert len(set(reached)) == len(reached)
        assert set(reached) == set(_reached(game, legal))
        game.push(rng.choice(legal))


def _candidate_paths(game: Game, rng: random.Random, count: int) -> list[Move]:
    """Paths of move shape, legal or not: from any square, one to four legs of a step or a
    jump in any of the eight directions."""
    paths = []
    for _ in range(count):
        square = rng.randrange(SIZE * SIZE)
        path = [square]
        for _ in range(rng.randint(1, 4)):
            col, row = path[-1] % SIZE, path[-1] // SIZE
            reach = rng.choice((1, 2))
            dc, dr = rng.choice(
                [(c, r) for c in (-1, 0, 1) for r in (-1, 0, 1) if (c, r) != (0, 0)]
            )
            col, row = col + dc * reach, row + dr * reach
            if not (0 <= col < SIZE and 0 <= row < SIZE):
                break
            path.append(row * SIZE + col)
        if len(path) > 1:
            paths.append(Move(SIZE, tuple(path)))
    return paths


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_is_legal_agrees_with_the_legal_moves(seed: int) -> None:
    rng = random.Random(seed)
    game = HalataflGame()
    while game.outcome is None and len(game.history) < 60:
        legal = set(game.legal_moves())
        for move in [*legal, *_candidate_paths(game, rng, 200)]:
            assert game.is_legal(move) == (move in legal), str(move)
        game.push(rng.choice(sorted(legal, key=str)))
    if game.outcome is not None:
        assert not any(game.is_legal(move) for move in _candidate_paths(game, rng, 50))


def test_a_move_on_a_board_of_a_third_of_a_million_chains_is_checked_alone() -> None:
    """White has 345,697 jump chains here; the one played is checked leg by leg."""
    game = HalataflGame.from_position("halatafl", CROWDED, Side.BLACK)
    game.play("f5-f4")
    ply = game.play("b3-d5-f7-f5")  # over c4 (White's own), e6 and f6
    assert ply.captures == ("e6", "f6")
    game.undo()
    with pytest.raises(IllegalMoveError, match="jump the same piece twice"):
        game.parse_move("b3-d5-b3")


def test_a_target_square_that_many_chains_reach_lists_the_shortest_moves_there() -> None:
    game = HalataflGame.from_position("halatafl", CROWDED, Side.BLACK)
    game.play("f5-f4")
    with pytest.raises(AmbiguousMoveError) as refused:
        game.parse_move("d3")
    message = str(refused.value)
    assert message.startswith("more than one move goes there: b3-d3, c3-d3, d2-d3, e2-d3, e3-d3,")
    assert message.endswith(" more") and len(message) < 200


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_landings_are_where_the_first_legs_of_the_legal_moves_end(seed: int) -> None:
    """For each side, in positions of random games set up with that side to move (but where a
    piece stands on a corner: a piece of the side to move there may only leave)."""
    rng = random.Random(seed)
    game = HalataflGame()
    game.push(rng.choice(game.legal_moves()))
    checked = 0
    while game.outcome is None and len(game.history) < 60:
        for side in (Side.WHITE, Side.BLACK):
            mover = HalataflGame.from_position("halatafl", game.position(), side)
            assert isinstance(mover, HalataflGame)
            if any(mover.piece_at(corner) for corner in mover.corners):
                continue
            first_legs = {square_name(m.path[1], SIZE) for m in mover.legal_moves()}
            landings = {
                square_name(s, SIZE) for s in range(SIZE * SIZE) if mover.landings(side) >> s & 1
            }
            assert landings == first_legs
            checked += 1
        game.push(rng.choice(game.distinct_moves()))
    assert checked
