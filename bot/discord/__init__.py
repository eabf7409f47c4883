"""The Discord adapter: slash commands and buttons over the game service."""

from bot.discord.client import TaflBot, create_bot, run

__all__ = ["TaflBot", "create_bot", "run"]
