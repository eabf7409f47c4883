"""Settings from the environment and a ``.env`` file: the Discord token, the database (a SQLite
file or a PostgreSQL URL), logging, the move timeout.

The process environment wins over the ``.env`` file. The token is never shown: it is left out
of ``repr`` and no message of this module contains it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.storage import db_target
from engine.errors import TaflError

TOKEN_VAR = "DISCORD_TOKEN"
DB_VAR = "TAFL_DB"
LOG_LEVEL_VAR = "TAFL_LOG_LEVEL"
MOVE_TIMEOUT_VAR = "TAFL_MOVE_TIMEOUT_HOURS"
SHARD_COUNT_VAR = "TAFL_SHARD_COUNT"
SHARD_IDS_VAR = "TAFL_SHARD_IDS"
ENV_VARS = (TOKEN_VAR, DB_VAR, LOG_LEVEL_VAR, MOVE_TIMEOUT_VAR, SHARD_COUNT_VAR, SHARD_IDS_VAR)
"""Every variable the project reads."""

DEFAULT_DB = Path("tafl.sqlite3")
DEFAULT_LOG_LEVEL = "INFO"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DEFAULT_MOVE_TIMEOUT_HOURS = 24.0

TOKEN_HELP = (
    f"no Discord token: set {TOKEN_VAR} in the environment or in a .env file "
    "(create an application at https://discord.com/developers/applications, "
    "then Bot > Reset Token)"
)


class ConfigError(TaflError):
    """A setting has a value the project cannot use."""


@dataclass(frozen=True)
class Settings:
    """What the bot and the terminal game are configured with."""

    discord_token: str | None = field(default=None, repr=False)
    db: str | Path = DEFAULT_DB
    """The database: a SQLite file, or a ``postgresql://`` URL."""
    log_level: str = DEFAULT_LOG_LEVEL
    move_timeout: timedelta = timedelta(hours=DEFAULT_MOVE_TIMEOUT_HOURS)
    """How long a player may take over a move before the opponent can claim the game."""
    shard_count: int | None = None
    """How many shards the bot has across its processes (None: as Discord recommends)."""
    shard_ids: tuple[int, ...] | None = None
    """The shards this process runs (None: all of them)."""

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]

    @classmethod
    def load(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
    ) -> Settings:
        """Settings from ``environ`` (default: the process environment) over ``env_file``.

        ConfigError for a bad line or value; a value from the file is located by file and line.
        """
        lines = _env_file_lines(env_file) if env_file is not None else {}
        environ = os.environ if environ is None else environ
        values = {key: value for key, (value, _) in lines.items()}
        values.update(environ)

        def invalid(key: str, problem: str) -> ConfigError:
            from_file = key in lines and key not in environ
            where = f"{env_file}, line {lines[key][1]}: " if from_file else ""
            return ConfigError(f"{where}{key}={values[key].strip()!r} {problem}")

        token = values.get(TOKEN_VAR, "").strip() or None
        db = values.get(DB_VAR, "").strip()
        level = values.get(LOG_LEVEL_VAR, "").strip().upper() or DEFAULT_LOG_LEVEL
        if level not in LOG_LEVELS:
            raise invalid(LOG_LEVEL_VAR, f"is not a log level; use one of {', '.join(LOG_LEVELS)}")
        hours = _move_timeout_hours(values.get(MOVE_TIMEOUT_VAR, ""))
        if hours is None:
            raise invalid(
                MOVE_TIMEOUT_VAR,
                "is not a number of hours; use a positive number such as 24 or 0.5",
            )
        return cls(
            discord_token=token,
            db=db_target(db) if db else DEFAULT_DB,
            log_level=level,
            move_timeout=timedelta(hours=hours),
            **shards(
                values.get(SHARD_COUNT_VAR, ""),
                values.get(SHARD_IDS_VAR, ""),
                SHARD_COUNT_VAR,
                SHARD_IDS_VAR,
            ),
        )


def _move_timeout_hours(text: str) -> float | None:
    """The move timeout in hours (the default when empty); None if it is not a usable number."""
    if not text.strip():
        return DEFAULT_MOVE_TIMEOUT_HOURS
    try:
        hours = float(text)
    except ValueError:
        return None
    return hours if 0 < hours < 24 * 365 * 100 else None


def shards(
    count_text: str | None, ids_text: str | None, count_name: str, ids_name: str
) -> dict[str, Any]:
    """``shard_count`` and ``shard_ids`` from their texts ("4", "0,1"; empty: not given);
    ConfigError, naming the setting by ``count_name`` or ``ids_name``, if they are unusable."""
    count = None
    if count_text and count_text.strip():
        if not count_text.strip().isdigit() or int(count_text) < 1:
            raise ConfigError(f"{count_name}={count_text.strip()!r} is not a number of shards;"
                              " use a whole number from 1, such as 2")  # fmt: skip
        count = int(count_text)
    ids = None
    if ids_text and ids_text.strip():
        parts = [part.strip() for part in ids_text.split(",")]
        if count is None:
            raise ConfigError(f"{ids_name} needs {count_name}: the shards of how many?")
        if not all(part.isdigit() and int(part) < count for part in parts):
            raise ConfigError(
                f"{ids_name}={ids_text.strip()!r} should list shard numbers from 0 to"
                f" {count - 1}, separated by commas, such as 0,1"
            )
        ids = tuple(sorted({int(part) for part in parts}))
    return {"shard_count": count, "shard_ids": ids}


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=value`` lines of a ``.env`` file (``#`` comments, ``export``, quotes); {} if absent."""
    return {key: value for key, (value, _) in _env_file_lines(path).items()}


def _env_file_lines(path: Path) -> dict[str, tuple[str, int]]:
    """Each key of a ``.env`` file with its value and line number; ConfigError naming the line
    (never echoing it: it may hold the token) for a line that is not ``KEY=value``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise ConfigError(f"can't read {path}: {reason}") from None
    values: dict[str, tuple[str, int]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        line = line.removeprefix("export ").lstrip()
        key, equals, value = line.partition("=")
        key = key.strip()
        if not equals or not key.isidentifier():
            raise ConfigError(f"{path}, line {number}: expected KEY=value")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = (value, number)
    return values
