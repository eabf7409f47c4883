"""The API tests use: start the emulator, add users and channels, act as users, read results.

async with FakeDiscord() as discord_:
    alice = discord_.add_user("alice")
    async with discord_.running(make_bot()):
        reply = await alice.slash("tafl challenge", opponent=discord_.add_user("bob"))
        assert "challenge" in reply.content
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from types import TracebackType
from typing import Any, ClassVar, NamedTuple, Self, TypeVar

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import web

from tests.fake_discord import rules
from tests.fake_discord.rules import JSON
from tests.fake_discord.server import FILES_PATH, InjectedFailure, Server, Session
from tests.fake_discord.state import (
    MEMBER_PERMISSIONS,
    Account,
    Attachment,
    Channel,
    Guild,
    InteractionRecord,
    Message,
    NotAnswered,
    Role,
    Violation,
)
from tests.fake_discord.world import Upload, World

BotT = TypeVar("BotT", bound=discord.Client)
OPTION_TYPE_NAMES = {
    3: "string",
    4: "integer",
    5: "boolean",
    6: "user",
    7: "channel",
    8: "role",
    9: "mentionable",
    10: "number",
    11: "attachment",
}


class DriverError(Exception):
    """A test asked for what a Discord user could not do (unknown command, hidden button...)."""


class InteractionFailed(AssertionError):
    """The bot did not answer in time: Discord would show "This interaction failed"."""


class Choice(NamedTuple):
    """An autocomplete suggestion."""

    name: str
    value: str | int | float


class Reply:
    """One interaction a user sent and everything the bot answered to it (live: it updates)."""

    def __init__(self, fake: FakeDiscord, record: InteractionRecord) -> None:
        self.fake = fake
        self.record = record

    def __repr__(self) -> str:
        return f"<Reply to {self.record.name} type={self.type} followups={len(self.followups)}>"

    @property
    def type(self) -> int | None:
        """The initial response type (4 message, 5 deferred, 6 deferred update, 7 update, 8, 9)."""
        return self.record.response_type

    @property
    def deferred(self) -> bool:
        """The bot acknowledged first and answers later (type 5 or 6)."""
        return self.type in (rules.DEFERRED_CHANNEL_MESSAGE, rules.DEFERRED_UPDATE_MESSAGE)

    @property
    def message(self) -> Message | None:
        """The original response: the new message (4, 5) or the clicked message (6, 7)."""
        return self.record.original

    @property
    def followups(self) -> list[Message]:
        """Follow-up messages, oldest first (after a defer the first one is `message` itself)."""
        return self.record.followups

    @property
    def choices(self) -> list[Choice]:
        """The autocomplete suggestions the bot answered."""
        if self.record.choices is None:
            raise DriverError(f"{self.record.name} was not answered with autocomplete choices")
        return [Choice(c["name"], c["value"]) for c in self.record.choices]

    @property
    def modal(self) -> JSON | None:
        """The modal the bot opened (type 9), as sent."""
        return self.record.modal

    def _shown(self) -> Message:
        message = self.message
        if message is None:
            raise DriverError(f"{self.record.name} has no response message (type {self.type})")
        if message.loading:
            raise DriverError(
                f"the bot deferred {self.record.name} and has not answered: await .result() first"
            )
        return message

    @property
    def content(self) -> str:
        """Text of the response message."""
        return self._shown().content

    @property
    def embeds(self) -> list[JSON]:
        """Embeds of the response message."""
        return self._shown().embeds

    @property
    def embed(self) -> JSON | None:
        """First embed of the response message."""
        return self._shown().embed

    @property
    def files(self) -> list[Attachment]:
        """Files of the response message, with their bytes."""
        return self._shown().files

    @property
    def components(self) -> list[JSON]:
        """Components of the response message."""
        return self._shown().components

    @property
    def buttons(self) -> list[JSON]:
        """Buttons of the response message."""
        return self._shown().buttons

    @property
    def ephemeral(self) -> bool:
        """Only the user who interacted sees the response."""
        return self._shown().ephemeral

    async def wait_for(
        self, check: Callable[[Reply], bool], *, timeout: float | None = None, what: str = ""
    ) -> Self:
        """Wait until `check(self)` holds (e.g. a second follow-up arrived)."""
        await self.fake.wait_for(
            lambda: check(self), timeout=timeout, what=what or f"condition on {self.record.name}"
        )
        return self

    async def responded(self) -> Self:
        """Wait for the initial response; InteractionFailed if the deadline passes without one."""
        record = self.record
        remaining = record.created + self.fake.world.response_deadline - self.fake.world.now()
        try:
            await self.fake.world.feed.wait_until(
                lambda: True if record.response_type is not None else None,
                max(remaining, 0.0) + 0.05,
                lambda: "",
                topics=(record,),
            )
        except NotAnswered:
            refused = [
                str(v)
                for v in self.fake.violations
                if str(record.id) in v.route or record.token in v.route
            ]
            raise InteractionFailed(
                f"the bot did not respond to {record.name} within "
                f"{self.fake.world.response_deadline:g} s (Discord shows 'This interaction failed')"
                + "".join(f"\n  refused: {line}" for line in refused)
            ) from None
        return self

    async def result(self, *, timeout: float | None = None) -> Message:
        """The message the user ends up seeing: the response, or after a defer the late answer."""
        await self.responded()
        record = self.record
        kind = record.response_type
        if kind in (rules.AUTOCOMPLETE_RESULT, rules.MODAL):
            raise DriverError(
                f"{record.name} was answered with type {kind}: use .choices or .modal"
            )

        def probe() -> Message | None:
            original = record.original
            if kind == rules.DEFERRED_UPDATE_MESSAGE:
                source = record.source_message
                if source is not None and source.edits > record.edits_at_response:
                    return source
                return record.followups[0] if record.followups else None
            return original if original is not None and not original.loading else None

        return await self.fake.world.feed.wait_until(
            probe,
            self.fake.timeout if timeout is None else timeout,
            lambda: f"the bot deferred {record.name} (type {kind}) and never sent its answer",
            topics=(record, record.source_message),
        )

    async def followup(self, index: int = 0, *, timeout: float | None = None) -> Message:
        """The follow-up number `index` (0 = first), waiting for it."""
        record = self.record

        def probe() -> Message | None:
            return record.followups[index] if len(record.followups) > index else None

        return await self.fake.world.feed.wait_until(
            probe,
            self.fake.timeout if timeout is None else timeout,
            lambda: f"follow-up #{index} to {record.name} never came",
            topics=(record,),
        )


class User:
    """A person in the emulated Discord; its methods act as that person would."""

    def __init__(self, fake: FakeDiscord, account: Account) -> None:
        self.fake = fake
        self.account = account

    def __repr__(self) -> str:
        return f"<User {self.name} id={self.id}>"

    @property
    def id(self) -> int:
        """The user's snowflake."""
        return self.account.id

    @property
    def name(self) -> str:
        """The username."""
        return self.account.name

    @property
    def mention(self) -> str:
        """`<@id>`."""
        return self.account.mention

    @property
    def dm(self) -> Channel:
        """The bot's DM channel with this user (read what the bot sent privately)."""
        return self.fake.world.dm_channel(self.account)

    def sees(self, message: Message) -> bool:
        """Whether this user can see `message` (ephemeral messages belong to one user)."""
        return message.visible_for(self.id)

    async def say(self, content: str, *, channel: Channel | None = None) -> Message:
        """Post an ordinary message (MESSAGE_CREATE to the bot)."""
        channel = channel or self.fake.channel
        return self.fake.world.post_message(channel, self.account, {"content": content})

    async def slash(
        self,
        command: str,
        /,
        *,
        channel: Channel | None = None,
        options: Mapping[str, Any] | None = None,
        wait: bool = True,
        **values: Any,
    ) -> Reply:
        """Run a slash command: `await alice.slash("tafl move", move="d1-d4")`.

        The path names the command, then its group and subcommand. Options are checked against
        the synced schema (names, types, required, choices, ranges); user, channel and role
        options take `User`/`Channel`/`Role` objects and fill `data.resolved`. Use `options=` for
        option names that clash with `channel`, `options` or `wait`. Returns once the bot has
        responded (wait=False: at once).
        """
        channel = channel or self.fake.channel
        merged = {**(options or {}), **values}
        data, name = self.fake.command_data(channel, command, merged, focused=None)
        return await self.fake.interact(
            rules.APPLICATION_COMMAND, self, channel, name, data, wait=wait
        )

    async def autocomplete(
        self,
        command: str,
        /,
        focus: str,
        *,
        channel: Channel | None = None,
        options: Mapping[str, Any] | None = None,
        **values: Any,
    ) -> list[Choice]:
        """Type into option `focus` and return the bot's suggestions.

        `values[focus]` is the text typed so far (default ""); other options are what the user
        already filled in (required ones may be missing, as in Discord).
        """
        channel = channel or self.fake.channel
        merged = {**(options or {}), **values}
        merged.setdefault(focus, "")
        data, name = self.fake.command_data(channel, command, merged, focused=focus)
        reply = await self.fake.interact(rules.AUTOCOMPLETE, self, channel, name, data, wait=True)
        return reply.choices

    def _target(self, message: Message | Reply) -> Message:
        target = message.message if isinstance(message, Reply) else message
        if target is None:
            raise DriverError(f"{message!r} has no message to interact with")
        if not target.visible_for(self.id):
            raise DriverError(f"{self.name} cannot see message {target.id} (ephemeral or deleted)")
        return target

    def _component(self, message: Message, key: str, kinds: frozenset[int]) -> JSON:
        try:
            component = message.component(key, kinds=kinds)
        except ValueError as exc:
            raise DriverError(str(exc)) from None
        if component.get("disabled"):
            raise DriverError(f"{key!r} on message {message.id} is disabled")
        return component

    async def click(self, message: Message | Reply, button: str, *, wait: bool = True) -> Reply:
        """Click the button whose custom_id or label is `button` on `message`."""
        target = self._target(message)
        component = self._component(target, button, frozenset({2}))
        if component.get("style") in (rules.LINK_BUTTON_STYLE, rules.PREMIUM_BUTTON_STYLE):
            raise DriverError(f"{button!r} is a link or premium button: it sends no interaction")
        data = {"custom_id": component["custom_id"], "component_type": 2}
        label = component.get("label") or component["custom_id"]
        return await self.fake.interact(
            rules.MESSAGE_COMPONENT,
            self,
            target.channel,
            f"button {label!r}",
            data,
            source=target,
            wait=wait,
        )

    async def select(
        self, message: Message | Reply, menu: str, values: list[str], *, wait: bool = True
    ) -> Reply:
        """Pick `values` in the string select whose custom_id or placeholder is `menu`."""
        target = self._target(message)
        component = self._component(target, menu, frozenset({3}))
        offered = [o["value"] for o in component.get("options", [])]
        unknown = [v for v in values if v not in offered]
        if unknown:
            raise DriverError(f"select {menu!r} offers {offered}, not {unknown}")
        low, high = component.get("min_values", 1), component.get("max_values", 1)
        if not low <= len(values) <= high:
            raise DriverError(f"select {menu!r} takes {low} to {high} values, not {len(values)}")
        data = {"custom_id": component["custom_id"], "component_type": 3, "values": values}
        return await self.fake.interact(
            rules.MESSAGE_COMPONENT,
            self,
            target.channel,
            f"select {menu!r}",
            data,
            source=target,
            wait=wait,
        )

    async def submit_modal(
        self, opened: Reply, values: Mapping[str, str], *, wait: bool = True
    ) -> Reply:
        """Fill in the modal the bot opened in `opened` (text inputs by custom_id) and submit it."""
        modal = opened.modal
        if modal is None:
            raise DriverError(f"the bot opened no modal in {opened.record.name}")
        inputs = [c for c in rules.walk_components(modal["components"]) if c.get("type") == 4]
        known = {c["custom_id"] for c in inputs}
        if set(values) - known:
            raise DriverError(
                f"modal {modal['title']!r} has inputs {sorted(known)}, "
                f"not {sorted(set(values) - known)}"
            )

        def answered(component: JSON) -> JSON:
            value = values.get(component["custom_id"], component.get("value") or "")
            if component.get("required", True) and not value:
                raise DriverError(f"modal input {component['custom_id']!r} is required")
            return {"type": 4, "custom_id": component["custom_id"], "value": value}

        submitted: list[JSON] = []
        for top in modal["components"]:
            if top.get("type") == 1:
                rows = [answered(c) for c in top.get("components", []) if c.get("type") == 4]
                submitted.append({"type": 1, "components": rows})
            elif top.get("type") == 18 and top.get("component", {}).get("type") == 4:
                submitted.append({"type": 18, "component": answered(top["component"])})
        data = {"custom_id": modal["custom_id"], "components": submitted}
        return await self.fake.interact(
            rules.MODAL_SUBMIT,
            self,
            opened.record.channel,
            f"modal {modal['title']!r}",
            data,
            source=opened.record.source_message,
            wait=wait,
        )


class FakeDiscord:
    """A local Discord (REST + gateway on one port) that the real discord.py client talks to.

    Use as `async with FakeDiscord() as discord_:` in a test or a plain asyncio script: it starts
    on a free 127.0.0.1 port and points discord.py at it, restoring it on exit. It starts with one
    guild (`.guild`) holding a text channel (`.channel`). On exit it fails (AssertionError) if any
    Discord rule was broken and not taken with `take_violations()`; pass check_on_exit=False to
    skip that.
    """

    _active: ClassVar[FakeDiscord | None] = None

    def __init__(
        self,
        *,
        response_deadline: float = rules.RESPONSE_DEADLINE,
        token_lifetime: float = rules.TOKEN_LIFETIME,
        timeout: float = 5.0,
        check_on_exit: bool = True,
        guild_name: str = "Tafl Club",
        channel_name: str = "general",
    ) -> None:
        self.world = World(response_deadline=response_deadline, token_lifetime=token_lifetime)
        self.server = Server(self.world)
        self.timeout = timeout
        self.check_on_exit = check_on_exit
        self.guild = self.world.add_guild(guild_name)
        self.channel = self.world.add_channel(self.guild, channel_name)
        self.base_url = ""
        self._users: dict[int, User] = {}
        self._runner: web.AppRunner | None = None
        self._saved: tuple[str, yarl.URL] | None = None

    # ----------------------------------------------------------------- lifecycle

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
        if self.check_on_exit and exc_type is None:
            self.assert_no_violations()

    async def start(self) -> None:
        """Listen on a free port and redirect discord.py's REST and gateway URLs here."""
        if FakeDiscord._active is not None:
            raise RuntimeError("another FakeDiscord is running: discord.py's URLs are process-wide")
        runner = web.AppRunner(self.server.app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port = runner.addresses[0][1]
        self._runner = runner
        self.base_url = self.server.base_url = f"http://127.0.0.1:{port}"
        self.world.files_url = self.base_url + FILES_PATH
        self._saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
        discord.http.Route.BASE = f"{self.base_url}/api/v10"
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.server.gateway_url)
        FakeDiscord._active = self

    async def stop(self) -> None:
        """Close gateway sockets, stop listening and restore discord.py's URLs."""
        if self._runner is None:
            return
        self.server.gateway_open.set()
        await self.server.drop_connections(1001)
        await self._runner.cleanup()
        self._runner = None
        if self._saved is not None:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._saved
        FakeDiscord._active = None

    @asynccontextmanager
    async def running(self, bot: BotT, *, timeout: float = 10.0) -> AsyncIterator[BotT]:
        """Log `bot` in, connect it, wait for on_ready; close it on exit (its errors surface)."""
        try:
            await bot.login(self.token)
        except BaseException:
            await bot.close()
            raise
        task = asyncio.create_task(bot.connect(), name=f"fake-discord bot {bot.user}")
        ready = asyncio.create_task(bot.wait_until_ready())
        try:
            done, _ = await asyncio.wait(
                {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if task in done:
                task.result()
                raise RuntimeError("the bot stopped before it was ready")
            if ready not in done:
                raise NotAnswered(f"the bot was not ready after {timeout:g} s")
            yield bot
        finally:
            ready.cancel()
            await bot.close()
            with suppress(asyncio.CancelledError):
                await task
            self.server.forget_disconnected()

    # ----------------------------------------------------------------- the world

    @property
    def token(self) -> str:
        """The bot token the emulator accepts."""
        return self.world.token

    @property
    def bot_user(self) -> Account:
        """The bot's own user (its id is also the application id)."""
        return self.world.bot

    @property
    def application_id(self) -> int:
        """The application id."""
        return self.world.app_id

    def add_user(self, name: str, *, guild: Guild | None = None, permissions: int = 0) -> User:
        """A new person, member of `guild` (default: the default guild), with `permissions`
        (a bit field, e.g. `discord.Permissions(manage_guild=True).value`) beyond a member's."""
        account = self.world.add_account(name)
        self.world.add_member(guild or self.guild, account).granted |= permissions
        user = self._users[account.id] = User(self, account)
        return user

    def user(self, key: str | int) -> User:
        """A user added earlier, by name or id."""
        for user in self._users.values():
            if key in (user.name, user.id):
                return user
        raise KeyError(f"no user {key!r}; users: {', '.join(u.name for u in self._users.values())}")

    def add_guild(self, name: str) -> Guild:
        """Another guild holding the bot (GUILD_CREATE if a bot is connected)."""
        return self.world.add_guild(name)

    def add_channel(self, name: str, *, guild: Guild | None = None) -> Channel:
        """A new text channel (default: in the default guild)."""
        return self.world.add_channel(guild or self.guild, name)

    def add_thread(
        self, name: str, *, parent: Channel | None = None, owner: User | None = None
    ) -> Channel:
        """A new public thread (default: under the default channel, started by the bot)."""
        account = owner.account if owner is not None else self.world.bot
        return self.world.add_thread(parent or self.channel, name, account)

    def add_role(self, name: str, *, guild: Guild | None = None) -> Role:
        """A new role (for role options); give it with `member_of(...).roles.append(role.id)`."""
        guild = guild or self.guild
        role = Role(self.world.ids.next(), name, 0, position=len(guild.roles))
        guild.roles.append(role)
        return role

    def message(self, message_id: int) -> Message:
        """Any message by id (ephemeral and deleted ones included)."""
        return self.world.messages[message_id]

    def commands(self, guild: Guild | None = None) -> list[JSON]:
        """The commands the bot synced, as stored (global, or for `guild`)."""
        if guild is None:
            return self.world.global_commands.commands
        return self.world.command_set(guild.id).commands

    @property
    def sessions(self) -> list[Session]:
        """Gateway sessions (connected or waiting to RESUME)."""
        return list(self.server.sessions.values())

    @property
    def request_counts(self) -> dict[str, int]:
        """How often each route was called, e.g. counts["POST /channels/{channel_id}/messages"]."""
        return dict(self.server.request_counts)

    # ----------------------------------------------------------------- waiting

    async def wait_for(
        self, check: Callable[[], bool], *, timeout: float | None = None, what: str = "condition"
    ) -> None:
        """Wait until `check()` holds; NotAnswered on timeout.

        `check` is re-run on every emulator change and every 20 ms, so it may also look at the
        bot's own state (its database, caches...).
        """
        await self.world.feed.wait_until(
            lambda: True if check() else None,
            self.timeout if timeout is None else timeout,
            lambda: f"{what} did not come true",
            poll=True,
        )

    # ----------------------------------------------------------------- Discord rules

    @property
    def violations(self) -> list[Violation]:
        """Broken rules and unknown requests so far (not yet taken)."""
        return list(self.world.violations)

    def take_violations(self, code: int | None = None) -> list[Violation]:
        """Remove and return the violations (with that code): for tests that expect them."""
        taken = [v for v in self.world.violations if code is None or v.code == code]
        self.world.violations[:] = [v for v in self.world.violations if v not in taken]
        return taken

    async def wait_for_violation(self, code: int, *, timeout: float | None = None) -> Violation:
        """Wait until a violation with `code` is recorded, then take it."""
        await self.wait_for(
            lambda: any(v.code == code for v in self.world.violations),
            timeout=timeout,
            what=f"violation {code}",
        )
        return self.take_violations(code)[0]

    def assert_no_violations(self) -> None:
        """AssertionError listing every broken Discord rule, if any."""
        if self.world.violations:
            lines = "\n".join(f"  {v}" for v in self.world.violations)
            raise AssertionError(f"the bot broke Discord rules:\n{lines}")

    def advance_time(self, seconds: float) -> None:
        """Move the emulated wall clock forward: new ids carry the later time, and messages
        made before look that much older (an edit of one over an hour old gets 30046)."""
        self.world.ids.offset += seconds

    def fail_next(
        self,
        method: str,
        route: str,
        *,
        status: int = 429,
        retry_after: float = 0.05,
        is_global: bool = False,
        times: int = 1,
    ) -> None:
        """Answer the next `times` matching requests with a 429 (or another status: 403 is
        Discord's "Missing Permissions", 50013; 500 a server error).

        `route` is the template, e.g. fail_next("POST", "/channels/{channel_id}/messages").
        """
        self.server.injected.append(
            InjectedFailure(method.upper(), route, status, retry_after, is_global, times)
        )

    # ----------------------------------------------------------------- gateway control

    async def disconnect(self, *, resumable: bool = True) -> None:
        """Drop the bots' gateway sockets; they reconnect and RESUME (or IDENTIFY anew)."""
        await self.server.drop_connections(4000, forget=not resumable)

    @asynccontextmanager
    async def gateway_paused(self) -> AsyncIterator[None]:
        """Hold new gateway connections before HELLO; events meanwhile wait for RESUME."""
        self.server.gateway_open.clear()
        try:
            yield
        finally:
            self.server.gateway_open.set()

    # ----------------------------------------------------------------- interactions

    async def interact(
        self,
        kind: int,
        user: User,
        channel: Channel,
        name: str,
        data: JSON,
        *,
        source: Message | None = None,
        wait: bool = True,
    ) -> Reply:
        """Send an interaction to the connected bot(s) and (wait=True) wait for its response."""
        if not self.server.sessions:
            raise InteractionFailed(f"{name}: no bot is connected to the gateway")
        # Sessions without a socket (a bot reconnecting) get the event when they RESUME.
        record = self.world.new_interaction(kind, user.account, channel, name, data, source)
        reply = Reply(self, record)
        if wait:
            await reply.responded()
        return reply

    def command_data(
        self, channel: Channel, path: str, values: Mapping[str, Any], *, focused: str | None
    ) -> tuple[JSON, str]:
        """The `data` of a slash command or autocomplete interaction, checked against the schema."""
        words = path.strip().removeprefix("/").split()
        if not words:
            raise DriverError("name a command, e.g. 'tafl move'")
        scopes = [self.world.global_commands]
        if channel.guild is not None:
            scopes.insert(0, self.world.command_set(channel.guild.id))
        command = next((c for s in scopes if (c := s.find(words[0])) is not None), None)
        if command is None:
            synced = sorted({c["name"] for s in scopes for c in s.commands})
            raise DriverError(
                f"no command /{words[0]} synced; synced: {', '.join(synced) or 'none'}"
            )
        node, chain = command, []
        for word in words[1:]:
            sub = next(
                (
                    o
                    for o in node.get("options") or []
                    if o["name"] == word and o["type"] in (rules.SUBCOMMAND, rules.SUBCOMMAND_GROUP)
                ),
                None,
            )
            if sub is None:
                raise DriverError(
                    f"/{command['name']} has no subcommand {word!r} at that level; "
                    f"it has: {_nested_names(node) or 'none'}"
                )
            chain.append(sub)
            node = sub
        if _nested_names(node):
            raise DriverError(f"/{' '.join(words)} is a group: add one of {_nested_names(node)}")
        name = "/" + " ".join(words)
        resolved: JSON = {}
        options = self._options(name, node, values, focused, channel, resolved)
        for sub in reversed(chain):
            options = [{"type": sub["type"], "name": sub["name"], "options": options}]
        data: JSON = {"id": command["id"], "name": command["name"], "type": 1, "options": options}
        if resolved:
            data["resolved"] = resolved
        if "guild_id" in command:
            data["guild_id"] = command["guild_id"]
        return data, name

    def _options(
        self,
        name: str,
        node: JSON,
        values: Mapping[str, Any],
        focused: str | None,
        channel: Channel,
        resolved: JSON,
    ) -> list[JSON]:
        schema = {o["name"]: o for o in node.get("options") or []}
        unknown = sorted(set(values) - set(schema))
        if unknown:
            described = ", ".join(
                f"{o['name']} ({OPTION_TYPE_NAMES.get(o['type'], o['type'])}"
                f"{', required' if o.get('required') else ''})"
                for o in schema.values()
            )
            raise DriverError(
                f"{name} has no option {unknown[0]!r}; its options: {described or 'none'}"
            )
        options: list[JSON] = []
        for option_name, spec in schema.items():
            if option_name not in values:
                if spec.get("required") and focused is None:
                    raise DriverError(f"{name} needs option {option_name!r}")
                continue
            value = values[option_name]
            if option_name == focused:
                if not spec.get("autocomplete"):
                    raise DriverError(f"option {option_name!r} of {name} has no autocomplete")
                options.append(
                    {"type": spec["type"], "name": option_name, "value": value, "focused": True}
                )
                continue
            converted = self._option_value(name, spec, value, channel, resolved)
            options.append({"type": spec["type"], "name": option_name, "value": converted})
        return options

    def _option_value(
        self, name: str, spec: JSON, value: Any, channel: Channel, resolved: JSON
    ) -> Any:
        kind, option = spec["type"], f"option {spec['name']!r} of {name}"
        expected = OPTION_TYPE_NAMES.get(kind, str(kind))
        if kind == 3 and isinstance(value, str):
            if not spec.get("min_length", 0) <= len(value) <= spec.get("max_length", 6000):
                raise DriverError(
                    f"{option} must be {spec.get('min_length', 0)} to "
                    f"{spec.get('max_length', 6000)} characters long"
                )
        elif kind in (4, 10) and isinstance(value, (int, float)) and not isinstance(value, bool):
            if kind == 4 and not isinstance(value, int):
                raise DriverError(f"{option} takes an integer, not {value!r}")
            low, high = spec.get("min_value"), spec.get("max_value")
            if (low is not None and value < low) or (high is not None and value > high):
                raise DriverError(f"{option} must lie in [{low}, {high}], not {value!r}")
        elif kind == 5 and isinstance(value, bool):
            pass
        elif kind in (6, 9) and isinstance(value, (User, Account)):
            account = value.account if isinstance(value, User) else value
            resolved.setdefault("users", {})[str(account.id)] = account.payload()
            member = channel.guild.members.get(account.id) if channel.guild else None
            if member is not None:
                resolved.setdefault("members", {})[str(account.id)] = member.payload(
                    with_user=False, with_permissions=True
                )
            return str(account.id)
        elif kind in (8, 9) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        elif kind == 7 and isinstance(value, Channel):
            allowed = spec.get("channel_types")
            if allowed and value.type not in allowed:
                raise DriverError(f"{option} takes channel types {allowed}, not {value.type}")
            data = value.payload() | {"permissions": str(MEMBER_PERMISSIONS)}
            resolved.setdefault("channels", {})[str(value.id)] = data
            return str(value.id)
        elif kind == 11 and isinstance(value, Upload):
            attachment = self.world.add_upload(channel, value)
            resolved.setdefault("attachments", {})[str(attachment.id)] = attachment.payload()
            return str(attachment.id)
        else:
            raise DriverError(f"{option} takes a {expected}, not {value!r}")
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            offered = ", ".join(f"{c['name']}={c['value']!r}" for c in choices)
            raise DriverError(f"{option} must be one of its choices: {offered}")
        return value


def _nested_names(node: JSON) -> list[str]:
    return [
        o["name"]
        for o in node.get("options") or []
        if o["type"] in (rules.SUBCOMMAND, rules.SUBCOMMAND_GROUP)
    ]
