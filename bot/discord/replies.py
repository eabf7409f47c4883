"""Answering interactions within Discord's deadline, and the one place errors become replies."""

from __future__ import annotations

import asyncio
import copy
import io
import logging
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

import discord
from discord import app_commands

import engine
from bot.errors import ChannelNotAllowed
from bot.models import utc_now
from engine.errors import shorten

log = logging.getLogger(__name__)

EDIT_AGE = timedelta(minutes=55)
"""Messages older than this are never edited: Discord refuses edits of messages older than an
hour (30046); the margin allows for clocks that differ."""


def too_old_to_edit(message_id: int, now: datetime) -> bool:
    """Whether the message (its id carries its creation time) is too old to be edited."""
    return now - discord.utils.snowflake_time(message_id) > EDIT_AGE


ANSWER_BUDGET = 2.0
"""Seconds an interaction may wait for its answer before it is deferred (Discord allows 3)."""

DOMAIN_ERRORS: tuple[type[Exception], ...] = (engine.TaflError,)
"""Refusals a player caused and can act on (the service's and the engine's); anything else is a
bug."""

_REPLY_KEY = "tafl.reply"

CONTENT_LIMIT = 2000
EMBED_LIMITS = {"title": 256, "description": 4096, "footer": 2048, "author": 256}
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FIELDS_LIMIT = 25
EMBED_TOTAL_LIMIT = 6000
"""Discord's limits on a message's text (characters) and on an embed's parts."""


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """A copy of ``embed`` within Discord's limits: each part shortened, at most 25 fields,
    and the description (then the field values) cut until the whole fits in 6,000."""
    data: dict[str, Any] = copy.deepcopy(dict(embed.to_dict()))
    for key in ("title", "description"):
        if key in data:
            data[key] = shorten(data[key], EMBED_LIMITS[key])
    for key in ("footer", "author"):
        part = data.get(key)
        if part is not None:
            name = "text" if key == "footer" else "name"
            part[name] = shorten(part.get(name, ""), EMBED_LIMITS[key])
    fields = data.get("fields", [])[:FIELDS_LIMIT]
    for field in fields:
        field["name"] = shorten(field["name"], FIELD_NAME_LIMIT) or "​"
        field["value"] = shorten(field["value"], FIELD_VALUE_LIMIT) or "​"
    if fields:
        data["fields"] = fields
    excess = _embed_length(data) - EMBED_TOTAL_LIMIT
    for part in [data, *reversed(fields)]:
        key = "description" if part is data else "value"
        if excess <= 0:
            break
        text = part.get(key, "")
        keep = max(1, len(text) - excess)
        part[key] = shorten(text, keep)
        excess -= len(text) - len(part[key])
    return discord.Embed.from_dict(data)


def _embed_length(data: dict[str, Any]) -> int:
    """The characters Discord counts in an embed (title, description, fields, footer, author)."""
    fields = data.get("fields", [])
    return (
        len(data.get("title", ""))
        + len(data.get("description", ""))
        + sum(len(f["name"]) + len(f["value"]) for f in fields)
        + len(data.get("footer", {}).get("text", ""))
        + len(data.get("author", {}).get("name", ""))
    )


@dataclass(frozen=True)
class Outgoing:
    """A message to send: text, one embed, attached files (name, bytes) and buttons.

    Every message the bot sends is one of these, and is fitted to Discord's limits here: the
    text and the embed's parts are shortened where they are longer than Discord takes.
    """

    content: str | None = None
    embed: discord.Embed | None = None
    files: tuple[tuple[str, bytes], ...] = ()
    view: discord.ui.View | None = None

    def __post_init__(self) -> None:
        if self.content is not None:
            object.__setattr__(self, "content", shorten(self.content, CONTENT_LIMIT))
        if self.embed is not None:
            object.__setattr__(self, "embed", fit_embed(self.embed))

    def discord_files(self) -> list[discord.File]:
        """Fresh File objects (a File can be sent only once)."""
        return [discord.File(io.BytesIO(data), filename=name) for name, data in self.files]

    def send_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``send_message`` / ``followup.send``."""
        kwargs: dict[str, Any] = {}
        if self.content is not None:
            kwargs["content"] = self.content
        if self.embed is not None:
            kwargs["embed"] = self.embed
        if self.files:
            kwargs["files"] = self.discord_files()
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs

    def edit_kwargs(self) -> dict[str, Any]:
        """Keyword arguments that replace a message's content, embed, files and buttons."""
        return {
            "content": self.content,
            "embed": self.embed,
            "attachments": self.discord_files(),
            "view": self.view,
        }


class Poster(Protocol):
    """Where the bot posts game messages: an interaction's answer, or a channel."""

    @property
    def filesize_limit(self) -> int: ...

    async def send(self, message: Outgoing, *, ephemeral: bool = False) -> int | None: ...


class ChannelPost:
    """Posting straight to a channel, when no interaction asked (the AI's turn after a restart)."""

    def __init__(self, channel: discord.abc.Messageable) -> None:
        self.channel = channel

    @property
    def filesize_limit(self) -> int:
        return discord.utils.DEFAULT_FILE_SIZE_LIMIT_BYTES

    async def send(self, message: Outgoing, *, ephemeral: bool = False) -> int | None:
        """Post ``message`` in the channel (a channel message is never ephemeral)."""
        return (await self.channel.send(**message.send_kwargs())).id


class Reply:
    """The answer to one interaction: sent at once when ready in time, else deferred first.

    A timer defers the interaction when no answer was sent within ``budget`` seconds, so a
    slow database or render never breaks Discord's 3-second rule; the answer then replaces
    the "thinking..." message (an ephemeral answer replaces it by an ephemeral follow-up).
    """

    def __init__(self, interaction: discord.Interaction, budget: float = ANSWER_BUDGET) -> None:
        self.interaction = interaction
        self._lock = asyncio.Lock()
        self._deferred = False
        self._answered = False
        self._defer_task: asyncio.Task[None] | None = None
        loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = loop.call_later(budget, self._budget_spent)

    @classmethod
    def of(cls, interaction: discord.Interaction) -> Reply:
        """The Reply of ``interaction``, started on first use (one per interaction); the
        budget is the client's ``answer_budget`` if it has one."""
        reply = interaction.extras.get(_REPLY_KEY)
        if not isinstance(reply, Reply):
            budget = getattr(interaction.client, "answer_budget", ANSWER_BUDGET)
            reply = cls(interaction, budget)
            interaction.extras[_REPLY_KEY] = reply
        return reply

    @property
    def filesize_limit(self) -> int:
        """The largest file the interaction's channel takes."""
        return self.interaction.filesize_limit

    @property
    def is_component(self) -> bool:
        return self.interaction.type is discord.InteractionType.component

    def _budget_spent(self) -> None:
        self._timer = None
        self._defer_task = asyncio.create_task(self._defer())

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def _defer(self) -> None:
        try:
            async with self._lock:
                if self.interaction.response.is_done():
                    return
                await self.interaction.response.defer(thinking=not self.is_component)
                self._deferred = True
                log.info("deferred a slow answer to interaction %s", self.interaction.id)
        except Exception:
            log.exception("could not defer interaction %s", self.interaction.id)

    async def send(self, message: Outgoing, *, ephemeral: bool = False) -> int | None:
        """Send ``message`` as the answer (a follow-up once answered); return its message id."""
        self._stop_timer()
        async with self._lock:
            response = self.interaction.response
            if not response.is_done():
                self._answered = True
                callback = await response.send_message(ephemeral=ephemeral, **message.send_kwargs())
                return callback.message_id if callback is not None else None
            if self._deferred and not self._answered and not self.is_component:
                self._answered = True
                if not ephemeral:
                    edited = await self.interaction.edit_original_response(**message.edit_kwargs())
                    return edited.id
                await self.interaction.delete_original_response()
            return await self._followup(message, ephemeral)

    async def update(self, message: Outgoing) -> None:
        """Replace the message the clicked button sits on; when that message is too old to be
        edited (Discord refuses edits of messages over an hour old), post ``message`` anew."""
        if not self.can_update:
            await self.send(message)
            return
        self._stop_timer()
        async with self._lock:
            self._answered = True
            if not self.interaction.response.is_done():
                await self.interaction.response.edit_message(**message.edit_kwargs())
            else:
                await self.interaction.edit_original_response(**message.edit_kwargs())

    @property
    def can_update(self) -> bool:
        """Whether the clicked message may be edited (it is under an hour old)."""
        clicked = self.interaction.message
        if clicked is None:
            return True
        now = getattr(self.interaction.client, "clock", utc_now)()
        return not too_old_to_edit(clicked.id, now)

    async def _followup(self, message: Outgoing, ephemeral: bool) -> int | None:
        kwargs = message.send_kwargs()
        sent = await self.interaction.followup.send(ephemeral=ephemeral, wait=True, **kwargs)
        return sent.id


def original(error: BaseException) -> BaseException:
    """The error a command raised, out of discord.py's wrapping."""
    return error.original if isinstance(error, app_commands.CommandInvokeError) else error


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer ``error`` to the user: a domain refusal as a short ephemeral line, a bug as an
    apology with an error id (the traceback is logged under the same id)."""
    error = original(error)
    if isinstance(error, ChannelNotAllowed):
        places = ", ".join(channel_mention(c) for c in error.channels)
        text = f"I play only in {places} on this server; challenge there."
    elif isinstance(error, DOMAIN_ERRORS):
        text = sentence(str(error))
    elif isinstance(error, app_commands.TransformerError):
        text = sentence(f"{error.value!r} is not a valid {error.type.name.lower()} here")
    elif isinstance(error, app_commands.AppCommandError) and not isinstance(
        error, app_commands.CommandInvokeError
    ):
        text = sentence(str(error) or "that command can't be used here")
    else:
        error_id = secrets.token_hex(4)
        log.error(
            "unexpected error %s in interaction %s (user %s, channel %s)",
            error_id,
            interaction.id,
            interaction.user.id,
            interaction.channel_id,
            exc_info=error,
        )
        text = f"Sorry, something went wrong on my side (error id `{error_id}`)."
    try:
        await Reply.of(interaction).send(Outgoing(content=text), ephemeral=True)
    except discord.HTTPException:
        log.exception("could not tell user %s about an error", interaction.user.id)


def channel_mention(qualified: str) -> str:
    """``<#1234>`` for a Discord channel id (``"discord:1234"``); the id itself otherwise."""
    platform, _, snowflake = qualified.partition(":")
    return f"<#{snowflake}>" if platform == "discord" and snowflake.isdigit() else qualified


def sentence(text: str) -> str:
    """``"it is not your turn"`` -> ``"It is not your turn."``; a leading square or rules key
    (``"d1 is taken"``, ``"ber:y: ..."``) keeps its case."""
    text = text.strip()
    if not text:
        return text
    if not _LOWERCASE_TERM.match(text):
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


_LOWERCASE_TERM = re.compile(r"[a-z]\d|[a-z]{2,5}:\S")
"""A square (``d1``) or an OpenTafl key (``ber:``): notation whose case matters."""
