"""Self-tests: the real discord.py client against the emulator, driven as users would."""

from __future__ import annotations

import asyncio
import io
import json
import re
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.fake_discord import (
    DriverError,
    FakeDiscord,
    InteractionFailed,
    Reply,
    Upload,
)

MOVES = ["a4-a1", "d1-d4", "d1-d2", "h1-h3"]


def png_bytes() -> bytes:
    """A small PNG, standing in for a board image."""
    buffer = io.BytesIO()
    Image.new("RGB", (12, 8), "white").save(buffer, format="PNG")
    return buffer.getvalue()


class AcceptButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"accept:(?P<game>\d+)"
):
    """A persistent button: it still works after the bot restarts."""

    def __init__(self, game: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Accept", style=discord.ButtonStyle.success, custom_id=f"accept:{game}"
            )
        )
        self.game = game

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> AcceptButton:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(
            content=f"game {self.game} accepted by {interaction.user.name}", view=None
        )


tafl = app_commands.Group(name="tafl", description="Play tafl")


@tafl.command(description="Make a move")
@app_commands.describe(move="The move, e.g. d1-d4")
async def move(interaction: discord.Interaction[TinyBot], move: str) -> None:
    await interaction.response.send_message(f"moved {move}")


@move.autocomplete("move")
async def move_autocomplete(
    interaction: discord.Interaction[TinyBot], current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=m, value=m) for m in MOVES if m.startswith(current)]


@tafl.command(description="Challenge someone")
async def challenge(interaction: discord.Interaction[TinyBot], opponent: discord.Member) -> None:
    game = interaction.id % 10_000
    view = discord.ui.View(timeout=None)
    view.add_item(AcceptButton(game))
    await interaction.response.send_message(
        f"{type(opponent).__name__} {opponent.display_name}, game {game}?", view=view
    )


@tafl.command(description="Show the board")
async def board(interaction: discord.Interaction[TinyBot]) -> None:
    await interaction.response.defer(thinking=True)
    await asyncio.sleep(0.05)
    file = discord.File(io.BytesIO(png_bytes()), filename="board.png")
    await interaction.followup.send("the board", file=file)


@tafl.command(description="Answer only to you")
async def secret(interaction: discord.Interaction[TinyBot]) -> None:
    await interaction.response.send_message("just for you", ephemeral=True)


@tafl.command(description="Answer too late")
async def slow(interaction: discord.Interaction[TinyBot]) -> None:
    await asyncio.sleep(interaction.client.slow_seconds)
    await interaction.response.send_message("finally")


@tafl.command(description="Answer twice")
async def twice(interaction: discord.Interaction[TinyBot]) -> None:
    await interaction.response.send_message("first")
    # A second handler with its own response state, as when two bot processes run.
    await discord.InteractionResponse(interaction).send_message("second")


@tafl.command(description="Post in the channel")
async def post(interaction: discord.Interaction[TinyBot], text: str) -> None:
    await interaction.response.defer(ephemeral=True)
    assert interaction.channel is not None and isinstance(interaction.channel, discord.TextChannel)
    await interaction.channel.send(text)
    await interaction.followup.send("posted", ephemeral=True)


class GameName(discord.ui.Modal, title="Name the game"):
    game_name: discord.ui.TextInput[GameName] = discord.ui.TextInput(
        label="Name", custom_id="game-name"
    )

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"named {self.game_name.value}")


class Setup(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="variant",
        placeholder="Variant",
        options=[
            discord.SelectOption(label="Copenhagen", value="copenhagen"),
            discord.SelectOption(label="Brandubh", value="brandubh"),
        ],
    )
    async def variant(
        self, interaction: discord.Interaction[Any], select: discord.ui.Select[Setup]
    ) -> None:
        await interaction.response.edit_message(content=f"variant {select.values[0]}")

    @discord.ui.button(label="Think", custom_id="think")
    async def think(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Setup]
    ) -> None:
        await interaction.response.defer()
        await asyncio.sleep(0.05)
        await interaction.edit_original_response(content="thought it over", view=None)

    @discord.ui.button(label="Name the game", custom_id="name")
    async def name(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Setup]
    ) -> None:
        await interaction.response.send_modal(GameName())


@tafl.command(description="Set a game up")
async def setup(interaction: discord.Interaction[TinyBot]) -> None:
    await interaction.response.send_message("set up", view=Setup())


@tafl.command(description="Use every webhook route")
async def tidy(interaction: discord.Interaction[TinyBot]) -> None:
    await interaction.response.send_message("temporary")
    original = await interaction.original_response()
    interaction.client.seen.append(f"original: {original.content}")
    note = await interaction.followup.send("note", wait=True)
    await note.edit(content="note, edited")
    await interaction.delete_original_response()


@tafl.command(description="Open a thread and tell the user privately")
async def invite(interaction: discord.Interaction[TinyBot], thread_name: str) -> None:
    await interaction.response.defer(thinking=True, ephemeral=True)
    await interaction.user.send("your game is ready")
    assert isinstance(interaction.channel, discord.TextChannel)
    thread = await interaction.channel.create_thread(
        name=thread_name, type=discord.ChannelType.public_thread
    )
    await thread.send("play here")
    await interaction.followup.send(f"thread {thread.mention}", ephemeral=True)


class TinyBot(commands.Bot):
    """The smallest bot exercising what the tafl bot needs."""

    def __init__(self, *, slow_seconds: float = 0.0) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents, guild_ready_timeout=0.05)
        self.slow_seconds = slow_seconds
        self.errors: list[BaseException] = []
        self.seen: list[str] = []
        self.tree.on_error = self.on_tree_error  # type: ignore[method-assign]

    async def setup_hook(self) -> None:
        self.tree.add_command(tafl)
        self.add_dynamic_items(AcceptButton)
        await self.tree.sync()

    async def on_tree_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        self.errors.append(error.__cause__ or error)

    async def on_message(self, message: discord.Message) -> None:
        self.seen.append(message.content)


def error_codes(bot: TinyBot) -> list[int]:
    return [e.code for e in bot.errors if isinstance(e, discord.HTTPException)]


async def test_login_sync_gateway_and_url_restore() -> None:
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    async with FakeDiscord() as discord_:
        assert discord.http.Route.BASE.startswith("http://127.0.0.1:")
        async with discord_.running(TinyBot()) as bot:
            assert bot.user is not None and bot.user.id == discord_.bot_user.id
            assert bot.application_id == discord_.application_id
            guild = bot.get_guild(discord_.guild.id)
            assert guild is not None and guild.get_channel(discord_.channel.id) is not None
            [command] = discord_.commands()
            assert command["name"] == "tafl"
            names = {o["name"] for o in command["options"]}
            assert {"move", "challenge", "board"} <= names
            await discord_.wait_for(lambda: discord_.sessions[0].connection is not None)
            assert discord_.request_counts["GET /users/@me"] == 1
            assert discord_.request_counts["PUT /applications/{app_id}/commands"] == 1
            fetched = await bot.tree.fetch_commands()
            assert [c.name for c in fetched] == ["tafl"]
    assert saved == (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)


async def test_wrong_token_is_a_login_failure(fake_discord: FakeDiscord) -> None:
    bot = TinyBot()
    with pytest.raises(discord.LoginFailure):
        await bot.login("not-the-token")
    await bot.close()
    [violation] = fake_discord.take_violations(0)
    assert violation.message == "401: Unauthorized"


async def test_slash_command_with_member_option_and_button(fake_discord: FakeDiscord) -> None:
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    async with fake_discord.running(TinyBot()):
        reply = await alice.slash("tafl challenge", opponent=bob)
        assert reply.type == 4
        assert reply.content.startswith("Member Bob, game")
        assert not reply.ephemeral
        assert [b["label"] for b in reply.buttons] == ["Accept"]
        assert fake_discord.channel.last_message is reply.message

        click = await bob.click(reply, "Accept")
        assert click.type == 7
        assert click.message is reply.message
        assert click.content.endswith("accepted by bob")
        assert reply.message is not None and reply.message.components == []


async def test_options_are_checked_against_the_synced_schema(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()):
        with pytest.raises(DriverError, match="no option 'square'"):
            await alice.slash("tafl move", square="d4")
        with pytest.raises(DriverError, match="needs option 'move'"):
            await alice.slash("tafl move")
        with pytest.raises(DriverError, match="takes a string"):
            await alice.slash("tafl move", move=14)
        with pytest.raises(DriverError, match="no subcommand 'fly'"):
            await alice.slash("tafl fly")
        with pytest.raises(DriverError, match="is a group"):
            await alice.slash("tafl")
        with pytest.raises(DriverError, match="no command /chess"):
            await alice.slash("chess move")
        with pytest.raises(DriverError, match="takes a user"):
            await alice.slash("tafl challenge", opponent="bob")


async def test_autocomplete_returns_the_bots_choices(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()):
        choices = await alice.autocomplete("tafl move", "move", move="d1")
        assert [c.value for c in choices] == ["d1-d4", "d1-d2"]
        assert await alice.autocomplete("tafl move", "move") != []
        with pytest.raises(DriverError, match="has no autocomplete"):
            await alice.autocomplete("tafl challenge", "opponent")


async def test_defer_then_follow_up_with_a_file(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()):
        reply = await alice.slash("tafl board")
        assert reply.type == 5 and reply.deferred
        shown = await reply.result()
        assert shown is reply.message and shown is reply.followups[0]
        assert not shown.loading
        assert shown.content == "the board"
        [file] = reply.files
        assert file.filename == "board.png" and file.content_type == "image/png"
        assert file.image().size == (12, 8)
        async with aiohttp.ClientSession() as http, http.get(file.url) as response:
            assert await response.read() == file.data


async def test_ephemeral_answers_are_hidden_from_others(fake_discord: FakeDiscord) -> None:
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    async with fake_discord.running(TinyBot()):
        reply = await alice.slash("tafl secret")
        assert reply.ephemeral and reply.content == "just for you"
        assert reply.message not in fake_discord.channel.messages
        assert alice.sees(reply.message) and not bob.sees(reply.message)  # type: ignore[arg-type]

        posted = await alice.slash("tafl post", text="hello channel")
        assert (await posted.result()).content == "posted"
        message = await fake_discord.channel.wait_for_message(
            lambda m: m.content == "hello channel"
        )
        assert message.author is fake_discord.bot_user


async def test_late_first_response_is_unknown_interaction() -> None:
    async with FakeDiscord(response_deadline=0.2) as discord_:
        alice = discord_.add_user("alice")
        async with discord_.running(TinyBot(slow_seconds=0.4)) as bot:
            with pytest.raises(InteractionFailed, match="did not respond to /tafl slow"):
                await alice.slash("tafl slow")
            violation = await discord_.wait_for_violation(10062)
            assert "deadline 0.2 s" in violation.detail
            await discord_.wait_for(lambda: bool(bot.errors))
            assert error_codes(bot) == [10062]


async def test_second_initial_response_is_already_acknowledged(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()) as bot:
        reply = await alice.slash("tafl twice")
        assert reply.content == "first"
        violation = await fake_discord.wait_for_violation(40060)
        assert violation.message == "Interaction has already been acknowledged"
        await fake_discord.wait_for(lambda: bool(bot.errors))
        assert error_codes(bot) == [40060]


async def test_restart_keeps_messages_and_old_buttons_work(fake_discord: FakeDiscord) -> None:
    alice, bob = fake_discord.add_user("alice"), fake_discord.add_user("bob")
    async with fake_discord.running(TinyBot()):
        first = await alice.slash("tafl challenge", opponent=bob)
        second = await alice.slash("tafl challenge", opponent=bob)
        await bob.click(first, "Accept")
    with pytest.raises(InteractionFailed, match="no bot is connected"):
        await bob.click(second, "Accept")
    async with fake_discord.running(TinyBot()):
        click = await bob.click(second, "Accept")
        assert click.type == 7 and click.content.endswith("accepted by bob")
    assert fake_discord.server.identifies == 2
    assert fake_discord.request_counts["PUT /applications/{app_id}/commands"] == 2


async def test_resume_replays_missed_events(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()) as bot:
        async with fake_discord.gateway_paused():
            await fake_discord.disconnect()
            await alice.say("said while the bot was away")
        await fake_discord.wait_for(lambda: "said while the bot was away" in bot.seen)
        [session] = fake_discord.sessions
        assert session.resumes == 1 and fake_discord.server.identifies == 1
        reply = await alice.slash("tafl move", move="d1-d4")
        assert reply.content == "moved d1-d4"


async def test_rate_limit_is_retried(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    fake_discord.fail_next("POST", "/channels/{channel_id}/messages", retry_after=0.05)
    async with fake_discord.running(TinyBot()):
        reply = await alice.slash("tafl post", text="after a 429")
        assert (await reply.result()).content == "posted"
        assert fake_discord.channel.last_message is not None
        assert fake_discord.channel.last_message.content == "after a 429"
        assert fake_discord.request_counts["POST /channels/{channel_id}/messages"] == 2


async def test_rest_rules_without_a_bot(fake_discord: FakeDiscord) -> None:
    api = fake_discord.base_url + "/api/v10"
    auth = {"Authorization": f"Bot {fake_discord.token}"}
    messages = f"{api}/channels/{fake_discord.channel.id}/messages"
    async with aiohttp.ClientSession(headers=auth) as http:
        async with http.post(messages, json={"content": "x" * 2001}) as response:
            assert response.status == 400
            assert response.headers["Content-Type"] == "application/json"
            body = await response.json()
            assert body["code"] == 50035 and "content" in body["errors"]
        async with http.post(messages, json={"content": ""}) as response:
            assert (await response.json())["code"] == 50006
        row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "A", "custom_id": "a"}]}
        async with http.post(
            messages, json={"content": "ok", "components": [row, row]}
        ) as response:
            assert "duplicate custom_id" in json.dumps(await response.json())
        async with http.get(f"{api}/no/such/route") as response:
            assert response.status == 404
            assert response.headers["Content-Type"] == "application/json"
    codes = [v.code for v in fake_discord.take_violations()]
    assert codes == [50035, 50006, 50035, 0]


async def test_follow_ups_need_a_response_and_a_live_token() -> None:
    async with FakeDiscord(token_lifetime=60.0) as discord_:
        alice = discord_.add_user("alice")
        record = discord_.world.new_interaction(
            2, alice.account, discord_.channel, "/ping", {"name": "ping", "type": 1}
        )
        reply = Reply(discord_, record)
        api = f"{discord_.base_url}/api/v10"
        hook = f"{api}/webhooks/{discord_.application_id}/{record.token}"
        callback = f"{api}/interactions/{record.id}/{record.token}/callback"
        async with aiohttp.ClientSession() as http:
            async with http.post(hook, json={"content": "early"}) as response:
                assert (await response.json())["code"] == 10015
            body = {"type": 4, "data": {"content": "pong"}}
            async with http.post(callback, json=body, params={"with_response": "1"}) as response:
                result = await response.json()
                assert result["resource"]["message"]["content"] == "pong"
            async with http.post(callback, json=body) as response:
                assert (await response.json())["code"] == 40060
            record.created -= 61.0
            async with http.post(hook, json={"content": "too late"}) as response:
                assert response.status == 401 and (await response.json())["code"] == 50027
        assert reply.content == "pong"
        assert [v.code for v in discord_.take_violations()] == [10015, 40060, 50027]


async def test_attachment_option_fills_resolved(fake_discord: FakeDiscord) -> None:
    fake_discord.world.sync_commands(
        None,
        [
            {
                "name": "upload",
                "description": "Send a file",
                "options": [
                    {"type": 11, "name": "file", "description": "A file", "required": True}
                ],
            }
        ],
    )
    data, name = fake_discord.command_data(
        fake_discord.channel, "upload", {"file": Upload("game.txt", b"1. d1-d4")}, focused=None
    )
    [attachment] = data["resolved"]["attachments"].values()
    assert name == "/upload" and attachment["filename"] == "game.txt"
    assert data["options"][0]["value"] == attachment["id"]
    assert fake_discord.world.attachments[int(attachment["id"])].data == b"1. d1-d4"


async def test_select_modal_thread_and_dm(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()):
        reply = await alice.slash("tafl setup")
        picked = await alice.select(reply, "Variant", ["brandubh"])
        assert picked.type == 7 and picked.content == "variant brandubh"
        with pytest.raises(DriverError, match="offers"):
            await alice.select(reply, "variant", ["hnefatafl"])

        thought = await alice.click(reply, "Think")
        assert thought.type == 6 and thought.message is reply.message
        assert (await thought.result()).content == "thought it over"
        assert reply.buttons == []

        reply = await alice.slash("tafl setup")
        opened = await alice.click(reply, "Name the game")
        assert opened.type == 9 and opened.modal is not None
        assert opened.modal["title"] == "Name the game"
        named = await alice.submit_modal(opened, {"game-name": "Friday"})
        assert named.content == "named Friday"

        invited = await alice.slash("tafl invite", thread_name="Friday game")
        shown = await invited.result()
        assert shown.ephemeral and shown.content.startswith("thread <#")
        [thread] = fake_discord.guild.threads
        assert thread.name == "Friday game"
        assert [m.content for m in thread.messages] == ["play here"]
        assert [m.content for m in alice.dm.messages] == ["your game is ready"]
        moved = await alice.slash("tafl move", move="d1-d4", channel=thread)
        assert moved.message is not None and moved.message.channel is thread


async def test_webhook_routes_get_edit_delete(fake_discord: FakeDiscord) -> None:
    alice = fake_discord.add_user("alice")
    async with fake_discord.running(TinyBot()) as bot:
        reply = await alice.slash("tafl tidy")
        note = await reply.followup()
        await reply.wait_for(lambda r: r.message is not None and r.message.deleted)
        assert "original: temporary" in bot.seen
        assert note.content == "note, edited" and note.edits == 1
        assert fake_discord.channel.messages == [note]


async def test_groups_nest_subcommand_options(fake_discord: FakeDiscord) -> None:
    reset = {"type": 1, "name": "reset", "description": "Reset", "options": [
        {"type": 4, "name": "games", "description": "How many", "min_value": 1, "max_value": 9},
    ]}  # fmt: skip
    admin = {"type": 2, "name": "admin", "description": "Admin", "options": [reset]}
    fake_discord.world.sync_commands(
        fake_discord.guild.id, [{"name": "tafl", "description": "Tafl", "options": [admin]}]
    )
    data, name = fake_discord.command_data(
        fake_discord.channel, "tafl admin reset", {"games": 3}, focused=None
    )
    assert name == "/tafl admin reset" and data["guild_id"] == str(fake_discord.guild.id)
    [group] = data["options"]
    assert (group["type"], group["name"]) == (2, "admin")
    assert group["options"] == [
        {"type": 1, "name": "reset", "options": [{"type": 4, "name": "games", "value": 3}]}
    ]
    with pytest.raises(DriverError, match=r"must lie in \[1, 9\]"):
        fake_discord.command_data(
            fake_discord.channel, "tafl admin reset", {"games": 10}, focused=None
        )
    with pytest.raises(DriverError, match="takes an integer"):
        fake_discord.command_data(
            fake_discord.channel, "tafl admin reset", {"games": 1.5}, focused=None
        )


async def test_threads_are_archived_and_old_messages_refuse_edits(
    fake_discord: FakeDiscord,
) -> None:
    api = fake_discord.base_url + "/api/v10"
    auth = {"Authorization": f"Bot {fake_discord.token}"}
    channel = fake_discord.channel
    async with aiohttp.ClientSession(headers=auth) as http:
        async with http.post(f"{api}/channels/{channel.id}/messages", json={"content": "hi"}) as r:
            posted = await r.json()
        starter = f"{api}/channels/{channel.id}/messages/{posted['id']}"
        async with http.post(f"{starter}/threads", json={"name": "Game 1"}) as r:
            thread = await r.json()
        assert thread["id"] == posted["id"] and not thread["thread_metadata"]["archived"]
        async with http.post(f"{starter}/threads", json={"name": "Game 2"}) as r:
            assert r.status == 400 and (await r.json())["code"] == 160004
        async with http.patch(f"{api}/channels/{thread['id']}", json={"archived": True}) as r:
            assert r.status == 200 and (await r.json())["thread_metadata"]["archived"]
        assert fake_discord.guild.threads[0].archived
        async with http.patch(f"{api}/channels/{channel.id}", json={"archived": True}) as r:
            assert r.status == 400  # a text channel is not archived

        async with http.patch(starter, json={"content": "fresh edit"}) as r:
            assert r.status == 200
        fake_discord.advance_time(3601)
        async with http.patch(starter, json={"content": "late edit"}) as r:
            assert r.status == 400 and (await r.json())["code"] == 30046
        async with http.post(f"{api}/channels/{channel.id}/messages", json={"content": "new"}) as r:
            new = await r.json()
        async with http.patch(
            f"{api}/channels/{channel.id}/messages/{new['id']}", json={"content": "new, edited"}
        ) as r:
            assert r.status == 200  # made after the clock moved: not old
    assert fake_discord.message(int(posted["id"])).content == "fresh edit"
    assert [v.code for v in fake_discord.take_violations()] == [160004, 50035, 30046]


async def test_members_can_be_granted_permissions(fake_discord: FakeDiscord) -> None:
    admin = fake_discord.add_user("admin", permissions=discord.Permissions(manage_guild=True).value)
    member = fake_discord.add_user("member")
    seen: dict[str, bool] = {}

    class Checker(TinyBot):
        async def setup_hook(self) -> None:
            @self.tree.command(description="Who may manage the server")
            async def who(interaction: discord.Interaction[Any]) -> None:
                seen[interaction.user.name] = interaction.permissions.manage_guild
                await interaction.response.send_message("ok", ephemeral=True)

            await self.tree.sync()

    async with fake_discord.running(Checker()):
        await admin.slash("who")
        await member.slash("who")
    assert seen == {"admin": True, "member": False}
