"""The AI's evaluation, term by term: in each position one move is clearly best because of one
term (material, the king's open line to a corner, his distance to the nearest corner, the
capture quiescence), so flipping that term's sign, or turning the quiescence off, picks another
move. And seeded games: the AI beats a random and a greedy player.

The positions are searched one ply deep (the evaluation and the quiescence alone decide) unless
said otherwise. Their kings sit walled in by their own men, so that nothing else is going on.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine import Game, Move, Side
from engine.ai import choose_move
from engine.opentafl import format_position
from engine.types import parse_square

Player = Callable[[Game, random.Random], Move]


def position(t: tuple[str, ...], big_t: tuple[str, ...], king: str, size: int = 11) -> str:
    """An OTN position with attackers on ``t``, defender men on ``big_t`` and the king."""
    cells = {parse_square(s, size): "t" for s in t}
    cells.update({parse_square(s, size): "T" for s in big_t})
    cells[parse_square(king, size)] = "K"
    return format_position(cells, size)


def chosen(game: Game, depth: int) -> set[str]:
    """The moves the AI chooses at ``depth`` with different seeds (for the ties among them)."""
    return {str(choose_move(game, depth=depth, time_limit=60, seed=seed)) for seed in range(4)}


# The king on c7 in a corridor of his men (the b- and d-files, ranks 5 to 9; c4 and c10 close
# it), attackers outside it on the a- and e-files: he can go up to c8, c9 or down to c6, c5.
CORRIDOR_WALLS = tuple(f"{file}{rank}" for file in "bd" for rank in range(5, 10))
CORRIDOR_OUTSIDE = tuple(f"{file}{rank}" for file in "ae" for rank in range(5, 10))


def test_the_defenders_take_a_hanging_attacker() -> None:
    # The king on the throne among four of his men; d1-d3 takes c3 against b3, and no move
    # changes anything else (material).
    game = Game.from_position(
        "copenhagen",
        position(
            ("c3", "f3", "f9", "c6", "i6", "h10", "b9"), ("b3", "d1", "e6", "g6", "f5", "f7"), "f6"
        ),
        "defenders",
    )
    assert [str(m) for m in game.legal_moves() if game.captures_of(m)] == ["d1-d3"]
    assert chosen(game, 1) == chosen(game, 2) == {"d1-d3"}


def test_the_king_walks_towards_the_nearer_corner() -> None:
    # c9 and c5 are alike (as free, as guarded: c10 and c4 are his men), but c9 is 4 steps from
    # a11 and c5 is 6 from a1 (escape distance).
    game = Game.from_position(
        "fetlar",
        position(CORRIDOR_OUTSIDE, (*CORRIDOR_WALLS, "c4", "c10", "b4", "b10", "d4", "d10"), "c7"),
        "defenders",
    )
    assert chosen(game, 1) == {"c7-c9"}


def test_the_king_takes_an_open_line_to_a_corner() -> None:
    # The corridor opens at the top: from c11 the king sees the a11 corner along rank 11, and
    # e11 closes the other way (the king's open line).
    walls = tuple(f"{file}{rank}" for file in "bd" for rank in range(5, 11))
    outside = tuple(f"{file}{rank}" for file in "ae" for rank in range(5, 11))
    game = Game.from_position(
        "fetlar", position((*outside, "e11"), (*walls, "c4", "b4", "d4"), "c7"), "defenders"
    )
    assert chosen(game, 1) == {"c7-c11"}


def test_the_quiescence_sees_the_capture_that_answers_a_capture() -> None:
    # Two captures: d1-d3 takes c3, but then c6-c3 takes d3 against e3; g6-g3 takes h3 and
    # nothing can answer it. Without the quiescence both look alike (d1-d3 even better: g6 leaves
    # the king's side).
    game = Game.from_position(
        "fetlar",
        position(
            ("c3", "e3", "f3", "h3", "f9", "c6", "i6", "b9"),
            ("b3", "d1", "i3", "e6", "g6", "f5", "f7"),
            "f6",
        ),
        "defenders",
    )
    assert sorted(str(m) for m in game.legal_moves() if game.captures_of(m)) == ["d1-d3", "g6-g3"]
    game.play("d1-d3")
    assert "c6-c3" in {str(m) for m in game.legal_moves() if game.captures_of(m)}
    game.undo()
    assert chosen(game, 1) == {"g6-g3"}


# -- seeded games ---------------------------------------------------------------------------------


def random_player(game: Game, rng: random.Random) -> Move:
    return rng.choice(game.legal_moves())


def greedy_player(game: Game, rng: random.Random) -> Move:
    """A move that wins at once if there is one, else one that captures the most men."""
    moves = game.legal_moves()
    mover = game.turn
    for move in moves:
        game.push(move)
        won = game.outcome is not None and game.outcome.winner is mover
        game.undo()
        if won:
            return move
    counts = [len(game.captures_of(move)) for move in moves]
    return rng.choice([m for m, n in zip(moves, counts, strict=True) if n == max(counts)])


def winner(variant: str, ai_side: Side, opponent: Player, seed: int, depth: int) -> Side | None:
    """Who wins a game of the AI (searching ``depth`` plies) against ``opponent`` (seeded)."""
    rng = random.Random(seed)
    game = Game(variant)
    while game.outcome is None and len(game.history) < 300:
        if game.turn is ai_side:
            game.push(choose_move(game, depth=depth, time_limit=60, seed=seed))
        else:
            game.push(opponent(game, rng))
    return None if game.outcome is None else game.outcome.winner


@pytest.mark.parametrize("opponent", [random_player, greedy_player], ids=lambda p: p.__name__)
@pytest.mark.parametrize("ai_side", [Side.ATTACKERS, Side.DEFENDERS])
def test_two_plies_deep_it_beats_random_and_greedy_players_at_brandubh(
    ai_side: Side, opponent: Player
) -> None:
    results = [winner("brandubh", ai_side, opponent, seed, depth=2) for seed in range(3)]
    assert results == [ai_side] * 3


def test_one_ply_deep_the_attackers_beat_a_greedy_player_at_tablut() -> None:
    # Taking men is all the greedy player does; the quiescence sees it coming.
    results = [winner("tablut", Side.ATTACKERS, greedy_player, seed, depth=1) for seed in range(3)]
    assert results == [Side.ATTACKERS] * 3
