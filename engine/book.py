"""Opening books: the moves strong players chose in the first plies, with how they scored.

A book is built from the game lines of ``tests/data`` (``engine.record.parse_data_line``): every
position of a game's first ``BOOK_PLIES`` plies from the variant's start, keyed by the board and
the side to move (a position and its rotations and reflections count as one), with each move
played there in at least ``MIN_GAMES`` decided games and the mover's results after it (a game
lost on time counts as the record's winner says). The books ship as text files in
``engine/books/``, one per variant; rebuild one with::

    python -m engine.book tests/data/copenhagen.csv copenhagen > engine/books/copenhagen.txt

``book_move`` plays from a book only in a game of that exact preset, begun at its start: of the
moves listed at the position, the one whose score has the best lower confidence bound (Wilson),
so that a move won 40 times in 60 beats one won once in one.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from engine.errors import RecordError, TaflError
from engine.game import Game
from engine.opentafl import format_position
from engine.record import parse_data_line
from engine.types import Move, Side, Square
from engine.variants import VARIANTS

__all__ = [
    "BOOK_PLIES",
    "MIN_GAMES",
    "Book",
    "BookMove",
    "book_for",
    "book_move",
    "build_book",
    "format_book",
    "parse_book",
    "symmetries_of",
]

BOOK_PLIES = 12
"""How many plies from the start a book covers."""
MIN_GAMES = 3
"""The fewest decided games a move needs at a position to be listed there."""
CONFIDENCE_Z = 2.576
"""The normal quantile of the lower bound on a move's score: 2.576 (99%, two-sided) keeps a
move won 6 times in 7 from beating the main line (613 of 1346, Copenhagen's first move)."""
NEAR_TIE = 0.01
"""Moves whose bounds are this close to the best one's are equally good; a seed picks one."""

Key = tuple[str, Side]
"""A position as a book knows it: the OTN board (the least of its images, ``Book.oriented``) and
the side to move."""
Symmetry = tuple[Square, ...]
"""A rotation or reflection of the board: the image of each square."""


@dataclass(frozen=True, slots=True)
class BookMove:
    """A move played at a book position, and the results of the side that played it."""

    move: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """The mover's share of the points (a draw is half a point)."""
        return (self.wins + self.draws / 2) / self.games

    @property
    def bound(self) -> float:
        """The Wilson lower bound of the score at ``CONFIDENCE_Z``."""
        n, p, z2 = self.games, self.score, CONFIDENCE_Z**2
        spread = CONFIDENCE_Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
        return (p + z2 / (2 * n) - spread) / (1 + z2 / n)


@dataclass(frozen=True)
class Book:
    """A variant's book: the moves listed at each position, with the ply it is first met at."""

    variant: str
    games: int
    """The decided games it was built from."""
    positions: dict[Key, tuple[int, tuple[BookMove, ...]]]
    symmetries: tuple[Symmetry, ...]
    """The symmetries of the variant (``symmetries_of``): positions and moves that are images
    of each other under them count as one."""

    def oriented(self, game: Game) -> tuple[Key, list[Symmetry]]:
        """The game's position as the book keys it, the least of its images (as OTN text), and
        the symmetries that give that image."""
        pieces = game.pieces()
        images = [
            (format_position({symmetry[q]: p for q, p in pieces.items()}, game.size), symmetry)
            for symmetry in self.symmetries
        ]
        least = min(text for text, _ in images)
        return (least, game.turn), [symmetry for text, symmetry in images if text == least]

    def moves_at(self, game: Game) -> tuple[BookMove, ...]:
        """The listed moves at the game's position (none out of book), in the book's
        orientation of it."""
        if len(game.history) >= BOOK_PLIES:
            return ()
        entry = self.positions.get(self.oriented(game)[0])
        return entry[1] if entry else ()

    def entry(self, game: Game, move: Move) -> BookMove | None:
        """What the book lists for ``move`` at the game's position (images of it included)."""
        if len(game.history) >= BOOK_PLIES:
            return None
        key, symmetries = self.oriented(game)
        text = min(str(_image(move, symmetry)) for symmetry in symmetries)
        _, listed = self.positions.get(key, (0, ()))
        return next((entry for entry in listed if entry.move == text), None)

    def choose(self, game: Game, seed: int | None = None) -> Move | None:
        """Of the moves listed at the game's position, the one with the best bound (``seed``
        picks among near ties and among the images of a move on a symmetric board); None out
        of book or when the rules refuse the move."""
        if game.outcome is not None or len(game.history) >= BOOK_PLIES:
            return None
        key, symmetries = self.oriented(game)
        _, listed = self.positions.get(key, (0, ()))
        if not listed:
            return None
        rng = random.Random(seed)
        best = max(entry.bound for entry in listed)
        near = sorted(entry.move for entry in listed if entry.bound >= best - NEAR_TIE)
        try:
            chosen = Move.parse(rng.choice(near), game.size)
            images = {str(_image(chosen, _inverse(symmetry))) for symmetry in symmetries}
            return game.parse_move(rng.choice(sorted(images)))
        except TaflError:
            return None  # a book line the rules refuse is never played


@cache
def _board_symmetries(size: int) -> tuple[Symmetry, ...]:
    """The eight rotations and reflections of a square board, the identity first."""

    def image(square: Square, turns: int, flip: bool) -> Square:
        file, rank = square % size, square // size
        if flip:
            file = size - 1 - file
        for _ in range(turns):
            file, rank = rank, size - 1 - file
        return rank * size + file

    return tuple(
        tuple(image(square, turns, flip) for square in range(size * size))
        for flip in (False, True)
        for turns in range(4)
    )


@cache
def symmetries_of(variant: str) -> tuple[Symmetry, ...]:
    """The board's symmetries that leave the variant's start as it is (the identity first).
    Tafl rules have no direction (every corner, edge and the throne alike), so these leave the
    whole game as it is."""
    game = Game(variant)
    pieces = game.pieces()
    return tuple(
        symmetry
        for symmetry in _board_symmetries(game.size)
        if {symmetry[q]: p for q, p in pieces.items()} == pieces
    )


def _image(move: Move, symmetry: Symmetry) -> Move:
    return Move(move.size, tuple(symmetry[q] for q in move.path))


def _inverse(symmetry: Symmetry) -> Symmetry:
    inverse = [0] * len(symmetry)
    for square, target in enumerate(symmetry):
        inverse[target] = square
    return tuple(inverse)


# -- building and the text form ----------------------------------------------------------------


def build_book(lines: Iterable[str], variant: str) -> Book:
    """The book of ``variant`` from CSV game lines; RecordError names a line that can't be read
    or played."""
    symmetries = symmetries_of(variant)
    oriented = Book(variant, 0, {}, symmetries).oriented
    tally: dict[Key, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    first_ply: dict[Key, int] = {}
    decided = 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = parse_data_line(line)
        except RecordError as error:
            raise RecordError(f"line {number}: {error}") from None
        if not data.result.decided:
            continue
        decided += 1
        winner = data.result.outcome_winner
        game = Game(variant)
        counted: set[tuple[Key, str]] = set()
        for recorded in data.moves[:BOOK_PLIES]:
            if game.outcome is not None:
                break
            key, frames = oriented(game)
            first_ply[key] = min(first_ply.get(key, BOOK_PLIES), len(game.history))
            try:
                move = game.parse_move(recorded.move)
                game.push(move)
            except TaflError as error:
                raise RecordError(f"line {number}, {recorded.move}: {error}") from None
            text = min(str(_image(move, symmetry)) for symmetry in frames)
            if (key, text) in counted:
                continue  # a game counts once per position and move
            counted.add((key, text))
            result = 1 if winner is None else 0 if winner is key[1] else 2
            tally[key][text][result] += 1
    positions: dict[Key, tuple[int, tuple[BookMove, ...]]] = {}
    for key, moves in tally.items():
        listed = tuple(
            sorted(
                (
                    BookMove(move, wins, draws, losses)
                    for move, (wins, draws, losses) in moves.items()
                    if wins + draws + losses >= MIN_GAMES
                ),
                key=lambda entry: (-entry.games, entry.move),
            )
        )
        if listed:
            positions[key] = (first_ply[key], listed)
    return Book(variant, decided, positions, symmetries)


_HEADER = "# ply side position move wins draws losses (the results of the side to move)"


def format_book(book: Book) -> str:
    """The book as text: comment lines, then one line per listed move, by ply and position."""
    lines = [
        f"# Opening book of {book.variant} (engine/book.py): {book.games} decided games, "
        f"the first {BOOK_PLIES} plies, moves played in at least {MIN_GAMES} of them.",
        "# A position and its mirror images (rotations, reflections) are one: each is written as"
        " the least image, with its moves as they are there.",
        _HEADER,
    ]
    for (position, turn), (ply, moves) in sorted(
        book.positions.items(), key=lambda item: (item[1][0], item[0])
    ):
        for entry in moves:
            lines.append(
                f"{ply} {turn} {position} {entry.move} {entry.wins} {entry.draws} {entry.losses}"
            )
    return "\n".join(lines) + "\n"


def parse_book(text: str, variant: str) -> Book:
    """Read a book's text (``format_book``); RecordError names a line that is not a book line."""
    games = 0
    grouped: dict[Key, tuple[int, list[BookMove]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("# Opening book"):
            games = int(line.split(": ", 1)[1].split()[0])
        if not line.strip() or line.startswith("#"):
            continue
        try:
            ply, turn, position, move, wins, draws, losses = line.split()
            key = (position, Side(turn))
            entry = BookMove(move, int(wins), int(draws), int(losses))
            grouped.setdefault(key, (int(ply), []))[1].append(entry)
        except ValueError:
            raise RecordError(
                f"book line {number}: expected 'ply side position move wins draws losses'"
            ) from None
    positions = {key: (ply, tuple(moves)) for key, (ply, moves) in grouped.items()}
    return Book(variant, games, positions, symmetries_of(variant))


# -- playing from a book -----------------------------------------------------------------------


@cache
def book_for(variant: str) -> Book | None:
    """The shipped book of a preset id, or None when it has none."""
    path = resources.files("engine").joinpath("books", f"{variant}.txt")
    if not path.is_file():
        return None
    return parse_book(path.read_text(encoding="utf-8"), variant)


@cache
def _start_of(variant: str) -> tuple[str, Side]:
    return Game(variant).start


def book_move(game: Game, seed: int | None = None) -> Move | None:
    """The shipped book's move (``Book.choose``) for the side to move, or None out of book: no
    book for the variant, custom rules, a game not begun at the start, another position."""
    if game.outcome is not None or len(game.history) >= BOOK_PLIES:
        return None
    variant = game.variant
    if VARIANTS.get(variant) != game.rules:
        return None
    book = book_for(variant)
    if book is None:
        return None
    if game.start != _start_of(variant):
        return None
    return book.choose(game, seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.book", description="Print the opening book built from game lines."
    )
    parser.add_argument("games", help="a CSV file of game lines, as in tests/data")
    parser.add_argument("variant", help="the preset the games were played under")
    args = parser.parse_args(argv)
    try:
        with open(args.games, encoding="utf-8") as lines:
            sys.stdout.write(format_book(build_book(lines, args.variant)))
    except (OSError, TaflError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
