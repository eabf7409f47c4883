"""What a real server throws at the bot: crashes between storing and posting, refused posts, a
second process on the same database, stopping with work under way, a process killed outright
while the AI thinks, Discord's size limits."""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
from pathlib import Path

import pytest

from bot.compute import Compute
from bot.discord import TaflBot
from bot.models import AI_PLAYER, GameState, Player
from bot.service import GameService
from bot.storage import DatabaseInUse, open_store
from engine import Side
from tests.bot.conftest import FakeClock
from tests.bot.discord.conftest import RunBot, channel_of, embed_of, settled_on_a_shared_database
from tests.fake_discord import FakeDiscord, Message, Reply, User
from tests.fake_discord.bot_process import start_bot_process

CHANNEL_POSTS = "/channels/{channel_id}/messages"


def boards(messages: list[Message]) -> list[Message]:
    return [m for m in messages if any(f.filename == "board.png" for f in m.files)]


async def ai_game_left_to_the_ai(
    fake: FakeDiscord, db: str | Path, alice: User, clock: FakeClock | None = None
) -> GameService:
    """Brandubh, the AI (attackers) to move first: what a restart leaves for the AI to answer."""
    store = await open_store(db)
    alice_player = Player(f"discord:{alice.id}", alice.name)
    players = {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice_player}
    service = GameService(store) if clock is None else GameService(store, clock)
    await service.start_game(channel_of(fake), players, "brandubh")
    await store.close()
    return service


async def test_a_move_stored_but_never_posted_is_posted_after_a_restart_once(
    fake: FakeDiscord, run_bot: RunBot, db: str | Path, alice: User, clock: FakeClock
) -> None:
    store = await open_store(db)
    bob = Player("discord:424242", "Bob")
    alice_player = Player(f"discord:{alice.id}", alice.name)
    service = GameService(store, clock)
    channel = channel_of(fake)
    await service.start_game(channel, {Side.ATTACKERS: alice_player, Side.DEFENDERS: bob})
    await service.move(channel, alice_player, "d1-c1")  # stored; the bot "crashed" before posting
    await store.close()

    async with run_bot(clock=clock, sweep_seconds=0.05) as bot:
        await settled_on_a_shared_database(fake, db, clock)
        posted = await fake.channel.wait_for_message(lambda m: bool(m.files))
        assert "d1-c1" in embed_of(posted)["title"]
        assert "<@424242>" in posted.content  # Bob, to move, is pinged
        await asyncio.sleep(0.2)
        assert await bot.service.pending_announcements("discord:") == []
    async with run_bot(clock=clock, sweep_seconds=0.05):
        await asyncio.sleep(0.3)
    assert len(boards(fake.channel.messages)) == 1


async def test_a_refused_post_is_logged_told_privately_and_posted_later(
    fake: FakeDiscord,
    run_bot: RunBot,
    db: str | Path,
    alice: User,
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    await ai_game_left_to_the_ai(fake, db, alice, clock)
    fake.fail_next("POST", CHANNEL_POSTS, status=403)
    with caplog.at_level(logging.ERROR, logger="bot.discord.cog"):
        async with run_bot(clock=clock, sweep_seconds=0.05) as bot:
            await settled_on_a_shared_database(fake, db, clock)
            told = await alice.dm.wait_for_message(lambda m: "permission" in m.content)
            assert fake.channel.mention in told.content
            assert "Send Messages" in told.content and "Attach Files" in told.content
            assert boards(fake.channel.messages) == []  # refused, and not tried again at once
            state = await bot.service.current_game(channel_of(fake))
            assert state is not None and len(state.game.history) == 1  # the move is kept

            clock.advance(minutes=2)  # past the retry time
            posted = await fake.channel.wait_for_message(lambda m: bool(m.files))
            assert "played" in embed_of(posted)["title"] and alice.mention in posted.content
            await asyncio.sleep(0.2)  # a few more sweeps: nothing is posted twice
    assert len(boards(fake.channel.messages)) == 1
    assert len(alice.dm.messages) == 1
    refusal = [r.getMessage() for r in caplog.records if "no permission" in r.getMessage()]
    assert len(refusal) == 1 and str(fake.channel.id) in refusal[0]
    assert "Send Messages" in refusal[0] and "50013" in refusal[0]


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # PostgreSQL is shared by design
async def test_a_second_bot_on_the_same_database_refuses_to_start(
    fake: FakeDiscord, run_bot: RunBot
) -> None:
    async with run_bot():
        with pytest.raises(DatabaseInUse, match=r"used by another tafl bot \(process \d+\)"):
            async with run_bot():
                pass
    async with run_bot():  # the first one has stopped: the database is free again
        pass


async def test_a_stopping_bot_finishes_the_move_under_way_and_refuses_new_ones(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    async with run_bot(ai_time_limit=1.0, stop_grace=20) as bot:  # room for a loaded machine
        challenge = await alice.slash(
            "tafl challenge", opponent=fake.bot_user, variant="brandubh", side="defenders"
        )
        await challenge.followup()  # the AI's first move
        move = await alice.slash("tafl move", move="d3-c3", wait=False)
        await move.result()  # alice's board is posted; the AI now thinks for a second
        closing = asyncio.create_task(bot.close())
        await fake.wait_for(lambda: bot.stopping, what="stopping")
        late = await bob.slash("tafl variants")
        assert late.ephemeral and "restarting" in late.content
        answer = await move.followup(timeout=20)
        assert "played" in embed_of(answer)["title"]
        await closing
    state_moves = [m for m in boards(fake.channel.messages) if "played" in embed_of(m)["title"]]
    assert len(state_moves) == 3  # the AI's opening, alice's move, the AI's answer


async def test_long_texts_are_shortened_to_discords_limits(
    fake: FakeDiscord, bot: TaflBot, alice: User
) -> None:
    name = "N" * 300
    rules = f"dim:7 name:{name} start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
    started = await alice.slash(
        "tafl challenge", opponent=fake.bot_user, rules=rules, side="defenders"
    )
    first = await started.result()
    assert len(embed_of(first)["title"]) <= 256 and embed_of(first)["title"].endswith("…")
    answer = await started.followup()  # the AI plays on: the game did not stall
    assert "played" in embed_of(answer)["title"]


async def ai_thinking_in_a_bot_process(
    fake: FakeDiscord, db: str | Path, alice: User, log_path: Path, ai_time: float
) -> tuple[subprocess.Popen[bytes], Reply]:
    """A bot in a process of its own (logging to ``log_path``), thinking for up to ``ai_time``
    seconds on its answer to alice's first move (Brandubh, the AI attacking); and her move."""
    with log_path.open("a") as log:
        child = start_bot_process(fake, db, log, "--ai-time", str(ai_time))
    try:
        await fake.wait_for(lambda: "caught up" in log_path.read_text(), timeout=60)
        challenge = await alice.slash(
            "tafl challenge", opponent=fake.bot_user, variant="brandubh", side="defenders"
        )
        await challenge.followup(timeout=30)  # the AI's first move
        move = await alice.slash("tafl move", move="d3-c3", wait=False)
        await move.result(timeout=10)  # alice's board; the AI thinks now
    except BaseException:
        await killed(child)
        raise
    return child, move


async def killed(child: subprocess.Popen[bytes]) -> None:
    """``child`` killed, unless it has ended."""
    if child.poll() is None:
        child.kill()
        await asyncio.to_thread(child.wait)


async def test_sigterm_lets_the_move_under_way_finish_then_stops_cleanly(
    fake: FakeDiscord, db: str | Path, alice: User, tmp_path: Path
) -> None:
    log_path = tmp_path / "bot.log"
    child, move = await ai_thinking_in_a_bot_process(fake, db, alice, log_path, 1.5)
    try:
        child.send_signal(signal.SIGTERM)
        answer = await move.followup(timeout=10)
        assert "played" in embed_of(answer)["title"]
        status = await asyncio.to_thread(child.wait, 30)
    finally:
        await killed(child)
    log_text = log_path.read_text()
    assert status == 0, log_text
    assert "asked to stop" in log_text
    assert "ERROR" not in log_text and "Traceback" not in log_text, log_text
    store = await open_store(db)
    service = GameService(store)
    state = await service.current_game(channel_of(fake))
    assert state is not None and len(state.game.history) == 3
    assert await service.pending_announcements("discord:") == []
    await store.close()


async def test_the_sweep_lets_the_ai_move_where_it_was_left_to_move(
    fake: FakeDiscord, run_bot: RunBot, db: str | Path, alice: User
) -> None:
    clock = FakeClock()
    async with run_bot(clock=clock, sweep_seconds=0.05):
        await asyncio.sleep(0.3)  # the start-up catch-up is over
        await ai_game_left_to_the_ai(fake, db, alice, clock)  # behind the bot's back
        await asyncio.sleep(0.3)
        assert boards(fake.channel.messages) == []  # not yet: it may be an interaction's
        clock.advance(seconds=31)
        posted = await fake.channel.wait_for_message(lambda m: bool(m.files))
        assert "Tafl AI (attackers) played" in embed_of(posted)["title"]
        await asyncio.sleep(0.2)
    assert len(boards(fake.channel.messages)) == 1


async def test_a_crowded_ai_takes_no_new_game_and_says_so(
    fake: FakeDiscord, run_bot: RunBot, workers: Compute, alice: User
) -> None:
    async with run_bot(compute=workers.shared(waiting_per_worker=0)):
        refused = await alice.slash("tafl challenge", opponent=fake.bot_user)
        assert refused.ephemeral and "thinking for 0 games at once" in refused.content
    async with run_bot():
        started = await alice.slash("tafl challenge", opponent=fake.bot_user)
        assert not started.ephemeral and "Tafl AI" in embed_of(await started.result())["title"]


def process_state(stat: Path) -> tuple[str, int] | None:
    """A process's state letter and parent from its /proc stat file; None once it is gone."""
    try:
        state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
    except (OSError, ValueError):
        return None
    return state, int(parent)


def descendants(pid: int) -> set[int]:
    """The processes ``pid`` started, and the ones they started."""
    found: set[int] = set()
    parents = {pid}
    while parents:
        children = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            seen = process_state(stat)
            if seen is not None and seen[1] in parents:
                children.add(int(stat.parent.name))
        found |= children
        parents = children
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and is not a zombie)."""
    seen = process_state(Path(f"/proc/{pid}/stat"))
    return seen is not None and seen[0] != "Z"


async def stored_game(fake: FakeDiscord, db: str | Path) -> GameState | None:
    """The game in the default channel as the database holds it."""
    store = await open_store(db)
    try:
        return await GameService(store).current_game(channel_of(fake))
    finally:
        await store.close()


def ai_moves(fake: FakeDiscord) -> list[Message]:
    """The boards posted for the AI's moves in the default channel."""
    titles = [(m, (m.embed or {}).get("title", "")) for m in fake.channel.messages]
    return [m for m, title in titles if "(attackers) played" in title]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # (PostgreSQL would wait SETTLED)
async def test_a_bot_killed_while_the_ai_thinks_leaves_no_workers_and_loses_no_move(
    fake: FakeDiscord, db: str | Path, alice: User, tmp_path: Path
) -> None:
    log_path = tmp_path / "bot.log"
    child, _ = await ai_thinking_in_a_bot_process(fake, db, alice, log_path, 3)
    try:
        workers = descendants(child.pid)
        assert len(workers) >= 3  # the AI's workers, the image worker, the resource tracker
        child.send_signal(signal.SIGKILL)
        await asyncio.to_thread(child.wait, 10)
    finally:
        await killed(child)
    await fake.wait_for(
        lambda: not any(alive(worker) for worker in workers), timeout=10, what="workers gone"
    )

    state = await stored_game(fake, db)
    assert state is not None and [str(p.move) for p in state.game.history][1:] == ["d3-c3"]

    with log_path.open("a") as log:
        restarted = start_bot_process(fake, db, log, "--ai-time", "0.2")
    try:
        await fake.wait_for(lambda: len(ai_moves(fake)) == 2, timeout=60, what="the AI's answer")
        answer = ai_moves(fake)[-1]
        assert alice.mention in answer.content
        restarted.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(restarted.wait, 30) == 0
    finally:
        await killed(restarted)
    state = await stored_game(fake, db)
    assert state is not None and len(state.game.history) == 3
