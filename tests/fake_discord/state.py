"""The emulator's in-memory world: users, guilds, channels, messages, interactions, commands.

Objects here are plain records with the payload builders that turn them into the JSON discord.py
2.7.1 parses. Tests read them to see what the bot posted (`channel.messages`, `message.files`).
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TypeVar

import discord

from tests.fake_discord import rules
from tests.fake_discord.rules import JSON

if TYPE_CHECKING:
    from PIL.Image import Image

T = TypeVar("T")

DISCORD_EPOCH_MS = 1420070400000
TEXT_CHANNEL, DM_CHANNEL, PUBLIC_THREAD, PRIVATE_THREAD = 0, 1, 11, 12
THREAD_TYPES = frozenset({PUBLIC_THREAD, PRIVATE_THREAD})
MEMBER_PERMISSIONS = (discord.Permissions.text() | discord.Permissions(view_channel=True)).value
BOT_PERMISSIONS = discord.Permissions.all().value
DEFAULT_MESSAGE, REPLY_MESSAGE, CHAT_INPUT_COMMAND_MESSAGE = 0, 19, 20


def now_iso() -> str:
    """The current time as Discord writes timestamps."""
    return datetime.now(UTC).isoformat()


class Snowflakes:
    """Unique, increasing Discord ids whose timestamps are the time of creation."""

    def __init__(self) -> None:
        self._last = 0
        self.offset = 0.0
        """Seconds the emulated wall clock runs ahead of the real one (``advance_time``)."""

    def now(self) -> float:
        """The emulated wall clock (Unix seconds)."""
        return time.time() + self.offset

    def next(self) -> int:
        """A fresh id."""
        stamp = (int(self.now() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(self._last + 1, stamp)
        return self._last

    def age(self, snowflake: int) -> float:
        """Seconds since the id was made, by the emulated wall clock."""
        return self.now() - ((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000


class NotAnswered(AssertionError):
    """The bot did not do what a test waited for in time."""


class ChangeFeed:
    """Wakes waiters when the state changes: those watching a changed object (topic), and
    those watching everything."""

    POLL_SECONDS = 0.02  # re-check interval for conditions on state outside the emulator
    EVERYTHING = "everything"

    def __init__(self) -> None:
        self._waiters: dict[object, set[asyncio.Future[None]]] = {}

    def notify(self, *topics: object) -> None:
        """These objects changed (None entries are ignored)."""
        for topic in (*topics, self.EVERYTHING):
            for waiter in self._waiters.pop(topic, ()) if topic is not None else ():
                if not waiter.done():
                    waiter.set_result(None)

    async def wait_until(
        self,
        probe: Callable[[], T | None],
        timeout: float,
        describe: Callable[[], str],
        *,
        topics: tuple[object, ...] = (),
        poll: bool = False,
    ) -> T:
        """Return probe()'s first non-None result; raise NotAnswered after `timeout` seconds.

        The probe is re-run when one of `topics` changes (any change if none are given) and,
        with poll=True, every POLL_SECONDS too (for conditions on the bot's own state).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        keys = tuple(t for t in topics if t is not None) or (self.EVERYTHING,)
        while True:
            result = probe()
            if result is not None:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise NotAnswered(f"{describe()} (waited {timeout:g} s)")
            waiter: asyncio.Future[None] = loop.create_future()
            for key in keys:
                self._waiters.setdefault(key, set()).add(waiter)
            try:
                await asyncio.wait_for(
                    waiter, min(remaining, self.POLL_SECONDS) if poll else remaining
                )
            except TimeoutError:
                pass
            finally:
                for key in keys:
                    waiting = self._waiters.get(key)
                    if waiting is not None:
                        waiting.discard(waiter)
                        if not waiting:
                            del self._waiters[key]


@dataclass(eq=False)
class Account:
    """A Discord user (a person or the bot)."""

    id: int
    name: str
    bot: bool = False

    @property
    def mention(self) -> str:
        """The text that mentions this user in a message."""
        return f"<@{self.id}>"

    def payload(self) -> JSON:
        """The user object."""
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": None if self.bot else self.name.title(),
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass(eq=False)
class Role:
    """A guild role; the @everyone role has the guild's id."""

    id: int
    name: str
    permissions: int
    position: int = 0

    def payload(self) -> JSON:
        """The role object."""
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "hoist": False,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": True,
            "flags": 0,
        }


@dataclass(eq=False)
class Member:
    """An account's membership in a guild."""

    account: Account
    roles: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=now_iso)
    granted: int = 0
    """Permissions beyond a plain member's (e.g. Manage Server), as a bit field."""

    @property
    def permissions(self) -> int:
        """What the member may do (all for the bot, a plain member's rights and what was
        granted otherwise)."""
        return BOT_PERMISSIONS if self.account.bot else MEMBER_PERMISSIONS | self.granted

    def payload(self, *, with_user: bool = True, with_permissions: bool = False) -> JSON:
        """The guild member object."""
        data: JSON = {
            "roles": [str(r) for r in self.roles],
            "joined_at": self.joined_at,
            "nick": None,
            "avatar": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "premium_since": None,
        }
        if with_user:
            data["user"] = self.account.payload()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class Attachment:
    """A file on a message; `data` holds its bytes."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None
    url: str = ""

    def image(self) -> Image:
        """The file opened with Pillow (for PNG board images)."""
        from PIL import Image

        return Image.open(io.BytesIO(self.data))

    def payload(self) -> JSON:
        """The attachment object."""
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "description": self.description,
        }


@dataclass(eq=False)
class Message:
    """A message in a channel, as it stands now (edits update it in place)."""

    id: int
    channel: Channel
    author: Account
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: int = DEFAULT_MESSAGE
    timestamp: str = field(default_factory=now_iso)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    interaction: InteractionRecord | None = None
    visible_to: int | None = None  # the one user who sees an ephemeral message
    edits: int = 0
    deleted: bool = False

    @property
    def ephemeral(self) -> bool:
        """Only the user who interacted sees it."""
        return bool(self.flags & rules.FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response still showing "Bot is thinking..."."""
        return bool(self.flags & rules.FLAG_LOADING)

    @property
    def files(self) -> list[Attachment]:
        """The attached files, with their bytes."""
        return self.attachments

    @property
    def embed(self) -> JSON | None:
        """The first embed, if any."""
        return self.embeds[0] if self.embeds else None

    @property
    def buttons(self) -> list[JSON]:
        """Every button, in reading order."""
        return [c for c in rules.walk_components(self.components) if c.get("type") == 2]

    @property
    def selects(self) -> list[JSON]:
        """Every select menu, in reading order."""
        return [
            c for c in rules.walk_components(self.components) if c.get("type") in rules.SELECT_TYPES
        ]

    def component(self, key: str, *, kinds: frozenset[int] = frozenset({2})) -> JSON:
        """The component whose custom_id or label is `key` (ValueError listing them if none)."""
        candidates = [c for c in rules.walk_components(self.components) if c.get("type") in kinds]
        by_id = [c for c in candidates if c.get("custom_id") == key]
        found = by_id or [c for c in candidates if key in (c.get("label"), c.get("placeholder"))]
        if len(found) == 1:
            return found[0]
        names = ", ".join(repr(c.get("label") or c.get("custom_id")) for c in candidates)
        problem = "several components match" if found else "no component matches"
        raise ValueError(f"{problem} {key!r} on message {self.id}; it has: {names or 'none'}")

    def visible_for(self, user_id: int) -> bool:
        """Whether this user can see the message."""
        return not self.deleted and (self.visible_to is None or self.visible_to == user_id)

    def payload(self, *, include_content: bool = True) -> JSON:
        """The message object (content fields emptied when the reader lacks the content intent)."""
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "author": self.author.payload(),
            "content": self.content if include_content else "",
            "embeds": self.embeds if include_content else [],
            "components": self.components if include_content else [],
            "attachments": [a.payload() for a in self.attachments] if include_content else [],
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "flags": self.flags,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "pinned": False,
        }
        if self.channel.guild is not None:
            data["guild_id"] = str(self.channel.guild.id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction is not None:
            data["interaction_metadata"] = self.interaction.metadata()
        return data


@dataclass(eq=False)
class Channel:
    """A text channel, thread or DM channel with its messages (ephemeral ones included)."""

    id: int
    name: str
    type: int
    guild: Guild | None
    feed: ChangeFeed = field(repr=False)
    position: int = 0
    parent_id: int | None = None
    owner_id: int | None = None
    recipient: Account | None = None
    all_messages: list[Message] = field(default_factory=list, repr=False)
    created: str = field(default_factory=now_iso)
    archived: bool = False
    """A thread closed with PATCH /channels/{id} archived=true."""

    @property
    def mention(self) -> str:
        """The text that mentions this channel."""
        return f"<#{self.id}>"

    @property
    def messages(self) -> list[Message]:
        """Messages everyone sees (not deleted, not ephemeral), oldest first."""
        return [m for m in self.all_messages if m.visible_to is None and not m.deleted]

    @property
    def last_message(self) -> Message | None:
        """The newest message everyone sees."""
        visible = self.messages
        return visible[-1] if visible else None

    async def wait_for_message(
        self, check: Callable[[Message], bool] | None = None, *, timeout: float = 5.0
    ) -> Message:
        """The first visible message (existing or future) passing `check`."""

        def probe() -> Message | None:
            return next((m for m in self.messages if check is None or check(m)), None)

        return await self.feed.wait_until(
            probe,
            timeout,
            lambda: f"no matching message appeared in #{self.name}",
            topics=(self,),
        )

    def payload(self) -> JSON:
        """The channel object."""
        last = self.all_messages[-1].id if self.all_messages else None
        data: JSON = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": str(last) if last else None,
        }
        if self.type == DM_CHANNEL:
            assert self.recipient is not None
            data["recipients"] = [self.recipient.payload()]
            return data
        assert self.guild is not None
        data.update(
            guild_id=str(self.guild.id),
            name=self.name,
            position=self.position,
            parent_id=str(self.parent_id) if self.parent_id else None,
            nsfw=False,
            rate_limit_per_user=0,
            flags=0,
        )
        if self.type in THREAD_TYPES:
            count = len(self.all_messages)
            data.update(
                owner_id=str(self.owner_id),
                message_count=count,
                total_message_sent=count,
                member_count=1,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": self.created,
                    "create_timestamp": self.created,
                    "locked": False,
                    "invitable": True,
                },
            )
        else:
            data.update(topic=None, permission_overwrites=[])
        return data


@dataclass(eq=False)
class Guild:
    """A guild with its roles, channels and members."""

    id: int
    name: str
    owner_id: int
    roles: list[Role] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    members: dict[int, Member] = field(default_factory=dict)

    @property
    def text_channels(self) -> list[Channel]:
        """Channels that are not threads."""
        return [c for c in self.channels if c.type not in THREAD_TYPES]

    @property
    def threads(self) -> list[Channel]:
        """Threads in this guild."""
        return [c for c in self.channels if c.type in THREAD_TYPES]

    def channel(self, name: str) -> Channel:
        """The channel or thread called `name`."""
        for channel in self.channels:
            if channel.name == name:
                return channel
        names = ", ".join(c.name for c in self.channels)
        raise KeyError(f"guild {self.name!r} has no channel {name!r}; it has: {names}")

    def payload(self, *, with_members: bool) -> JSON:
        """The GUILD_CREATE object; all members only with the members intent (else just the bot)."""
        members = [
            m.payload()
            for m in self.members.values()
            if with_members or m.account.id == self.owner_id
        ]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "owner_id": str(self.owner_id),
            "unavailable": False,
            "large": False,
            "member_count": len(self.members),
            "joined_at": now_iso(),
            "roles": [r.payload() for r in self.roles],
            "channels": [c.payload() for c in self.text_channels],
            "threads": [c.payload() for c in self.threads],
            "members": members,
            "emojis": [],
            "stickers": [],
            "features": [],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "preferred_locale": "en-US",
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "system_channel_flags": 0,
            "afk_timeout": 300,
        }


@dataclass(eq=False)
class InteractionRecord:
    """One interaction sent to the bot and everything the bot answered to it."""

    id: int
    token: str
    kind: int  # rules.APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT
    user: Account
    channel: Channel
    name: str  # "/tafl move", "button 'Accept'", ... for messages
    created: float  # loop time when sent
    payload: JSON = field(repr=False)
    source_message: Message | None = None  # the message a clicked component sits on
    response_type: int | None = None
    responded: float | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    choices: list[JSON] | None = None
    modal: JSON | None = None
    late: bool = False  # a response came after the deadline
    edits_at_response: int = 0  # edits of source_message when the bot answered (type 6 waits)

    def metadata(self) -> JSON:
        """The interaction_metadata of messages answering this interaction."""
        data: JSON = {
            "id": str(self.id),
            "type": self.kind,
            "user": self.user.payload(),
            "authorizing_integration_owners": {},
        }
        if self.source_message is not None:
            data["interacted_message_id"] = str(self.source_message.id)
        return data


@dataclass(eq=False)
class Violation:
    """A broken Discord rule or a request the emulator did not understand."""

    code: int
    message: str
    route: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.code} {self.message} at {self.route}" + (
            f": {self.detail}" if self.detail else ""
        )


@dataclass
class CommandSet:
    """The application commands synced for one scope (global, or one guild), as stored."""

    commands: list[JSON] = field(default_factory=list)

    def find(self, name: str, kind: int = rules.CHAT_INPUT) -> JSON | None:
        """The command called `name` of that type."""
        for command in self.commands:
            if command["name"] == name and command.get("type", rules.CHAT_INPUT) == kind:
                return command
        return None

    def by_id(self, command_id: int) -> JSON | None:
        """The command with that id."""
        return next((c for c in self.commands if int(c["id"]) == command_id), None)
