"""Copying a database between SQLite and PostgreSQL: every row, ids and times kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.models import Channel, GameStatus, Player
from bot.service import GameService
from bot.storage import Store, open_store
from bot.storage.copy import TABLES, TargetNotEmpty, copy_store
from tests.bot.conftest import FakeClock
from tests.bot.test_service import ESCAPE, brandubh, play


async def fill(store: Store, clock: FakeClock, alice: Player, bob: Player, carol: Player) -> None:
    """Games of every status and end, challenges and offers of every status, announcements
    posted and pending."""
    service = GameService(store, clock)
    won = await brandubh(service, Channel("c:won", "g"), alice, bob)
    await play(service, won.channel, won, ESCAPE)  # the king escapes
    resigned = await brandubh(service, Channel("c:resigned", "g"), bob, carol)
    clock.advance(seconds=1.5)
    await play(service, resigned.channel, resigned, ["d1-e1"])
    await service.resign(resigned.channel, carol)
    drawn = await brandubh(service, Channel("c:drawn"), alice, carol)
    await service.answer_offer((await service.offer(drawn.channel, alice, "draw")).id, carol, True)
    rated = await service.challenge(Channel("c:rated", "g"), alice, bob, "brandubh")
    await service.accept(rated.id, bob)
    await service.resign(rated.channel, alice)  # ratings and their history, in two scopes

    playing = await brandubh(service, Channel("c:playing", "g"), alice, bob)
    await play(service, playing.channel, playing, ["d1-e1", "d3-e3"])
    declined = await service.offer(playing.channel, bob, "draw")
    await service.answer_offer(declined.id, alice, False)
    await service.offer(playing.channel, alice, "undo")  # open
    await service.offer(playing.channel, bob, "draw")  # open
    pending = await service.pending_announcements("c:")
    assert pending
    for announcement, _ in pending[:3]:
        await service.announced(announcement.game_id, announcement.kind, announcement.ply)
    await service.announcement_failed(pending[3][0])

    lobby = Channel("c:lobby", "g")
    accepted = await service.challenge(Channel("c:accepted"), alice, bob, "tablut")
    await service.accept(accepted.id, bob)
    await service.decline((await service.challenge(lobby, alice, bob)).id, bob)
    await service.cancel((await service.challenge(lobby, bob)).id, bob)
    await service.attach_message((await service.challenge(lobby, carol)).id, "c:lobby:7")
    clock.advance(minutes=20)
    await service.expire_challenges()
    await service.challenge(lobby, alice, carol, "copenhagen", "defenders")  # open
    clock.advance(days=2)  # past half of the accepted game's clock: a turn reminder is recorded
    assert await service.due_reminders()
    async with store.transaction() as session:  # (only a shared database claims them itself)
        await session.claim_event("c:event:1", clock())

    await service.change_settings(
        "g", variant="brandubh", threads=False, channels=("c:lobby", "c:won")
    )
    await service.change_settings("h", reminders="dm")
    await service.set_reminders(alice, "off")
    threaded = await service.challenge(lobby, bob, alice, thread=True)
    await service.accept(threaded.id, alice, Channel("c:thread", "g", "c:lobby"))
    await service.rematch(won.id, bob)  # an open rematch challenge


async def dump(store: Store) -> dict[str, list[tuple[object, ...]]]:
    async with store.reading() as session:
        return await session.dump()


async def test_a_sqlite_database_goes_to_postgresql_and_back_unchanged(
    tmp_path: Path,
    postgres_url: str,
    clock: FakeClock,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    original = await open_store(tmp_path / "original.db")
    postgres = await open_store(postgres_url)
    back = await open_store(tmp_path / "back.db")
    try:
        await fill(original, clock, alice, bob, carol)
        counts = await copy_store(original, postgres)
        assert await copy_store(postgres, back) == counts
        before = await dump(original)
        assert set(before) == set(TABLES)
        assert all(before[table] for table in TABLES), "every table should have rows to copy"
        assert counts == {table: len(rows) for table, rows in before.items()}
        assert await dump(back) == before  # ids, times (to the microsecond), everything

        here, there = GameService(original, clock), GameService(postgres, clock)
        async with original.reading() as session:
            game_ids = [row["id"] for row in await session.table_rows("games")]
            challenge_ids = [row["id"] for row in await session.table_rows("challenges")]
        statuses = set()
        for game_id in game_ids:
            mine, copied = await here.get_game(game_id), await there.get_game(game_id)
            assert copied.game.position() == mine.game.position()
            assert (copied.players, copied.version, copied.move_times, copied.status) == (
                mine.players, mine.version, mine.move_times, mine.status,
            )  # fmt: skip
            statuses.add((copied.status, copied.game.outcome and copied.game.outcome.reason))
        assert len(statuses) == 4  # playing, escaped, resigned, drawn
        for challenge_id in challenge_ids:
            assert await there.get_challenge(challenge_id) == await here.get_challenge(challenge_id)
        assert await there.open_offers(Channel("c:playing", "g")) == await here.open_offers(
            Channel("c:playing", "g")
        )
        assert await there.finished_games(guild="g") == await here.finished_games(guild="g")
        pending_here = await here.pending_announcements("c:")
        assert [a for a, _ in await there.pending_announcements("c:")] == [
            a for a, _ in pending_here
        ]

        new = await brandubh(there, Channel("c:new"), carol, bob)  # ids go on after the copied
        assert new.id == max(game_ids) + 1
        assert (await there.challenge(Channel("c:new2"), bob)).id == max(challenge_ids) + 1
    finally:
        for store in (original, postgres, back):
            await store.close()


async def test_a_copy_refuses_a_target_that_holds_games_unless_told_to_replace(
    tmp_path: Path,
    postgres_url: str,
    clock: FakeClock,
    alice: Player,
    bob: Player,
    carol: Player,
) -> None:
    source = await open_store(tmp_path / "source.db")
    target = await open_store(postgres_url)
    try:
        await fill(source, clock, alice, bob, carol)
        in_the_way = await brandubh(GameService(target, clock), Channel("c:x"), carol, alice)
        before = await dump(target)
        with pytest.raises(TargetNotEmpty, match="games: 1, game_players: 2") as refused:
            await copy_store(source, target)
        assert refused.value.counts == {"games": 1, "game_players": 2}
        assert await dump(target) == before
        await copy_store(source, target, replace=True)
        assert await dump(target) != before
        replaced = await GameService(target, clock).get_game(in_the_way.id)
        copied = await GameService(source, clock).get_game(in_the_way.id)
        assert (replaced.status, replaced.players) == (GameStatus.FINISHED, copied.players)
    finally:
        await source.close()
        await target.close()
