"""Opening books: their size, how far they follow the real games, and how fast a lookup is.

    python bench/book.py [--variants copenhagen,brandubh] [--repeat 2000]

Per variant with a book (engine/books/): positions and moves listed and the time to build the
book from tests/data; over the decided games of tests/data, how many plies from the start the
recorded positions stay in book (the plies where the AI to move would play from the book, had it
played the recorded moves); the plies the book plays when both sides play from it, over 20
seeds; and the time of ``book_move`` at the start (in book), one ply in out of book, and past
the book's plies. The games are those the book was built from: the in-book figure is in sample.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import Game  # noqa: E402
from engine.book import BOOK_PLIES, Book, book_for, book_move, build_book  # noqa: E402
from engine.record import parse_data_line  # noqa: E402

DATA = ROOT / "tests" / "data"
SEEDS = 20


def plies_in_book(book: Book, line: str, variant: str) -> int | None:
    """The leading plies of a recorded game whose positions are in ``book`` (None: undecided)."""
    data = parse_data_line(line)
    if not data.result.decided:
        return None
    game = Game(variant)
    count = 0
    for recorded in data.moves[:BOOK_PLIES]:
        if game.outcome is not None or not book.moves_at(game):
            break
        count += 1
        game.play(recorded.move)
    return count


def self_play_plies(variant: str, seed: int) -> int:
    game = Game(variant)
    while (move := book_move(game, seed + len(game.history))) is not None:
        game.push(move)
    return len(game.history)


def micros(game: Game, repeat: int) -> float:
    started = time.perf_counter()
    for seed in range(repeat):
        book_move(game, seed)
    return (time.perf_counter() - started) / repeat * 1e6


def report(variant: str, repeat: int) -> None:
    book = book_for(variant)
    if book is None:
        print(f"{variant}: no book")
        return
    lines = (DATA / f"{variant}.csv").read_text(encoding="utf-8").splitlines()
    started = time.perf_counter()
    build_book(lines, variant)
    built = time.perf_counter() - started
    listed = sum(len(moves) for _, moves in book.positions.values())
    print(
        f"{variant}: {len(book.positions)} positions, {listed} moves listed, "
        f"from {book.games} decided games (built in {built:.2f} s)"
    )
    counts = [c for line in lines if (c := plies_in_book(book, line, variant)) is not None]
    full = sum(c == BOOK_PLIES for c in counts)
    print(
        f"  real games: {statistics.mean(counts):.2f} plies in book on average "
        f"(median {statistics.median(counts):g}), {full} of {len(counts)} "
        f"in book for all {BOOK_PLIES} plies"
    )
    selfplay = [self_play_plies(variant, seed) for seed in range(SEEDS)]
    print(
        f"  book against book: {statistics.mean(selfplay):.1f} plies on average "
        f"(min {min(selfplay)}, max {max(selfplay)}) over {SEEDS} seeds"
    )
    start = Game(variant)
    off = Game(variant)
    listed_first = {entry.move for entry in book.moves_at(off)}
    off.push(next(m for m in off.legal_moves() if str(m) not in listed_first))
    past = Game(variant)
    while len(past.history) < BOOK_PLIES:
        past.push(past.legal_moves()[0])
    print(
        f"  book_move: {micros(start, repeat):.1f} us in book, "
        f"{micros(off, repeat):.1f} us out of book, "
        f"{micros(past, repeat):.2f} us past ply {BOOK_PLIES}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="copenhagen,brandubh")
    parser.add_argument("--repeat", type=int, default=2000, help="lookups timed per figure")
    args = parser.parse_args()
    for variant in args.variants.split(","):
        report(variant.strip(), args.repeat)


if __name__ == "__main__":
    main()
