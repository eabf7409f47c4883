"""The bot: owns its database and worker processes, builds the game service in ``setup_hook``,
registers the buttons, sweeps challenges and posts what is pending; stops gracefully."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.compute import Compute
from bot.discord.cog import TaflCog
from bot.discord.present import (
    challenge_message,
    message_ref,
    parse_message_ref,
)
from bot.discord.replies import ANSWER_BUDGET, Outgoing, Reply, too_old_to_edit
from bot.discord.views import DYNAMIC_ITEMS, ButtonHandler
from bot.health import HEARTBEAT_INTERVAL, beat_forever, heartbeat_path
from bot.models import Challenge, utc_now
from bot.service import AI_TIME_LIMIT, MOVE_TIMEOUT, GameService
from bot.storage import DatabaseOwner, Store, db_target, is_url, open_store

log = logging.getLogger(__name__)

SWEEP_SECONDS = 60.0
"""Seconds between two sweeps (clocks, reminders, expired challenges, posts still pending)."""
LIVE_SWEEP = 1.0
"""Seconds between two sweeps while a live game (a clock under two hours) is running."""
SETTLED = timedelta(seconds=30)
"""How old a pending post, or an AI turn, must be before a sweep takes it up (younger ones are
the business of the interaction that made them)."""
BACKGROUND_JOB = "sweep"
"""The name under which one process at a time, of those sharing a database, sweeps."""
STOP_GRACE = 5.0
"""Seconds a stopping bot lets the interactions under way finish."""
OWNER_WAIT = 30.0
"""Seconds ``run`` waits for another bot process to give the database up (a restart's
overlap) before giving up."""
RESTARTING = "I'm restarting; try again in a minute."


def bot_intents() -> discord.Intents:
    """Guild events only: the bot reads no messages, members or presences (all it needs comes
    with the interactions)."""
    return discord.Intents(guilds=True)


class TaflCommandTree(app_commands.CommandTree[Any]):
    """The slash command tree; its ``on_error`` is where every command's error is answered."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """Every command passes here first: the bot counts it as under way, or refuses it
        while stopping."""
        return await admit(interaction)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await cast(TaflBot, self.client).buttons.answer_error(interaction, error)


class TaflBot(commands.AutoShardedBot):
    """A Discord bot that plays tafl through the game service, stored in ``db`` (a SQLite file
    or a PostgreSQL URL).

    ``sync`` publishes the slash commands at start-up (to ``sync_guild`` only, if given);
    ``clock`` is the service's clock, used for every time the bot reads; ``sweep_seconds``
    the seconds between two sweeps (clocks, reminders, expired challenges, pending posts; at
    most LIVE_SWEEP while a live game runs); ``ai_time_limit`` the AI's seconds per move;
    ``move_timeout`` how long a player may take over a move before the opponent can claim the
    game; ``answer_budget`` the seconds an interaction may wait before it is deferred;
    ``compute`` the worker pools for the AI and images (default: new worker processes, stopped
    with the bot); ``owner_wait`` the seconds to wait for another process to give the database
    up; ``stop_grace`` the seconds a stopping bot lets interactions finish;
    ``heartbeat_interval`` the seconds between two heartbeats for ``tafl health``. Other
    options go to discord.py, among them ``shard_count`` and ``shard_ids``: the shards this
    process runs (default: as many as Discord recommends, all here).
    """

    def __init__(
        self,
        db: str | Path,
        *,
        sync: bool = False,
        sync_guild: int | None = None,
        clock: Callable[[], datetime] = utc_now,
        sweep_seconds: float = SWEEP_SECONDS,
        ai_time_limit: float = AI_TIME_LIMIT,
        move_timeout: timedelta = MOVE_TIMEOUT,
        answer_budget: float = ANSWER_BUDGET,
        compute: Compute | None = None,
        owner_wait: float = 0.0,
        stop_grace: float = STOP_GRACE,
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
        **options: Any,
    ) -> None:
        options.setdefault("intents", bot_intents())
        options.setdefault(
            "allowed_mentions", discord.AllowedMentions(everyone=False, roles=False, users=True)
        )
        options.setdefault("tree_cls", TaflCommandTree)
        super().__init__(command_prefix=commands.when_mentioned, help_command=None, **options)
        self.db = db
        self.sync_commands = sync
        self.sync_guild = sync_guild
        self.clock = clock
        self.sweep_seconds = sweep_seconds
        self.ai_time_limit = ai_time_limit
        self.move_timeout = move_timeout
        self.answer_budget = answer_budget
        """Seconds an interaction waits for its answer before it is deferred."""
        self.owner_wait = owner_wait
        self.stop_grace = stop_grace
        self.stopping = False
        """Set once the bot starts to stop: new interactions are refused."""
        self.heartbeat_interval = heartbeat_interval
        """Seconds between two writes of the heartbeat file beside the database (bot/health.py)."""
        self._given_compute = compute
        self._compute: Compute | None = None
        self._owner: DatabaseOwner | None = None
        self._store: Store | None = None
        self._service: GameService | None = None
        self._background: list[asyncio.Task[None]] = []
        """The sweeps and the start-up catch-up, cancelled on close."""
        self._under_way: set[asyncio.Task[Any]] = set()
        """The tasks answering interactions now."""

    @property
    def service(self) -> GameService:
        if self._service is None:
            raise RuntimeError("the game service starts in setup_hook; log the bot in first")
        return self._service

    @property
    def compute(self) -> Compute:
        if self._compute is None:
            raise RuntimeError("the workers start in setup_hook; log the bot in first")
        return self._compute

    @property
    def buttons(self) -> ButtonHandler:
        """Who handles button clicks, and every error a command or a click raises: the /tafl
        cog."""
        cog = self.get_cog("TaflCog")
        if cog is None:
            raise RuntimeError("the /tafl cog is added in setup_hook; log the bot in first")
        return cast(ButtonHandler, cog)

    async def setup_hook(self) -> None:
        if not is_url(self.db):  # PostgreSQL is shared by the processes: nobody owns it
            self._owner = await DatabaseOwner.claim(self.db, self.owner_wait)
        self._compute = self._given_compute or Compute.in_processes()
        await self._compute.start()
        self._store = await open_store(self.db)
        self._service = GameService(
            self._store,
            self.clock,
            ai_time_limit=self.ai_time_limit,
            move_timeout=self.move_timeout,
            think=self._compute.choose_move,
        )
        await self.add_cog(TaflCog(self))
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.sync_commands:
            await self.sync_app_commands(self.sync_guild)
        self._background = [
            asyncio.create_task(self._sweep_forever(), name="tafl-sweep"),
            asyncio.create_task(
                beat_forever(heartbeat_path(self.db), self._connected, self.heartbeat_interval),
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

    # -- stopping -----------------------------------------------------------------------------

    def admit(self, task: asyncio.Task[Any] | None) -> bool:
        """Count ``task`` (answering an interaction) as under way; False once stopping."""
        if self.stopping:
            return False
        if task is not None:
            self._under_way.add(task)
            task.add_done_callback(self._under_way.discard)
        return True

    async def close(self) -> None:
        """Stop gracefully: refuse new interactions, let those under way finish (``stop_grace``
        seconds at most), then close the gateway, the workers and the database."""
        self.stopping = True
        under_way = self._under_way - {asyncio.current_task()}
        if under_way:
            log.info("stopping: letting %d interactions finish", len(under_way))
            _, late = await asyncio.wait(under_way, timeout=self.stop_grace)
            for task in late:
                task.cancel()
            if late:
                await asyncio.wait(late)
        for task in self._background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await super().close()
        if self._store is not None:
            await self._store.close()
            self._store = None
        if self._compute is not None and self._compute is not self._given_compute:
            await self._compute.close()
        self._compute = None
        if self._owner is not None:
            self._owner.release()
            self._owner = None

    def _connected(self) -> bool:
        """Whether the bot is logged in with the gateway sockets of all its shards open
        (discord.py drops a socket whose heartbeats go unanswered), so that a heartbeat may be
        written."""
        shards = list(self.shards.values())
        open_shards = bool(shards) and not any(shard.is_closed() for shard in shards)
        return self.is_ready() and not self.is_closed() and open_shards

    async def _catch_up(self) -> None:
        """Once connected: post what a crash left unposted, then let the AI answer where a
        restart left it to move. On a database other processes share, only what has settled
        (younger may be another process's work under way) and only while no other process
        sweeps (it takes the same up)."""
        await self.wait_until_ready()
        assert self._store is not None
        cog = self.get_cog("TaflCog")
        if not isinstance(cog, TaflCog):
            return
        settled = SETTLED if self._store.shared else timedelta(0)
        async with self._store.leading(BACKGROUND_JOB) as leading:
            if not leading:
                log.info("caught up: another process is sweeping the database")
                return
            posted = await cog.post_pending(settled)
            resumed = await cog.resume_ai_games(settled)
        log.info("caught up: %d pending posts posted, %d AI turns played", posted, resumed)

    # -- expired challenges -----------------------------------------------------------------------

    async def remember_challenge(self, challenge_id: int, channel_id: int, message_id: int) -> None:
        """Store where a challenge was posted, so the sweep can mark it when it expires (even
        after a restart)."""
        await self.service.attach_message(challenge_id, message_ref(channel_id, message_id))

    async def _sweep_forever(self) -> None:
        """The start-up catch-up, then a sweep now and then: one after the other, so that
        they never take up the same post or AI turn at once."""
        try:
            await self._catch_up()
        except Exception:
            log.exception("the start-up catch-up failed; the sweep will take it up")
        while True:
            live = self._service is not None and self._service.has_live_games
            await asyncio.sleep(min(self.sweep_seconds, LIVE_SWEEP) if live else self.sweep_seconds)
            try:
                await self.sweep()
            except Exception:
                log.exception("the sweep failed; trying again later")

    async def sweep(self) -> bool:
        """End the games whose time ran out and send the turn reminders due; expire overdue
        challenges; post what is still pending (a refused post, say); let the AI move where it
        has been left to move (a failed search, say). Done by one process at a time of those
        sharing the database; False if another was doing it."""
        assert self._store is not None
        async with self._store.leading(BACKGROUND_JOB) as leading:
            if not leading:
                return False
            cog = self.get_cog("TaflCog")
            if isinstance(cog, TaflCog):
                await cog.end_timed_out_games()
                await cog.send_reminders()
            await self.sweep_challenges()
            await self.service.forget_events()
            if isinstance(cog, TaflCog):
                await cog.post_pending(SETTLED)
                await cog.resume_ai_games(SETTLED)
            return True

    async def sweep_challenges(self) -> list[Challenge]:
        """Expire overdue challenges and mark the messages that show them."""
        expired = await self.service.expire_challenges()
        for challenge in expired:
            await self.show_challenge_message(challenge)
        return expired

    async def show_challenge_message(self, challenge: Challenge) -> None:
        """Show the challenge as it now stands on the message that shows it, unless that
        message is too old to be edited (or was never posted)."""
        if challenge.message_ref is None:
            return  # posted nowhere (or before message references were kept)
        where = parse_message_ref(challenge.message_ref)
        if where is None:
            return
        channel_id, message_id = where
        if too_old_to_edit(message_id, self.clock()):
            log.info("challenge %s's message is too old to edit; left as it is", challenge.id)
            return
        message = self.get_partial_messageable(channel_id).get_partial_message(message_id)
        outgoing = challenge_message(challenge)
        try:
            await message.edit(embed=outgoing.embed, view=None)
        except discord.HTTPException:
            log.exception("could not show challenge %s as %s", challenge.id, challenge.status)


def create_bot(db: str | Path, **options: Any) -> TaflBot:
    """The bot on ``db``, built but not started (see ``TaflBot`` for the options)."""
    return TaflBot(db, **options)


def run(
    token: str,
    db_path: str,
    *,
    sync: bool = False,
    guild: int | None = None,
    move_timeout: timedelta = MOVE_TIMEOUT,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
) -> None:
    """Log in with ``token`` and play on ``db_path`` (a SQLite file or a PostgreSQL URL) until
    SIGTERM or SIGINT (then stop gracefully); ``sync`` publishes the slash commands first (to
    ``guild`` only when given); ``move_timeout`` is how long a move may take before the game can
    be claimed; ``shard_ids`` of ``shard_count`` are the shards this process runs (default: all,
    as many as Discord recommends). DatabaseInUse if another bot process keeps the database for
    longer than OWNER_WAIT."""
    if not logging.getLogger().handlers:
        discord.utils.setup_logging()
    sharding: dict[str, Any] = {}
    if shard_count is not None:
        sharding["shard_count"] = shard_count
        sharding["shard_ids"] = None if shard_ids is None else list(shard_ids)
    bot = create_bot(
        db_target(db_path),
        sync=sync,
        sync_guild=guild,
        move_timeout=move_timeout,
        owner_wait=OWNER_WAIT,
        **sharding,
    )
    asyncio.run(serve(bot, token))


async def serve(bot: TaflBot, token: str) -> None:
    """Run ``bot`` until it fails or the process is asked to stop (SIGTERM, SIGINT)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with bot:
        running = asyncio.create_task(bot.start(token), name="tafl-bot")
        stopping = asyncio.create_task(stop.wait(), name="tafl-stop-signal")
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if stopping.done():
            log.info("asked to stop: finishing what is under way")
            await bot.close()
        stopping.cancel()
        await running


async def admit(interaction: discord.Interaction[Any]) -> bool:
    """Let an interaction in (counted as under way until answered), or, while the bot stops,
    tell the user to try again (autocomplete just gets nothing). An interaction that another
    process sharing the database has claimed (both wrongly on one shard) is left to it."""
    client = interaction.client
    if not isinstance(client, TaflBot):
        return True
    if client.admit(asyncio.current_task()):
        return await client.service.claim_event(f"discord:{interaction.id}")
    if interaction.type is not discord.InteractionType.autocomplete:
        try:
            await Reply.of(interaction).send(Outgoing(content=RESTARTING), ephemeral=True)
        except discord.HTTPException:
            log.warning("could not tell user %s the bot is restarting", interaction.user.id)
    return False
