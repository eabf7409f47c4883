"""The capture queries (``capture_targets``, ``capturing_moves``, ``king_capture_squares``)
agree with what a move really captures, move by move: in random games of every variant, and in
random positions crowded on the edges and round the throne, where shieldwalls and Linnaean
captures happen."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from engine import Game, Move, Reason, Side, TaflGame
from engine.board import squares_of
from engine.opentafl import format_position
from engine.presets import BRANDUBH, COPENHAGEN, TABLUT_LINNAEAN
from engine.rules import Rules, ThroneStop
from engine.tafl import tables_for
from tests.engine.tafl_setup import SIZES, setup, square

CUSTOM_RULES = [
    dataclasses.replace(COPENHAGEN, id="custom", king_hammer=False),
    dataclasses.replace(COPENHAGEN, id="custom", king_anvil=False, edge_hostile=True),
    dataclasses.replace(BRANDUBH, id="custom", shieldwall=True, throne_stop=ThroneStop.ALL),
    dataclasses.replace(TABLUT_LINNAEAN, id="custom", shieldwall=True, edge_hostile=True),
]


def check_queries(game: TaflGame, seen: Counter[str]) -> None:
    """Every legal move is in ``capturing_moves()`` (once) exactly when it captures, and nothing
    else is; a man's move ends on ``capture_targets()`` (the king's on
    ``capture_targets(king=True)``) exactly when it captures.
    ``seen`` counts the captures met, by kind."""
    legal = game.legal_moves()
    king = game.bitboards[2]
    taken = {move: game.captures_of(move) for move in legal}
    capturing = game.capturing_moves()
    assert len(capturing) == len(set(capturing)), repr(game)
    assert set(capturing) == {move for move in legal if taken[move]}, repr(game)
    targets = game.capture_targets()
    king_targets = game.capture_targets(king=True)
    for move in legal:
        origin, target = move.path
        on_target = (king_targets if origin == king else targets) >> target & 1
        assert bool(on_target) == bool(taken[move]), (repr(game), str(move))
        seen["capture"] += bool(taken[move])
        seen["shieldwall"] += any(not _next_to(man, target, game.size) for man in taken[move])
        seen["linnaean"] += any(_linnaean(game, target, man) for man in taken[move])
    check_king_capture_squares(game, legal, taken, seen)


def check_king_capture_squares(
    game: TaflGame, legal: list[Move], taken: dict[Move, tuple[int, ...]], seen: Counter[str]
) -> None:
    """An attacker's move next to the king that takes no man ends the game with his capture
    exactly when it ends on ``king_capture_squares()``; and for the king on any other square,
    the query holds the squares where the capture rule, hammer by hammer, would take him."""
    king = game.bitboards[2]
    if game.turn is Side.ATTACKERS:
        squares = game.king_capture_squares()
        for move in legal:
            target = move.path[1]
            if taken[move] or not _next_to(target, king, game.size):
                continue
            game.push(move)
            captured = game.outcome is not None and game.outcome.reason is Reason.KING_CAPTURED
            game.undo()
            assert captured == bool(squares >> target & 1), (repr(game), str(move))
            seen["king captured"] += captured
    att, dfd, _ = game.bitboards
    neighbours = tables_for(game.rules).geometry.neighbours
    for elsewhere in range(game.size**2):
        if (att | dfd) >> elsewhere & 1:
            continue
        by_rule = sum(
            1 << hammer
            for hammer in squares_of(neighbours[elsewhere] & ~(att | dfd))
            if game._king_taken(hammer, att | 1 << hammer, elsewhere)
        )
        assert game.king_capture_squares(elsewhere) == by_rule, (repr(game), elsewhere)


def _next_to(a: int, b: int, size: int) -> bool:
    return abs(a % size - b % size) + abs(a // size - b // size) == 1


def _linnaean(game: TaflGame, hammer: int, man: int) -> bool:
    """Whether ``man`` was taken against the king's throne (a Linnaean capture)."""
    throne = tables_for(game.rules).throne_square
    return game.rules.linnaean_capture and throne is not None and 2 * man - hammer == throne


@pytest.mark.parametrize("variant", sorted(SIZES))
def test_the_queries_agree_with_the_moves_in_random_games(variant: str) -> None:
    rng = random.Random(variant)
    seen: Counter[str] = Counter()
    for _ in range(3):
        game = Game(variant)
        assert isinstance(game, TaflGame)
        for _ in range(120):
            if game.outcome is not None:
                break
            check_queries(game, seen)
            game.push(rng.choice(game.legal_moves()))
    assert seen["capture"] > 0


def crowded(rules: Rules, rng: random.Random) -> TaflGame | None:
    """A random position of ``rules`` with men packed on the two outer lines and round the
    throne (none on a square men may not stop on), or None when the rules refuse it."""
    n = rules.size
    tables = tables_for(rules)
    throne = tables.throne_square
    near = tables.geometry.spread(tables.throne) if throne is not None else 0
    pool = [
        s
        for s in range(n * n)
        if (min(s % n, s // n, n - 1 - s % n, n - 1 - s // n) <= 1 or near >> s & 1)
        and tables.may_stop(s, king=False)
        and s != throne
    ]
    squares = rng.sample(pool, rng.randint(4, len(pool) * 3 // 4))
    # Mostly one side on the edge and the other on the line inside it, to make shieldwalls.
    outer, inner = rng.sample("tT", 2)
    cells: dict[int, str] = {}
    for s in squares:
        on_edge = min(s % n, s // n, n - 1 - s % n, n - 1 - s // n) == 0
        cells[s] = (outer if on_edge else inner) if rng.random() < 0.8 else rng.choice("tT")
    king = throne if throne is not None and rng.random() < 0.5 else squares[0]
    cells[king] = "K"
    turn = rng.choice(["attackers", "defenders", "attackers" if inner == "t" else "defenders"])
    try:
        game = Game.from_position(rules, format_position(cells, n), turn)
    except ValueError:
        return None
    assert isinstance(game, TaflGame)
    return game if game.outcome is None else None


CROWDED = {
    "copenhagen": COPENHAGEN,
    "tablut-linnaean": TABLUT_LINNAEAN,
    "no-king-hammer": CUSTOM_RULES[0],
    "hostile-edge": CUSTOM_RULES[1],
    "7x7-wall": CUSTOM_RULES[2],
    "9x9-all": CUSTOM_RULES[3],
}


@pytest.mark.parametrize("name", list(CROWDED))
def test_the_queries_agree_with_the_moves_in_crowded_positions(name: str) -> None:
    rules = CROWDED[name]
    rng = random.Random(name)
    seen: Counter[str] = Counter()
    for _ in range(200):
        game = crowded(rules, rng)
        if game is not None:
            check_queries(game, seen)
    assert seen["capture"] > 100
    assert seen["king captured"] > 0
    if rules.shieldwall:
        assert seen["shieldwall"] > 5
    if rules.linnaean_capture:
        assert seen["linnaean"] > 5


def test_a_shieldwall_is_among_the_targets_and_the_capturing_moves() -> None:
    game = setup("copenhagen", t="b2 c2 d5", T="b1 c1", K="h9")
    assert game.capture_targets() == 1 << square(game, "d1")
    assert [str(move) for move in game.capturing_moves()] == ["d5-d1"]


def test_the_linnaean_throne_is_an_anvil_in_the_queries() -> None:
    game = setup("tablut-linnaean", t="d5 f5 e6 a3", T="e4", K="e5")
    assert [str(move) for move in game.capturing_moves()] == ["a3-e3"]


def test_the_king_is_in_capturing_moves_only_where_he_is_a_hammer() -> None:
    armed = setup("copenhagen", "defenders", t="f2", T="g2", K="c2")
    assert [str(move) for move in armed.capturing_moves()] == ["c2-e2"]
    rules = dataclasses.replace(COPENHAGEN, id="custom", king_hammer=False)
    unarmed = Game.from_position(rules, armed.position(), "defenders")
    assert isinstance(unarmed, TaflGame)
    assert unarmed.capture_targets() == armed.capture_targets() == 1 << square(armed, "e2")
    assert armed.capture_targets(king=True) == armed.capture_targets()
    assert unarmed.capture_targets(king=True) == 0
    assert unarmed.capturing_moves() == []
