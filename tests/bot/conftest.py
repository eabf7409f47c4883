"""Fixtures for the game service and its store, on each database (a real SQLite file in tmp_path,
a fresh database on the test run's PostgreSQL server), and a fake clock."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.models import Channel, Player
from bot.service import GameService
from bot.storage import Store, is_url, open_store
from bot.storage.postgresql import numbered

START = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


class FakeClock:
    """A clock that stands still until a test moves it."""

    def __init__(self, now: datetime = START) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A SQLite file (for the tests of what only SQLite has)."""
    return tmp_path / "tafl.db"


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, db_path: Path) -> str | Path:
    """The test's database, once of each kind: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return db_path
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
async def store(db: str | Path) -> AsyncIterator[Store]:
    store = await open_store(db)
    yield store
    await store.close()


@pytest.fixture
async def there(db: str | Path, clock: FakeClock) -> AsyncIterator[GameService]:
    """A second service on the same database, as another bot process would hold."""
    other_store = await open_store(db)
    yield GameService(other_store, clock)
    await other_store.close()


def stamp(db: str | Path, moment: datetime) -> Any:
    """A time as ``raw_execute`` passes it to the database."""
    return moment if is_url(db) else moment.isoformat(timespec="microseconds")


async def raw_execute(db: str | Path, sql: str, *params: Any) -> None:
    """Run one statement (``?`` placeholders) on a connection of its own, past the store, as
    another program would; the driver's error if the database refuses it."""
    if is_url(db):
        connection = await asyncpg.connect(str(db))
        try:
            await connection.execute(numbered(sql), *params)
        finally:
            await connection.close()
        return
    raw = sqlite3.connect(db)
    try:
        with raw:
            raw.execute(sql, params)
    finally:
        raw.close()


def raw_execute_now(db: str | Path, sql: str, *params: Any) -> None:
    """``raw_execute`` from synchronous code (a clock, say), done before it returns."""
    with ThreadPoolExecutor(1) as worker:
        worker.submit(asyncio.run, raw_execute(db, sql, *params)).result()


@pytest.fixture
def service(store: Store, clock: FakeClock) -> GameService:
    return GameService(store, clock, rng=random.Random(7))


@pytest.fixture
def alice() -> Player:
    return Player("test:alice", "Alice")


@pytest.fixture
def bob() -> Player:
    return Player("test:bob", "Bob")


@pytest.fixture
def carol() -> Player:
    return Player("test:carol", "Carol")


@pytest.fixture
def hall() -> Channel:
    return Channel("test:hall", guild="test:guild")


@pytest.fixture
def thread() -> Channel:
    """A thread under the hall: a channel of its own."""
    return Channel("test:hall-thread", guild="test:guild")
