"""Legal-move counts to depth 3 from every start position (regression numbers).

perft(d) counts the positions d plies deep, a finished game counting as a dead end; perft(1) is
the number of the first player's moves. Depth 2 is also checked against the plain reference
generator of tafl_setup.
"""

from __future__ import annotations

import pytest

from engine import Game
from tests.engine.tafl_setup import reference_moves

PERFT = {
    "copenhagen": (116, 6_788, 806_344),
    "fetlar": (116, 6_788, 806_344),
    "hnefatafl": (116, 6_788, 809_008),
    "tablut": (80, 4_400, 353_200),
    "tablut-corner": (72, 3_944, 285_808),
    "tablut-linnaean": (80, 4_400, 353_200),
    "brandubh": (40, 960, 39_512),
    "tawlbwrdd": (136, 7_620, 1_042_016),
    "alea-evangelii": (580, 107_492, 62_185_588),
}


def perft(game: Game, depth: int) -> int:
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        game.push(move)
        total += perft(game, depth - 1)
        game.undo()
    return total


@pytest.mark.parametrize("variant", list(PERFT))
def test_perft(variant: str) -> None:
    game = Game(variant)
    start = game.position()
    assert tuple(perft(game, depth) for depth in (1, 2, 3)) == PERFT[variant]
    assert game.position() == start and game.history == []


@pytest.mark.parametrize("variant", list(PERFT))
def test_depth_two_matches_the_reference_generator(variant: str) -> None:
    game = Game(variant)
    assert {str(m) for m in game.legal_moves()} == reference_moves(game)
    total = 0
    for move in game.legal_moves():
        game.push(move)
        total += len(reference_moves(game))
        game.undo()
    assert total == PERFT[variant][1]


HALATAFL_PERFT = (4, 25, 284)
"""Halatafl from its fixed opening: four steps into the centre (the reference generator above is
for the hnefatafl family only)."""


def test_halatafl_perft() -> None:
    game = Game("halatafl")
    assert tuple(perft(game, depth) for depth in (1, 2, 3)) == HALATAFL_PERFT
    assert game.position() == game.start[0] and game.history == []
