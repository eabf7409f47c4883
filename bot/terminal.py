"""The terminal game: hot-seat, or against the AI, as an adapter over GameService.

Like the Discord bot it only reads game states and calls the service, which checks and saves
every move at once; ``quit`` (or the end of input) leaves the game to be resumed later.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot.errors import ServiceError
from bot.models import (
    TERMINAL_PLAYER,
    Channel,
    GameState,
    MoveResult,
    OfferKind,
    Player,
    Report,
    ai_player,
)
from bot.service import GameService
from bot.storage import open_store
from engine import (
    DEFAULT_VARIANT,
    Game,
    Move,
    Piece,
    Ply,
    Side,
    Square,
    TaflError,
    resolve_rules,
)
from engine.ai import DEFAULT_LEVEL
from engine.types import parse_square

CHANNEL = Channel("terminal")
"""The one place terminal games are played: at most one unfinished game per database."""


# -- drawing the board --------------------------------------------------------------------------


@dataclass(frozen=True)
class Glyphs:
    """The characters a board is drawn with."""

    pieces: dict[Piece, str]
    empty: str
    marked: str
    """An empty throne or corner."""
    captured: str
    """A square whose man the last move took."""
    frame: tuple[str, str, str, str, str, str]
    """Top-left, top-right, bottom-left, bottom-right, horizontal, vertical."""


UNICODE = Glyphs(
    pieces={
        Piece.ATTACKER: "●",
        Piece.DEFENDER: "○",
        Piece.KING: "♔",
        Piece.WHITE: "○",
        Piece.BLACK: "●",
    },
    empty="·",
    marked="▫",
    captured="×",
    frame=("┌", "┐", "└", "┘", "─", "│"),
)
ASCII = Glyphs(
    pieces={p: p.value for p in Piece},
    empty=".",
    marked="+",
    captured="x",
    frame=("+", "+", "+", "+", "-", "|"),
)


def glyphs_for(stream: TextIO) -> Glyphs:
    """Unicode glyphs if ``stream`` can encode them, else plain ASCII letters."""
    sample = "".join([*UNICODE.pieces.values(), UNICODE.empty, UNICODE.marked, *UNICODE.frame])
    try:
        sample.encode(stream.encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return ASCII
    return UNICODE


def wants_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and not when NO_COLOR is set or TERM is dumb."""
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM", "") != "dumb"


_BOLD, _RED, _YELLOW, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[0m"


def board_text(game: Game, glyphs: Glyphs = UNICODE, colour: bool = False) -> str:
    """The board, highest rank on top, coordinates on all four sides; the last move marked."""
    size = game.size
    pieces = game.pieces()
    marked = set(game.corners) | ({game.throne} if game.throne is not None else set())
    last = game.history[-1] if game.history else None
    moved = set(last.move.path) if last else set()
    captured = {parse_square(name, size) for name in last.captures} if last else set()
    width = len(str(size))
    files = " ".join(chr(97 + f) for f in range(size))
    margin = " " * (width + 1)
    tl, tr, bl, br, horizontal, vertical = glyphs.frame
    lines = [f"{margin}  {files}", f"{margin}{tl}{horizontal * (2 * size + 1)}{tr}"]
    for rank in reversed(range(size)):
        cells = []
        for file in range(size):
            square = rank * size + file
            piece = pieces.get(square)
            if piece is not None:
                cell = glyphs.pieces[piece]
            elif square in captured:
                cell = glyphs.captured
            elif square in marked:
                cell = glyphs.marked
            else:
                cell = glyphs.empty
            if colour and square in captured:
                cell = f"{_RED}{cell}{_RESET}"
            elif colour and square in moved:
                cell = f"{_BOLD}{_YELLOW}{cell}{_RESET}"
            cells.append(cell)
        label = str(rank + 1)
        lines.append(f"{label:>{width}} {vertical} {' '.join(cells)} {vertical} {label}")
    lines.append(f"{margin}{bl}{horizontal * (2 * size + 1)}{br}")
    lines.append(f"{margin}  {files}")
    return "\n".join(lines)


PIECE_NAMES = {
    Piece.ATTACKER: "attacker",
    Piece.DEFENDER: "defender",
    Piece.KING: "king",
    Piece.WHITE: "white",
    Piece.BLACK: "black",
}


def legend(game: Game, glyphs: Glyphs) -> str:
    """What each glyph on this game's board means."""
    present = set(game.pieces().values())
    parts = [f"{glyphs.pieces[p]} {PIECE_NAMES[p]}" for p in Piece if p in present]
    if game.throne is not None or game.corners:
        parts.append(f"{glyphs.marked} empty throne or corner")
    if game.history and game.history[-1].captures:
        parts.append(f"{glyphs.captured} just captured")
    return "   ".join(parts)


def grouped_moves(game: Game, glyphs: Glyphs, origin: Square | None = None) -> list[str]:
    """The legal moves, one line per piece: ``● d1: d2 d3 d4`` (only ``origin``'s if given);
    in Halatafl one jump chain per end (``distinct_moves``)."""
    groups: dict[Square, list[Move]] = {}
    for move in game.distinct_moves():
        if origin is None or move.origin == origin:
            groups.setdefault(move.origin, []).append(move)

    def board_order(square: Square) -> tuple[int, int]:
        return square % game.size, square // game.size

    lines = []
    for square in sorted(groups, key=board_order):
        piece = game.piece_at(square)
        glyph = glyphs.pieces[piece] if piece is not None else "?"
        targets = sorted(groups[square], key=lambda m: board_order(m.target))
        where = " ".join(str(m).split("-", 1)[1] for m in targets)
        lines.append(f"{glyph} {game.square_name(square)}: {where}")
    return lines


HELP = """\
Type a move as from-to, like d1-d4 (d1d4 works too, or just d4 when only one piece can go there).
  moves [SQUARE]  legal moves, grouped by piece (or only those of the piece on SQUARE)
  board           show the board again
  undo            take back the last move (against the AI: your last move and its reply)
  resign          the side to move gives up
  quit            stop here; the game stays saved: `{resume}` goes on with it
  help            this text"""


# -- the game session ---------------------------------------------------------------------------


def side_players(
    variant: str, ai_side: Side | None = None, level: str = DEFAULT_LEVEL.name
) -> dict[Side, Player]:
    """The players of both sides of ``variant``: the AI at ``level`` plays ``ai_side`` against
    "You"; without it, "Player 1" (who moves first) and "Player 2" share the keyboard."""
    first = resolve_rules(variant).first
    players = {}
    for number, side in enumerate((first, first.opponent), start=1):
        if side == ai_side:
            players[side] = ai_player(level)
        elif ai_side is not None:
            players[side] = TERMINAL_PLAYER
        else:
            players[side] = Player(f"terminal:{side}", f"Player {number}")
    return players


class TerminalGame:
    """One terminal session: reads commands, calls the service, prints what happened."""

    def __init__(
        self,
        service: GameService,
        stdin: TextIO,
        stdout: TextIO,
        *,
        glyphs: Glyphs | None = None,
        colour: bool | None = None,
        png_dir: Path | None = None,
        render: Callable[[Game], bytes] | None = None,
        resume_command: str = "tafl play --resume",
    ) -> None:
        self.service = service
        self.stdin = stdin
        self.stdout = stdout
        self.glyphs = glyphs or glyphs_for(stdout)
        self.colour = wants_colour(stdout) if colour is None else colour
        self.png_dir = png_dir
        self.render = render
        self.resume_command = resume_command
        self.echo = not stdin.isatty()
        """Echo what is read from a pipe or file, so the transcript shows it after the prompt."""

    # -- starting ------------------------------------------------------------------------------

    async def start(
        self, variant: str, ai_side: Side | None = None, level: str = DEFAULT_LEVEL.name
    ) -> GameState:
        """A new game, unless an unfinished one is saved (ServiceError saying how to go on)."""
        saved = await self.service.current_game(CHANNEL)
        if saved is not None:
            raise ServiceError(
                f"an unfinished game is saved (game #{saved.id}, {saved.game.rules.name}, "
                f"{plies(len(saved.game.history))}): go on with it with `{self.resume_command}`, "
                "or type `resign` there to end it"
            )
        players = side_players(variant, ai_side, level)
        return await self.service.start_game(CHANNEL, players, variant, rated=ai_side is not None)

    async def resume(self) -> GameState:
        """The unfinished game saved here (ServiceError if there is none)."""
        saved = await self.service.current_game(CHANNEL)
        if saved is None:
            raise ServiceError("there is no unfinished game to resume; start one with `tafl play`")
        return saved

    # -- playing -------------------------------------------------------------------------------

    async def play(self, state: GameState) -> Report | None:
        """Play until the game ends (its report) or the player quits (None); every move saved."""
        self.say(f"{introduce(state)} Type `help` for the commands.")
        self.show(state)
        while (player := state.player_to_move()) is not None:
            if player.is_ai:
                self.say(f"{player.name} is thinking...")
                step: MoveResult | GameState | Report | None = await self.service.ai_move(CHANNEL)
            else:
                line = self.read(f"{move_number(len(state.game.history))}. {state.game.turn}> ")
                step = None if line is None else await self.obey(state, player, line)
            if step is None:
                self.leave(state)
                return None
            if isinstance(step, Report):
                return self.finish(step)
            if isinstance(step, GameState):
                state = step
                continue
            state = self.after_move(step)
            if step.report is not None:
                return self.finish(step.report)
        return self.finish(await self.service.report(state.id))

    async def obey(
        self, state: GameState, player: Player, line: str
    ) -> MoveResult | GameState | Report | None:
        """Carry out one line: the move played, the game as it now stands, the report of a
        resignation, or None to quit."""
        command, _, argument = line.strip().partition(" ")
        match command.lower():
            case "":
                pass
            case "help" | "?":
                self.say(HELP.format(resume=self.resume_command))
            case "board":
                self.show(state)
            case "moves":
                self.list_moves(state, argument.strip())
            case "undo":
                return await self.take_back(state)
            case "resign":
                return await self.service.resign(CHANNEL, player)
            case "quit" | "exit":
                return None
            case _:
                try:
                    return await self.service.move(CHANNEL, player, line.strip())
                except TaflError as error:
                    self.say(f"{line.strip()}: {error}")
        return state

    def after_move(self, result: MoveResult) -> GameState:
        """Show the move just played and the board it left."""
        state = result.state
        self.say(f"{move_number(len(state.game.history) - 1)}. {describe_ply(result.ply)}")
        self.show(state)
        return state

    def list_moves(self, state: GameState, square: str) -> None:
        """The legal moves grouped by piece, or those of the piece on ``square``."""
        game = state.game
        origin = None
        if square:
            try:
                origin = parse_square(square, game.size)
            except TaflError as error:
                self.say(f"moves: {error}")
                return
        lines = grouped_moves(game, self.glyphs, origin)
        if lines:
            self.say("\n".join(lines))
        elif origin is None:
            self.say("no legal moves")
        else:
            self.say(f"no piece of the {game.turn} on {game.square_name(origin)} can move")

    async def take_back(self, state: GameState) -> GameState:
        """Undo the last move (against the AI: back to the human's turn), as an accepted offer."""
        mover = state.player_to_move()
        assert mover is not None, "only asked while the game is on"
        against_ai = any(p.is_ai for p in state.players.values())
        offerer = mover if against_ai else state.opponent_of(mover)
        assert offerer is not None, "both sides are played"
        before = list(state.game.history)
        try:
            offer = await self.service.offer(CHANNEL, offerer, OfferKind.UNDO)
            _, state, _ = await self.service.answer_offer(offer.id, offer.to, True)
        except TaflError as error:
            self.say(f"undo: {error}")
            return state
        undone = before[len(state.game.history) :]
        self.say("took back " + "; ".join(describe_ply(ply) for ply in undone))
        self.show(state)
        return state

    # -- ending --------------------------------------------------------------------------------

    def finish(self, report: Report) -> Report:
        self.say("")
        self.say(report.text())
        return report

    def leave(self, state: GameState) -> None:
        self.say(
            f"\nGame #{state.id} is saved ({plies(len(state.game.history))}); "
            f"go on with it with `{self.resume_command}`."
        )

    # -- input and output ----------------------------------------------------------------------

    def show(self, state: GameState) -> None:
        """The board and its legend (and the PNG, if asked for)."""
        self.say(board_text(state.game, self.glyphs, self.colour))
        self.say(legend(state.game, self.glyphs))
        if self.png_dir is not None and self.render is not None:
            self.png_dir.mkdir(parents=True, exist_ok=True)
            name = f"game{state.id}-{len(state.game.history):03d}.png"
            (self.png_dir / name).write_bytes(self.render(state.game))

    def read(self, prompt: str) -> str | None:
        """A line of input; None at the end of input or on Ctrl-C."""
        try:
            self.stdout.write(prompt)
            self.stdout.flush()
            line = self.stdin.readline()
        except KeyboardInterrupt:
            line = ""
        if not line:
            self.say("")
            return None
        if self.echo:
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        return line

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()


def introduce(state: GameState) -> str:
    """``Brandubh, game #3: hot-seat; 12 plies played.``"""
    game = state.game
    ai_sides = [side for side, p in state.players.items() if p.is_ai]
    who = f"the AI plays the {ai_sides[0]}" if ai_sides else "hot-seat"
    played = f"{plies(len(game.history))} played" if game.history else f"{game.turn} to move"
    return f"{game.rules.name}, game #{state.id}: {who}; {played}."


def describe_ply(ply: Ply) -> str:
    """``attackers d1-d4, capturing e4 and f4``."""
    text = f"{ply.side} {ply.move}"
    if ply.captures:
        text += ", capturing " + " and ".join(ply.captures)
    return text


def move_number(ply_index: int) -> int:
    """The move (both sides' plies) that the ply at ``ply_index`` (from 0) belongs to."""
    return ply_index // 2 + 1


def plies(count: int) -> str:
    return f"{count} {'ply' if count == 1 else 'plies'}"


async def play_in_terminal(
    db: str | Path,
    stdin: TextIO,
    stdout: TextIO,
    *,
    variant: str | None = None,
    resume: bool = False,
    ai_side: Side | None = None,
    level: str = DEFAULT_LEVEL.name,
    ai_time_limit: float | None = None,
    png_dir: Path | None = None,
    glyphs: Glyphs | None = None,
    resume_command: str = "tafl play --resume",
) -> Report | None:
    """Start (or resume) a game saved in ``db`` (a SQLite file or a PostgreSQL URL) and play it;
    its report, or None on quit.

    ServiceError when there is nothing to resume, or an unfinished game is in the way.
    """
    render: Callable[[Game], bytes] | None = None
    if png_dir is not None:
        from renderer import render

    store = await open_store(db)
    try:
        service = (
            GameService(store)
            if ai_time_limit is None
            else GameService(store, ai_time_limit=ai_time_limit)
        )
        session = TerminalGame(
            service,
            stdin,
            stdout,
            glyphs=glyphs,
            png_dir=png_dir,
            render=render,
            resume_command=resume_command,
        )
        if resume:
            state = await session.resume()
        else:
            state = await session.start(variant or DEFAULT_VARIANT, ai_side, level)
        return await session.play(state)
    finally:
        await store.close()
