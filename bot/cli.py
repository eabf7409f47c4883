"""The ``tafl`` command: play in the terminal, run the Discord bot, render and replay games,
look after the database."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from bot import __version__
from bot.config import DEFAULT_DB, TOKEN_HELP, Settings
from bot.models import TERMINAL_PLAYER
from engine.ai import DEFAULT_LEVEL, LEVELS
from engine.errors import TaflError

if TYPE_CHECKING:
    from engine import Game

EXIT_ERROR = 1
EXIT_USAGE = 2


class CommandError(Exception):
    """Bad input for a command: one line for the user, and an exit status."""

    def __init__(self, message: str, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, not usage text and a traceback."""

    def error(self, message: str) -> NoReturn:
        raise CommandError(f"{message} (see `{self.prog} --help`)", EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The ``tafl`` command line; it reads no settings (a bad ``.env`` can't break ``--help``)."""
    from bot.service import AI_TIME_LIMIT
    from engine import DEFAULT_VARIANT

    parser = _Parser(
        prog="tafl", description="Play tafl (Hnefatafl and its family) in a terminal or on Discord."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    from bot.storage import db_target

    def takes_db(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "--db",
            metavar="DB",
            type=db_target,
            help="the database: a SQLite file or a postgresql:// URL"
            f" (default: $TAFL_DB, or ./{DEFAULT_DB})",
        )

    play = commands.add_parser(
        "play",
        help="a game in the terminal (hot-seat or against the AI), saved as it goes",
        description=(
            "A game in the terminal: type moves like d1-d4, or help. Every move is saved;"
            " `quit` (or Ctrl-D) stops, `tafl play --resume` goes on."
        ),
    )
    play.add_argument(
        "--variant",
        metavar="ID",
        default=None,
        help=f"a variant id (see `tafl variants`; default: {DEFAULT_VARIANT}) or an OpenTafl rules"
        " string",
    )
    play.add_argument("--resume", action="store_true", help="continue the unfinished game")
    takes_db(play)
    play.add_argument(
        "--png",
        metavar="DIR",
        type=Path,
        help="also write the board as a PNG image into DIR after each move",
    )
    play.add_argument("--ai", metavar="SIDE", help="the side the computer plays, e.g. defenders")
    play.add_argument(
        "--level",
        choices=list(LEVELS),
        help=f"how strongly the computer plays (default: {DEFAULT_LEVEL.name})",
    )
    play.add_argument(
        "--ai-time",
        metavar="SECONDS",
        type=float,
        help=f"how long the AI may think per move (default: {AI_TIME_LIMIT:g})",
    )
    play.add_argument("--ascii", action="store_true", help="draw the board with letters only")
    play.set_defaults(run=run_play)

    bot = commands.add_parser("bot", help="run the Discord bot (needs DISCORD_TOKEN)")
    takes_db(bot)
    bot.add_argument("--sync", action="store_true", help="sync the slash commands at start-up")
    bot.add_argument(
        "--guild",
        metavar="ID",
        type=int,
        help="with --sync: sync to this server only (instant), not globally",
    )
    bot.add_argument(
        "--shard-count",
        metavar="N",
        help="the bot's shards across all its processes (default: $TAFL_SHARD_COUNT, or as many"
        " as Discord recommends, all in this process)",
    )
    bot.add_argument(
        "--shard-ids",
        metavar="IDS",
        help="with --shard-count: the shards this process runs, like 0,1 (default:"
        " $TAFL_SHARD_IDS, or all of them)",
    )
    bot.set_defaults(run=run_bot)

    render = commands.add_parser("render", help="draw a position or a game record as a PNG")
    render.add_argument(
        "source",
        metavar="POSITION_OR_RECORD",
        help="an OTN position like /3ttttt3/.../ or a game record file",
    )
    render.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="where to write the PNG"
    )
    render.add_argument(
        "--variant",
        metavar="ID",
        default=None,
        help=f"the variant of a position or CSV record (default: {DEFAULT_VARIANT})",
    )
    render.set_defaults(run=run_render)

    replay = commands.add_parser(
        "replay", help="check a game record move by move and print its report"
    )
    replay.add_argument(
        "file",
        metavar="FILE",
        type=Path,
        help="an OpenTafl record, or one MOVES,N1,N2,RESULT line of a CSV game file (- reads"
        " stdin)",
    )
    replay.add_argument(
        "--variant",
        metavar="ID",
        default=None,
        help=f"the variant of a CSV line (default: {DEFAULT_VARIANT})",
    )
    replay.set_defaults(run=run_replay)

    variants = commands.add_parser("variants", help="list the variants")
    variants.set_defaults(run=run_variants)

    health = commands.add_parser(
        "health",
        help="check that the database opens and the running bot's heartbeat is recent",
        description="Exit 0 when the database opens and the running bot wrote its heartbeat"
        " lately; 1 with the reason otherwise. For Docker's HEALTHCHECK.",
    )
    takes_db(health)
    health.set_defaults(run=run_health)

    db = commands.add_parser(
        "db", help="the game database: its schema version, migrations, copies between databases"
    )
    actions = db.add_subparsers(dest="action", metavar="ACTION", required=True)
    current = actions.add_parser("current", help="print the database's schema version")
    migrate = actions.add_parser("migrate", help="apply the pending migrations and exit")
    for action in (current, migrate):
        takes_db(action)
    current.set_defaults(run=run_db_current)
    migrate.set_defaults(run=run_db_migrate)
    copy = actions.add_parser(
        "copy",
        help="copy every game, move, challenge and offer from one database into another",
        description=(
            "Copy everything from SOURCE into TARGET (a SQLite file or a postgresql:// URL"
            " each), ids and times kept: to move a server between SQLite and PostgreSQL."
            " Stop the bot first. TARGET must be empty, unless --replace."
        ),
    )
    copy.add_argument("source", metavar="SOURCE", type=db_target)
    copy.add_argument("target", metavar="TARGET", type=db_target)
    copy.add_argument(
        "--replace", action="store_true", help="delete what TARGET holds before copying"
    )
    copy.set_defaults(run=run_db_copy)

    ratings = commands.add_parser("ratings", help="the players' ratings")
    rating_actions = ratings.add_subparsers(dest="action", metavar="ACTION", required=True)
    rebuild = rating_actions.add_parser(
        "rebuild",
        help="compute every rating again from the stored games",
        description="Compute every rating and its history again from the stored rated games,"
        " in the order they finished (the numbers the games gave as they finished).",
    )
    takes_db(rebuild)
    rebuild.set_defaults(run=run_ratings_rebuild)

    stats = commands.add_parser(
        "stats", help="your ratings, results and last games (from the game database)"
    )
    takes_db(stats)
    stats.add_argument(
        "--player",
        metavar="ID",
        default=TERMINAL_PLAYER.id,
        help=f"whose (a player id like discord:1234 or ai:tafl:hard; default: {TERMINAL_PLAYER.id},"
        " you at the terminal)",
    )
    stats.add_argument("--variant", metavar="ID", help="one variant only (default: all)")
    stats.set_defaults(run=run_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tafl``; returns the exit status. Settings are read by the commands that need them."""
    try:
        args = build_parser().parse_args(argv)
        status: int = args.run(args)
        return status
    except CommandError as error:
        return fail(str(error), error.status)
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        return fail(f"{where}{error.strerror or error}")
    except TaflError as error:  # anything else is a bug, and shows its traceback
        return fail(str(error))
    except KeyboardInterrupt:
        return fail("interrupted", 130)


def database(args: argparse.Namespace) -> str | Path:
    """The database a command works on: its ``--db``, else the configured one."""
    db: str | Path | None = args.db
    return Settings.load().db if db is None else db


def existing(db: str | Path, hint: str = "") -> str | Path:
    """``db``, if it is a URL or a file that exists; CommandError (with ``hint``) if not."""
    if isinstance(db, Path) and not db.is_file():
        raise CommandError(f"there is no database at {db}" + (f": {hint}" if hint else ""))
    return db


def fail(message: str, status: int = EXIT_ERROR) -> int:
    print(f"tafl: {message}", file=sys.stderr)
    return status


# -- the commands ---------------------------------------------------------------------------------


def run_play(args: argparse.Namespace) -> int:
    from bot.terminal import ASCII, play_in_terminal
    from engine import DEFAULT_VARIANT, resolve_rules

    if args.level is not None and args.ai is None:
        raise CommandError("--level is the computer's: say which side it plays with --ai", 2)
    if args.resume and (args.variant or args.ai):
        raise CommandError("--resume goes on with the saved game's variant and players", 2)
    rules = resolve_rules(args.variant or DEFAULT_VARIANT)
    sides = (rules.first, rules.first.opponent)
    ai_side = None
    if args.ai is not None:
        ai_side = next((side for side in sides if side == args.ai.strip().lower()), None)
        if ai_side is None:
            raise CommandError(f"--ai takes the side the computer plays: {' or '.join(sides)}", 2)
    if args.ai_time is not None and not args.ai_time > 0:
        raise CommandError("--ai-time is a number of seconds above 0, like 0.5", 2)
    from bot.storage import shown_target

    db = database(args)
    if isinstance(db, Path) and not db.parent.is_dir():
        raise CommandError(f"can't keep the game in {db}: {db.parent} is not a folder")
    resume_command = "tafl play --resume"
    if args.db is not None:
        resume_command += f" --db {shown_target(args.db)}"
    with interrupts_as_keyboard_interrupt(), database_errors(db):
        report = asyncio.run(
            play_in_terminal(
                db,
                sys.stdin,
                sys.stdout,
                variant=args.variant,
                resume=args.resume,
                ai_side=ai_side,
                level=args.level or DEFAULT_LEVEL.name,
                ai_time_limit=args.ai_time,
                png_dir=args.png,
                glyphs=ASCII if args.ascii else None,
                resume_command=resume_command,
            )
        )
    if report is not None:
        print(f"Saved as game #{report.game_id} in {shown_target(db)}.")
    return 0


def run_bot(args: argparse.Namespace) -> int:
    settings = Settings.load()
    if settings.discord_token is None:
        raise CommandError(TOKEN_HELP, EXIT_USAGE)
    if args.guild is not None and not args.sync:
        raise CommandError("--guild goes with --sync: it says where to sync the commands", 2)
    logging.basicConfig(
        level=settings.log_level_number, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    from bot.config import ConfigError, shards
    from bot.discord import run
    from bot.storage import DatabaseInUse

    if args.shard_count is None and args.shard_ids is None:
        plan: dict[str, Any] = {"shard_count": settings.shard_count,
                                "shard_ids": settings.shard_ids}  # fmt: skip
    else:
        try:
            plan = shards(args.shard_count, args.shard_ids, "--shard-count", "--shard-ids")
        except ConfigError as error:
            raise CommandError(str(error), EXIT_USAGE) from None

    try:
        db = database(args)
        with database_errors(db):
            run(
                settings.discord_token,
                str(db),
                sync=args.sync,
                guild=args.guild,
                move_timeout=settings.move_timeout,
                **plan,
            )
    except DatabaseInUse as error:
        raise CommandError(str(error)) from None
    return 0


def run_render(args: argparse.Namespace) -> int:
    from engine import DEFAULT_VARIANT, Game, resolve_rules
    from renderer import render

    source: str = args.source.strip()
    if source.startswith("/") and source.endswith("/"):  # an OTN position; files end otherwise
        variant = args.variant or DEFAULT_VARIANT
        game = Game.from_position(variant, source, resolve_rules(variant).first)
    else:
        game = read_game(Path(source), args.variant).game
    args.output.write_bytes(render(game))
    print(f"wrote {args.output} ({game.rules.name}, after {len(game.history)} plies)")
    return 0


def run_replay(args: argparse.Namespace) -> int:
    from bot.models import game_report, numbered_moves
    from bot.terminal import board_text, glyphs_for, legend, side_players

    replayed = read_game(args.file, args.variant)
    game = replayed.game
    glyphs = glyphs_for(sys.stdout)
    print(board_text(game, glyphs))
    print(legend(game, glyphs))
    print()
    if replayed.unplayed:
        print(
            f"Note: these rules end the game after {len(game.history)} plies; "
            f"the record goes on for {replayed.unplayed} more, not played."
        )
    if game.outcome is None:
        print(
            f"{game.rules.name}: not finished; {game.turn} to move after {len(game.history)} plies."
        )
        print("\n".join(numbered_moves(game.history)))
    else:
        print(game_report(game, side_players(game.rules_string)).text())
    return 0


def run_db_current(args: argparse.Namespace) -> int:
    from bot.storage import newest_migration, opened, shown_target, store_class

    db = existing(database(args))

    async def current() -> int:
        async with opened(db, migrate=False) as store:
            return await store.schema_version()

    with database_errors(db):
        version = asyncio.run(current())
    newest = newest_migration(store_class(db).migrations())
    state = "up to date" if version == newest else f"newest {newest}: run `tafl db migrate`"
    print(f"{shown_target(db)}: schema version {version} ({state})")
    return 0


def run_db_migrate(args: argparse.Namespace) -> int:
    from bot.storage import opened, shown_target

    db = database(args)

    async def migrate() -> tuple[int, int]:
        async with opened(db, migrate=False) as store:
            before = await store.schema_version()
        async with opened(db) as store:
            return before, await store.schema_version()

    if isinstance(db, Path) and not db.parent.is_dir():
        raise CommandError(f"can't create {db}: {db.parent} is not a folder")
    with database_errors(db):
        before, after = asyncio.run(migrate())
    change = f"migrated from {before} to {after}" if after != before else f"already at {after}"
    print(f"{shown_target(db)}: schema version {change}")
    return 0


def run_db_copy(args: argparse.Namespace) -> int:
    from bot.storage import open_store, opened, shown_target
    from bot.storage.copy import TargetNotEmpty, copy_store, describe_counts

    existing(args.source)
    if args.source == args.target:
        raise CommandError("SOURCE and TARGET are the same database; copy into another one", 2)

    async def copy() -> dict[str, int]:
        async with opened(args.source) as source:
            with database_errors(args.target):
                target = await open_store(args.target)
            try:
                return await copy_store(source, target, replace=args.replace)
            finally:
                await target.close()

    try:
        with database_errors(args.source):
            counts = asyncio.run(copy())
    except TargetNotEmpty as error:
        raise CommandError(
            f"{shown_target(args.target)} already holds {describe_counts(error.counts)}; copy"
            " into an empty database, or add --replace to delete what it holds first"
        ) from None
    print(
        f"copied {describe_counts(counts)} from {shown_target(args.source)}"
        f" to {shown_target(args.target)}"
    )
    return 0


def run_ratings_rebuild(args: argparse.Namespace) -> int:
    from bot.models import counted
    from bot.service import GameService
    from bot.storage import opened, shown_target

    db = existing(database(args))

    async def rebuild() -> int:
        async with opened(db) as store:
            return await GameService(store).rebuild_ratings()

    with database_errors(db):
        games = asyncio.run(rebuild())
    print(f"{shown_target(db)}: ratings rebuilt from {counted(games, 'rated game')}")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from bot.errors import ServiceError
    from bot.models import Player
    from bot.service import GameService
    from bot.storage import opened
    from bot.summaries import game_line, stats_lines

    db = existing(database(args), "play a game with `tafl play` first")

    async def gather() -> list[str]:
        async with opened(db) as store:
            service = GameService(store)
            player = Player(args.player, args.player)
            stats = await service.stats(player, args.variant)
            games = await service.played_games(player, args.variant)
        lines = stats_lines(stats)
        if games:
            lines += ["", "Last games:", *(game_line(game) for game in games)]
        return lines

    try:
        with database_errors(db):
            lines = asyncio.run(gather())
    except ServiceError as error:
        raise CommandError(str(error), 2) from None
    print("\n".join(lines))
    return 0


def run_variants(args: argparse.Namespace) -> int:
    from engine import DEFAULT_VARIANT, VARIANTS

    width = max(len(v) for v in VARIANTS)
    for variant_id, rules in VARIANTS.items():
        default = " (default)" if variant_id == DEFAULT_VARIANT else ""
        size = f"{rules.size}x{rules.size}"
        print(f"{variant_id:<{width}}  {size:>5}  {rules.name}{default}")
    return 0


def run_health(args: argparse.Namespace) -> int:
    from bot.health import Unhealthy, check_health
    from bot.models import utc_now

    db = database(args)
    try:
        print(asyncio.run(check_health(db, utc_now())))
    except Unhealthy as error:
        raise CommandError(f"unhealthy: {error}") from None
    return 0


# -- reading game records -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadGame:
    """A game replayed from a file, every move checked; ``unplayed`` recorded plies came after
    the end the engine found."""

    game: Game
    unplayed: int = 0


def read_game(path: Path, variant: str | None = None) -> ReadGame:
    """Replay a game file: an OpenTafl record, or one CSV game line of ``variant``'s data."""
    from engine import DEFAULT_VARIANT
    from engine.record import game_from_record, parse_data_line, replay_data_game

    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"{path} is not UTF-8 text; expected a game record") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise CommandError(f"{path} is empty; expected an OpenTafl record or a CSV game line")
    if lines[0].lstrip().startswith("["):
        if variant is not None:
            raise CommandError("--variant is for CSV lines; an OpenTafl record names its rules")
        return ReadGame(game_from_record(text))
    if len(lines) > 1:
        raise CommandError(
            f"{path} has {len(lines)} lines; a CSV game file must hold exactly one game line"
        )
    data = parse_data_line(lines[0])
    replay = replay_data_game(data, variant or DEFAULT_VARIANT)
    return ReadGame(replay.game, len(data.moves) - replay.played)


@contextmanager
def interrupts_as_keyboard_interrupt() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt where the program is, even in a blocking read inside
    ``asyncio.run`` (whose own handler would only cancel the task once the read returns)."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def database_errors(db: str | Path) -> Iterator[None]:
    """A database that cannot be used (not SQLite, locked, read-only, refused...) as one
    CommandError."""
    import asyncpg

    from bot.storage import shown_target

    try:
        yield
    except (sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        raise CommandError(f"can't use {shown_target(db)} as the game database: {error}") from None
