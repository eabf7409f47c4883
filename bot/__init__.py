"""The tafl bot: a platform-neutral game service and its adapters (Discord, terminal).

``create_bot`` is imported on first use, so ``import bot.service`` does not import discord.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from engine import __version__

if TYPE_CHECKING:
    from bot.discord.client import TaflBot

__all__ = ["__version__", "create_bot"]


def create_bot(
    db_path: str | os.PathLike[str] | None = None,
    *,
    database_url: str | None = None,
    **options: Any,
) -> TaflBot:
    """The Discord bot playing from the SQLite file ``db_path`` or the PostgreSQL database at
    ``database_url`` (one of the two), built but not started."""
    from bot.discord.client import create_bot as build
    from bot.storage import db_target, is_url

    if (db_path is None) == (database_url is None):
        raise ValueError("give the bot one database: db_path (a SQLite file) or database_url")
    if database_url is not None and not is_url(database_url):
        raise ValueError(f"database_url takes a postgresql:// URL, not {database_url!r}")
    return build(db_target(os.fspath(db_path) if db_path is not None else str(database_url)),
                 **options)  # fmt: skip
