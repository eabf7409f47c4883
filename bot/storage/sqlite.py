"""The store in one SQLite file, through aiosqlite: the default.

``SQLiteStore.open`` applies the numbered migrations in ``bot/migrations/sqlite`` (the schema
version is ``PRAGMA user_version``) and turns on WAL and foreign keys. One session at a time
uses the connection; a write transaction is one ``BEGIN IMMEDIATE`` ... ``COMMIT``, so writers
of every process on the file take turns.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite

from bot.models import Channel
from bot.storage.base import Row, Session, Store, migration_files

BUSY_TIMEOUT = 10.0
"""How long a write waits for another process's write to finish."""
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


class SQLiteStore(Store):
    """Games, moves, challenges and offers in one SQLite file."""

    dialect = "sqlite"
    shared = False

    def __init__(self, connection: aiosqlite.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self._lock = asyncio.Lock()
        """One session at a time on this connection, so nobody reads another's uncommitted work."""
        self._jobs: set[str] = set()
        """The background jobs being done (one process owns the file: the bot's)."""

    @property
    def target(self) -> Path:
        return self.path

    @classmethod
    async def open(
        cls, target: str | Path, migrations: Path | None = None, *, migrate: bool = True
    ) -> SQLiteStore:
        """Open (or create) the database file ``target`` and apply any pending ``migrations``
        (default: the project's; none if not ``migrate``)."""
        path = Path(target)
        connection = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT)
        try:
            connection.row_factory = sqlite3.Row
            await connection.execute("PRAGMA journal_mode = WAL")
            await connection.execute("PRAGMA foreign_keys = ON")
            if migrate:
                await _migrate(connection, migrations or cls.migrations())
        except BaseException:
            await connection.close()
            raise
        return cls(connection, path)

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Session]:
        async with self._lock:
            yield SQLiteSession(self._db, writing=False)

    @asynccontextmanager
    async def leading(self, job: str) -> AsyncIterator[bool]:
        """The bot process owns its file, so only its own tasks can be doing ``job`` already."""
        if job in self._jobs:
            yield False
            return
        self._jobs.add(job)
        try:
            yield True
        finally:
            self._jobs.discard(job)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield SQLiteSession(self._db, writing=True)
            except BaseException:
                await self._db.rollback()
                raise
            await self._db.commit()


class SQLiteSession(Session):
    """The shared queries on an aiosqlite connection; times are ISO 8601 UTC text."""

    integrity_error: ClassVar[type[Exception]] = sqlite3.IntegrityError

    def __init__(self, connection: aiosqlite.Connection, writing: bool) -> None:
        super().__init__(writing)
        self._db = connection

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._db.execute_fetchall(sql, params))

    async def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = await self._db.execute(sql, params)
        return cursor.rowcount

    async def _execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._db.executemany(sql, rows)

    def _time_param(self, moment: datetime) -> str:
        return moment.isoformat(timespec="microseconds")

    async def _commit_without_waiting(self) -> None:
        """Nothing to do: a local file's commit is quick (and claims are not made here)."""

    async def _lock_channel(self, channel: Channel) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already holds every write of the file."""

    async def after_copy(self, table: str) -> None:
        """Nothing to do: a new row's id follows the largest one in its table."""

    async def schema_version(self) -> int:
        row = await self._row("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def table_names(self) -> list[str]:
        rows = await self._rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
        return [row["name"] for row in rows]


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
