"""The store in PostgreSQL, through an asyncpg connection pool: for several bot processes.

``PostgresStore.open`` applies the numbered migrations in ``bot/migrations/postgresql`` under an
advisory lock, so that processes starting together apply each one once; the schema version is
the one row of ``schema_version``. Sessions run side by side, each on a pooled connection: reads
in a read-only snapshot, writes in a read-committed transaction whose deciding reads lock rows
(``SELECT ... FOR UPDATE``) or the channel (an advisory lock) until the commit.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import asyncpg

from bot.models import Channel
from bot.storage.base import Row, Session, Store, migration_files

LOCK_SPACE = 0x7AF1
"""The first key of every advisory lock the project takes (the second says what is locked)."""
MIGRATION_LOCK = 0
JOB_SPACE = 0x7AF2
"""The first key of a background job's lock (the second: the hash of its name)."""
POOL_SIZE = 10
"""Connections per process: as many sessions as this run at once."""
_TABLES = (
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    " AND table_type = 'BASE TABLE' AND table_name <> 'schema_version' ORDER BY table_name"
)


class DatabaseUnreachable(OSError):
    """No PostgreSQL server answers at the URL (refused, unknown host, no such socket)."""


class PostgresStore(Store):
    """Games, moves, challenges and offers in a PostgreSQL database."""

    dialect = "postgresql"
    shared = True

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self.url = url

    @property
    def target(self) -> str:
        return self.url

    @classmethod
    async def open(
        cls, target: str | Path, migrations: Path | None = None, *, migrate: bool = True
    ) -> PostgresStore:
        """Connect to the database at the URL ``target`` and apply any pending ``migrations``
        (default: the project's; none if not ``migrate``)."""
        url = str(target)
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=POOL_SIZE)
        except OSError as error:
            from bot.storage import shown_target

            reason = error.strerror or str(error)
            raise DatabaseUnreachable(
                f"can't reach the database at {shown_target(url)}: {reason}"
            ) from error
        try:
            if migrate:
                async with pool.acquire() as connection:
                    await _migrate(connection, migrations or cls.migrations())
        except BaseException:
            await pool.close()
            raise
        return cls(pool, url)

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[Session]:
        async with (
            self._pool.acquire() as connection,
            connection.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield PostgresSession(connection, writing=False)

    @asynccontextmanager
    async def leading(self, job: str) -> AsyncIterator[bool]:
        """An advisory lock on ``job``, held by a connection of this process while the block
        runs: if the process dies, the server ends its session and frees the job for another."""
        async with self._pool.acquire() as connection:
            key = (JOB_SPACE, f"job:{job}")
            held = await connection.fetchval("SELECT pg_try_advisory_lock($1, hashtext($2))", *key)
            try:
                yield bool(held)
            finally:
                if held:
                    await connection.fetchval("SELECT pg_advisory_unlock($1, hashtext($2))", *key)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        async with self._pool.acquire() as connection, connection.transaction():
            yield PostgresSession(connection, writing=True)


class PostgresSession(Session):
    """The shared queries on a pooled asyncpg connection; times are ``timestamptz``."""

    integrity_error: ClassVar[type[Exception]] = asyncpg.IntegrityConstraintViolationError
    _for_update: ClassVar[str] = " FOR UPDATE"

    def __init__(self, connection: asyncpg.pool.PoolConnectionProxy, writing: bool) -> None:
        super().__init__(writing)
        self._db = connection

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._db.fetch(numbered(sql), *params))

    async def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        status = await self._db.execute(numbered(sql), *params)
        return int(status.rsplit(" ", 1)[-1])  # "UPDATE 1", "INSERT 0 1", "DELETE 3"

    async def _execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._db.executemany(numbered(sql), rows)

    def _time_param(self, moment: datetime) -> datetime:
        return moment

    async def _commit_without_waiting(self) -> None:
        await self._db.execute("SET LOCAL synchronous_commit TO OFF")

    async def _lock_channel(self, channel: Channel) -> None:
        await self._db.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", LOCK_SPACE, f"channel:{channel.id}"
        )

    async def schema_version(self) -> int:
        return await _schema_version(self._db)

    async def table_names(self) -> list[str]:
        return [row["table_name"] for row in await self._db.fetch(_TABLES)]

    async def after_copy(self, table: str) -> None:
        """Move the table's id sequence (if it has one) past the ids copied in."""
        sequence = await self._db.fetchval(
            "SELECT pg_get_serial_sequence($1, 'id') FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id'",
            table,
        )
        if sequence is not None:
            await self._db.execute(
                f'SELECT setval($1::text::regclass, max(id)) FROM "{table}"', sequence
            )


@cache
def numbered(sql: str) -> str:
    """A statement written with ``?`` placeholders, with PostgreSQL's ``$1, $2, ...``."""
    count = 0

    def number(_: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return f"${count}"

    return re.sub(r"\?", number, sql)


async def _schema_version(connection: asyncpg.Connection | asyncpg.pool.PoolConnectionProxy) -> int:
    if await connection.fetchval("SELECT to_regclass('schema_version')") is None:
        return 0
    version = await connection.fetchval("SELECT version FROM schema_version")
    return 0 if version is None else int(version)


async def _migrate(connection: asyncpg.pool.PoolConnectionProxy, folder: Path) -> None:
    """Apply each migration newer than the schema version, each in its own transaction, all
    under one advisory lock: a second process starting meanwhile waits, then finds them done."""
    await connection.execute("SELECT pg_advisory_lock($1, $2)", LOCK_SPACE, MIGRATION_LOCK)
    try:
        await connection.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL);"
            " INSERT INTO schema_version (version)"
            " SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM schema_version)"
        )
        for number, path in migration_files(folder):
            async with connection.transaction():
                if await _schema_version(connection) >= number:
                    continue
                await connection.execute(path.read_text(encoding="utf-8"))
                await connection.execute("UPDATE schema_version SET version = $1", number)
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1, $2)", LOCK_SPACE, MIGRATION_LOCK)
