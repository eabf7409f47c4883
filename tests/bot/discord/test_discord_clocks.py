"""Clocks through Discord: shown on every board, reminders pinged once, the game ended on time
by the sweep with its report in the channel."""

from __future__ import annotations

import asyncio

from bot.models import GameStatus
from tests.bot.conftest import FakeClock
from tests.bot.discord.conftest import RunBot, embed_of
from tests.bot.discord.test_discord_game import OPENING, moved, start_game
from tests.fake_discord import FakeDiscord, Message, User


def pings_of(fake: FakeDiscord, user: User) -> list[Message]:
    return [m for m in fake.channel.messages if "it is your move in game" in m.content
            and user.mention in m.content]  # fmt: skip


async def test_boards_show_the_clocks_and_the_default_control_is_three_days_and_a_half(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    clock = FakeClock()
    async with run_bot(clock=clock):
        first = await start_game(alice, bob)
        assert (
            "⏱ 3d+12h · Alice: 3d 0h left (running) · Bob: 3d 0h left"
            in (embed_of(first)["description"])
        )
        clock.advance(hours=5)
        answer = await moved(alice, OPENING[0])
        assert "Alice: 3d 0h left · Bob: 3d 0h left (running)" in embed_of(answer)["description"]


async def test_reminders_are_pinged_once_each_even_across_a_restart(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    clock = FakeClock()
    async with run_bot(clock=clock, sweep_seconds=0.05):
        await start_game(alice, bob, time="3d")
        clock.advance(hours=37)
        await fake.channel.wait_for_message(lambda m: "it is your move" in m.content)
        await asyncio.sleep(0.2)
    assert [m.content.split(": ")[-1] for m in pings_of(fake, alice)] == ["1d 11h left."]
    async with run_bot(clock=clock, sweep_seconds=0.05):
        await asyncio.sleep(0.3)
        assert len(pings_of(fake, alice)) == 1  # not again after the restart
        clock.advance(hours=12)
        await fake.channel.wait_for_message(lambda m: "only 23h 00m left" in m.content)
        await moved(alice, OPENING[0])
        await asyncio.sleep(0.3)
    assert len(pings_of(fake, alice)) == 2 and pings_of(fake, bob) == []


async def test_the_sweep_ends_a_game_whose_player_ran_out_of_time(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    clock = FakeClock()
    async with run_bot(clock=clock, sweep_seconds=0.05) as bot:
        await start_game(alice, bob, time="10m+5s")
        await moved(alice, OPENING[0])
        clock.advance(minutes=10, seconds=1)  # Bob's ten minutes are gone
        report = await fake.channel.wait_for_message(lambda m: "Game over" in m.content)
        assert embed_of(report)["title"] == "Alice wins"
        assert "won: time ran out" in embed_of(report)["description"]
        assert pings_of(fake, bob) == []  # a live game pings nobody
        state = await bot.service.get_game(1)
        assert state.status is GameStatus.FINISHED
        late = await (await bob.slash("tafl move", move=OPENING[1])).result()
        assert late.ephemeral and "no game" in late.content.lower()


async def test_a_bad_time_control_is_refused_with_the_forms_it_takes(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    async with run_bot():
        refused = await alice.slash("tafl challenge", opponent=bob, time="soon")
        assert refused.ephemeral
        assert "Can't read 'soon' as a time control" in refused.content
        assert "5d+12h" in refused.content
