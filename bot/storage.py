"""The game store (SQLite through aiosqlite): every SQL statement of the project lives here.

``Store.open`` applies the numbered migrations in ``bot/migrations`` (``NNNN_name.sql``) and
turns on WAL and foreign keys. Reads and writes go through a ``Session``: ``store.reading()``
for reads, ``store.transaction()`` for writes (one ``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back
if anything in it fails). Game writes check the game's version, so that a second process holding
an older copy of a game cannot change it.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite

from bot.errors import ChannelBusy, MoveConflict
from bot.models import (
    Announcement,
    AnnouncementKind,
    Challenge,
    ChallengeStatus,
    Channel,
    GameStatus,
    Offer,
    OfferKind,
    OfferStatus,
    Player,
)
from engine import Outcome, Ply, Reason, Side

MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d{4})_\w+\.sql$")
BUSY_TIMEOUT = 10.0
"""How long a write waits for another process's write to finish."""


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game without its moves."""

    id: int
    channel: Channel
    variant: str
    rules_string: str
    players: dict[Side, Player]
    status: GameStatus
    outcome: Outcome | None
    """The stored result once finished (None while the game is being played)."""
    version: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A stored ply: ``ply`` counts from 1."""

    ply: int
    side: Side
    notation: str
    captures: tuple[str, ...]
    played_at: datetime


OWNER_SUFFIX = "-owner"
"""The owner lock of ``tafl.sqlite3`` is ``tafl.sqlite3-owner``, beside it."""
OWNER_POLL = 0.5
"""Seconds between two tries at a database another process owns."""


class DatabaseInUse(Exception):
    """Another bot process owns the database file."""


class DatabaseOwner:
    """This process's claim to serve the games of one SQLite file: an OS lock on a file beside
    it, which the system releases when the process ends, however it ends."""

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self._descriptor: int | None = descriptor

    @classmethod
    async def claim(cls, database: str | os.PathLike[str], wait: float = 0.0) -> DatabaseOwner:
        """Own ``database``, waiting up to ``wait`` seconds for its owner to stop; DatabaseInUse
        (naming the owner's process id) if it does not."""
        path = Path(os.fspath(database) + OWNER_SUFFIX)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + wait
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if loop.time() >= give_up:
                    owner = os.pread(descriptor, 32, 0).decode(errors="replace").strip()
                    os.close(descriptor)
                    raise DatabaseInUse(
                        f"{database} is used by another tafl bot (process {owner or 'unknown'});"
                        " stop that one first, or give this one a database of its own"
                    ) from None
                await asyncio.sleep(OWNER_POLL)
                continue
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
            return cls(path, descriptor)

    def release(self) -> None:
        """Give the database up (closing the lock file releases the lock)."""
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


class Store:
    """Games, moves, challenges and offers in one SQLite file."""

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self._lock = asyncio.Lock()
        """One session at a time on this connection, so nobody reads another's uncommitted work."""

    @classmethod
    async def open(cls, path: str | Path, migrations: Path = MIGRATIONS) -> Store:
        """Open (or create) the database at ``path`` and apply any pending ``migrations``."""
        path = Path(path)
        connection = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT)
        try:
            connection.row_factory = sqlite3.Row
            await connection.execute("PRAGMA journal_mode = WAL")
            await connection.execute("PRAGMA foreign_keys = ON")
            await _migrate(connection, migrations)
        except BaseException:
            await connection.close()
            raise
        return cls(connection, path)

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    async def schema_version(self) -> int:
        """The number of the last migration applied."""
        async with self.reading() as session:
            return await session.schema_version()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Session]:
        """A session for reads (it sees only committed data)."""
        async with self._lock:
            yield Session(self._db)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        """A session whose writes are committed together at the end, or not at all."""
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield Session(self._db)
            except BaseException:
                await self._db.rollback()
                raise
            await self._db.commit()


class Session:
    """The queries, on a connection a ``Store`` has handed out."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._db = connection

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(await self._db.execute_fetchall(sql, params))

    async def _row(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = await self._rows(sql, params)
        return rows[0] if rows else None

    async def _write(self, sql: str, params: Sequence[Any] = ()) -> aiosqlite.Cursor:
        return await self._db.execute(sql, params)

    async def schema_version(self) -> int:
        row = await self._row("PRAGMA user_version")
        return int(row[0]) if row else 0

    # -- games ---------------------------------------------------------------------------------

    async def insert_game(
        self,
        channel: Channel,
        variant: str,
        rules_string: str,
        players: dict[Side, Player],
        now: datetime,
    ) -> int:
        """A new active game; ChannelBusy if the channel already has one."""
        if await self.active_game_id(channel) is not None:
            raise ChannelBusy
        stamp = _time_text(now)
        try:
            cursor = await self._write(
                "INSERT INTO games (guild, channel, variant, rules_string, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (channel.guild, channel.id, variant, rules_string, stamp, stamp),
            )
        except sqlite3.IntegrityError:
            raise ChannelBusy from None
        game_id = cursor.lastrowid
        assert game_id is not None
        await self._db.executemany(
            "INSERT INTO game_players (game_id, side, player_id, player_name) VALUES (?, ?, ?, ?)",
            [(game_id, str(side), p.id, p.name) for side, p in players.items()],
        )
        return game_id

    async def active_game_id(self, channel: Channel) -> int | None:
        row = await self._row(
            "SELECT id FROM games WHERE channel = ? AND status = 'active'", (channel.id,)
        )
        return None if row is None else int(row["id"])

    async def games_waiting_for(self, player_id: str) -> list[int]:
        """The active games in which ``player_id`` plays, oldest first."""
        rows = await self._rows(
            "SELECT games.id FROM games JOIN game_players ON game_players.game_id = games.id"
            " WHERE games.status = 'active' AND game_players.player_id = ? ORDER BY games.id",
            (player_id,),
        )
        return [int(row["id"]) for row in rows]

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._row("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None:
            return None
        players = await self._rows(
            "SELECT side, player_id, player_name FROM game_players WHERE game_id = ?", (game_id,)
        )
        status = GameStatus(row["status"])
        return GameRow(
            id=int(row["id"]),
            channel=Channel(row["channel"], row["guild"]),
            variant=row["variant"],
            rules_string=row["rules_string"],
            players={Side(p["side"]): Player(p["player_id"], p["player_name"]) for p in players},
            status=status,
            outcome=(
                None
                if row["reason"] is None
                else Outcome(_side_or_none(row["winner"]), Reason(row["reason"]))
            ),
            version=int(row["version"]),
            created_at=_time(row["created_at"]),
            updated_at=_time(row["updated_at"]),
            finished_at=_time_or_none(row["finished_at"]),
        )

    async def game_version(self, game_id: int) -> int | None:
        row = await self._row("SELECT version FROM games WHERE id = ?", (game_id,))
        return None if row is None else int(row["version"])

    async def finished_game_ids(self, limit: int, guild: str | None = None) -> list[int]:
        """The latest finished games, newest first."""
        rows = await self._rows(
            "SELECT id FROM games WHERE status = 'finished' AND (? IS NULL OR guild = ?)"
            " ORDER BY finished_at DESC, id DESC LIMIT ?",
            (guild, guild, limit),
        )
        return [int(r["id"]) for r in rows]

    async def claim_version(self, game_id: int, version: int, now: datetime) -> int:
        """Move an active game from ``version`` to the next; MoveConflict if it is not there."""
        cursor = await self._write(
            "UPDATE games SET version = version + 1, updated_at = ?"
            " WHERE id = ? AND version = ? AND status = 'active'",
            (_time_text(now), game_id, version),
        )
        if cursor.rowcount != 1:
            raise MoveConflict
        return version + 1

    async def expect_version(self, game_id: int, version: int) -> None:
        """MoveConflict unless the game is active and still at ``version``."""
        row = await self._row(
            "SELECT 1 FROM games WHERE id = ? AND version = ? AND status = 'active'",
            (game_id, version),
        )
        if row is None:
            raise MoveConflict

    async def finish_game(self, game_id: int, outcome: Outcome, now: datetime) -> None:
        """Record the result (call after ``claim_version`` in the same transaction)."""
        await self._write(
            "UPDATE games SET status = 'finished', winner = ?, reason = ?, finished_at = ?"
            " WHERE id = ?",
            (_text_or_none(outcome.winner), str(outcome.reason), _time_text(now), game_id),
        )

    # -- moves ---------------------------------------------------------------------------------

    async def moves(self, game_id: int) -> list[MoveRow]:
        rows = await self._rows(
            "SELECT ply, side, notation, captures, played_at FROM moves"
            " WHERE game_id = ? ORDER BY ply",
            (game_id,),
        )
        return [
            MoveRow(
                ply=int(r["ply"]),
                side=Side(r["side"]),
                notation=r["notation"],
                captures=tuple(r["captures"].split()),
                played_at=_time(r["played_at"]),
            )
            for r in rows
        ]

    async def insert_move(self, game_id: int, number: int, ply: Ply, played_at: datetime) -> None:
        """Store ``ply`` as ply ``number`` (from 1) of the game."""
        await self._write(
            "INSERT INTO moves (game_id, ply, side, notation, captures, played_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, number, str(ply.side), ply.notation, " ".join(ply.captures),
             _time_text(played_at)),
        )  # fmt: skip

    async def delete_moves_after(self, game_id: int, keep: int) -> None:
        """Take back every ply after the first ``keep``."""
        await self._write("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game_id, keep))

    # -- challenges ----------------------------------------------------------------------------

    async def insert_challenge(
        self,
        channel: Channel,
        challenger: Player,
        opponent: Player | None,
        variant: str,
        side: str,
        created_at: datetime,
        expires_at: datetime,
    ) -> Challenge:
        cursor = await self._write(
            "INSERT INTO challenges (guild, channel, challenger_id, challenger_name, opponent_id,"
            " opponent_name, variant, side, created_at, expires_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (channel.guild, channel.id, challenger.id, challenger.name,
             opponent.id if opponent else None, opponent.name if opponent else None,
             variant, side, _time_text(created_at), _time_text(expires_at)),
        )  # fmt: skip
        assert cursor.lastrowid is not None
        challenge = await self.challenge(cursor.lastrowid)
        assert challenge is not None
        return challenge

    async def challenge(self, challenge_id: int) -> Challenge | None:
        row = await self._row("SELECT * FROM challenges WHERE id = ?", (challenge_id,))
        return None if row is None else _challenge(row)

    async def close_challenge(
        self,
        challenge_id: int,
        status: ChallengeStatus,
        opponent: Player | None = None,
        game_id: int | None = None,
    ) -> bool:
        """Move an open challenge to ``status`` (recording who accepted and the game if given);
        False if it was no longer open."""
        cursor = await self._write(
            "UPDATE challenges SET status = ?,"
            " opponent_id = coalesce(?, opponent_id), opponent_name = coalesce(?, opponent_name),"
            " game_id = coalesce(?, game_id)"
            " WHERE id = ? AND status = 'open'",
            (str(status), opponent.id if opponent else None, opponent.name if opponent else None,
             game_id, challenge_id),
        )  # fmt: skip
        return cursor.rowcount == 1

    async def attach_message(self, challenge_id: int, message_ref: str) -> bool:
        """Record which message shows the challenge; False if there is no such challenge."""
        cursor = await self._write(
            "UPDATE challenges SET message_ref = ? WHERE id = ?", (message_ref, challenge_id)
        )
        return cursor.rowcount == 1

    async def expire_challenges(self, now: datetime) -> list[Challenge]:
        """Mark the open challenges due at ``now`` expired; return them as they are now."""
        stamp = _time_text(now)
        rows = await self._rows(
            "UPDATE challenges SET status = 'expired' WHERE status = 'open' AND expires_at <= ?"
            " RETURNING *",
            (stamp,),
        )
        return sorted((_challenge(r) for r in rows), key=lambda c: c.id)

    async def open_challenges(self, channel: Channel) -> list[Challenge]:
        rows = await self._rows(
            "SELECT * FROM challenges WHERE channel = ? AND status = 'open' ORDER BY id",
            (channel.id,),
        )
        return [_challenge(r) for r in rows]

    # -- offers --------------------------------------------------------------------------------

    async def insert_offer(
        self, game_id: int, kind: OfferKind, by: Player, to: Player, ply: int, now: datetime
    ) -> Offer:
        cursor = await self._write(
            "INSERT INTO offers (game_id, kind, by_id, by_name, to_id, to_name, ply, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, str(kind), by.id, by.name, to.id, to.name, ply, _time_text(now)),
        )
        assert cursor.lastrowid is not None
        offer = await self.offer(cursor.lastrowid)
        assert offer is not None
        return offer

    async def offer(self, offer_id: int) -> Offer | None:
        row = await self._row("SELECT * FROM offers WHERE id = ?", (offer_id,))
        return None if row is None else _offer(row)

    async def open_offers(self, game_id: int) -> list[Offer]:
        rows = await self._rows(
            "SELECT * FROM offers WHERE game_id = ? AND status = 'open' ORDER BY id", (game_id,)
        )
        return [_offer(r) for r in rows]

    async def close_offer(self, offer_id: int, status: OfferStatus) -> bool:
        """Move an open offer to ``status``; False if it was no longer open."""
        cursor = await self._write(
            "UPDATE offers SET status = ? WHERE id = ? AND status = 'open'",
            (str(status), offer_id),
        )
        return cursor.rowcount == 1

    async def void_offers(self, game_id: int) -> None:
        """Void the game's open offers (a move was played, or the game changed otherwise)."""
        await self._write(
            "UPDATE offers SET status = 'void' WHERE game_id = ? AND status = 'open'", (game_id,)
        )

    # -- announcements (the outbox) ------------------------------------------------------------

    async def insert_announcement(
        self, game_id: int, kind: AnnouncementKind, ply: int, now: datetime
    ) -> None:
        """Note that the game's channel must be shown ``kind`` after ``ply`` plies."""
        await self._write(
            "INSERT INTO announcements (game_id, kind, ply, created_at) VALUES (?, ?, ?, ?)",
            (game_id, str(kind), ply, _time_text(now)),
        )

    async def pending_announcements(
        self, channel_prefix: str, created_before: datetime, now: datetime, limit: int
    ) -> list[Announcement]:
        """Announcements not posted yet in the channels whose ids start with ``channel_prefix``,
        made before ``created_before`` and due for a try at ``now``; oldest first."""
        rows = await self._rows(
            "SELECT game_id, kind, ply, announcements.created_at, attempts FROM announcements"
            " JOIN games ON games.id = announcements.game_id"
            " WHERE posted_at IS NULL AND substr(games.channel, 1, length(?)) = ?"
            " AND announcements.created_at <= ?"
            " AND (next_attempt_at IS NULL OR next_attempt_at <= ?)"
            " ORDER BY announcements.id LIMIT ?",
            (channel_prefix, channel_prefix, _time_text(created_before), _time_text(now), limit),
        )
        return [
            Announcement(
                game_id=int(r["game_id"]),
                kind=AnnouncementKind(r["kind"]),
                ply=int(r["ply"]),
                created_at=_time(r["created_at"]),
                attempts=int(r["attempts"]),
            )
            for r in rows
        ]

    async def mark_announced(
        self, game_id: int, kind: AnnouncementKind, ply: int, now: datetime
    ) -> bool:
        """Mark an announcement posted; False if there was none pending."""
        cursor = await self._write(
            "UPDATE announcements SET posted_at = ?"
            " WHERE game_id = ? AND kind = ? AND ply = ? AND posted_at IS NULL",
            (_time_text(now), game_id, str(kind), ply),
        )
        return cursor.rowcount == 1

    async def announcement_failed(
        self, game_id: int, kind: AnnouncementKind, ply: int, retry_at: datetime
    ) -> None:
        """Count a failed post and put the next try off until ``retry_at``."""
        await self._write(
            "UPDATE announcements SET attempts = attempts + 1, next_attempt_at = ?"
            " WHERE game_id = ? AND kind = ? AND ply = ? AND posted_at IS NULL",
            (_time_text(retry_at), game_id, str(kind), ply),
        )

    async def drop_announcements_after(self, game_id: int, keep: int) -> None:
        """Forget the announcements of plies taken back (every ply after the first ``keep``)."""
        await self._write(
            "DELETE FROM announcements WHERE game_id = ? AND ply > ?", (game_id, keep)
        )

    # -- whole tables (for tests and tools) ----------------------------------------------------

    async def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, in a fixed order: to compare the database before and after."""
        tables = await self._rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
        dump: dict[str, list[tuple[Any, ...]]] = {}
        for table in tables:
            name = table["name"]
            rows = await self._rows(f'SELECT * FROM "{name}"')
            dump[name] = sorted((tuple(r) for r in rows), key=repr)
        return dump


# -- migrations --------------------------------------------------------------------------------


def migration_files(folder: Path) -> list[tuple[int, Path]]:
    """The migrations in ``folder`` by number; ValueError for a misnamed or repeated number."""
    found: dict[int, Path] = {}
    for path in sorted(folder.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise ValueError(f"migration {path.name!r} should be named like 0002_add_clocks.sql")
        number = int(match[1])
        if number in found:
            raise ValueError(f"two migrations are numbered {number}: {found[number].name}, {path}")
        found[number] = path
    return sorted(found.items())


async def _migrate(connection: aiosqlite.Connection, folder: Path) -> None:
    """Apply each migration newer than the database's ``user_version`` in its own transaction."""
    for number, path in migration_files(folder):
        await connection.execute("BEGIN IMMEDIATE")
        try:
            rows = list(await connection.execute_fetchall("PRAGMA user_version"))
            if int(rows[0][0]) >= number:
                await connection.rollback()
                continue
            for statement in _statements(path.read_text(encoding="utf-8")):
                await connection.execute(statement)
            await connection.execute(f"PRAGMA user_version = {number}")
        except BaseException:
            await connection.rollback()
            raise
        await connection.commit()


def _statements(script: str) -> Iterable[str]:
    """The SQL statements of a script, one by one."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer
            buffer = ""
    if buffer.strip() and not all(
        not line.strip() or line.strip().startswith("--") for line in buffer.splitlines()
    ):
        raise ValueError(f"the migration ends with an unfinished statement: {buffer.strip()[:60]}")


# -- conversions -------------------------------------------------------------------------------


def _time_text(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware; the clock should return UTC times")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _time_or_none(text: str | None) -> datetime | None:
    return None if text is None else _time(text)


def _text_or_none(value: object | None) -> str | None:
    return None if value is None else str(value)


def _side_or_none(text: str | None) -> Side | None:
    return None if text is None else Side(text)


def _challenge(row: sqlite3.Row) -> Challenge:
    opponent = row["opponent_id"]
    return Challenge(
        id=int(row["id"]),
        channel=Channel(row["channel"], row["guild"]),
        challenger=Player(row["challenger_id"], row["challenger_name"]),
        opponent=None if opponent is None else Player(opponent, row["opponent_name"]),
        variant=row["variant"],
        side=row["side"],
        status=ChallengeStatus(row["status"]),
        created_at=_time(row["created_at"]),
        expires_at=_time(row["expires_at"]),
        game_id=None if row["game_id"] is None else int(row["game_id"]),
        message_ref=row["message_ref"],
    )


def _offer(row: sqlite3.Row) -> Offer:
    return Offer(
        id=int(row["id"]),
        game_id=int(row["game_id"]),
        kind=OfferKind(row["kind"]),
        by=Player(row["by_id"], row["by_name"]),
        to=Player(row["to_id"], row["to_name"]),
        status=OfferStatus(row["status"]),
        ply=int(row["ply"]),
        created_at=_time(row["created_at"]),
    )
