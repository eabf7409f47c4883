"""Pytest fixtures for the emulator; import them into a conftest.py:

from tests.fake_discord.fixtures import fake_discord  # noqa: F401
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from tests.fake_discord.driver import FakeDiscord


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A running emulator with default settings; fails the test on unexpected violations."""
    async with FakeDiscord() as emulator:
        yield emulator
