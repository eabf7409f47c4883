"""What Discord does with each request, apart from HTTP and websockets.

`World` owns the state (state.py) and applies Discord's rules (rules.py). Every operation either
changes the state and emits gateway events, or raises `DiscordError` without changing anything.
"""

from __future__ import annotations

import asyncio
import mimetypes
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fake_discord import rules
from tests.fake_discord.rules import JSON, DiscordError, error, invalid_form
from tests.fake_discord.state import (
    CHAT_INPUT_COMMAND_MESSAGE,
    DEFAULT_MESSAGE,
    DM_CHANNEL,
    MEMBER_PERMISSIONS,
    PUBLIC_THREAD,
    TEXT_CHANNEL,
    THREAD_TYPES,
    Account,
    Attachment,
    ChangeFeed,
    Channel,
    CommandSet,
    Guild,
    InteractionRecord,
    Member,
    Message,
    Role,
    Snowflakes,
    Violation,
    now_iso,
)

# Gateway intents that gate events.
GUILDS_INTENT = 1 << 0
MEMBERS_INTENT = 1 << 1
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12
MESSAGE_CONTENT_INTENT = 1 << 15


@dataclass(frozen=True)
class Upload:
    """A file uploaded with a request (multipart part `files[n]`)."""

    filename: str
    data: bytes
    content_type: str | None = None


@dataclass(frozen=True)
class Event:
    """A gateway dispatch: name, payload, the intent a session needs, the message if any."""

    name: str
    data: JSON
    intent: int = 0
    message: Message | None = None


INTERACTION_KIND_NAMES = {
    rules.APPLICATION_COMMAND: "application command",
    rules.MESSAGE_COMPONENT: "component",
    rules.AUTOCOMPLETE: "autocomplete",
    rules.MODAL_SUBMIT: "modal submit",
}


class World:
    """Discord's state and behaviour for one emulator."""

    def __init__(self, *, response_deadline: float, token_lifetime: float) -> None:
        self.response_deadline = response_deadline
        self.token_lifetime = token_lifetime
        self.ids = Snowflakes()
        self.feed = ChangeFeed()
        self.token = "fake." + secrets.token_urlsafe(24)
        self.bot = Account(self.ids.next(), "TaflBot", bot=True)
        self.app_id = self.bot.id
        self.owner = Account(self.ids.next(), "app-owner")
        self.accounts: dict[int, Account] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.attachments: dict[int, Attachment] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.interactions_by_token: dict[str, InteractionRecord] = {}
        self.global_commands = CommandSet()
        self.guild_commands: dict[int, CommandSet] = {}
        self.command_syncs = 0
        self.violations: list[Violation] = []
        self.files_url = ""  # set by the server: where attachment bytes are served
        self.emit: Callable[[Event], None] = lambda event: None  # set by the server

    # ----------------------------------------------------------------- bookkeeping

    def now(self) -> float:
        """The clock deadlines are measured with."""
        return asyncio.get_running_loop().time()

    def record_violation(self, route: str, failure: DiscordError) -> None:
        """Remember a broken rule so tests can assert there were none."""
        self.violations.append(Violation(failure.code, failure.message, route, failure.detail))
        self.feed.notify()

    def changed(self, *topics: object) -> None:
        """Wake what waits on these objects, or on any change."""
        self.feed.notify(*topics)

    # ----------------------------------------------------------------- the world's contents

    def add_account(self, name: str) -> Account:
        """A new person."""
        account = Account(self.ids.next(), name)
        self.accounts[account.id] = account
        return account

    def add_guild(self, name: str) -> Guild:
        """A new guild holding the bot, with its @everyone role."""
        guild = Guild(self.ids.next(), name, owner_id=self.bot.id)
        guild.roles.append(Role(guild.id, "@everyone", MEMBER_PERMISSIONS))
        guild.members[self.bot.id] = Member(self.bot)
        self.guilds[guild.id] = guild
        self.emit(Event("GUILD_CREATE", guild.payload(with_members=True), GUILDS_INTENT))
        return guild

    def add_member(self, guild: Guild, account: Account) -> Member:
        """Let `account` join `guild`."""
        member = guild.members.get(account.id)
        if member is None:
            member = guild.members[account.id] = Member(account)
            data = member.payload() | {"guild_id": str(guild.id)}
            self.emit(Event("GUILD_MEMBER_ADD", data, MEMBERS_INTENT))
        return member

    def add_channel(self, guild: Guild, name: str) -> Channel:
        """A new text channel."""
        channel = Channel(
            self.ids.next(), name, TEXT_CHANNEL, guild, self.feed, position=len(guild.channels)
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self.emit(Event("CHANNEL_CREATE", channel.payload(), GUILDS_INTENT))
        return channel

    def add_thread(
        self,
        parent: Channel,
        name: str,
        owner: Account,
        *,
        kind: int = PUBLIC_THREAD,
        thread_id: int = 0,
    ) -> Channel:
        """A new thread under a text channel (with the starter message's id, if any)."""
        if parent.guild is None or parent.type != TEXT_CHANNEL:
            raise invalid_form("channel_id", "threads can only be created in guild text channels")
        if kind not in THREAD_TYPES:
            raise invalid_form("type", f"{kind} is not a thread type (11 or 12)")
        if not 1 <= len(name) <= 100:
            raise invalid_form("name", "must be 1 to 100 characters")
        thread = Channel(
            thread_id or self.ids.next(),
            name,
            kind,
            parent.guild,
            self.feed,
            parent_id=parent.id,
            owner_id=owner.id,
        )
        parent.guild.channels.append(thread)
        self.channels[thread.id] = thread
        self.emit(Event("THREAD_CREATE", thread.payload() | {"newly_created": True}, GUILDS_INTENT))
        return thread

    def edit_channel(self, channel: Channel, body: JSON) -> Channel:
        """Apply a channel edit: a thread's ``archived`` and ``name`` (the rest is not emulated)."""
        unknown = set(body) - {"archived", "name", "locked"}
        if unknown:
            raise invalid_form(", ".join(sorted(unknown)), "editing this is not emulated")
        if "archived" in body or "locked" in body:
            if channel.type not in THREAD_TYPES:
                raise invalid_form("archived", "only threads are archived")
            channel.archived = bool(body.get("archived", channel.archived))
        if "name" in body:
            name = str(body["name"])
            if not 1 <= len(name) <= 100:
                raise invalid_form("name", "must be 1 to 100 characters")
            channel.name = name
        event = "THREAD_UPDATE" if channel.type in THREAD_TYPES else "CHANNEL_UPDATE"
        self.emit(Event(event, channel.payload(), GUILDS_INTENT))
        self.changed(channel)
        return channel

    def dm_channel(self, account: Account) -> Channel:
        """The bot's DM channel with `account`, created on first use."""
        for channel in self.channels.values():
            if channel.type == DM_CHANNEL and channel.recipient is account:
                return channel
        channel = Channel(
            self.ids.next(), f"dm-{account.name}", DM_CHANNEL, None, self.feed, recipient=account
        )
        self.channels[channel.id] = channel
        return channel

    # ----------------------------------------------------------------- lookups (404s)

    def channel(self, channel_id: int) -> Channel:
        """A channel the bot can see."""
        channel = self.channels.get(channel_id)
        if channel is None:
            raise error(rules.UNKNOWN_CHANNEL, f"no channel {channel_id}")
        return channel

    def guild(self, guild_id: int) -> Guild:
        """A guild the bot is in."""
        guild = self.guilds.get(guild_id)
        if guild is None:
            raise error(rules.UNKNOWN_GUILD, f"no guild {guild_id}")
        return guild

    def account(self, user_id: int) -> Account:
        """A user."""
        account = self.accounts.get(user_id)
        if account is None:
            raise error(rules.UNKNOWN_USER, f"no user {user_id}")
        return account

    def channel_message(self, channel: Channel, message_id: int) -> Message:
        """A message the bot can reach through the channel routes (not ephemeral, not deleted)."""
        message = self.messages.get(message_id)
        if message is None or message.channel is not channel or message.deleted:
            raise error(rules.UNKNOWN_MESSAGE, f"no message {message_id} in channel {channel.id}")
        if message.visible_to is not None:
            raise error(rules.UNKNOWN_MESSAGE, f"message {message_id} is ephemeral")
        return message

    # ----------------------------------------------------------------- messages

    def _attachment(self, channel: Channel, upload: Upload, spec: JSON) -> Attachment:
        attachment_id = self.ids.next()
        filename = spec.get("filename") or upload.filename
        attachment = Attachment(
            attachment_id,
            filename,
            upload.data,
            mimetypes.guess_type(filename)[0] or upload.content_type,
            spec.get("description"),
            f"{self.files_url}/{channel.id}/{attachment_id}/{filename}",
        )
        self.attachments[attachment_id] = attachment
        return attachment

    def add_upload(self, channel: Channel, upload: Upload) -> Attachment:
        """A file a user uploads with an attachment option."""
        return self._attachment(channel, upload, {})

    def _attachments(
        self, channel: Channel, body: JSON, uploads: dict[int, Upload], kept: list[Attachment]
    ) -> list[Attachment]:
        """The attachments after this request: kept ones named in body.attachments plus uploads."""
        specs = body.get("attachments")
        if specs is None:
            return kept + [self._attachment(channel, u, {}) for _, u in sorted(uploads.items())]
        existing = {a.id: a for a in kept}
        result: list[Attachment] = []
        for i, spec in enumerate(specs):
            raw_id = spec.get("id")
            if isinstance(raw_id, int) and raw_id in uploads:
                result.append(self._attachment(channel, uploads[raw_id], spec))
            elif raw_id is not None and int(raw_id) in existing:
                result.append(existing[int(raw_id)])
            else:
                raise invalid_form(
                    f"attachments.{i}.id", f"{raw_id!r} is neither an upload index nor a kept file"
                )
        return result

    def _draft(self, message: Message | None, body: JSON, attachments: list[Attachment]) -> JSON:
        """The message's fields after applying `body`, for validation before committing."""

        def pick(key: str, current: Any) -> Any:
            return body[key] if key in body and body[key] is not None else current

        return {
            "content": pick("content", message.content if message else ""),
            "embeds": pick("embeds", message.embeds if message else []),
            "components": pick("components", message.components if message else []),
            "flags": pick("flags", message.flags if message else 0),
            "attachments": attachments,
        }

    def post_message(
        self,
        channel: Channel,
        author: Account,
        body: JSON,
        uploads: dict[int, Upload] | None = None,
        *,
        interaction: InteractionRecord | None = None,
        ephemeral_allowed: bool = False,
        loading: bool = False,
    ) -> Message:
        """Create a message from a request body (validated first)."""
        uploads = uploads or {}
        attachments = self._attachments(channel, body, uploads, [])
        draft = self._draft(None, body, attachments)
        settable = rules.SETTABLE_FLAGS | (rules.FLAG_EPHEMERAL if ephemeral_allowed else 0)
        flags = int(draft["flags"] or 0) & settable
        if not loading:
            rules.check_message(draft | {"flags": flags}, [len(u.data) for u in uploads.values()])
        message = Message(
            self.ids.next(),
            channel,
            author,
            content=str(draft["content"] or ""),
            embeds=list(draft["embeds"]),
            components=list(draft["components"]),
            attachments=attachments,
            flags=flags | (rules.FLAG_LOADING if loading else 0),
            interaction=interaction,
        )
        if interaction is not None:
            message.webhook_id = self.app_id
            command = interaction.kind == rules.APPLICATION_COMMAND
            message.type = CHAT_INPUT_COMMAND_MESSAGE if command else DEFAULT_MESSAGE
            if message.ephemeral:
                message.visible_to = interaction.user.id
        channel.all_messages.append(message)
        self.messages[message.id] = message
        if message.visible_to is None:
            self.emit(
                Event(
                    "MESSAGE_CREATE",
                    self._message_event(message),
                    _message_intent(channel),
                    message,
                )
            )
        self.changed(channel, interaction)
        return message

    def edit_message(
        self, message: Message, body: JSON, uploads: dict[int, Upload] | None = None
    ) -> Message:
        """Apply an edit (validated first); a deferred response stops loading. A message older
        than an hour is refused (30046: Discord rate-limits those edits hard)."""
        if self.ids.age(message.id) > rules.OLD_MESSAGE_AGE:
            raise error(
                rules.OLD_MESSAGE_EDITS,
                f"message {message.id} is {self.ids.age(message.id) / 3600:.1f} hours old",
            )
        uploads = uploads or {}
        attachments = self._attachments(message.channel, body, uploads, message.attachments)
        draft = self._draft(message, body, attachments)
        fixed = message.flags & ~rules.SETTABLE_FLAGS & ~rules.FLAG_LOADING
        flags = fixed | (int(draft["flags"] or 0) & rules.SETTABLE_FLAGS)
        rules.check_message(draft | {"flags": flags}, [len(u.data) for u in uploads.values()])
        message.content = str(draft["content"] or "")
        message.embeds = list(draft["embeds"])
        message.components = list(draft["components"])
        message.attachments = attachments
        message.flags = flags
        message.edited_timestamp = now_iso()
        message.edits += 1
        if message.visible_to is None:
            self.emit(
                Event(
                    "MESSAGE_UPDATE",
                    self._message_event(message),
                    _message_intent(message.channel),
                    message,
                )
            )
        self.changed(message, message.channel, message.interaction)
        return message

    def delete_message(self, message: Message) -> None:
        """Delete a message."""
        message.deleted = True
        if message.visible_to is None:
            data = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.channel.guild is not None:
                data["guild_id"] = str(message.channel.guild.id)
            self.emit(Event("MESSAGE_DELETE", data, _message_intent(message.channel)))
        self.changed(message, message.channel, message.interaction)

    def _message_event(self, message: Message) -> JSON:
        data = message.payload()
        guild = message.channel.guild
        if guild is not None and message.author.id in guild.members:
            data["member"] = guild.members[message.author.id].payload(with_user=False)
        return data

    # ----------------------------------------------------------------- application commands

    def command_set(self, guild_id: int | None) -> CommandSet:
        """The commands of a scope (None = global)."""
        if guild_id is None:
            return self.global_commands
        self.guild(guild_id)
        return self.guild_commands.setdefault(guild_id, CommandSet())

    def _stored_command(self, scope: CommandSet, guild_id: int | None, body: JSON) -> JSON:
        kind = body.get("type", rules.CHAT_INPUT)
        old = scope.find(body["name"], kind)
        command = dict(body)
        command.update(
            id=old["id"] if old else str(self.ids.next()),
            application_id=str(self.app_id),
            version=str(self.ids.next()),
            type=kind,
            description=body.get("description", ""),
            options=body.get("options") or [],
        )
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
        return command

    def sync_commands(self, guild_id: int | None, body: Any) -> list[JSON]:
        """Replace a scope's commands (bulk overwrite), validating each."""
        if not isinstance(body, list):
            raise invalid_form("body", "a bulk overwrite takes a list of commands")
        for i, command in enumerate(body):
            rules.check_command(command, str(i))
        scope = self.command_set(guild_id)
        scope.commands = [self._stored_command(scope, guild_id, c) for c in body]
        self.command_syncs += 1
        self.changed()
        return scope.commands

    def upsert_command(self, guild_id: int | None, body: JSON) -> JSON:
        """Create or replace one command."""
        rules.check_command(body)
        scope = self.command_set(guild_id)
        command = self._stored_command(scope, guild_id, body)
        scope.commands = [c for c in scope.commands if c["id"] != command["id"]] + [command]
        self.changed()
        return command

    def delete_command(self, guild_id: int | None, command_id: int) -> None:
        """Remove one command."""
        scope = self.command_set(guild_id)
        if scope.by_id(command_id) is None:
            raise error(rules.UNKNOWN_COMMAND, f"no command {command_id}")
        scope.commands = [c for c in scope.commands if int(c["id"]) != command_id]
        self.changed()

    # ----------------------------------------------------------------- interactions

    def new_interaction(
        self,
        kind: int,
        user: Account,
        channel: Channel,
        name: str,
        data: JSON,
        source_message: Message | None = None,
    ) -> InteractionRecord:
        """Record an interaction and emit INTERACTION_CREATE for it."""
        record = InteractionRecord(
            id=self.ids.next(),
            token="aW50ZXJhY3Rpb24" + secrets.token_hex(24),
            kind=kind,
            user=user,
            channel=channel,
            name=name,
            created=self.now(),
            payload={},
            source_message=source_message,
        )
        record.payload = self._interaction_payload(record, data)
        self.interactions[record.id] = record
        self.interactions_by_token[record.token] = record
        self.emit(Event("INTERACTION_CREATE", record.payload))
        return record

    def _interaction_payload(self, record: InteractionRecord, data: JSON) -> JSON:
        channel = record.channel
        payload: JSON = {
            "id": str(record.id),
            "application_id": str(self.app_id),
            "type": record.kind,
            "token": record.token,
            "version": 1,
            "data": data,
            "channel_id": str(channel.id),
            "channel": channel.payload() | {"permissions": str(MEMBER_PERMISSIONS)},
            "app_permissions": str(Member(self.bot).permissions),
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": rules.ATTACHMENT_SIZE_LIMIT,
        }
        guild = channel.guild
        if guild is not None:
            member = guild.members.get(record.user.id) or Member(record.user)
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=member.payload(with_permissions=True),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=record.user.payload(),
                authorizing_integration_owners={"0": str(record.user.id)},
                context=1,
            )
        if record.source_message is not None:
            payload["message"] = record.source_message.payload()
        return payload

    def interaction(self, interaction_id: int, token: str) -> InteractionRecord:
        """The interaction a callback names, if the token matches."""
        record = self.interactions.get(interaction_id)
        if record is None or record.token != token:
            raise error(
                rules.UNKNOWN_INTERACTION, f"no interaction {interaction_id} with that token"
            )
        return record

    def respond(self, record: InteractionRecord, body: Any, uploads: dict[int, Upload]) -> JSON:
        """The initial response to an interaction, checked against Discord's rules."""
        if record.response_type is not None:
            raise error(
                rules.ALREADY_ACKNOWLEDGED,
                f"{record.name} was already answered with type {record.response_type}",
            )
        elapsed = self.now() - record.created
        if elapsed > self.response_deadline:
            record.late = True
            raise error(
                rules.UNKNOWN_INTERACTION,
                f"first response to {record.name} came {elapsed:.2f} s after it was sent "
                f"(deadline {self.response_deadline:g} s)",
            )
        if not isinstance(body, dict) or not isinstance(body.get("type"), int):
            raise invalid_form("type", "an interaction response needs an integer type")
        response_type: int = body["type"]
        data = body.get("data") or {}
        if response_type not in rules.ALLOWED_RESPONSES[record.kind]:
            raise invalid_form(
                "type",
                f"response type {response_type} does not answer a "
                f"{INTERACTION_KIND_NAMES[record.kind]} interaction ({record.name})",
            )
        message = self._apply_response(record, response_type, data, uploads)
        record.response_type = response_type
        record.responded = self.now()
        if record.source_message is not None:
            record.edits_at_response = record.source_message.edits
        if message is not None:
            record.original = message
        self.changed(record)
        return self._callback_body(record, message)

    def _apply_response(
        self, record: InteractionRecord, response_type: int, data: JSON, uploads: dict[int, Upload]
    ) -> Message | None:
        if response_type == rules.CHANNEL_MESSAGE:
            return self.post_message(
                record.channel, self.bot, data, uploads, interaction=record, ephemeral_allowed=True
            )
        if response_type == rules.DEFERRED_CHANNEL_MESSAGE:
            return self.post_message(
                record.channel,
                self.bot,
                {"flags": data.get("flags", 0)},
                interaction=record,
                ephemeral_allowed=True,
                loading=True,
            )
        if response_type == rules.DEFERRED_UPDATE_MESSAGE:
            return record.source_message
        if response_type == rules.UPDATE_MESSAGE:
            if record.source_message is None:
                raise invalid_form("type", "there is no message to update")
            return self.edit_message(record.source_message, data, uploads)
        if response_type == rules.AUTOCOMPLETE_RESULT:
            rules.check_choices(data)
            record.choices = list(data["choices"])
            return None
        for key in ("custom_id", "title", "components"):
            if not data.get(key):
                raise invalid_form(
                    f"data.{key}", "a modal needs a custom_id, a title and components"
                )
        record.modal = data
        return None

    def _callback_body(self, record: InteractionRecord, message: Message | None) -> JSON:
        assert record.response_type is not None
        interaction: JSON = {"id": str(record.id), "type": record.kind}
        body: JSON = {"interaction": interaction}
        if message is not None:
            interaction.update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            if record.response_type in (
                rules.CHANNEL_MESSAGE,
                rules.DEFERRED_CHANNEL_MESSAGE,
                rules.UPDATE_MESSAGE,
            ):
                body["resource"] = {"type": record.response_type, "message": message.payload()}
        return body

    def webhook_interaction(self, app_id: int, token: str) -> InteractionRecord:
        """The interaction behind a webhook token, checked for age and an initial response."""
        record = self.interactions_by_token.get(token)
        if app_id != self.app_id or record is None:
            raise error(rules.UNKNOWN_WEBHOOK, f"no interaction token for application {app_id}")
        age = self.now() - record.created
        if age > self.token_lifetime:
            raise error(
                rules.INVALID_WEBHOOK_TOKEN,
                f"token of {record.name} used {age:.0f} s after the interaction "
                f"(tokens last {self.token_lifetime:g} s)",
            )
        if record.response_type is None:
            raise error(
                rules.UNKNOWN_WEBHOOK,
                f"follow-up or edit for {record.name} before any initial response"
                + (" (the response came too late)" if record.late else ""),
            )
        return record

    def followup(
        self, record: InteractionRecord, body: JSON, uploads: dict[int, Upload]
    ) -> Message:
        """A follow-up; the first one after a deferred response fills the loading message."""
        if record.response_type in (rules.AUTOCOMPLETE_RESULT, rules.MODAL):
            raise error(
                rules.UNKNOWN_WEBHOOK,
                f"{record.name} was answered with type "
                f"{record.response_type}, which takes no follow-ups",
            )
        original = record.original
        if (
            original is not None
            and original.loading
            and not original.deleted  # deleting the loading message frees the first follow-up
            and record.response_type == rules.DEFERRED_CHANNEL_MESSAGE
        ):
            message = self.edit_message(original, body, uploads)
        else:
            message = self.post_message(
                record.channel, self.bot, body, uploads, interaction=record, ephemeral_allowed=True
            )
        record.followups.append(message)
        self.changed(record)
        return message

    def webhook_message(self, record: InteractionRecord, message_id: str) -> Message:
        """@original or one of the interaction's follow-ups."""
        if message_id == "@original":
            if record.original is None or record.original.deleted:
                raise error(
                    rules.UNKNOWN_MESSAGE, f"{record.name} has no original response message"
                )
            return record.original
        found = next(
            (m for m in record.followups if str(m.id) == message_id and not m.deleted), None
        )
        if found is None and record.original is not None and str(record.original.id) == message_id:
            found = record.original
        if found is None:
            raise error(
                rules.UNKNOWN_MESSAGE, f"message {message_id} does not belong to {record.name}"
            )
        return found


def _message_intent(channel: Channel) -> int:
    return DIRECT_MESSAGES_INTENT if channel.type == DM_CHANNEL else GUILD_MESSAGES_INTENT
