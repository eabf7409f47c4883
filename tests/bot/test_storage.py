"""The store on a real SQLite file: migrations, transactions, version checks, what survives."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.errors import ChannelBusy, MoveConflict
from bot.models import ChallengeStatus, Channel, GameStatus, OfferKind, OfferStatus, Player
from bot.storage import MIGRATIONS, Store, migration_files
from engine import Move, Outcome, Ply, Reason, Side

A1, D1, D4, D5 = 0, 3, 36, 47  # on an 11x11 board
START = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def sides(alice: Player, bob: Player) -> dict[Side, Player]:
    return {Side.ATTACKERS: alice, Side.DEFENDERS: bob}


async def new_game(store: Store, channel: Channel, players: dict[Side, Player]) -> int:
    async with store.transaction() as db:
        return await db.insert_game(channel, "copenhagen", "copenhagen", players, START)


# -- migrations and settings -------------------------------------------------------------------


async def test_migrations_set_the_schema_version_once(db_path: Path) -> None:
    newest = migration_files(MIGRATIONS)[-1][0]
    store = await Store.open(db_path)
    assert await store.schema_version() == newest
    await store.close()
    store = await Store.open(db_path)  # a second start applies nothing again
    assert await store.schema_version() == newest
    await store.close()


async def test_a_new_migration_is_applied_to_an_existing_database(
    tmp_path: Path, db_path: Path, hall: Channel, alice: Player, bob: Player
) -> None:
    store = await Store.open(db_path)
    game_id = await new_game(store, hall, sides(alice, bob))
    await store.close()
    folder = tmp_path / "migrations"
    folder.mkdir()
    for _, path in migration_files(MIGRATIONS):
        (folder / path.name).write_text(path.read_text())
    (folder / "9999_note.sql").write_text(
        "-- a later change\nCREATE TABLE notes (id INTEGER PRIMARY KEY, game_id INTEGER);\n"
        "INSERT INTO notes (game_id) SELECT id FROM games;\n"
    )
    store = await Store.open(db_path, folder)
    assert await store.schema_version() == 9999
    async with store.reading() as db:
        assert (await db.dump())["notes"] == [(1, game_id)]
    await store.close()


async def test_a_failing_migration_leaves_the_database_as_it_was(
    tmp_path: Path, db_path: Path
) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_fine.sql").write_text("CREATE TABLE a (x INTEGER);")
    (folder / "0002_broken.sql").write_text("CREATE TABLE b (x INTEGER);\nINSERT INTO nowhere;")
    with pytest.raises(sqlite3.OperationalError):
        await Store.open(db_path, folder)
    (folder / "0002_broken.sql").unlink()
    store = await Store.open(db_path, folder)
    async with store.reading() as db:
        assert set(await db.dump()) == {"a"}
    assert await store.schema_version() == 1
    await store.close()


@pytest.mark.parametrize("name", ["1_short.sql", "0003-dash.sql", "0003.sql"])
def test_misnamed_migrations_are_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text("SELECT 1;")
    with pytest.raises(ValueError, match="should be named like"):
        migration_files(tmp_path)


def test_two_migrations_with_one_number_are_refused(tmp_path: Path) -> None:
    (tmp_path / "0002_a.sql").write_text("SELECT 1;")
    (tmp_path / "0002_b.sql").write_text("SELECT 1;")
    with pytest.raises(ValueError, match="two migrations are numbered 2"):
        migration_files(tmp_path)


async def test_the_file_is_in_wal_mode(store: Store, db_path: Path) -> None:
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_foreign_keys_are_enforced(store: Store) -> None:
    ply = Ply(Move(11, (D1, D4)), Side.ATTACKERS)
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        async with store.transaction() as db:
            await db.insert_move(404, 1, ply, START)


# -- transactions ------------------------------------------------------------------------------


async def test_a_failed_transaction_writes_nothing(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    async with store.reading() as db:
        before = await db.dump()
    with pytest.raises(RuntimeError):
        async with store.transaction() as db:
            await db.insert_game(hall, "copenhagen", "copenhagen", sides(alice, bob), START)
            raise RuntimeError("something after the insert went wrong")
    async with store.reading() as db:
        assert await db.dump() == before
        assert await db.active_game_id(hall) is None


async def test_a_game_reads_back_as_written(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.reading() as db:
        row = await db.game(game_id)
        assert await db.active_game_id(hall) == game_id
    assert row is not None
    assert row.channel == hall
    assert row.players == {Side.ATTACKERS: alice, Side.DEFENDERS: bob}
    assert (row.status, row.version, row.outcome, row.finished_at) == (
        GameStatus.ACTIVE, 0, None, None,
    )  # fmt: skip
    assert row.created_at == START
    assert row.created_at.utcoffset() == timedelta(0)


async def test_moves_read_back_in_order_with_their_captures(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    plies = [
        Ply(Move(11, (D1, D4)), Side.ATTACKERS),
        Ply(Move(11, (D5, A1)), Side.DEFENDERS, ("b1", "c1")),
    ]
    async with store.transaction() as db:
        for number, ply in enumerate(plies, start=1):
            await db.insert_move(game_id, number, ply, START + timedelta(seconds=number))
    async with store.reading() as db:
        moves = await db.moves(game_id)
    assert [(m.ply, m.side, m.notation, m.captures) for m in moves] == [
        (1, Side.ATTACKERS, "d1-d4", ()),
        (2, Side.DEFENDERS, "d5-a1xb1xc1", ("b1", "c1")),
    ]
    assert moves[1].played_at == START + timedelta(seconds=2)
    async with store.transaction() as db:
        await db.delete_moves_after(game_id, 1)
    async with store.reading() as db:
        assert [m.ply for m in await db.moves(game_id)] == [1]


async def test_naive_times_are_refused(store: Store, hall: Channel, alice: Player) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        async with store.transaction() as db:
            await db.insert_game(hall, "copenhagen", "copenhagen", {}, datetime(2025, 1, 1))


# -- one game per channel, versions ------------------------------------------------------------


async def test_one_active_game_per_channel(
    store: Store, hall: Channel, thread: Channel, alice: Player, bob: Player
) -> None:
    first = await new_game(store, hall, sides(alice, bob))
    with pytest.raises(ChannelBusy):
        await new_game(store, hall, sides(bob, alice))
    other = await new_game(store, thread, sides(bob, alice))
    assert other != first
    async with store.transaction() as db:
        await db.claim_version(first, 0, START)
        await db.finish_game(first, Outcome(Side.DEFENDERS, Reason.RESIGNED), START)
    assert await new_game(store, hall, sides(bob, alice)) not in (first, other)


async def test_the_database_refuses_a_second_active_game_even_unchecked(
    store: Store, db_path: Path, hall: Channel, alice: Player, bob: Player
) -> None:
    await new_game(store, hall, sides(alice, bob))
    with sqlite3.connect(db_path) as raw, pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        raw.execute(
            "INSERT INTO games (channel, variant, rules_string, created_at, updated_at)"
            " VALUES (?, 'copenhagen', 'copenhagen', 'x', 'x')",
            (hall.id,),
        )


async def test_a_stale_version_changes_nothing(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as db:
        assert await db.claim_version(game_id, 0, START) == 1
    async with store.reading() as db:
        before = await db.dump()
    with pytest.raises(MoveConflict):
        async with store.transaction() as db:
            await db.claim_version(game_id, 0, START + timedelta(minutes=1))
    async with store.reading() as db:
        assert await db.dump() == before


async def test_a_second_process_cannot_write_on_a_stale_version(
    store: Store, db_path: Path, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    other = await Store.open(db_path)
    try:
        async with other.reading() as db:
            seen = await db.game_version(game_id)
        assert seen == 0
        async with store.transaction() as db:
            await db.claim_version(game_id, 0, START)
            await db.insert_move(game_id, 1, Ply(Move(11, (D1, D4)), Side.ATTACKERS), START)
        with pytest.raises(MoveConflict):
            async with other.transaction() as db:
                await db.claim_version(game_id, seen, START)
                await db.insert_move(game_id, 1, Ply(Move(11, (A1, D1)), Side.ATTACKERS), START)
        async with other.reading() as db:
            assert [m.notation for m in await db.moves(game_id)] == ["d1-d4"]
            assert await db.game_version(game_id) == 1
    finally:
        await other.close()


async def test_a_finished_game_takes_no_more_writes(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as db:
        await db.claim_version(game_id, 0, START)
        await db.finish_game(game_id, Outcome(None, Reason.DRAW_AGREED), START)
    with pytest.raises(MoveConflict):
        async with store.transaction() as db:
            await db.claim_version(game_id, 1, START)
    async with store.reading() as db:
        row = await db.game(game_id)
        assert await db.finished_game_ids(10) == [game_id]
        assert await db.finished_game_ids(10, guild="elsewhere") == []
    assert row is not None
    assert row.outcome == Outcome(None, Reason.DRAW_AGREED)
    assert (row.status, row.finished_at) == (GameStatus.FINISHED, START)


# -- challenges and offers ---------------------------------------------------------------------


async def test_challenges_expire_when_due_and_close_once(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    async with store.transaction() as db:
        soon = await db.insert_challenge(
            hall, alice, bob, "brandubh", "random", START, START + timedelta(minutes=15)
        )
        later = await db.insert_challenge(
            hall, bob, None, "copenhagen", "defenders", START, START + timedelta(minutes=30)
        )
    assert (soon.opponent, later.opponent, soon.status) == (bob, None, ChallengeStatus.OPEN)
    async with store.transaction() as db:
        assert await db.expire_challenges(START + timedelta(minutes=14, seconds=59)) == []
        expired = await db.expire_challenges(START + timedelta(minutes=15))
    assert [(c.id, c.status) for c in expired] == [(soon.id, ChallengeStatus.EXPIRED)]
    async with store.transaction() as db:
        assert not await db.close_challenge(soon.id, ChallengeStatus.DECLINED)
        assert await db.close_challenge(later.id, ChallengeStatus.ACCEPTED, opponent=alice)
        assert not await db.close_challenge(later.id, ChallengeStatus.CANCELLED)
        accepted = await db.challenge(later.id)
        assert await db.open_challenges(hall) == []
    assert accepted is not None
    assert (accepted.status, accepted.opponent) == (ChallengeStatus.ACCEPTED, alice)


async def test_a_challenge_keeps_the_message_that_shows_it(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    async with store.transaction() as db:
        shown = await db.insert_challenge(
            hall, alice, bob, "brandubh", "random", START, START + timedelta(minutes=15)
        )
        unshown = await db.insert_challenge(
            hall, bob, None, "brandubh", "random", START, START + timedelta(minutes=15)
        )
        assert shown.message_ref is None
        assert await db.attach_message(shown.id, "chan:42")
        assert not await db.attach_message(404, "chan:43")
    path = store.path
    await store.close()
    store = await Store.open(path)
    async with store.transaction() as db:
        expired = await db.expire_challenges(START + timedelta(minutes=15))
    await store.close()
    assert [(c.id, c.message_ref) for c in expired] == [(shown.id, "chan:42"), (unshown.id, None)]


async def test_challenges_of_a_version_1_database_get_no_message_ref(
    tmp_path: Path, db_path: Path
) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (first,) = [path for number, path in migration_files(MIGRATIONS) if number == 1]
    (folder / first.name).write_text(first.read_text())
    await (await Store.open(db_path, folder)).close()
    with sqlite3.connect(db_path) as old:
        old.execute(
            "INSERT INTO challenges (channel, challenger_id, challenger_name, variant, side,"
            " created_at, expires_at) VALUES ('test:hall', 'test:alice', 'Alice', 'brandubh',"
            " 'random', '2025-03-01T12:00:00.000000+00:00', '2025-03-01T12:15:00.000000+00:00')"
        )
    old.close()
    store = await Store.open(db_path)
    async with store.transaction() as db:
        before = await db.challenge(1)
        assert await db.attach_message(1, "chan:42")
        after = await db.challenge(1)
    await store.close()
    assert before is not None and after is not None
    assert (before.challenger.name, before.message_ref, after.message_ref) == (
        "Alice",
        None,
        "chan:42",
    )


async def test_offers_one_open_per_kind_and_void_together(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as db:
        draw = await db.insert_offer(game_id, OfferKind.DRAW, alice, bob, 4, START)
        undo = await db.insert_offer(game_id, OfferKind.UNDO, bob, alice, 4, START)
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        async with store.transaction() as db:
            await db.insert_offer(game_id, OfferKind.DRAW, bob, alice, 4, START)
    async with store.transaction() as db:
        assert [o.id for o in await db.open_offers(game_id)] == [draw.id, undo.id]
        assert await db.close_offer(draw.id, OfferStatus.DECLINED)
        await db.void_offers(game_id)
        assert not await db.close_offer(undo.id, OfferStatus.ACCEPTED)
        statuses = [(await db.offer(o.id)) for o in (draw, undo)]
    assert [o.status for o in statuses if o] == [OfferStatus.DECLINED, OfferStatus.VOID]


async def test_everything_is_still_there_after_a_restart(
    db_path: Path, hall: Channel, alice: Player, bob: Player
) -> None:
    store = await Store.open(db_path)
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as db:
        challenge = await db.insert_challenge(
            hall, alice, None, "tablut", "attackers", START, START + timedelta(minutes=15)
        )
        offer = await db.insert_offer(game_id, OfferKind.UNDO, alice, bob, 0, START)
    async with store.reading() as db:
        before = await db.dump()
    await store.close()
    store = await Store.open(db_path)
    async with store.reading() as db:
        assert await db.dump() == before
        assert await db.challenge(challenge.id) == challenge
        assert await db.offer(offer.id) == offer
        assert await db.active_game_id(hall) == game_id
    await store.close()
