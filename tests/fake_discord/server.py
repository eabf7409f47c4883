"""The emulator's HTTP side: Discord's REST routes and gateway on one aiohttp port.

Requests are translated into `World` operations; a `DiscordError` becomes Discord's JSON error
reply and a recorded violation. Unknown routes are answered 404 and recorded too.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import MultipartReader, WSMsgType, web

from tests.fake_discord import rules
from tests.fake_discord.rules import JSON, DiscordError, error, invalid_form
from tests.fake_discord.state import PUBLIC_THREAD, Channel
from tests.fake_discord.world import MEMBERS_INTENT, MESSAGE_CONTENT_INTENT, Event, Upload, World

API = "/api/v10"
GATEWAY_PATH = "/gateway"
FILES_PATH = "/files"
UNAUTHENTICATED = (f"{API}/interactions/", f"{API}/webhooks/")
FILE_FIELD = re.compile(r"^files\[(\d+)\]$")
RESUME_BUFFER = 10_000  # events kept per session for RESUME
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def reply(data: Any, status: int = 200) -> web.Response:
    """A JSON reply whose Content-Type is exactly application/json, as discord.py requires."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


def no_content() -> web.Response:
    """204 No Content."""
    return web.Response(status=204)


def snowflake(request: web.Request, key: str) -> int:
    """A numeric id from the URL."""
    text = request.match_info[key]
    if not text.isdigit():
        raise error(rules.NOT_FOUND, f"{key} {text!r} is not a snowflake")
    return int(text)


async def read_body(request: web.Request) -> tuple[Any, dict[int, Upload]]:
    """The JSON body, or multipart payload_json plus files[n] uploads."""
    if request.content_type.startswith("multipart/"):
        reader = await request.multipart()
        payload: Any = {}
        uploads: dict[int, Upload] = {}
        while (part := await reader.next()) is not None:
            if isinstance(part, MultipartReader):
                raise invalid_form("body", "nested multipart is not supported")
            name = part.name or ""
            if name == "payload_json":
                payload = json.loads(await part.text())
            elif match := FILE_FIELD.match(name):
                uploads[int(match.group(1))] = Upload(
                    part.filename or f"file{match.group(1)}",
                    bytes(await part.read(decode=False)),
                    part.headers.get("Content-Type"),
                )
            else:
                raise invalid_form(name, "expected payload_json or files[n]")
        return payload, uploads
    raw = await request.read()
    if not raw:
        return None, {}
    if request.content_type != "application/json":
        raise invalid_form("body", f"expected application/json, got {request.content_type}")
    try:
        return json.loads(raw), {}
    except ValueError as exc:
        raise invalid_form("body", f"invalid JSON: {exc}") from None


async def read_json(request: web.Request) -> JSON:
    """A JSON object body."""
    body, _ = await read_body(request)
    if not isinstance(body, dict):
        raise invalid_form("body", "expected a JSON object")
    return body


@dataclass
class InjectedFailure:
    """A reply a test asked for on the next matching requests (429, 403 or 5xx)."""

    method: str
    route: str  # as in the route table, e.g. "/channels/{channel_id}/messages"
    status: int
    retry_after: float
    is_global: bool
    remaining: int

    def response(self) -> web.Response:
        """The reply discord.py treats as a rate limit (429 with Via), a missing permission
        (403, Discord's code 50013) or a server error."""
        if self.status == 403:
            return reply({"message": "Missing Permissions", "code": 50013}, 403)
        if self.status != 429:
            return reply({"message": f"{self.status}: Server Error", "code": 0}, self.status)
        body = {
            "message": "You are being rate limited.",
            "retry_after": self.retry_after,
            "global": self.is_global,
            "code": 0,
        }
        response = reply(body, 429)
        response.headers.update(
            {
                "Via": "1.1 google",
                "Retry-After": str(self.retry_after),
                "X-RateLimit-Scope": "global" if self.is_global else "user",
            }
        )
        return response


class Connection:
    """One gateway websocket; frames are sent in order by a writer task."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.heartbeats = 0
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write())

    def send(self, payload: JSON | str) -> None:
        """Queue a frame."""
        self._queue.put_nowait(payload if isinstance(payload, str) else json.dumps(payload))

    async def _write(self) -> None:
        while True:
            text = await self._queue.get()
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int) -> None:
        """Close the socket with `code`."""
        await self.ws.close(code=code)

    def stop(self) -> None:
        """Stop writing."""
        self._writer.cancel()


class Session:
    """A gateway session (IDENTIFY'd), kept across reconnects until RESUME or invalidation."""

    def __init__(self, intents: int, shard: tuple[int, int] | None = None) -> None:
        self.id = secrets.token_hex(16)
        self.intents = intents
        self.shard = shard
        """(shard id, shard count) from IDENTIFY; None: every guild."""
        self.seq = 0
        self.buffer: deque[tuple[int, str]] = deque(maxlen=RESUME_BUFFER)
        self.connection: Connection | None = None
        self.resumes = 0

    def serves(self, guild_id: int | None) -> bool:
        """Whether this session gets the guild's events: Discord's ``(guild_id >> 22) % count``
        picks the shard; direct messages go to shard 0."""
        if self.shard is None:
            return True
        shard_id, count = self.shard
        return shard_id == (0 if guild_id is None else (guild_id >> 22) % count)

    def push(self, name: str, data: JSON) -> None:
        """Dispatch an event now (or keep it for RESUME while disconnected)."""
        self.seq += 1
        text = json.dumps({"op": 0, "s": self.seq, "t": name, "d": data})
        self.buffer.append((self.seq, text))
        if self.connection is not None:
            self.connection.send(text)


class Server:
    """REST routes, gateway and failure injection over a `World`."""

    def __init__(self, world: World, *, heartbeat_interval_ms: int = 41250) -> None:
        self.world = world
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.sessions: dict[str, Session] = {}
        self.identifies = 0
        self.recommended_shards = 1
        """The shard count ``GET /gateway/bot`` recommends (what an AutoShardedBot uses)."""
        self.request_counts: Counter[str] = Counter()
        self.injected: list[InjectedFailure] = []
        self.gateway_open = asyncio.Event()
        self.gateway_open.set()
        self.base_url = ""
        world.emit = self.emit
        self.app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes()

    # ----------------------------------------------------------------- plumbing

    def _add_routes(self) -> None:
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/users/@me", self.get_me),
            ("POST", "/users/@me/channels", self.create_dm),
            ("GET", "/users/{user_id}", self.get_user),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway),
            ("GET", "/applications/{app_id}/commands", self.get_commands),
            ("PUT", "/applications/{app_id}/commands", self.put_commands),
            ("POST", "/applications/{app_id}/commands", self.post_command),
            ("GET", "/applications/{app_id}/commands/{command_id}", self.get_command),
            ("PATCH", "/applications/{app_id}/commands/{command_id}", self.patch_command),
            ("DELETE", "/applications/{app_id}/commands/{command_id}", self.delete_command),
            ("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self.get_commands),
            ("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self.put_commands),
            ("POST", "/applications/{app_id}/guilds/{guild_id}/commands", self.post_command),
            (
                "GET",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self.get_command,
            ),
            (
                "PATCH",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self.patch_command,
            ),
            (
                "DELETE",
                "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
                self.delete_command,
            ),
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("PATCH", "/channels/{channel_id}", self.patch_channel),
            ("GET", "/channels/{channel_id}/messages", self.get_messages),
            ("POST", "/channels/{channel_id}/messages", self.post_message),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self.patch_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message),
            ("POST", "/channels/{channel_id}/typing", self.typing),
            ("POST", "/channels/{channel_id}/threads", self.post_thread),
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.post_thread),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.typing),
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self.callback),
            ("POST", "/webhooks/{app_id}/{token}", self.post_followup),
            ("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self.get_webhook_message),
            (
                "PATCH",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self.patch_webhook_message,
            ),
            (
                "DELETE",
                "/webhooks/{app_id}/{token}/messages/{message_id}",
                self.delete_webhook_message,
            ),
        ]
        for method, path, handler in routes:
            self.app.router.add_route(method, API + path, handler)
        self.app.router.add_get(GATEWAY_PATH, self.gateway)
        self.app.router.add_get(
            FILES_PATH + "/{channel_id}/{attachment_id}/{filename}", self.get_file
        )

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        where = f"{request.method} {request.path}"
        resource = request.match_info.route.resource
        template = resource.canonical.removeprefix(API) if resource is not None else request.path
        key = f"{request.method} {template}"
        self.request_counts[key] += 1
        for failure in self.injected:
            if failure.remaining > 0 and (failure.method, failure.route) == (
                request.method,
                template,
            ):
                failure.remaining -= 1
                return failure.response()
        try:
            if request.path.startswith(API) and not request.path.startswith(UNAUTHENTICATED):
                self._authenticate(request)
            return await handler(request)
        except DiscordError as failure:
            self.world.record_violation(where, failure)
            return reply(failure.body(), failure.status)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            unknown = DiscordError(
                exc.status,
                0,
                f"{exc.status}: {exc.reason}",
                detail="the emulator has no such route",
            )
            self.world.record_violation(where, unknown)
            return reply(unknown.body(), unknown.status)

    def _authenticate(self, request: web.Request) -> None:
        if request.headers.get("Authorization") != f"Bot {self.world.token}":
            raise error(rules.UNAUTHORIZED, "missing or wrong bot token")

    def _app(self, request: web.Request) -> None:
        if snowflake(request, "app_id") != self.world.app_id:
            raise error(rules.UNKNOWN_APPLICATION, f"the application is {self.world.app_id}")

    # ----------------------------------------------------------------- gateway

    @property
    def gateway_url(self) -> str:
        """The websocket address READY names as resume_gateway_url."""
        return self.base_url.replace("http://", "ws://") + GATEWAY_PATH

    def emit(self, event: Event) -> None:
        """Send an event to every session whose intents ask for it."""
        guild_id = _guild_of(event)
        for session in self.sessions.values():
            if event.intent and not session.intents & event.intent:
                continue
            if not session.serves(guild_id):
                continue
            data = event.data
            message = event.message
            if (
                message is not None
                and not session.intents & MESSAGE_CONTENT_INTENT
                and not message.author.bot
                and self.world.bot.mention not in message.content
            ):
                data = data | {"content": "", "embeds": [], "components": [], "attachments": []}
            session.push(event.name, data)

    @property
    def live_sessions(self) -> list[Session]:
        """Sessions with an open websocket."""
        return [s for s in self.sessions.values() if s.connection is not None]

    async def gateway(self, request: web.Request) -> web.StreamResponse:
        """The websocket: HELLO, heartbeats, IDENTIFY -> READY, RESUME -> replay + RESUMED."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        await self.gateway_open.wait()
        connection = Connection(ws)
        connection.send(
            {
                "op": 10,
                "s": None,
                "t": None,
                "d": {"heartbeat_interval": self.heartbeat_interval_ms},
            }
        )
        session: Session | None = None
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    self._gateway_error(f"unexpected {frame.type.name} frame")
                    continue
                try:
                    payload = json.loads(frame.data)
                    op, data = payload["op"], payload.get("d")
                except (ValueError, KeyError, TypeError):
                    self._gateway_error(f"not a gateway payload: {frame.data[:100]!r}")
                    continue
                if op == 1:
                    connection.heartbeats += 1
                    connection.send({"op": 11, "s": None, "t": None, "d": None})
                elif op == 2:
                    session = await self._identify(connection, data or {})
                elif op == 6:
                    session = self._resume(connection, data or {})
                elif op == 8:
                    self._request_members(session, data or {})
                elif op not in (3, 4):
                    self._gateway_error(f"unknown op {op}")
        finally:
            connection.stop()
            if session is not None and session.connection is connection:
                session.connection = None  # kept for RESUME; see forget_disconnected()
            self.world.changed()
        return ws

    def _gateway_error(self, detail: str) -> None:
        self.world.record_violation(
            "GATEWAY", DiscordError(0, 0, "gateway protocol error", detail=detail)
        )

    async def _identify(self, connection: Connection, data: JSON) -> Session | None:
        if data.get("token") != self.world.token:
            self._gateway_error("IDENTIFY with a wrong token")
            await connection.close(4004)
            return None
        shard = data.get("shard")
        if shard is not None and not (
            isinstance(shard, list) and len(shard) == 2 and 0 <= shard[0] < shard[1]
        ):
            self._gateway_error(f"IDENTIFY with a bad shard {shard!r}")
            await connection.close(4010)
            return None
        session = Session(int(data.get("intents") or 0), None if shard is None else tuple(shard))
        session.connection = connection
        self.sessions[session.id] = session
        self.identifies += 1
        world = self.world
        session.push(
            "READY",
            {
                "v": 10,
                "user": world.bot.payload() | {"verified": True, "mfa_enabled": False},
                "guilds": [
                    {"id": str(g), "unavailable": True} for g in world.guilds if session.serves(g)
                ],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": self.gateway_url,
                "application": {"id": str(world.app_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "geo_ordered_rtc_regions": [],
            }
            | ({} if session.shard is None else {"shard": list(session.shard)}),
        )
        with_members = bool(session.intents & MEMBERS_INTENT)
        for guild in world.guilds.values():
            if session.serves(guild.id):
                session.push("GUILD_CREATE", guild.payload(with_members=with_members))
        world.changed()
        return session

    def _resume(self, connection: Connection, data: JSON) -> Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        seq = data.get("seq") or 0
        oldest = session.buffer[0][0] if session is not None and session.buffer else 1
        if session is None or data.get("token") != self.world.token or seq < oldest - 1:
            connection.send({"op": 9, "s": None, "t": None, "d": False})
            return None
        if session.connection is not None:
            session.connection.stop()
        for number, text in session.buffer:
            if number > seq:
                connection.send(text)
        session.connection = connection
        session.resumes += 1
        session.push("RESUMED", {})
        self.world.changed()
        return session

    def _request_members(self, session: Session | None, data: JSON) -> None:
        if session is None:
            self._gateway_error("REQUEST_GUILD_MEMBERS before IDENTIFY")
            return
        guild_ids = data.get("guild_id")
        for guild_id in guild_ids if isinstance(guild_ids, list) else [guild_ids]:
            guild = self.world.guilds.get(int(guild_id or 0))
            if guild is None:
                continue
            chunk: JSON = {
                "guild_id": str(guild.id),
                "members": [m.payload() for m in guild.members.values()],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [],
            }
            if data.get("nonce"):
                chunk["nonce"] = data["nonce"]
            session.push("GUILD_MEMBERS_CHUNK", chunk)

    def forget_disconnected(self) -> None:
        """Drop sessions nobody is connected to (a closed bot's; discord.py closes with 4000)."""
        for session in list(self.sessions.values()):
            if session.connection is None or session.connection.ws.closed:
                del self.sessions[session.id]

    async def drop_connections(self, code: int, *, forget: bool = False) -> None:
        """Close every gateway socket with `code` (4000 lets the bot RESUME, unless `forget`)."""
        live = self.live_sessions
        if forget:
            self.sessions.clear()
        for session in live:
            if session.connection is not None:
                connection, session.connection = session.connection, None
                connection.stop()
                await connection.close(code)

    # ----------------------------------------------------------------- users, application, gateway

    async def get_me(self, request: web.Request) -> web.Response:
        return reply(self.world.bot.payload() | {"verified": True, "mfa_enabled": False})

    async def get_user(self, request: web.Request) -> web.Response:
        return reply(self.world.account(snowflake(request, "user_id")).payload())

    async def create_dm(self, request: web.Request) -> web.Response:
        body = await read_json(request)
        account = self.world.account(int(body.get("recipient_id", 0)))
        return reply(self.world.dm_channel(account).payload())

    async def get_application(self, request: web.Request) -> web.Response:
        world = self.world
        return reply(
            {
                "id": str(world.app_id),
                "name": world.bot.name,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": world.owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "summary": "",
                "bot": world.bot.payload(),
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
            }
        )

    async def get_gateway(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}
        return reply(
            {
                "url": self.gateway_url,
                "shards": self.recommended_shards,
                "session_start_limit": limit,
            }
        )

    # ----------------------------------------------------------------- application commands

    def _scope(self, request: web.Request) -> int | None:
        self._app(request)
        return snowflake(request, "guild_id") if "guild_id" in request.match_info else None

    async def get_commands(self, request: web.Request) -> web.Response:
        return reply(self.world.command_set(self._scope(request)).commands)

    async def put_commands(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        body, _ = await read_body(request)
        return reply(self.world.sync_commands(scope, body))

    async def post_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        return reply(self.world.upsert_command(scope, await read_json(request)))

    def _command(self, request: web.Request) -> tuple[int | None, JSON]:
        scope = self._scope(request)
        command_id = snowflake(request, "command_id")
        command = self.world.command_set(scope).by_id(command_id)
        if command is None:
            raise error(rules.UNKNOWN_COMMAND, f"no command {command_id}")
        return scope, command

    async def get_command(self, request: web.Request) -> web.Response:
        return reply(self._command(request)[1])

    async def patch_command(self, request: web.Request) -> web.Response:
        scope, command = self._command(request)
        body = await read_json(request)
        merged = {k: v for k, v in command.items() if k not in ("id", "version")} | body
        return reply(self.world.upsert_command(scope, merged))

    async def delete_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        self.world.delete_command(scope, snowflake(request, "command_id"))
        return no_content()

    # ----------------------------------------------------------------- channels and messages

    def _channel(self, request: web.Request) -> Channel:
        return self.world.channel(snowflake(request, "channel_id"))

    async def get_channel(self, request: web.Request) -> web.Response:
        return reply(self._channel(request).payload())

    async def patch_channel(self, request: web.Request) -> web.Response:
        channel = self.world.edit_channel(self._channel(request), await read_json(request))
        return reply(channel.payload())

    async def get_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        limit = min(max(int(request.query.get("limit", "50")), 1), 100)
        messages = channel.messages
        if "before" in request.query:
            messages = [m for m in messages if m.id < int(request.query["before"])]
        if "after" in request.query:
            messages = [m for m in messages if m.id > int(request.query["after"])]
            messages = messages[:limit]
        return reply([m.payload() for m in reversed(messages[-limit:])])

    async def post_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, uploads = await read_body(request)
        if not isinstance(body, dict):
            raise invalid_form("body", "expected a JSON object")
        return reply(self.world.post_message(channel, self.world.bot, body, uploads).payload())

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return reply(
            self.world.channel_message(channel, snowflake(request, "message_id")).payload()
        )

    async def patch_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self.world.channel_message(channel, snowflake(request, "message_id"))
        if message.author is not self.world.bot:
            raise error(rules.NOT_AUTHOR, f"message {message.id} is by {message.author.name}")
        body, uploads = await read_body(request)
        if not isinstance(body, dict):
            raise invalid_form("body", "expected a JSON object")
        return reply(self.world.edit_message(message, body, uploads).payload())

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self.world.delete_message(
            self.world.channel_message(channel, snowflake(request, "message_id"))
        )
        return no_content()

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return no_content()

    async def post_thread(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        body = await read_json(request)
        if "message" in body:
            raise invalid_form("message", "forum posts are not emulated")
        starter = 0
        if "message_id" in request.match_info:
            starter = self.world.channel_message(parent, snowflake(request, "message_id")).id
            if starter in self.world.channels:
                raise error(rules.THREAD_EXISTS, f"message {starter} already has a thread")
        kind = int(body.get("type") or PUBLIC_THREAD)
        thread = self.world.add_thread(
            parent, str(body.get("name", "")), self.world.bot, kind=kind, thread_id=starter
        )
        return reply(thread.payload(), 201)

    # ----------------------------------------------------------------- guilds

    async def get_guild(self, request: web.Request) -> web.Response:
        guild = self.world.guild(snowflake(request, "guild_id"))
        return reply(guild.payload(with_members=False))

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self.world.guild(snowflake(request, "guild_id"))
        return reply([c.payload() for c in guild.text_channels])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self.world.guild(snowflake(request, "guild_id"))
        member = guild.members.get(snowflake(request, "user_id"))
        if member is None:
            raise error(rules.UNKNOWN_MEMBER, f"no such member of {guild.name}")
        return reply(member.payload())

    # ----------------------------------------------------------------- interactions and webhooks

    async def callback(self, request: web.Request) -> web.Response:
        record = self.world.interaction(
            snowflake(request, "interaction_id"), request.match_info["token"]
        )
        body, uploads = await read_body(request)
        result = self.world.respond(record, body, uploads)
        if request.query.get("with_response", "").lower() in ("1", "true"):
            return reply(result)
        return no_content()

    async def post_followup(self, request: web.Request) -> web.Response:
        record = self.world.webhook_interaction(
            snowflake(request, "app_id"), request.match_info["token"]
        )
        body, uploads = await read_body(request)
        if not isinstance(body, dict):
            raise invalid_form("body", "expected a JSON object")
        message = self.world.followup(record, body, uploads)
        if request.query.get("wait", "").lower() in ("1", "true"):
            return reply(message.payload())
        return no_content()

    def _webhook_message(self, request: web.Request) -> Any:
        record = self.world.webhook_interaction(
            snowflake(request, "app_id"), request.match_info["token"]
        )
        return self.world.webhook_message(record, request.match_info["message_id"])

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        return reply(self._webhook_message(request).payload())

    async def patch_webhook_message(self, request: web.Request) -> web.Response:
        message = self._webhook_message(request)
        body, uploads = await read_body(request)
        if not isinstance(body, dict):
            raise invalid_form("body", "expected a JSON object")
        return reply(self.world.edit_message(message, body, uploads).payload())

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        self.world.delete_message(self._webhook_message(request))
        return no_content()

    # ----------------------------------------------------------------- files

    async def get_file(self, request: web.Request) -> web.Response:
        attachment = self.world.attachments.get(snowflake(request, "attachment_id"))
        if attachment is None:
            raise error(rules.NOT_FOUND, "no such attachment")
        return web.Response(
            body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
        )


def _guild_of(event: Event) -> int | None:
    """The guild an event belongs to (None: a direct message, or no guild at all)."""
    if event.name in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"):
        return int(event.data["id"])
    guild_id = event.data.get("guild_id")
    return None if guild_id is None else int(guild_id)
