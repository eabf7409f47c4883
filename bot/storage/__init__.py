"""The game store: every SQL statement of the project lives in this package.

``open_store`` opens a SQLite file (the default) or a PostgreSQL database (a ``postgresql://``
URL) and applies its pending migrations. Reads and writes go through a ``Session``:
``store.reading()`` for reads, ``store.transaction()`` for writes (committed together at the end,
or not at all). Game writes check the game's version, so that a second process holding an older
copy of a game cannot change it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from bot.storage.base import (
    MIGRATIONS,
    GameRow,
    MoveRow,
    Session,
    Store,
    migration_files,
    newest_migration,
)
from bot.storage.sqlite import DatabaseInUse, DatabaseOwner, SQLiteStore

__all__ = [
    "MIGRATIONS",
    "DatabaseInUse",
    "DatabaseOwner",
    "GameRow",
    "MoveRow",
    "Session",
    "Store",
    "db_target",
    "is_url",
    "migration_files",
    "newest_migration",
    "open_store",
    "opened",
    "shown_target",
    "store_class",
]

URL_SCHEMES = ("postgresql", "postgres")


def is_url(target: str | Path) -> bool:
    """Whether ``target`` names a PostgreSQL database (``postgresql://...``), not a file."""
    return isinstance(target, str) and urlsplit(target).scheme in URL_SCHEMES


def db_target(text: str | Path) -> str | Path:
    """What ``TAFL_DB`` or ``--db`` names: a ``postgresql://`` URL as it is, else a file path."""
    return str(text) if is_url(str(text)) else Path(text)


def store_class(target: str | Path) -> type[Store]:
    """The kind of store ``target`` names: a ``postgresql://`` URL, or else a SQLite file."""
    if is_url(target):
        from bot.storage.postgresql import PostgresStore

        return PostgresStore
    return SQLiteStore


async def open_store(
    target: str | Path, migrations: Path | None = None, *, migrate: bool = True
) -> Store:
    """Open the store ``target`` names (see ``store_class``) and apply its pending migrations
    (the project's, or those in ``migrations``; none if not ``migrate``)."""
    return await store_class(target).open(target, migrations, migrate=migrate)


@asynccontextmanager
async def opened(target: str | Path, *, migrate: bool = True) -> AsyncIterator[Store]:
    """The store ``target`` names, open for the ``async with`` block and closed after it."""
    store = await open_store(target, migrate=migrate)
    try:
        yield store
    finally:
        await store.close()


def shown_target(target: str | Path) -> str:
    """``target`` as messages show it: a URL with its password hidden, or the file's path."""
    if not is_url(target):
        return str(target)
    parts = urlsplit(str(target))
    if not parts.password:
        return str(target)
    user, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{user.partition(':')[0]}:***@{host}"))
