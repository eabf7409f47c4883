"""The health check: the database must open and the bot's heartbeat must be recent."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.health import HEARTBEAT_MAX_AGE, Unhealthy, check_health, heartbeat_path, write_heartbeat
from bot.storage import Store
from tests.bot.conftest import START


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot on PostgreSQL beats in its working folder: the test's own."""
    monkeypatch.chdir(tmp_path)


async def test_healthy_when_the_database_opens_and_the_heartbeat_is_recent(
    store: Store, db: str | Path
) -> None:
    write_heartbeat(heartbeat_path(db), START)
    summary = await check_health(db, START + timedelta(seconds=20))
    assert summary == (
        f"healthy: database schema {await store.schema_version()}, heartbeat 20 s ago"
    )


async def test_a_stale_heartbeat_is_unhealthy(store: Store, db: str | Path) -> None:
    write_heartbeat(heartbeat_path(db), START)
    await check_health(db, START + HEARTBEAT_MAX_AGE)
    with pytest.raises(Unhealthy, match="is 91 s old"):
        await check_health(db, START + HEARTBEAT_MAX_AGE + timedelta(seconds=1))


async def test_no_heartbeat_yet_is_unhealthy(store: Store, db: str | Path) -> None:
    with pytest.raises(Unhealthy, match="no heartbeat yet"):
        await check_health(db, START)
    heartbeat_path(db).write_text("soon\n")
    with pytest.raises(Unhealthy, match="can't read the heartbeat"):
        await check_health(db, START)


async def test_a_missing_or_broken_database_is_unhealthy(tmp_path: Path) -> None:
    with pytest.raises(Unhealthy, match="there is no database"):
        await check_health(tmp_path / "none.sqlite3", START)
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"this is not a database" * 100)
    write_heartbeat(heartbeat_path(broken), START)
    with pytest.raises(Unhealthy, match="can't open the database"):
        await check_health(broken, START)
    assert not (tmp_path / "none.sqlite3").exists()  # the check created nothing
