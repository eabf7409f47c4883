"""Server settings, /tafl notify, a thread per game, rematches and never editing old messages,
through the real discord.py client against the emulator."""

from __future__ import annotations

import asyncio
import logging

import discord
import pytest

from bot.models import GameStatus, utc_now
from tests.bot.conftest import FakeClock
from tests.bot.discord.conftest import RunBot, channel_of, embed_of
from tests.bot.discord.test_discord_game import OPENING, moved, png, start_game
from tests.fake_discord import Channel, FakeDiscord, Message, User

MANAGE_SERVER = discord.Permissions(manage_guild=True).value
THREADS_ROUTE = "/channels/{channel_id}/messages/{message_id}/threads"


@pytest.fixture
def admin(fake: FakeDiscord) -> User:
    return fake.add_user("admin", permissions=MANAGE_SERVER)


def reminders_in(channel: Channel, user: User) -> list[Message]:
    return [m for m in channel.messages if "it is your move in game" in m.content
            and user.mention in m.content]  # fmt: skip


async def threaded_game(alice: User, bob: User, **options: object) -> tuple[Channel, Message]:
    """Alice (attackers) challenges Bob, who accepts: the game's thread and its first board."""
    fake = alice.fake
    challenge = await alice.slash("tafl challenge", opponent=bob, side="attackers", options=options)
    before = len(fake.guild.threads)
    accepted = await bob.click(challenge, "Accept")
    await accepted.result()
    await fake.wait_for(lambda: len(fake.guild.threads) > before, what="a new thread")
    thread = fake.guild.threads[-1]
    first = await thread.wait_for_message(lambda m: bool(m.files))
    return thread, first


# -- server settings ---------------------------------------------------------------------------


async def test_settings_are_for_server_managers_and_shown_without_options(
    fake: FakeDiscord, run_bot: RunBot, admin: User, alice: User
) -> None:
    async with run_bot():
        refused = await alice.slash("tafl settings", variant="brandubh")
        assert refused.ephemeral and "Manage Server" in refused.content
        shown = await (await admin.slash("tafl settings")).result()
        assert shown.ephemeral
        text = embed_of(shown)["description"]
        assert "Copenhagen Hnefatafl (default)" in text and "3d+12h (default)" in text
        assert "every channel" in text and "in the game's channel (default)" in text
        bad = await admin.slash("tafl settings", channels="general please")
        assert bad.ephemeral and "'general' is not a channel" in bad.content
        late = await admin.slash("tafl settings", time="soon")
        assert late.ephemeral and "Can't read 'soon'" in late.content
        again = await (await admin.slash("tafl settings")).result()
        assert embed_of(again)["description"] == text  # refusals changed nothing


async def test_settings_apply_to_new_challenges_and_keep_the_bot_to_its_channels(
    fake: FakeDiscord, run_bot: RunBot, admin: User, alice: User, bob: User
) -> None:
    games = fake.add_channel("games")
    async with run_bot() as bot:
        waiting = await alice.slash("tafl challenge", opponent=bob, thread=False)
        changed = await admin.slash(
            "tafl settings", variant="brandubh", time="1d", threads=False,
            channels=f"{games.mention}", reminders="dm",
        )  # fmt: skip
        text = embed_of(await changed.result())["description"]
        assert "Brandubh" in text and "1d" in text and games.mention in text
        assert "**A thread per game:** off" in text and "as direct messages" in text

        elsewhere = await alice.slash("tafl challenge", opponent=bob)
        assert elsewhere.ephemeral and f"I play only in {games.mention}" in elsewhere.content
        await bob.click(waiting, "Accept")  # made before: as it was made
        old = await bot.service.current_game(channel_of(fake))
        assert old is not None and old.game.rules.id == "copenhagen"

        there = await alice.slash("tafl challenge", opponent=bob, channel=games)
        assert "of Brandubh" in embed_of(there.message)["description"]
        await (await bob.click(there, "Accept")).followup()
        state = await bot.service.current_game(channel_of(fake, games))
        assert state is not None and str(state.time_control) == "1d"
        assert fake.guild.threads == []  # threads are off on this server


# -- /tafl notify ------------------------------------------------------------------------------


async def test_reminders_go_where_each_player_asked(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User, caplog: pytest.LogCaptureFixture
) -> None:
    clock = FakeClock(utc_now())
    async with run_bot(clock=clock, sweep_seconds=0.05):
        chose = await alice.slash("tafl notify", where="dm")
        assert chose.ephemeral and "direct messages" in chose.content
        await bob.slash("tafl notify", where="off")
        await start_game(alice, bob, time="3d")
        clock.advance(hours=37)
        private = await alice.dm.wait_for_message(lambda m: "your move" in m.content)
        assert fake.channel.mention in private.content and "1d 11h left" in private.content
        await moved(alice, OPENING[0])
        clock.advance(hours=37)  # Bob's half-time reminder is due, but he wants none
        await asyncio.sleep(0.3)
        assert reminders_in(fake.channel, bob) == reminders_in(bob.dm, bob) == []

        await bob.slash("tafl notify", where="dm")
        caplog.set_level(logging.WARNING)
        fake.fail_next("POST", "/channels/{channel_id}/messages", status=403)
        clock.advance(hours=12)  # into Bob's last day: a direct message, which Discord refuses
        await fake.wait_for(lambda: "could not remind" in caplog.text, what="the refused DM logged")
        await asyncio.sleep(0.3)
    assert reminders_in(fake.channel, alice) == reminders_in(fake.channel, bob) == []
    assert reminders_in(bob.dm, bob) == []  # refused, and not sent anywhere else
    assert len(reminders_in(alice.dm, alice)) == 1
    fake.take_violations(50013)


# -- a thread per game -------------------------------------------------------------------------


async def test_each_game_gets_its_thread_announced_in_the_channel_and_archived_at_the_end(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User, carol: User
) -> None:
    async with run_bot() as bot:
        thread, first = await threaded_game(alice, bob)
        assert thread.name == "Copenhagen Hnefatafl: Alice vs Bob"
        assert alice.mention in first.content and png(first)
        started = await fake.channel.wait_for_message(lambda m: "is played in" in m.content)
        assert thread.mention in started.content and "Game #1" in started.content

        second, _ = await threaded_game(carol, alice)  # the channel holds both games
        assert second is not thread and len(fake.guild.threads) == 2
        assert await bot.service.current_game(channel_of(fake)) is None

        answer = await (await alice.slash("tafl move", move=OPENING[0], channel=thread)).result()
        assert answer.channel is thread and OPENING[0] in embed_of(answer)["title"]
        nowhere = await alice.slash("tafl move", move=OPENING[2])
        assert nowhere.ephemeral and "no game in this channel" in nowhere.content

        await bob.slash("tafl resign", channel=thread)
        report = await thread.wait_for_message(lambda m: "Game over" in m.content)
        assert [b["label"] for b in report.buttons] == ["Rematch"]
        ended = await fake.channel.wait_for_message(lambda m: "is over" in m.content)
        assert thread.mention in ended.content and "Alice (attackers) won" in ended.content
        await fake.wait_for(lambda: thread.archived, what="the thread archived")
        assert not second.archived
        state = await bot.service.get_game(1)
        assert state.status is GameStatus.FINISHED and state.parent == channel_of(fake)


async def test_without_permission_for_threads_the_game_stays_in_the_channel(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    async with run_bot() as bot:
        challenge = await alice.slash("tafl challenge", opponent=bob, side="attackers")
        fake.fail_next("POST", THREADS_ROUTE, status=403)
        accepted = await bob.click(challenge, "Accept")
        why = await accepted.followup()
        assert alice.mention in why.content and "Create Public Threads" in why.content
        assert "played here in the channel" in why.content
        board = await accepted.followup(1)
        assert png(board) and board.channel is fake.channel
        assert fake.guild.threads == []
        assert await bot.service.current_game(channel_of(fake)) is not None
        await moved(alice, OPENING[0])
    fake.take_violations(50013)


# -- rematch -----------------------------------------------------------------------------------


async def test_rematch_swaps_sides_and_the_other_players_press_starts_it(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User, carol: User
) -> None:
    async with run_bot():
        thread, _ = await threaded_game(alice, bob, time="5d+12h")
        await bob.slash("tafl resign", channel=thread)
        report = await thread.wait_for_message(lambda m: "Game over" in m.content)
    async with run_bot() as bot:  # the button outlives a restart
        stranger = await carol.click(report, "Rematch")
        assert stranger.ephemeral and "nly Alice and Bob can ask" in stranger.content
        asked = await bob.click(report, "Rematch")
        assert asked.ephemeral and fake.channel.mention in asked.content
        offer = await fake.channel.wait_for_message(lambda m: "challenges Alice" in str(m.embeds))
        assert alice.mention in offer.content
        assert "Bob challenges Alice" in embed_of(offer)["description"]
        assert "the attackers" in embed_of(offer)["description"]
        twice = await bob.click(report, "Rematch")
        assert twice.ephemeral and "already" in twice.content

        before = len(fake.guild.threads)
        await alice.click(report, "Rematch")  # her press accepts
        await fake.wait_for(lambda: len(fake.guild.threads) > before, what="the rematch thread")
        rematch = fake.guild.threads[-1]
        first = await rematch.wait_for_message(lambda m: bool(m.files))
        assert bob.mention in first.content  # Bob has the attackers now: his move
        state = await bot.service.current_game(channel_of(fake, rematch))
        assert state is not None and str(state.time_control) == "5d+12h"
        assert [p.name for p in state.players.values()] == ["Bob", "Alice"]
        await fake.wait_for(lambda: offer.buttons == [], what="the challenge shown accepted")


async def test_a_rematch_with_the_ai_starts_at_once(
    fake: FakeDiscord, run_bot: RunBot, alice: User
) -> None:
    async with run_bot() as bot:
        started = await alice.slash(
            "tafl challenge", opponent=fake.bot_user, variant="brandubh", side="defenders"
        )
        await started.result()
        await fake.channel.wait_for_message(
            lambda m: alice.mention in m.content and "played" in str(m.embeds)
        )  # the AI's first move
        await alice.slash("tafl resign")
        report = await fake.channel.wait_for_message(lambda m: "Game over" in m.content)
        pressed = await alice.click(report, "Rematch")
        board = await pressed.result()
        assert board.files and "Brandubh" in embed_of(board)["title"]
        state = await bot.service.current_game(channel_of(fake))
        assert state is not None and state.players[state.game.rules.first].is_ai is False


# -- message hygiene ---------------------------------------------------------------------------


async def test_messages_older_than_an_hour_are_never_edited(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    clock = FakeClock(utc_now())
    async with run_bot(clock=clock):
        await start_game(alice, bob, time="none")
        offer = await bob.slash("tafl draw")
        challenge = await alice.slash("tafl challenge", opponent=bob, thread=True)
    fake.advance_time(2 * 3600)
    clock.advance(hours=2)
    async with run_bot(clock=clock, sweep_seconds=0.05) as bot:
        await asyncio.sleep(0.3)  # the sweep expires the challenge without touching its message
        assert challenge.message is not None
        assert [b["label"] for b in challenge.message.buttons] == ["Accept", "Decline", "Cancel"]
        declined = await alice.click(offer, "Decline")
        answer = await declined.result()
        assert answer is not offer.message and "Declined" in embed_of(answer)["description"]
        assert offer.message is not None and offer.message.edits == 0
        late = await bob.click(challenge, "Accept")  # only told why, privately
        assert late.ephemeral and "has expired" in late.content
        assert challenge.message is not None and challenge.message.edits == 0
        assert (await bot.service.get_challenge(2)).status.value == "expired"


async def test_a_rematch_whose_message_was_never_posted_still_gets_a_thread(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    async with run_bot() as bot:
        thread, _ = await threaded_game(alice, bob)
        await alice.slash("tafl resign", channel=thread)
        report = await thread.wait_for_message(lambda m: "Game over" in m.content)
        bob_player = next(p for p in (await bot.service.get_game(1)).players.values()
                          if p.name == "Bob")  # fmt: skip
        asked = await bot.service.rematch(1, bob_player)  # stored, then a crash: never posted
        assert asked.thread and asked.message_ref is None
        await alice.click(report, "Rematch")
        await fake.wait_for(lambda: len(fake.guild.threads) == 2, what="the rematch's thread")
        rematch = fake.guild.threads[-1]
        assert rematch.name == "Copenhagen Hnefatafl: Bob vs Alice"
        await rematch.wait_for_message(lambda m: bool(m.files))
        assert await bot.service.current_game(channel_of(fake, rematch)) is not None


async def test_two_accepting_at_once_make_one_game_and_no_stray_thread(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User, carol: User
) -> None:
    async with run_bot() as bot:
        challenge = await alice.slash("tafl challenge")  # anyone may accept
        first, second = await asyncio.gather(
            bob.click(challenge, "Accept", wait=False), carol.click(challenge, "Accept", wait=False)
        )
        await first.result()
        await second.result()
        await asyncio.sleep(0.3)
        places = [channel_of(fake), *(channel_of(fake, t) for t in fake.guild.threads)]
        games = [await bot.service.current_game(place) for place in places]
        assert len([g for g in games if g is not None]) == 1
        for thread, game in zip(fake.guild.threads, games[1:], strict=True):
            assert thread.archived == (game is None)  # a thread without its game is closed
    fake.take_violations(160004)  # the second thread Discord refused
