"""The store on each database (a SQLite file, a PostgreSQL database): migrations, transactions,
version checks, what survives; then what only one of them has."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.errors import ChannelBusy, MoveConflict
from bot.models import ChallengeStatus, Channel, GameStatus, OfferKind, OfferStatus, Player
from bot.storage import (
    MIGRATIONS,
    Store,
    migration_files,
    newest_migration,
    open_store,
    store_class,
)
from bot.storage.postgresql import LOCK_SPACE, MIGRATION_LOCK
from engine import Move, Outcome, Ply, Reason, Side
from tests.bot.conftest import raw_execute, stamp

A1, D1, D4, D5 = 0, 3, 36, 47  # on an 11x11 board
START = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def sides(alice: Player, bob: Player) -> dict[Side, Player]:
    return {Side.ATTACKERS: alice, Side.DEFENDERS: bob}


async def new_game(store: Store, channel: Channel, players: dict[Side, Player]) -> int:
    async with store.transaction() as session:
        return await session.insert_game(channel, "copenhagen", "copenhagen", players, START)


# -- migrations and settings -------------------------------------------------------------------


REFUSED = (sqlite3.Error, asyncpg.PostgresError)
"""What either driver raises when the database refuses a statement."""


def copy_migrations(db: str | Path, folder: Path, up_to: int = 9999) -> None:
    """The project's migrations for ``db`` up to number ``up_to``, copied into ``folder``."""
    folder.mkdir()
    for number, path in migration_files(store_class(db).migrations()):
        if number <= up_to:
            (folder / path.name).write_text(path.read_text())


async def test_migrations_set_the_schema_version_once(db: str | Path) -> None:
    newest = newest_migration(store_class(db).migrations())
    assert newest >= 2
    store = await open_store(db)
    assert await store.schema_version() == newest
    await store.close()
    store = await open_store(db)  # a second start applies nothing again
    assert await store.schema_version() == newest
    await store.close()


async def test_a_new_migration_is_applied_to_an_existing_database(
    tmp_path: Path, db: str | Path, hall: Channel, alice: Player, bob: Player
) -> None:
    store = await open_store(db)
    game_id = await new_game(store, hall, sides(alice, bob))
    await store.close()
    folder = tmp_path / "migrations"
    copy_migrations(db, folder)
    (folder / "9999_note.sql").write_text(
        "-- a later change\nCREATE TABLE notes (game_id INTEGER, note TEXT);\n"
        "INSERT INTO notes (game_id, note) SELECT id, 'first' FROM games;\n"
    )
    store = await open_store(db, folder)
    assert await store.schema_version() == 9999
    async with store.reading() as session:
        assert (await session.dump())["notes"] == [(game_id, "first")]
    await store.close()


async def test_a_failing_migration_leaves_the_database_as_it_was(
    tmp_path: Path, db: str | Path
) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_fine.sql").write_text("CREATE TABLE a (x INTEGER);")
    (folder / "0002_broken.sql").write_text("CREATE TABLE b (x INTEGER);\nINSERT INTO nowhere;")
    with pytest.raises(REFUSED):
        await open_store(db, folder)
    (folder / "0002_broken.sql").unlink()
    store = await open_store(db, folder)
    async with store.reading() as session:
        assert set(await session.dump()) == {"a"}
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


async def test_foreign_keys_are_enforced(store: Store) -> None:
    ply = Ply(Move(11, (D1, D4)), Side.ATTACKERS)
    with pytest.raises(REFUSED, match=r"(?i)foreign key"):
        async with store.transaction() as session:
            await session.insert_move(404, 1, ply, START)


# -- transactions ------------------------------------------------------------------------------


async def test_a_failed_transaction_writes_nothing(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    async with store.reading() as session:
        before = await session.dump()
    with pytest.raises(RuntimeError):
        async with store.transaction() as session:
            await session.insert_game(hall, "copenhagen", "copenhagen", sides(alice, bob), START)
            raise RuntimeError("something after the insert went wrong")
    async with store.reading() as session:
        assert await session.dump() == before
        assert await session.active_game_id(hall) is None


async def test_a_game_reads_back_as_written(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.reading() as session:
        row = await session.game(game_id)
        assert await session.active_game_id(hall) == game_id
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
    async with store.transaction() as session:
        for number, ply in enumerate(plies, start=1):
            await session.insert_move(game_id, number, ply, START + timedelta(seconds=number))
    async with store.reading() as session:
        moves = await session.moves(game_id)
    assert [(m.ply, m.side, m.notation, m.captures) for m in moves] == [
        (1, Side.ATTACKERS, "d1-d4", ()),
        (2, Side.DEFENDERS, "d5-a1xb1xc1", ("b1", "c1")),
    ]
    assert moves[1].played_at == START + timedelta(seconds=2)
    async with store.transaction() as session:
        await session.delete_moves_after(game_id, 1)
    async with store.reading() as session:
        assert [m.ply for m in await session.moves(game_id)] == [1]


async def test_naive_times_are_refused(store: Store, hall: Channel, alice: Player) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        async with store.transaction() as session:
            await session.insert_game(hall, "copenhagen", "copenhagen", {}, datetime(2025, 1, 1))


# -- one game per channel, versions ------------------------------------------------------------


async def test_one_active_game_per_channel(
    store: Store, hall: Channel, thread: Channel, alice: Player, bob: Player
) -> None:
    first = await new_game(store, hall, sides(alice, bob))
    with pytest.raises(ChannelBusy):
        await new_game(store, hall, sides(bob, alice))
    other = await new_game(store, thread, sides(bob, alice))
    assert other != first
    async with store.transaction() as session:
        await session.claim_version(first, 0, START)
        outcome = Outcome(Side.DEFENDERS, Reason.RESIGNED)
        await session.finish_game(first, outcome, START, 0, rated=False)
    assert await new_game(store, hall, sides(bob, alice)) not in (first, other)


async def test_the_database_refuses_a_second_active_game_even_unchecked(
    store: Store, db: str | Path, hall: Channel, alice: Player, bob: Player
) -> None:
    await new_game(store, hall, sides(alice, bob))
    with pytest.raises(REFUSED, match=r"(?i)unique|duplicate key"):
        await raw_execute(
            db,
            "INSERT INTO games (channel, variant, rules_string, created_at, updated_at)"
            " VALUES (?, 'copenhagen', 'copenhagen', ?, ?)",
            hall.id, stamp(db, START), stamp(db, START),
        )  # fmt: skip


async def test_a_stale_version_changes_nothing(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as session:
        assert await session.claim_version(game_id, 0, START) == 1
    async with store.reading() as session:
        before = await session.dump()
    with pytest.raises(MoveConflict):
        async with store.transaction() as session:
            await session.claim_version(game_id, 0, START + timedelta(minutes=1))
    async with store.reading() as session:
        assert await session.dump() == before


async def test_a_second_process_cannot_write_on_a_stale_version(
    store: Store, db: str | Path, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    other = await open_store(db)
    try:
        async with other.reading() as session:
            seen = await session.game_version(game_id)
        assert seen == 0
        async with store.transaction() as session:
            await session.claim_version(game_id, 0, START)
            await session.insert_move(game_id, 1, Ply(Move(11, (D1, D4)), Side.ATTACKERS), START)
        with pytest.raises(MoveConflict):
            async with other.transaction() as session:
                await session.claim_version(game_id, seen, START)
                await session.insert_move(
                    game_id, 1, Ply(Move(11, (A1, D1)), Side.ATTACKERS), START
                )
        async with other.reading() as session:
            assert [m.notation for m in await session.moves(game_id)] == ["d1-d4"]
            assert await session.game_version(game_id) == 1
    finally:
        await other.close()


async def test_a_finished_game_takes_no_more_writes(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as session:
        await session.claim_version(game_id, 0, START)
        await session.finish_game(game_id, Outcome(None, Reason.DRAW_AGREED), START, 0, rated=False)
    with pytest.raises(MoveConflict):
        async with store.transaction() as session:
            await session.claim_version(game_id, 1, START)
    async with store.reading() as session:
        row = await session.game(game_id)
        assert await session.finished_game_ids(10) == [game_id]
        assert await session.finished_game_ids(10, guild="elsewhere") == []
    assert row is not None
    assert row.outcome == Outcome(None, Reason.DRAW_AGREED)
    assert (row.status, row.finished_at) == (GameStatus.FINISHED, START)


# -- challenges and offers ---------------------------------------------------------------------


async def test_challenges_expire_when_due_and_close_once(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    async with store.transaction() as session:
        soon = await session.insert_challenge(
            hall, alice, bob, "brandubh", "random", START, START + timedelta(minutes=15)
        )
        later = await session.insert_challenge(
            hall, bob, None, "copenhagen", "defenders", START, START + timedelta(minutes=30)
        )
    assert (soon.opponent, later.opponent, soon.status) == (bob, None, ChallengeStatus.OPEN)
    async with store.transaction() as session:
        assert await session.expire_challenges(START + timedelta(minutes=14, seconds=59)) == []
        expired = await session.expire_challenges(START + timedelta(minutes=15))
    assert [(c.id, c.status) for c in expired] == [(soon.id, ChallengeStatus.EXPIRED)]
    async with store.transaction() as session:
        assert not await session.close_challenge(soon.id, ChallengeStatus.DECLINED)
        assert await session.close_challenge(later.id, ChallengeStatus.ACCEPTED, opponent=alice)
        assert not await session.close_challenge(later.id, ChallengeStatus.CANCELLED)
        accepted = await session.challenge(later.id)
        assert await session.open_challenges(hall) == []
    assert accepted is not None
    assert (accepted.status, accepted.opponent) == (ChallengeStatus.ACCEPTED, alice)


async def test_a_challenge_keeps_the_message_that_shows_it(
    store: Store, hall: Channel, alice: Player, bob: Player
) -> None:
    async with store.transaction() as session:
        shown = await session.insert_challenge(
            hall, alice, bob, "brandubh", "random", START, START + timedelta(minutes=15)
        )
        unshown = await session.insert_challenge(
            hall, bob, None, "brandubh", "random", START, START + timedelta(minutes=15)
        )
        assert shown.message_ref is None
        assert await session.attach_message(shown.id, "chan:42")
        assert not await session.attach_message(404, "chan:43")
    target = store.target
    await store.close()
    store = await open_store(target)
    async with store.transaction() as session:
        expired = await session.expire_challenges(START + timedelta(minutes=15))
    await store.close()
    assert [(c.id, c.message_ref) for c in expired] == [(shown.id, "chan:42"), (unshown.id, None)]


async def test_challenges_of_a_version_1_database_get_no_message_ref(
    tmp_path: Path, db: str | Path
) -> None:
    folder = tmp_path / "migrations"
    copy_migrations(db, folder, up_to=1)
    await (await open_store(db, folder)).close()
    await raw_execute(
        db,
        "INSERT INTO challenges (channel, challenger_id, challenger_name, variant, side,"
        " created_at, expires_at) VALUES ('test:hall', 'test:alice', 'Alice', 'brandubh',"
        " 'random', ?, ?)",
        stamp(db, START), stamp(db, START + timedelta(minutes=15)),
    )  # fmt: skip
    store = await open_store(db)
    async with store.transaction() as session:
        before = await session.challenge(1)
        assert await session.attach_message(1, "chan:42")
        after = await session.challenge(1)
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
    async with store.transaction() as session:
        draw = await session.insert_offer(game_id, OfferKind.DRAW, alice, bob, 4, START)
        undo = await session.insert_offer(game_id, OfferKind.UNDO, bob, alice, 4, START)
    with pytest.raises(REFUSED, match=r"(?i)unique|duplicate key"):
        async with store.transaction() as session:
            await session.insert_offer(game_id, OfferKind.DRAW, bob, alice, 4, START)
    async with store.transaction() as session:
        assert [o.id for o in await session.open_offers(game_id)] == [draw.id, undo.id]
        assert await session.close_offer(draw.id, OfferStatus.DECLINED)
        await session.void_offers(game_id)
        assert not await session.close_offer(undo.id, OfferStatus.ACCEPTED)
        statuses = [(await session.offer(o.id)) for o in (draw, undo)]
    assert [o.status for o in statuses if o] == [OfferStatus.DECLINED, OfferStatus.VOID]


async def test_everything_is_still_there_after_a_restart(
    db: str | Path, hall: Channel, alice: Player, bob: Player
) -> None:
    store = await open_store(db)
    game_id = await new_game(store, hall, sides(alice, bob))
    async with store.transaction() as session:
        challenge = await session.insert_challenge(
            hall, alice, None, "tablut", "attackers", START, START + timedelta(minutes=15)
        )
        offer = await session.insert_offer(game_id, OfferKind.UNDO, alice, bob, 0, START)
    async with store.reading() as session:
        before = await session.dump()
    await store.close()
    store = await open_store(db)
    async with store.reading() as session:
        assert await session.dump() == before
        assert await session.challenge(challenge.id) == challenge
        assert await session.offer(offer.id) == offer
        assert await session.active_game_id(hall) == game_id
    await store.close()


# -- the two dialects --------------------------------------------------------------------------


def test_both_dialects_have_the_same_migrations() -> None:
    folders = [MIGRATIONS / "sqlite", MIGRATIONS / "postgresql"]
    names = [[path.name for _, path in migration_files(folder)] for folder in folders]
    assert names[0] and names[0] == names[1]
    assert {path.name for path in MIGRATIONS.iterdir()} == {"sqlite", "postgresql"}


async def test_both_dialects_make_the_same_tables_and_columns(
    tmp_path: Path, db: str | Path
) -> None:
    sqlite = await open_store(tmp_path / "other.db")
    store = await open_store(db)
    try:
        async with sqlite.reading() as one, store.reading() as other:
            assert await one.table_names() == await other.table_names()
            for table in await one.table_names():
                await one.insert_rows(table, [])  # nothing to insert: still a known table
        shapes = []
        for each in (sqlite, store):
            async with each.transaction() as session:
                game = await session.insert_game(
                    Channel("c"), "copenhagen", "copenhagen", {}, START
                )
                shapes.append(set((await session.table_rows("games"))[0]))
                assert game == 1
        assert shapes[0] == shapes[1]
    finally:
        await sqlite.close()
        await store.close()


# -- SQLite only -------------------------------------------------------------------------------


async def test_the_file_is_in_wal_mode(db_path: Path) -> None:
    await (await open_store(db_path)).close()
    with sqlite3.connect(db_path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()


# -- PostgreSQL only ---------------------------------------------------------------------------


async def test_postgresql_keeps_times_as_timestamptz_in_the_at_columns(postgres_url: str) -> None:
    await (await open_store(postgres_url)).close()
    connection = await asyncpg.connect(postgres_url)
    try:
        columns = await connection.fetch(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name <> 'schema_version'"
        )
    finally:
        await connection.close()
    times = {(c["table_name"], c["column_name"]) for c in columns
             if c["data_type"] == "timestamp with time zone"}  # fmt: skip
    named = {(c["table_name"], c["column_name"]) for c in columns
             if c["column_name"].endswith("_at")}  # fmt: skip
    assert ("moves", "played_at") in times
    assert times == named  # copies between the databases convert by the name


async def test_two_processes_starting_together_migrate_once(postgres_url: str) -> None:
    stores = await asyncio.gather(*(open_store(postgres_url) for _ in range(3)))
    try:
        versions = {await store.schema_version() for store in stores}
        assert versions == {newest_migration(store_class(postgres_url).migrations())}
    finally:
        for store in stores:
            await store.close()


async def test_migrations_wait_for_the_lock_another_process_holds(postgres_url: str) -> None:
    holder = await asyncpg.connect(postgres_url)
    try:
        await holder.execute("SELECT pg_advisory_lock($1, $2)", LOCK_SPACE, MIGRATION_LOCK)
        opening = asyncio.create_task(open_store(postgres_url))
        await asyncio.sleep(0.3)
        assert not opening.done()
        assert await holder.fetchval("SELECT to_regclass('games')") is None
        await holder.execute("SELECT pg_advisory_unlock($1, $2)", LOCK_SPACE, MIGRATION_LOCK)
        store = await opening
        await store.close()
        assert await holder.fetchval("SELECT to_regclass('games')") is not None
    finally:
        await holder.close()


async def test_a_write_transaction_holds_the_channel_until_it_ends(
    postgres_url: str, hall: Channel, alice: Player, bob: Player
) -> None:
    """What BEGIN IMMEDIATE gives SQLite: a second writer deciding on the same channel waits."""
    first, second = await open_store(postgres_url), await open_store(postgres_url)
    try:
        async with first.transaction() as session:
            assert await session.active_game_id(hall) is None
            starting = asyncio.create_task(new_game(second, hall, sides(bob, alice)))
            await asyncio.sleep(0.3)
            assert not starting.done()
            await session.insert_game(hall, "copenhagen", "copenhagen", sides(alice, bob), START)
        with pytest.raises(ChannelBusy):
            await starting
    finally:
        await first.close()
        await second.close()


# -- background jobs: one process at a time ----------------------------------------------------


async def test_one_holder_at_a_time_leads_a_job(store: Store) -> None:
    async with (
        store.leading("sweep") as first,
        store.leading("sweep") as second,
        store.leading("catch-up") as other,
    ):
        assert (first, second, other) == (True, False, True)
    async with store.leading("sweep") as again:
        assert again


async def test_a_job_led_by_one_process_is_not_led_by_another(postgres_url: str) -> None:
    here, there = await open_store(postgres_url), await open_store(postgres_url)
    try:
        async with here.leading("sweep") as leading_here, there.leading("sweep") as leading_there:
            assert (leading_here, leading_there) == (True, False)
        async with there.leading("sweep") as leading_there:
            assert leading_there
    finally:
        await here.close()
        await there.close()


LEADER = """
import asyncio, sys
from bot.storage import open_store

async def main():
    store = await open_store(sys.argv[1])
    async with store.leading("sweep") as leading:
        print("leading" if leading else "not leading", flush=True)
        await asyncio.sleep(600)

asyncio.run(main())
"""


async def test_a_killed_leader_leaves_its_job_to_another_process(postgres_url: str) -> None:
    root = Path(__file__).resolve().parents[2]
    leader = await asyncio.create_subprocess_exec(
        sys.executable, "-c", LEADER, postgres_url, cwd=root, stdout=asyncio.subprocess.PIPE
    )
    store = await open_store(postgres_url)
    try:
        assert leader.stdout is not None
        assert await asyncio.wait_for(leader.stdout.readline(), 30) == b"leading\n"
        async with store.leading("sweep") as leading:
            assert not leading
        leader.kill()  # SIGKILL: no clean-up in the leader
        await leader.wait()
        for _ in range(100):  # the server ends the dead process's session at once, or nearly
            async with store.leading("sweep") as leading:
                if leading:
                    break
            await asyncio.sleep(0.1)
        assert leading
    finally:
        if leader.returncode is None:
            leader.kill()
            await leader.wait()
        await store.close()


async def test_an_event_is_claimed_once_until_it_is_forgotten(store: Store) -> None:
    async with store.transaction() as session:
        assert await session.claim_event("discord:1", START)
        assert not await session.claim_event("discord:1", START + timedelta(seconds=1))
        assert await session.claim_event("discord:2", START + timedelta(hours=2))
    async with store.transaction() as session:
        await session.forget_events(START + timedelta(hours=1))
        assert await session.claim_event("discord:1", START + timedelta(hours=3))
        assert not await session.claim_event("discord:2", START + timedelta(hours=3))
