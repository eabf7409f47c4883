"""Building small hnefatafl-family positions for the tests: pieces by square name -> OTN."""

from __future__ import annotations

from engine import Game, Piece, Ply, TaflGame
from engine.opentafl import format_position
from engine.rules import ThroneStop
from engine.types import parse_square

SIZES = {
    "copenhagen": 11,
    "fetlar": 11,
    "hnefatafl": 11,
    "tablut": 9,
    "tablut-corner": 9,
    "tablut-linnaean": 9,
    "brandubh": 7,
    "tawlbwrdd": 11,
    "alea-evangelii": 19,
}


def otn(size: int, *, t: str = "", T: str = "", K: str = "") -> str:
    """The OTN position (rank 1 first) with attackers on ``t``, defenders on ``T``, the king on
    ``K``: ``otn(11, t="d5 e7", T="e5", K="f6")``."""
    cells: dict[int, str] = {}
    for letter, names in (("t", t), ("T", T), ("K", K)):
        for name in names.split():
            square = parse_square(name, size)
            assert square not in cells, f"{name} is given twice"
            cells[square] = letter
    return format_position(cells, size)


def setup(
    variant: str,
    turn: str = "attackers",
    *,
    t: str = "",
    T: str = "",
    K: str,
) -> TaflGame:
    """A game of ``variant`` from the given pieces, ``turn`` to move."""
    game = Game.from_position(variant, otn(SIZES[variant], t=t, T=T, K=K), turn)
    assert isinstance(game, TaflGame)
    return game


def captured(ply: Ply) -> set[str]:
    """The squares a ply captured, as a set."""
    return set(ply.captures)


def moves_from(game: Game, square: str) -> set[str]:
    """The destinations of the legal moves from ``square``."""
    origin = parse_square(square, game.size)
    return {game.square_name(m.target) for m in game.legal_moves() if m.origin == origin}


def square(game: Game, name: str) -> int:
    """The square called ``name`` on the game's board."""
    return parse_square(name, game.size)


def reference_moves(game: Game) -> set[str]:
    """Every legal move of the side to move, found square by square from the rules record alone
    (RULES.md section 1, 'Movement'): slow and plain, to check the engine's tables against."""
    if game.outcome is not None:
        return set()
    rules = game.rules
    n = game.size
    corners = {parse_square(name, n) for name in rules.corners}
    throne = None if rules.throne is None else parse_square(rules.throne, n)
    pieces = game.pieces()
    moves = set()
    for origin, piece in pieces.items():
        if piece.side is not game.turn:
            continue
        is_king = piece is Piece.KING
        rank, file = divmod(origin, n)
        for step_rank, step_file in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r, f = rank + step_rank, file + step_file
            while 0 <= r < n and 0 <= f < n:
                target = r * n + f
                if target in pieces:
                    break
                name = f"{game.square_name(origin)}-{game.square_name(target)}"
                if target in corners:  # only the king stops there; nothing goes past
                    if is_king:
                        moves.add(name)
                    break
                if target == throne:
                    stop = rules.throne_stop
                    if stop is ThroneStop.ALL or (is_king and stop is ThroneStop.KING):
                        moves.add(name)
                    if not (is_king or rules.throne_pass):
                        break
                else:
                    moves.add(name)
                r, f = r + step_rank, f + step_file
    return moves
