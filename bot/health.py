"""Is the bot alive? The running bot writes a heartbeat file beside its database while its
Discord gateway is connected; ``tafl health`` (Docker's HEALTHCHECK) reads it and opens the
database.

The heartbeat is one line, the UTC time it was written (ISO 8601), in ``<database>.heartbeat``
for a SQLite file, or ``tafl-bot.heartbeat`` in the working folder for a PostgreSQL database.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from bot.models import utc_now
from bot.storage import is_url, opened, shown_target

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 30.0
"""Seconds between two heartbeats."""
HEARTBEAT_MAX_AGE = timedelta(seconds=3 * HEARTBEAT_INTERVAL)
"""A heartbeat older than this means the bot is stuck or cut off from Discord."""


class Unhealthy(Exception):
    """The health check failed; the message says what is wrong."""


URL_HEARTBEAT = Path("tafl-bot.heartbeat")
"""Where a bot on a PostgreSQL database writes its heartbeat (in its working folder)."""


def heartbeat_path(database: str | os.PathLike[str]) -> Path:
    """Where the bot using ``database`` (a SQLite file or a URL) writes its heartbeat."""
    target = os.fspath(database)
    return URL_HEARTBEAT if is_url(target) else Path(f"{target}.heartbeat")


def write_heartbeat(path: Path, now: datetime) -> None:
    """Record ``now`` as the last heartbeat (replacing the file at once, never half-written)."""
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(now.isoformat() + "\n", encoding="utf-8")
    partial.replace(path)


async def beat_forever(
    path: Path,
    connected: Callable[[], bool],
    interval: float = HEARTBEAT_INTERVAL,
    clock: Callable[[], datetime] = utc_now,
) -> None:
    """Every ``interval`` seconds, write a heartbeat if ``connected()`` says the gateway is up."""
    while True:
        if connected():
            try:
                write_heartbeat(path, clock())
            except OSError:
                log.exception("could not write the heartbeat file %s", path)
        await asyncio.sleep(interval)


async def check_health(
    database: str | Path, now: datetime, max_age: timedelta = HEARTBEAT_MAX_AGE
) -> str:
    """A one-line summary when the database opens and the heartbeat is recent; Unhealthy else."""
    if isinstance(database, Path) and not database.is_file():
        raise Unhealthy(f"there is no database at {database}")
    try:
        async with opened(database, migrate=False) as store:
            schema = await store.schema_version()
    except Exception as error:  # any failure to open it is the answer, not a crash
        raise Unhealthy(f"can't open the database {shown_target(database)}: {error}") from None
    path = heartbeat_path(database)
    try:
        written = datetime.fromisoformat(path.read_text(encoding="utf-8").strip())
    except FileNotFoundError:
        raise Unhealthy(f"no heartbeat yet ({path}): the bot has not connected") from None
    except (OSError, ValueError) as error:
        raise Unhealthy(f"can't read the heartbeat {path}: {error}") from None
    age = now - written
    if age > max_age:
        seconds = int(age.total_seconds())
        raise Unhealthy(f"the last heartbeat is {seconds} s old: the bot is stuck or offline")
    return f"healthy: database schema {schema}, heartbeat {int(age.total_seconds())} s ago"
