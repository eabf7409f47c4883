"""The opening books: the shipped files, the choice by lower bound, and where a book applies."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from engine import Game, RecordError, Side
from engine.ai import choose_move
from engine.book import (
    BOOK_PLIES,
    MIN_GAMES,
    NEAR_TIE,
    Book,
    BookMove,
    book_for,
    book_move,
    build_book,
    format_book,
    parse_book,
    symmetries_of,
)
from engine.opentafl import rules_to_opentafl
from engine.record import parse_data_line

DATA = Path(__file__).resolve().parent.parent / "data"
VARIANTS = ["copenhagen", "brandubh"]


def data_lines(variant: str) -> list[str]:
    return (DATA / f"{variant}.csv").read_text(encoding="utf-8").splitlines()


def mirror_images(move: str, size: int) -> set[str]:
    """The move ``d1-d3`` and its images under the board's rotations and reflections."""

    def turned(square: str, turns: int, flip: bool) -> str:
        file, rank = ord(square[0]) - 97, int(square[1:]) - 1
        if flip:
            file = size - 1 - file
        for _ in range(turns):
            file, rank = rank, size - 1 - file
        return f"{chr(97 + file)}{rank + 1}"

    return {
        "-".join(turned(square, turns, flip) for square in move.split("-"))
        for turns in range(4)
        for flip in (False, True)
    }


@pytest.mark.parametrize("variant", VARIANTS)
def test_shipped_book_is_what_the_test_data_build(variant: str) -> None:
    shipped = resources.files("engine").joinpath("books", f"{variant}.txt").read_text("utf-8")
    assert shipped == format_book(build_book(data_lines(variant), variant))


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_book_move_is_legal_at_its_position_and_listed_often_enough(variant: str) -> None:
    book = book_for(variant)
    assert book is not None and book.positions
    for (position, turn), (ply, moves) in book.positions.items():
        assert 0 <= ply < BOOK_PLIES
        assert turn is (Side.ATTACKERS if ply % 2 == 0 else Side.DEFENDERS)
        game = Game.from_position(variant, position, turn)
        legal = {str(move) for move in game.legal_moves()}
        for entry in moves:
            assert entry.move in legal
            assert entry.games >= MIN_GAMES


def test_book_text_reads_back_as_built() -> None:
    book = book_for("brandubh")
    assert book is not None
    assert parse_book(format_book(book), "brandubh") == book


def test_a_line_that_is_not_a_book_line_is_refused() -> None:
    with pytest.raises(RecordError, match="book line 2: expected 'ply side position"):
        parse_book("# comment\n0 attackers /3t3/ d2-e2 1 0\n", "brandubh")


def test_the_lower_bound_prefers_many_good_games_to_one_win() -> None:
    assert BookMove("a1-a2", 40, 0, 20).bound > BookMove("b1-b2", 1, 0, 0).bound
    assert BookMove("a1-a2", 40, 0, 20).bound < 40 / 60
    assert BookMove("a1-a2", 1, 2, 1).score == 0.5
    assert BookMove("a4-c4", 613, 7, 726).bound > BookMove("a4-b4", 6, 0, 1).bound


@pytest.mark.parametrize("variant", VARIANTS)
def test_at_the_start_the_book_plays_a_move_players_chose_that_scores_best(variant: str) -> None:
    game = Game(variant)
    first_moves: Counter[str] = Counter()
    for line in data_lines(variant):
        data = parse_data_line(line)
        if data.result.decided and data.moves:
            first_moves[str(game.parse_move(data.moves[0].move))] += 1
    book = book_for(variant)
    assert book is not None
    best = max(entry.bound for entry in book.moves_at(game))
    for seed in range(4):
        move = book_move(game, seed)
        assert move is not None and move in game.legal_moves()
        images = mirror_images(str(move), game.size)
        entry = book.entry(game, move)
        assert entry is not None and entry.bound >= best - NEAR_TIE
        assert entry.games == sum(first_moves[image] for image in images) >= MIN_GAMES


def test_the_book_follows_a_recorded_line_and_stops_after_its_plies() -> None:
    game = Game("copenhagen")
    played = 0
    while (move := book_move(game, seed=0)) is not None:
        game.push(move)
        played += 1
    assert 1 < played <= BOOK_PLIES
    assert game.outcome is None
    while len(game.history) < BOOK_PLIES:
        game.push(game.legal_moves()[0])
    assert game.outcome is None
    assert book_move(game, seed=0) is None


def test_a_move_nobody_played_at_the_start_leaves_the_book() -> None:
    game = Game("brandubh")
    book = book_for("brandubh")
    assert book is not None
    listed = {entry.move for entry in book.moves_at(game)}
    unlisted = next(move for move in game.legal_moves() if str(move) not in listed)
    game.push(unlisted)
    assert book_move(game, seed=0) is None


def test_custom_rules_like_the_preset_get_no_book() -> None:
    game = Game(rules_to_opentafl(Game("brandubh").rules))
    assert game.position() == Game("brandubh").position()
    assert book_move(game, seed=0) is None


def test_a_game_not_begun_at_the_start_gets_no_book() -> None:
    played = Game("brandubh")
    move = book_move(played, seed=0)
    assert move is not None
    played.push(move)
    assert book_move(played, seed=0) is not None
    set_up = Game.from_position("brandubh", played.position(), played.turn)
    assert book_move(set_up, seed=0) is None


def test_a_game_over_and_a_variant_without_a_book_get_no_book() -> None:
    game = Game("brandubh")
    game.resign(Side.ATTACKERS)
    assert book_move(game, seed=0) is None
    assert book_for("halatafl") is None
    assert book_move(Game("halatafl"), seed=0) is None


def test_a_book_move_the_rules_refuse_is_never_played() -> None:
    game = Game("brandubh")
    start = (game.position(), game.turn)
    wrong = Book("brandubh", 9, {start: (0, (BookMove("d4-d1", 9, 0, 0),))}, ((*range(49),),))
    assert wrong.choose(game, seed=0) is None


def test_choose_move_plays_the_book_unless_told_not_to() -> None:
    for variant in VARIANTS:
        game = Game(variant)
        for seed in range(3):
            assert choose_move(game, depth=1, seed=seed) == book_move(game, seed)
            assert choose_move(game, depth=1, seed=seed, book=False) in game.legal_moves()


def test_mirror_images_of_a_position_share_their_book_moves() -> None:
    assert len(symmetries_of("copenhagen")) == 8
    book = book_for("copenhagen")
    assert book is not None
    left, right = Game("copenhagen"), Game("copenhagen")
    left.play("d1-d3")
    right.play("h1-h3")  # the mirror image of d1-d3, left to right
    reply = book_move(left, seed=0)
    assert reply is not None
    mirrored = "-".join(
        f"{chr(97 + 10 - (ord(square[0]) - 97))}{square[1:]}" for square in str(reply).split("-")
    )
    assert mirrored in {str(move) for move in right.legal_moves()}
    assert book.entry(right, right.parse_move(mirrored)) == book.entry(left, reply) is not None
