"""The AI's levels in play: each level is a player of its own, and its games are searched at
that level's limits (the bot's time limit never exceeded)."""

from __future__ import annotations

import pytest

from bot.compute import Snapshot, think_at_level
from bot.errors import ServiceError
from bot.models import AI_PLAYER, Channel, Player, ai_player
from bot.service import GameService, think_in_thread
from bot.storage import Store
from engine import Game, Move, Side
from engine.ai import LEVELS
from tests.bot.conftest import FakeClock


def test_each_level_is_a_player_and_the_old_ai_plays_medium() -> None:
    assert ai_player("hard") == Player("ai:tafl:hard", "Tafl AI (hard)")
    assert ai_player(" MAX ").id == "ai:tafl:max"
    assert [ai_player(name).ai_level for name in LEVELS] == list(LEVELS)
    assert AI_PLAYER.ai_level == "medium" and AI_PLAYER.is_ai
    assert Player("discord:1", "Ann").ai_level is None
    with pytest.raises(ServiceError, match="unknown AI level 'genius'; choose easy, medium"):
        ai_player("genius")


@pytest.mark.parametrize("level", ["easy", "hard"])
async def test_the_ai_thinks_at_its_own_level(
    store: Store, clock: FakeClock, hall: Channel, alice: Player, level: str
) -> None:
    asked: list[tuple[str, float]] = []

    async def think(snapshot: Snapshot, limit: float) -> Move:
        asked.append((snapshot.level, limit))
        return await think_in_thread(snapshot, limit)

    service = GameService(store, clock, think=think, ai_time_limit=0.3)
    players = {Side.ATTACKERS: ai_player(level), Side.DEFENDERS: alice}
    await service.start_game(hall, players, "brandubh")
    result = await service.ai_move(hall)
    assert asked == [(level, 0.3)] and result.ply.side is Side.ATTACKERS


async def test_games_of_every_level_and_of_the_old_ai_await_it(
    service: GameService, hall: Channel, thread: Channel, alice: Player, bob: Player
) -> None:
    old = await service.start_game(
        hall, {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice}, "brandubh"
    )
    new = await service.start_game(
        thread, {Side.ATTACKERS: ai_player("easy"), Side.DEFENDERS: bob}, "brandubh"
    )
    assert [g.id for g in await service.games_awaiting_ai()] == [old.id, new.id]


def test_a_worker_plays_a_legal_move_at_a_level() -> None:
    game = Game("brandubh")
    move = think_at_level(Snapshot.of(game, "max"), 0.05)
    assert move in game.legal_moves()
    assert Snapshot.of(game).level == "medium"
