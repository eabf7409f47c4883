"""Server settings, reminder choices, games in threads and rematches, in the game service."""

from __future__ import annotations

import pytest

from bot.clocks import TimeControlError
from bot.errors import ChannelBusy, ChannelNotAllowed, NotForYou, ServiceError
from bot.models import AI_PLAYER, ChallengeStatus, Channel, GuildSettings, Player, ReminderStyle
from bot.service import GameService
from engine import Side, UnknownVariantError
from tests.bot.conftest import FakeClock
from tests.bot.test_service import ESCAPE, brandubh, play

LOBBY = Channel("c:lobby", "g")


async def test_settings_start_empty_and_change_one_at_a_time(service: GameService) -> None:
    assert await service.settings("g") == GuildSettings("g")
    assert await service.settings(None) == GuildSettings("")
    await service.change_settings("g", variant="brandubh", time_control="5d+12h")
    changed = await service.change_settings("g", threads=False, reminders="DM")
    assert changed == GuildSettings(
        "g", "brandubh", "5d+12h", threads=False, reminders=ReminderStyle.DM
    )
    assert await service.settings("g") == changed
    assert await service.settings("h") == GuildSettings("h")  # per server


async def test_bad_settings_are_refused_and_change_nothing(service: GameService) -> None:
    await service.change_settings("g", variant="tablut")
    with pytest.raises(UnknownVariantError):
        await service.change_settings("g", variant="chess", threads=True)
    with pytest.raises(ServiceError, match="choose channel, dm, off"):
        await service.change_settings("g", reminders="pigeon")
    with pytest.raises(TimeControlError, match="time control"):
        await service.change_settings("g", time_control="soon")
    assert await service.settings("g") == GuildSettings("g", "tablut")


async def test_new_challenges_take_the_servers_defaults_and_their_own_options_first(
    service: GameService, alice: Player, bob: Player
) -> None:
    before = await service.challenge(LOBBY, alice, bob)
    assert (before.variant, before.time_control, before.thread) == (
        (await service.accept(before.id, bob)).rules_string, "3d+12h", False,
    )  # fmt: skip
    await service.change_settings("g", variant="brandubh", time_control="1d", threads=True)
    elsewhere = Channel("c:other", "g")
    default = await service.challenge(elsewhere, bob, alice)
    game = await service.accept(default.id, alice)
    assert (game.game.rules.id, str(game.time_control), default.thread) == ("brandubh", "1d", True)
    third = Channel("c:third", "g")
    own = await service.challenge(third, alice, None, "tablut", time_control="none", thread=False)
    assert (own.time_control, own.thread) == ("none", False)
    assert own.variant == "tablut"


async def test_threads_default_to_what_the_adapter_allows_unless_the_server_says(
    service: GameService, alice: Player, bob: Player
) -> None:
    assert (await service.challenge(LOBBY, alice, bob, threads_allowed=True)).thread
    assert not (await service.challenge(LOBBY, alice, bob)).thread
    await service.change_settings("g", threads=False)
    assert not (await service.challenge(LOBBY, alice, bob, threads_allowed=True)).thread


async def test_the_bot_plays_only_in_the_channels_of_the_settings(
    service: GameService, alice: Player, bob: Player
) -> None:
    await service.change_settings("g", channels=("c:tafl", "c:games"))
    with pytest.raises(ChannelNotAllowed) as refused:
        await service.challenge(LOBBY, alice, bob)
    assert refused.value.channels == ("c:tafl", "c:games")
    await service.challenge(Channel("c:tafl", "g"), alice, bob)
    await service.challenge(Channel("c:thread", "g", parent="c:games"), alice, bob)
    await service.challenge(Channel("c:lobby", "other server"), alice, bob)
    await service.change_settings("g", channels=())
    await service.challenge(LOBBY, alice, bob)


async def test_reminders_go_where_the_player_then_the_server_chose(
    service: GameService, alice: Player, bob: Player
) -> None:
    assert await service.reminders_for(alice, "g") is ReminderStyle.CHANNEL
    await service.change_settings("g", reminders="off")
    assert await service.reminders_for(alice, "g") is ReminderStyle.OFF
    assert await service.reminders_for(alice, None) is ReminderStyle.CHANNEL
    assert await service.set_reminders(alice, "dm") is ReminderStyle.DM
    assert await service.reminders_for(alice, "g") is ReminderStyle.DM
    assert await service.reminders_for(bob, "g") is ReminderStyle.OFF
    with pytest.raises(ServiceError, match="unknown reminder style"):
        await service.set_reminders(alice, "loud")
    assert await service.reminders_for(alice, "g") is ReminderStyle.DM


async def test_a_game_accepted_into_a_thread_leaves_the_channel_free(
    service: GameService, alice: Player, bob: Player, carol: Player
) -> None:
    first = await service.challenge(LOBBY, alice, bob, thread=True)
    assert (await service.check_accept(first.id, bob)) == first
    with pytest.raises(NotForYou):
        await service.check_accept(first.id, carol)
    thread = Channel("c:t1", "g", "c:lobby")
    game = await service.accept(first.id, bob, thread)
    assert game.channel == thread and game.parent == LOBBY and game.home == LOBBY
    assert (await service.get_game(game.id)).parent == LOBBY  # stored
    assert await service.current_game(LOBBY) is None
    second = await service.challenge(LOBBY, carol, alice, thread=True)
    await service.accept(second.id, alice, Channel("c:t2", "g", "c:lobby"))
    third = await service.challenge(LOBBY, bob, carol)  # no thread: the lobby is free
    here = await service.accept(third.id, carol)
    assert here.channel == LOBBY and here.parent is None
    with pytest.raises(ChannelBusy):
        await service.challenge(LOBBY, bob, carol, thread=False)
    fourth = await service.challenge(LOBBY, bob, carol, thread=True)
    with pytest.raises(ChannelBusy):  # one game per channel, a thread included
        await service.accept(fourth.id, carol, thread)


async def test_a_rematch_swaps_sides_and_the_opponent_accepts_it(
    service: GameService, clock: FakeClock, alice: Player, bob: Player, carol: Player
) -> None:
    won = await brandubh(service, LOBBY, alice, bob)
    with pytest.raises(ServiceError, match="still being played"):
        await service.rematch(won.id, alice)
    await play(service, LOBBY, won, ESCAPE)
    with pytest.raises(NotForYou, match="only Alice and Bob"):
        await service.rematch(won.id, carol)
    asked = await service.rematch(won.id, bob)
    assert (asked.challenger, asked.opponent, asked.side) == (bob, alice, "attackers")
    assert (asked.rematch_of, asked.channel, asked.variant) == (won.id, LOBBY, won.rules_string)
    with pytest.raises(ServiceError, match="asked for a rematch already"):
        await service.rematch(won.id, bob)
    assert await service.rematch(won.id, alice) == asked  # hers to accept
    again = await service.accept(asked.id, alice)
    assert again.players == {Side.ATTACKERS: bob, Side.DEFENDERS: alice}
    assert (await service.get_challenge(asked.id)).status is ChallengeStatus.ACCEPTED
    await service.resign(LOBBY, alice)
    clock.advance(minutes=1)
    third = await service.rematch(won.id, alice)  # the first game can be played again still
    assert third.id != asked.id and third.side == "defenders"


async def test_a_rematch_of_a_thread_game_asks_for_a_thread_in_the_parent_channel(
    service: GameService, alice: Player, bob: Player
) -> None:
    challenge = await service.challenge(LOBBY, alice, bob, "brandubh", "attackers", thread=True)
    game = await service.accept(challenge.id, bob, Channel("c:t", "g", "c:lobby"))
    await service.resign(game.channel, bob)
    asked = await service.rematch(game.id, bob)
    assert (asked.channel, asked.thread, asked.side) == (LOBBY, True, "attackers")


async def test_a_rematch_with_the_ai_is_for_the_ai_to_accept(
    service: GameService, alice: Player
) -> None:
    game = await service.start_game(LOBBY, {Side.ATTACKERS: alice, Side.DEFENDERS: AI_PLAYER},
                                    "brandubh")  # fmt: skip
    await service.resign(LOBBY, alice)
    asked = await service.rematch(game.id, alice)
    assert asked.opponent == AI_PLAYER
    again = await service.accept(asked.id, AI_PLAYER)
    assert again.players == {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice}


async def test_no_rematch_where_the_server_no_longer_lets_the_bot_play(
    service: GameService, alice: Player, bob: Player
) -> None:
    game = await brandubh(service, LOBBY, alice, bob)
    await service.resign(LOBBY, bob)
    await service.change_settings("g", channels=("c:tafl",))
    with pytest.raises(ChannelNotAllowed):
        await service.rematch(game.id, bob)
    await service.change_settings("g", channels=("c:lobby",))
    assert (await service.rematch(game.id, bob)).channel == LOBBY
