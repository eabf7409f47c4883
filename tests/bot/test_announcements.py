"""The outbox: what a game's channel must be shown is stored with the change that makes it,
until the adapter says it was shown; and the one process that owns a SQLite file."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from bot.models import AnnouncementKind, Channel, OfferKind, Player
from bot.service import RETRY_LAST, GameService
from bot.storage import DatabaseInUse, DatabaseOwner, open_store
from engine import Side
from tests.bot.conftest import FakeClock

MOVE, END = AnnouncementKind.MOVE, AnnouncementKind.END


async def pending(service: GameService, platform: str = "test:") -> list[tuple[str, int]]:
    return [(a.kind.value, a.ply) for a, _ in await service.pending_announcements(platform)]


async def started(service: GameService, hall: Channel, alice: Player, bob: Player) -> None:
    await service.start_game(hall, {Side.ATTACKERS: alice, Side.DEFENDERS: bob})


async def test_moves_and_the_end_wait_to_be_shown_until_marked(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    await started(service, hall, alice, bob)
    await service.move(hall, alice, "d1-c1")
    await service.move(hall, bob, "f4-j4")
    assert await pending(service) == [("move", 1), ("move", 2)]
    report = await service.resign(hall, alice)
    assert await pending(service) == [("move", 1), ("move", 2), ("end", 2)]

    assert report.game_id is not None
    assert await service.announced(report.game_id, MOVE, 1)
    assert not await service.announced(report.game_id, MOVE, 1)  # once only
    assert await pending(service) == [("move", 2), ("end", 2)]


async def test_a_pending_move_comes_with_the_game_as_it_was_then(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    await started(service, hall, alice, bob)
    for player, move in ((alice, "d1-c1"), (bob, "f4-j4"), (alice, "a4-i4")):
        await service.move(hall, player, move)
    (first, then), *_ = await service.pending_announcements("test:")
    assert (first.kind, first.ply) == (MOVE, 1)
    assert [str(p.move) for p in then.game.history] == ["d1-c1"]
    assert then.player_to_move() == bob
    current = await service.current_game(hall)
    assert current is not None and len(current.game.history) == 3  # the game itself is whole


async def test_a_refused_move_leaves_no_announcement(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    await started(service, hall, alice, bob)
    with pytest.raises(ValueError):
        await service.move(hall, alice, "d1-d9")
    assert await pending(service) == []


async def test_a_takeback_drops_the_announcements_of_the_plies_taken_back(
    service: GameService, hall: Channel, alice: Player, bob: Player
) -> None:
    await started(service, hall, alice, bob)
    await service.move(hall, alice, "d1-c1")
    await service.move(hall, bob, "f4-j4")
    undo = await service.offer(hall, bob, OfferKind.UNDO)
    await service.answer_offer(undo.id, alice, accept=True)
    assert await pending(service) == [("move", 1)]
    await service.move(hall, bob, "f4-f3")  # ply 2 again: a new announcement
    assert await pending(service) == [("move", 1), ("move", 2)]


async def test_a_failed_post_waits_longer_each_time(
    service: GameService, clock: FakeClock, hall: Channel, alice: Player, bob: Player
) -> None:
    await started(service, hall, alice, bob)
    await service.move(hall, alice, "d1-c1")
    waits = []
    for _ in range(9):
        ((announcement, _),) = await service.pending_announcements("test:")
        retry_at = await service.announcement_failed(announcement)
        waits.append(retry_at - clock.now)
        assert await pending(service) == []  # not due before retry_at
        clock.now = retry_at
    assert [w.total_seconds() for w in waits[:4]] == [60, 120, 240, 480]
    assert max(waits) == RETRY_LAST


async def test_announcements_are_asked_for_by_platform_and_age(
    service: GameService, clock: FakeClock, alice: Player, bob: Player
) -> None:
    discord_channel = Channel("discord:1")
    await started(service, Channel("test:hall"), alice, bob)
    await started(service, discord_channel, alice, bob)
    await service.move(discord_channel, alice, "d1-c1")
    assert await pending(service, "test:") == []
    assert await pending(service, "discord:") == [("move", 1)]
    half_a_minute = timedelta(seconds=30)
    # younger than 30 s: the interaction that made it may be posting it now
    assert await service.pending_announcements("discord:", settled=half_a_minute) == []
    clock.advance(seconds=30)
    assert len(await service.pending_announcements("discord:", settled=half_a_minute)) == 1


async def test_one_process_owns_a_database_file(db_path: Path) -> None:
    owner = await DatabaseOwner.claim(db_path)
    with pytest.raises(DatabaseInUse, match=r"used by another tafl bot \(process \d+\)"):
        await DatabaseOwner.claim(db_path)
    waiting = asyncio.create_task(DatabaseOwner.claim(db_path, wait=5.0))
    await asyncio.sleep(0.2)
    assert not waiting.done()  # it waits for the owner to stop...
    owner.release()
    successor = await asyncio.wait_for(waiting, 3.0)  # ... and takes over when it does
    successor.release()


async def test_the_owner_lock_leaves_the_database_usable_by_others(db_path: Path) -> None:
    owner = await DatabaseOwner.claim(db_path)
    store = await open_store(db_path)  # the terminal game or a tool may still read and write
    assert await store.schema_version() >= 3
    await store.close()
    owner.release()
