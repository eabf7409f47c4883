"""What /tafl move suggests as a player types: captures and king moves first, what was typed
read in any accepted form, at most 25, and nothing when it is not the player's turn."""

from __future__ import annotations

import pytest

import engine
from bot.discord.suggest import MoveSuggestions, ranked_moves
from bot.models import Channel, Player
from bot.service import GameService
from engine import Side
from tests.bot.test_service import CAPTURE_READY, brandubh, play

ALICE, BOB = Player("test:alice", "Alice"), Player("test:bob", "Bob")


async def suggested(
    service: GameService, channel: Channel, player: Player, typed: str = ""
) -> list[str]:
    state = await service.game_to_move(channel, player)
    return [] if state is None else MoveSuggestions().of(state, typed)


def board_order(move: str) -> list[tuple[str, int]]:
    return [(square[0], int(square[1:])) for square in move.split("-")]


async def test_legal_moves_put_captures_then_king_moves_first(
    service: GameService, hall: Channel
) -> None:
    state = await brandubh(service, hall, ALICE, BOB)
    await play(service, hall, state, CAPTURE_READY)
    moves = await suggested(service, hall, BOB)
    assert moves[:2] == ["e3-e1", "d4-d3"]
    assert moves[2:] == sorted(moves[2:], key=board_order)
    assert sorted(moves) == sorted(str(m) for m in state.game.legal_moves())
    assert await suggested(service, hall, ALICE) == []


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("e3-e1", ["e3-e1"]),
        ("e3e1", ["e3-e1"]),
        ("E3 E1", ["e3-e1"]),
        ("e3-e1xf1", ["e3-e1"]),
        ("e3-e", ["e3-e1", "e3-e2"]),
        ("d4", ["d4-d3"]),
        ("z9", []),
    ],
)
async def test_legal_moves_match_what_is_typed(
    service: GameService, hall: Channel, typed: str, expected: list[str]
) -> None:
    state = await brandubh(service, hall, ALICE, BOB)
    await play(service, hall, state, CAPTURE_READY)
    assert await suggested(service, hall, BOB, typed) == expected


async def test_a_typed_square_is_not_read_as_the_start_of_a_longer_one(
    service: GameService, hall: Channel
) -> None:
    await service.start_game(hall, {Side.ATTACKERS: ALICE, Side.DEFENDERS: BOB})
    await service.move(hall, ALICE, "d11-d9")
    await service.move(hall, BOB, "e7-c7")
    for typed in ("d1-", "d1d", "d1 d"):
        moves = await suggested(service, hall, ALICE, typed)
        assert moves and all(move.startswith("d1-") for move in moves), typed
    assert any(m.startswith("d9-") for m in await suggested(service, hall, ALICE, "d9"))


async def test_at_most_25_suggestions(service: GameService, hall: Channel) -> None:
    state = await service.start_game(hall, {Side.ATTACKERS: ALICE, Side.DEFENDERS: BOB})
    assert len(state.game.legal_moves()) > 25
    assert len(await suggested(service, hall, ALICE)) == 25


def test_halatafl_suggests_one_jump_chain_per_position_reached() -> None:
    """White has 345,697 jump chains here, ending in 381 positions: one move each is offered
    (ranking every chain took seconds of the event loop)."""
    game = engine.Game.from_position(
        "halatafl", "/2W4/WWBWWW1/WWW1W1W/1WWWW1W/B1B1BBB/BB1BBBB/2BBB2/", Side.BLACK
    )
    game.play("f5-f4")
    moves = ranked_moves(game)
    reached = set()
    for move in moves:
        game.play(move)
        reached.add(game.position())
        game.undo()
    assert len(reached) == len(moves) == len(game.distinct_moves())
    taken = [len(game.captures_of(game.parse_move(move))) for move in moves]
    assert taken == sorted(taken, reverse=True) and taken[0] >= 3
