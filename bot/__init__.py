"""The tafl bot: a platform-neutral game service and its adapters (Discord, terminal).

``create_bot`` is imported on first use, so ``import bot.service`` does not import discord.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import __version__

if TYPE_CHECKING:
    from bot.discord.client import TaflBot

__all__ = ["__version__", "create_bot"]


def create_bot(db_path: str, **options: Any) -> TaflBot:
    """The Discord bot playing from the database at ``db_path``, built but not started."""
    from bot.discord.client import create_bot as build

    return build(db_path, **options)
