"""A real PostgreSQL server for the whole test run (pgserver: binaries from a wheel, no network),
and a fresh schema of it for each test that asks for a database."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from pgserver.postgres_server import PostgresServer, get_server

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One server, started on first use (a few seconds) and removed at the end of the run.

    Commits do not wait for the disk, and the server is stopped without a last checkpoint: the
    data is thrown away at the end anyway."""
    folder = Path(tempfile.mkdtemp(prefix="tafl-postgres-"))
    server = get_server(folder, cleanup_mode="delete")
    asyncio.run(_run(server.get_uri(), "ALTER SYSTEM SET synchronous_commit = off",
                     "ALTER SYSTEM SET fsync = off", "SELECT pg_reload_conf()"))  # fmt: skip
    yield server
    _stop_at_once(server.get_pid())
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a new, empty database on the test server: a schema of its own, which the
    URL makes the connections' search path."""
    name = f"test_{next(_numbers)}"
    await _run(postgres_server.get_uri(), f"CREATE SCHEMA {name}")
    return f"{postgres_server.get_uri()}&search_path={name}"


async def _run(url: str, *statements: str) -> None:
    connection = await asyncpg.connect(url)
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


def _stop_at_once(pid: int | None, wait: float = 30.0) -> None:
    """Stop the server without a last checkpoint (SIGQUIT) and wait until it is gone."""
    if pid is None:
        return
    os.kill(pid, signal.SIGQUIT)
    give_up = time.monotonic() + wait
    while time.monotonic() < give_up:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
