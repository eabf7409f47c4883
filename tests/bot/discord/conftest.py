"""The real discord.py bot against the local Discord emulator, on each database (a SQLite file,
a PostgreSQL database: the ``db`` fixture)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from bot.compute import Compute
from bot.discord import TaflBot, create_bot
from bot.discord.client import SETTLED
from bot.models import Channel
from bot.storage import is_url
from tests.bot.conftest import FakeClock
from tests.fake_discord import Channel as FakeChannel
from tests.fake_discord import FakeDiscord, Message, User

RunBot = Callable[..., AbstractAsyncContextManager[TaflBot]]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """The emulator; a test fails if the bot broke a Discord rule (3 s deadline, double ack...)."""
    async with FakeDiscord(check_on_exit=False) as fake_discord:
        yield fake_discord
        fake_discord.assert_no_violations()


@pytest.fixture(scope="session")
def workers() -> Iterator[Compute]:
    """One set of worker processes for every bot of the test run (they take a while to start)."""
    compute = Compute.in_processes(ai_workers=2)
    yield compute
    asyncio.run(compute.close())


@pytest.fixture
def run_bot(fake: FakeDiscord, db: str | Path, workers: Compute) -> RunBot:
    """``async with run_bot(**options) as bot:`` a bot on the test's database, commands synced,
    on the test run's worker processes."""

    def start(**options: Any) -> AbstractAsyncContextManager[TaflBot]:
        options.setdefault("sync", True)
        options.setdefault("guild_ready_timeout", 0.05)
        options.setdefault("ai_time_limit", 0.2)
        options.setdefault("compute", workers.shared())
        bot = create_bot(db, **options)
        return fake.running(bot)

    return start


@pytest.fixture
async def bot(run_bot: RunBot) -> AsyncIterator[TaflBot]:
    async with run_bot() as running:
        yield running


@pytest.fixture
def alice(fake: FakeDiscord) -> User:
    return fake.add_user("alice")


@pytest.fixture
def bob(fake: FakeDiscord) -> User:
    return fake.add_user("bob")


@pytest.fixture
def carol(fake: FakeDiscord) -> User:
    return fake.add_user("carol")


def embed_of(message: Message | None) -> dict[str, Any]:
    """The first embed of a message, which must have one."""
    assert message is not None and message.embed is not None, message
    return message.embed


def channel_of(fake: FakeDiscord, channel: FakeChannel | None = None) -> Channel:
    """The service's name for an emulator channel (default: the default channel)."""
    target = channel or fake.channel
    guild = None if target.guild is None else f"discord:{target.guild.id}"
    return Channel(f"discord:{target.id}", guild)


async def settled_on_a_shared_database(fake: FakeDiscord, db: str | Path, clock: FakeClock) -> None:
    """On PostgreSQL, which other bot processes may share, a young post or AI turn may be one
    of theirs under way: nothing is taken up until it has settled. (A SQLite file has one bot
    process: it takes up everything at once.)"""
    if is_url(db):
        await asyncio.sleep(0.5)
        assert [m for m in fake.channel.messages if m.files] == []
        clock.advance(seconds=SETTLED.total_seconds() + 1)
