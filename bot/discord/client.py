"""The bot: builds the game service in ``setup_hook``, registers the buttons, sweeps challenges."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.cog import TaflCog
from bot.discord.present import challenge_message, warm_up
from bot.discord.replies import ANSWER_BUDGET, report_error
from bot.discord.views import DYNAMIC_ITEMS, ButtonHandler
from bot.health import HEARTBEAT_INTERVAL, beat_forever, heartbeat_path
from bot.models import Challenge, utc_now
from bot.service import AI_TIME_LIMIT, MOVE_TIMEOUT, GameService
from bot.storage import Store

log = logging.getLogger(__name__)

SWEEP_INTERVAL = 60.0
"""Seconds between two looks for expired challenges."""


def bot_intents() -> discord.Intents:
    """Guild events only: the bot reads no messages, members or presences (all it needs comes
    with the interactions)."""
    return discord.Intents(guilds=True)


class TaflCommandTree(app_commands.CommandTree[Any]):
    """The slash command tree; its ``on_error`` is where every command's error is answered."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)


class TaflBot(commands.Bot):
    """A Discord bot that plays tafl through the game service, stored at ``db_path``.

    ``sync`` publishes the slash commands at start-up (to ``sync_guild`` only, if given);
    ``clock`` is the service's clock; ``sweep_interval`` the seconds between two looks for
    expired challenges; ``ai_time_limit`` the AI's seconds per move; ``move_timeout`` how long
    a player may take over a move before the opponent can claim the game; ``answer_budget``
    the seconds an interaction may wait before it is deferred; ``heartbeat_interval`` the seconds
    between two heartbeats for ``tafl health``. Other options go to discord.py.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        sync: bool = False,
        sync_guild: int | None = None,
        clock: Callable[[], datetime] = utc_now,
        sweep_interval: float = SWEEP_INTERVAL,
        ai_time_limit: float = AI_TIME_LIMIT,
        move_timeout: timedelta = MOVE_TIMEOUT,
        answer_budget: float = ANSWER_BUDGET,
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
        **options: Any,
    ) -> None:
        options.setdefault("intents", bot_intents())
        options.setdefault(
            "allowed_mentions", discord.AllowedMentions(everyone=False, roles=False, users=True)
        )
        options.setdefault("tree_cls", TaflCommandTree)
        super().__init__(command_prefix=commands.when_mentioned, help_command=None, **options)
        self.db_path = db_path
        self.sync_commands = sync
        self.sync_guild = sync_guild
        self.clock = clock
        self.sweep_interval = sweep_interval
        self.ai_time_limit = ai_time_limit
        self.move_timeout = move_timeout
        self.answer_budget = answer_budget
        """Seconds an interaction waits for its answer before it is deferred."""
        self.heartbeat_interval = heartbeat_interval
        """Seconds between two writes of the heartbeat file beside the database (bot/health.py)."""
        self._store: Store | None = None
        self._service: GameService | None = None
        self._background: list[asyncio.Task[None]] = []
        """The challenge sweep and the AI's resumed turns, cancelled on close."""

    @property
    def service(self) -> GameService:
        if self._service is None:
            raise RuntimeError("the game service starts in setup_hook; log the bot in first")
        return self._service

    @property
    def buttons(self) -> ButtonHandler:
        """Who handles button clicks: the /tafl cog."""
        cog = self.get_cog("TaflCog")
        if cog is None:
            raise RuntimeError("the /tafl cog is added in setup_hook; log the bot in first")
        return cast(ButtonHandler, cog)

    async def setup_hook(self) -> None:
        self._store = await Store.open(os.fspath(self.db_path))
        self._service = GameService(
            self._store,
            self.clock,
            ai_time_limit=self.ai_time_limit,
            move_timeout=self.move_timeout,
        )
        await self.add_cog(TaflCog(self))
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        await warm_up()
        if self.sync_commands:
            await self.sync_app_commands(self.sync_guild)
        self._background = [
            asyncio.create_task(self._sweep_forever(), name="tafl-challenge-sweep"),
            asyncio.create_task(self._resume_ai_turns(), name="tafl-resume-ai"),
            asyncio.create_task(
                beat_forever(
                    heartbeat_path(self.db_path), self._connected, self.heartbeat_interval
                ),
                name="tafl-heartbeat",
            ),
        ]

    async def sync_app_commands(self, guild_id: int | None = None) -> list[app_commands.AppCommand]:
        """Publish the slash commands, to one guild (at once) or globally (within the hour)."""
        guild = None if guild_id is None else discord.Object(guild_id)
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        synced = await self.tree.sync(guild=guild)
        where = "globally" if guild is None else f"to guild {guild_id}"
        log.info("synced %d commands %s", len(synced), where)
        return synced

    async def close(self) -> None:
        for task in self._background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await super().close()
        if self._store is not None:
            await self._store.close()
            self._store = None

    def _connected(self) -> bool:
        """Whether the bot is logged in with its gateway socket open (discord.py drops a socket
        whose heartbeats go unanswered), so that a heartbeat may be written."""
        ws = self.ws
        return self.is_ready() and not self.is_closed() and ws is not None and ws.open

    async def _resume_ai_turns(self) -> None:
        """Once connected, let the AI answer in the games where a restart left it to move."""
        await self.wait_until_ready()
        cog = self.get_cog("TaflCog")
        if isinstance(cog, TaflCog):
            await cog.resume_ai_games()

    # -- expired challenges -----------------------------------------------------------------------

    async def remember_challenge(self, challenge_id: int, channel_id: int, message_id: int) -> None:
        """Store where a challenge was posted, so the sweep can mark it when it expires (even
        after a restart)."""
        await self.service.attach_message(challenge_id, message_ref(channel_id, message_id))

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_interval)
            try:
                await self.sweep_challenges()
            except Exception:
                log.exception("the sweep of expired challenges failed; trying again later")

    async def sweep_challenges(self) -> list[Challenge]:
        """Expire overdue challenges and mark the messages that show them."""
        expired = await self.service.expire_challenges()
        for challenge in expired:
            if challenge.message_ref is None:
                continue  # posted nowhere (or before message references were kept)
            where = parse_message_ref(challenge.message_ref)
            if where is None:
                continue
            channel_id, message_id = where
            message = self.get_partial_messageable(channel_id).get_partial_message(message_id)
            outgoing = challenge_message(challenge)
            try:
                await message.edit(embed=outgoing.embed, view=None)
            except discord.HTTPException:
                log.exception("could not mark challenge %s as expired", challenge.id)
        return expired


def message_ref(channel_id: int, message_id: int) -> str:
    """How the service keeps a Discord message: ``"channel_id:message_id"``."""
    return f"{channel_id}:{message_id}"


def parse_message_ref(ref: str) -> tuple[int, int] | None:
    """(channel id, message id) of a ``message_ref``; None (logged) if it is not one."""
    channel_id, colon, message_id = ref.partition(":")
    if not (colon and channel_id.isdigit() and message_id.isdigit()):
        log.warning("%r is not a Discord message reference (channel_id:message_id)", ref)
        return None
    return int(channel_id), int(message_id)


def create_bot(db_path: str | os.PathLike[str], **options: Any) -> TaflBot:
    """The bot, built but not started (see ``TaflBot`` for the options)."""
    return TaflBot(db_path, **options)


def run(
    token: str,
    db_path: str,
    *,
    sync: bool = False,
    guild: int | None = None,
    move_timeout: timedelta = MOVE_TIMEOUT,
) -> None:
    """Log in with ``token`` and play until stopped; ``sync`` publishes the slash commands first
    (to ``guild`` only when given); ``move_timeout`` is how long a move may take before the
    game can be claimed."""
    bot = create_bot(db_path, sync=sync, sync_guild=guild, move_timeout=move_timeout)
    configured = bool(logging.getLogger().handlers)
    if configured:
        bot.run(token, log_handler=None)
    else:
        bot.run(token)
