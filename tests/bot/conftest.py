"""Fixtures for the game service and its store: a real SQLite file in tmp_path and a fake clock."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.models import Channel, Player
from bot.service import GameService
from bot.storage import Store

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
    return tmp_path / "tafl.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    store = await Store.open(db_path)
    yield store
    await store.close()


@pytest.fixture
async def there(db_path: Path, clock: FakeClock) -> AsyncIterator[GameService]:
    """A second service on the same database file, as another bot process would hold."""
    other_store = await Store.open(db_path)
    yield GameService(other_store, clock)
    await other_store.close()


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
