"""The terminal game: its board drawing, and sessions played through the real service and store."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.errors import ServiceError
from bot.models import GameStatus, ai_player
from bot.service import GameService
from bot.storage import open_store
from bot.terminal import (
    ASCII,
    CHANNEL,
    UNICODE,
    TerminalGame,
    board_text,
    glyphs_for,
    grouped_moves,
    legend,
    play_in_terminal,
)
from engine import Game, Piece, Reason, Side
from tests.bot.conftest import raw_execute

BRANDUBH_START = """\
    a b c d e f g
  ┌───────────────┐
7 │ ▫ · · ● · · ▫ │ 7
6 │ · · · ● · · · │ 6
5 │ · · · ○ · · · │ 5
4 │ ● ● ○ ♔ ○ ● ● │ 4
3 │ · · · ○ · · · │ 3
2 │ · · · ● · · · │ 2
1 │ ▫ · · ● · · ▫ │ 1
  └───────────────┘
    a b c d e f g"""

ESCAPE_GAME = "d6-c6 e4-e6 d1-e1 d5-g5 f4-f5 d3-g3 b4-b3 d4-g4 d7-f7 g3-f3 d2-g2 g4-g3 e1-e2 g3-g1"
"""A Brandubh game of shared/data/brandubh.csv: the defenders take g4 and g2, the king escapes."""


def brandubh(moves: str = "") -> Game:
    game = Game("brandubh")
    for move in moves.split():
        game.play(move)
    return game


class Tty(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[GameService]:
    store = await open_store(tmp_path / "tafl.sqlite3")
    yield GameService(store, ai_time_limit=0.05)
    await store.close()


def session(service: GameService, commands: str) -> tuple[TerminalGame, io.StringIO]:
    out = io.StringIO()
    return TerminalGame(service, io.StringIO(commands), out, glyphs=UNICODE), out


# -- drawing ------------------------------------------------------------------------------------


def test_board_has_coordinates_on_all_four_sides_and_marks_throne_and_corners() -> None:
    assert board_text(brandubh()) == BRANDUBH_START


def test_board_marks_the_squares_the_last_move_captured() -> None:
    game = brandubh("d6-c6 e4-e6 d1-e1 d5-g5 f4-f5 d3-g3")
    assert game.history[-1].captures == ("g4",)
    rows = board_text(game).splitlines()
    rank4 = rows[2 + 7 - 4]
    assert rank4.startswith("4 │") and rank4.split()[2:9][6] == "×"
    assert legend(game, UNICODE).endswith("   × just captured")
    assert "×" not in board_text(brandubh("d6-c6 e4-e6 d1-e1 d5-g5"))


def test_board_falls_back_to_ascii_letters_when_the_terminal_cannot_show_unicode() -> None:
    latin1 = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    assert glyphs_for(latin1) is ASCII
    assert glyphs_for(io.TextIOWrapper(io.BytesIO(), encoding="utf-8")) is UNICODE
    text = board_text(brandubh(), ASCII)
    text.encode("ascii")
    assert "| t t T K T t t | 4" in text


def test_colour_only_when_asked_and_only_around_the_last_move() -> None:
    game = brandubh("d2-e2")
    assert "\x1b" not in board_text(game)
    coloured = board_text(game, colour=True)
    assert coloured.count("\x1b[0m") == 2  # from d2 and to e2
    assert coloured.replace("\x1b[1m\x1b[33m", "").replace("\x1b[0m", "") == board_text(game)


def test_legend_names_the_pieces_on_the_board() -> None:
    assert legend(brandubh(), UNICODE) == (
        "● attacker   ○ defender   ♔ king   ▫ empty throne or corner"
    )
    halatafl = Game("halatafl")
    text = legend(halatafl, ASCII)
    assert "W white" in text and "B black" in text and "king" not in text


def test_moves_are_grouped_by_piece_each_legal_move_once() -> None:
    game = brandubh()
    lines = grouped_moves(game, ASCII)
    listed = set()
    for line in lines:
        glyph, origin, *targets = line.split()
        assert glyph == "t"
        listed |= {f"{origin.rstrip(':')}-{target}" for target in targets}
    assert listed == {str(m) for m in game.legal_moves()}
    assert len(lines) == len({m.origin for m in game.legal_moves()})
    (d6,) = grouped_moves(game, ASCII, origin=5 * 7 + 3)
    assert d6 == "t d6: a6 b6 c6 e6 f6 g6"


# -- sessions -----------------------------------------------------------------------------------


async def test_a_hot_seat_game_to_the_end_prints_the_report(service: GameService) -> None:
    terminal, out = session(service, "\n".join(ESCAPE_GAME.split()) + "\n")
    report = await terminal.play(await terminal.start("brandubh"))
    assert report is not None and report.winner_side is Side.DEFENDERS
    text = out.getvalue()
    assert "6. defenders g4-g3, capturing g2" in text
    assert text.endswith(report.text() + "\n")
    assert "Player 2 (defenders) won: the king escaped." in text
    assert "Captures: attackers 0, defenders 2." in text
    assert report.game_id is not None
    state = await service.get_game(report.game_id)
    assert state.status is GameStatus.FINISHED
    assert [str(p.move) for p in state.game.history] == ESCAPE_GAME.split()


async def test_a_bad_move_gets_the_engines_reason_and_changes_nothing(
    service: GameService,
) -> None:
    terminal, out = session(service, "d6-d7\nzz9\nd6-c6\n")
    assert await terminal.play(await terminal.start("brandubh")) is None
    lines = out.getvalue().splitlines()
    assert "d6-d7: d7 is taken: a piece moves only onto an empty square" in lines
    assert any(line.startswith("zz9: can't read 'zz9' as a move") for line in lines)
    saved = await service.current_game(CHANNEL)
    assert saved is not None and [str(p.move) for p in saved.game.history] == ["d6-c6"]


async def test_end_of_input_saves_the_game_and_resume_goes_on(service: GameService) -> None:
    first, out = session(service, "d6-c6\ne4-e6\n")
    assert await first.play(await first.start("brandubh")) is None
    assert "Game #1 is saved (2 plies); go on with it with `tafl play --resume`." in out.getvalue()
    second, out = session(service, "d1-e1\nquit\n")
    state = await second.resume()
    assert [str(p.move) for p in state.game.history] == ["d6-c6", "e4-e6"]
    assert await second.play(state) is None
    assert "Brandubh, game #1: hot-seat; 2 plies played." in out.getvalue()
    saved = await service.current_game(CHANNEL)
    assert saved is not None and len(saved.game.history) == 3


async def test_a_saved_game_that_no_longer_replays_ends_as_void_on_resume(
    service: GameService, tmp_path: Path
) -> None:
    first, _ = session(service, "d6-c6\ne4-e6\n")
    assert await first.play(await first.start("brandubh")) is None
    # A later fix to the rules refuses the defenders' move (here, by rewriting it as stored).
    db = tmp_path / "tafl.sqlite3"
    await raw_execute(db, "UPDATE moves SET notation = 'e4-d4' WHERE ply = 2")
    store = await open_store(db)
    restarted = GameService(store)  # the next `tafl play --resume`
    second, out = session(restarted, "")
    report = await second.play(await second.resume())  # shown as far as it replays, then ended
    assert report is not None and report.reason is Reason.VOIDED
    assert "hot-seat; 1 ply played" in out.getvalue()
    assert "Void: its moves no longer replay under these rules; it counts for neither player." in (
        out.getvalue()
    )
    assert await restarted.current_game(CHANNEL) is None
    await store.close()


async def test_a_new_game_is_refused_while_one_is_unfinished(service: GameService) -> None:
    terminal, _ = session(service, "resign\n")
    state = await terminal.start("brandubh")
    with pytest.raises(
        ServiceError, match=r"unfinished game is saved \(game #1, Brandubh, 0 plies"
    ):
        await terminal.start("copenhagen")
    await terminal.play(state)
    with pytest.raises(ServiceError, match="no unfinished game to resume"):
        await terminal.resume()
    assert (await terminal.start("copenhagen")).game.rules.id == "copenhagen"


async def test_undo_takes_back_the_last_move_in_hot_seat(service: GameService) -> None:
    terminal, out = session(service, "undo\nd6-c6\ne4-e6\nundo\nmoves e4\n")
    await terminal.play(await terminal.start("brandubh"))
    text = out.getvalue()
    assert "undo: " in text.splitlines()[text.splitlines().index("1. attackers> undo") + 1]
    assert "took back defenders e4-e6" in text
    assert "○ e4: e1 e2 e3 e5 e6 e7" in text
    saved = await service.current_game(CHANNEL)
    assert saved is not None and [str(p.move) for p in saved.game.history] == ["d6-c6"]


async def test_resign_ends_the_game_for_the_side_to_move(service: GameService) -> None:
    terminal, out = session(service, "d6-c6\nresign\n")
    report = await terminal.play(await terminal.start("brandubh"))
    assert report is not None and report.winner_side is Side.ATTACKERS
    assert "Player 1 (attackers) won: resignation." in out.getvalue()


async def test_against_the_ai_it_moves_by_itself_and_undo_goes_back_to_your_turn(
    service: GameService,
) -> None:
    terminal, out = session(service, "d3-e3\nundo\nquit\n")  # whatever the AI opens with
    state = await terminal.start("brandubh", ai_side=Side.ATTACKERS, level="hard")
    assert state.players[Side.ATTACKERS] == ai_player("hard")
    assert state.players[Side.DEFENDERS].name == "You"
    await terminal.play(state)
    text = out.getvalue()
    assert text.count("Tafl AI (hard) is thinking...") == 2
    assert "1. defenders> d3-e3" in text
    saved = await service.current_game(CHANNEL)
    assert saved is not None and len(saved.game.history) == 1  # the AI's first move only
    assert saved.game.turn is Side.DEFENDERS
    assert "took back defenders d3-e3; attackers " in text


async def test_play_in_terminal_writes_a_png_per_position(tmp_path: Path) -> None:
    out = io.StringIO()
    pngs = tmp_path / "boards"
    await play_in_terminal(
        tmp_path / "games.sqlite3",
        io.StringIO("d6-c6\nbogus\ne4-e6\n"),
        out,
        variant="brandubh",
        png_dir=pngs,
    )
    files = sorted(p.name for p in pngs.iterdir())
    assert files == ["game1-000.png", "game1-001.png", "game1-002.png"]
    assert all((pngs / f).read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for f in files)


def test_unicode_pieces_cover_every_piece() -> None:
    assert set(UNICODE.pieces) == set(Piece) == set(ASCII.pieces)


async def test_colour_codes_appear_only_on_a_terminal(service: GameService) -> None:
    tty = Tty()
    terminal = TerminalGame(service, io.StringIO("d6-c6\n"), tty, glyphs=UNICODE)
    await terminal.play(await terminal.start("brandubh"))
    assert "\x1b[33m" in tty.getvalue()
    piped, out = session(service, "e4-e6\n")
    await piped.play(await piped.resume())
    assert "\x1b" not in out.getvalue()
