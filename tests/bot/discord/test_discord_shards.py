"""Several bot processes on one PostgreSQL database, each on its own shards (and two wrongly on
the same one): games go on correctly, no move is applied twice, every player is told the truth."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import bot as tafl
import engine
from bot.compute import Compute
from bot.discord import TaflBot
from bot.models import Channel
from bot.service import GameService
from bot.storage import open_store
from tests.fake_discord import Channel as FakeChannel
from tests.fake_discord import FakeDiscord, Guild, User


def opening(plies: int) -> list[str]:
    """The first ``plies`` moves of a Copenhagen game, each side taking its first legal move."""
    game = engine.Game("copenhagen")
    for _ in range(plies):
        game.play(min(str(move) for move in game.legal_moves()))
    return [str(ply.move) for ply in game.history]


MOVES = opening(6)


@asynccontextmanager
async def bots(
    fake: FakeDiscord, url: str, workers: Compute, shards: list[dict[str, Any]]
) -> AsyncIterator[list[TaflBot]]:
    """Bots on ``url``, one per entry of ``shards`` (its discord.py shard options), all running."""
    async with AsyncExitStack() as stack:
        running = []
        for options in shards:
            bot = tafl.create_bot(
                database_url=url,
                sync=True,
                guild_ready_timeout=0.05,
                ai_time_limit=0.2,
                compute=workers.shared(),
                **options,
            )
            running.append(await stack.enter_async_context(fake.running(bot)))
        yield running


def shard_of(guild: Guild, count: int) -> int:
    return (guild.id >> 22) % count


async def guild_on_other_shard(fake: FakeDiscord) -> Guild:
    """A second guild, on the other of two shards than the default guild."""
    while True:
        guild = fake.add_guild("elsewhere")
        if shard_of(guild, 2) != shard_of(fake.guild, 2):
            return guild
        await asyncio.sleep(0.002)  # the next snowflake's timestamp picks the shard


async def play_a_game(fake: FakeDiscord, channel: FakeChannel, alice: User, bob: User) -> None:
    """Alice challenges Bob in ``channel``, he accepts, they play MOVES; each answer is checked."""
    challenge = await alice.slash(
        "tafl challenge", channel=channel, opponent=bob, side="attackers", thread=False
    )
    await (await bob.click(challenge, "Accept")).followup()
    for number, move in enumerate(MOVES):
        player = (alice, bob)[number % 2]
        answer = await (await player.slash("tafl move", channel=channel, move=move)).result()
        assert answer.embed is not None and move in answer.embed["title"], (answer.content, move)


async def stored_moves(url: str, channel: FakeChannel) -> list[str]:
    store = await open_store(url)
    try:
        state = await GameService(store).current_game(Channel(f"discord:{channel.id}"))
    finally:
        await store.close()
    assert state is not None
    return [str(ply.move) for ply in state.game.history]


async def test_two_processes_on_disjoint_shards_play_at_once(
    fake: FakeDiscord, postgres_url: str, workers: Compute
) -> None:
    other = await guild_on_other_shard(fake)
    here, there = fake.channel, fake.add_channel("over-there", guild=other)
    players = [
        (fake.add_user("alice"), fake.add_user("bob")),
        (fake.add_user("carol", guild=other), fake.add_user("dave", guild=other)),
    ]
    shards = [{"shard_count": 2, "shard_ids": [number]} for number in (0, 1)]
    async with bots(fake, postgres_url, workers, shards) as running:
        for bot in running:
            (shard,) = bot.shard_ids or []
            assert {shard_of(g, 2) for g in fake_guilds(fake, bot)} == {shard}
        await asyncio.gather(
            play_a_game(fake, here, *players[0]), play_a_game(fake, there, *players[1])
        )
    for channel in (here, there):
        assert await stored_moves(postgres_url, channel) == MOVES


def fake_guilds(fake: FakeDiscord, bot: TaflBot) -> list[Guild]:
    """The emulator's guilds that ``bot`` was told about."""
    return [fake.world.guilds[guild.id] for guild in bot.guilds]


async def test_two_processes_wrongly_on_the_same_shard_answer_each_interaction_once(
    fake: FakeDiscord, postgres_url: str, workers: Compute, alice: User, bob: User
) -> None:
    """Both get every interaction; the first to claim it answers and plays, the other leaves it
    (the fixture fails the test on any answer Discord refuses: a second one, say)."""
    same = [{"shard_count": 1, "shard_ids": [0]}] * 2
    async with bots(fake, postgres_url, workers, same):
        await play_a_game(fake, fake.channel, alice, bob)
        await asyncio.sleep(0.3)  # time for a late second answer to show
    assert await stored_moves(postgres_url, fake.channel) == MOVES
