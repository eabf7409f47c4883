"""A bot process killed outright (SIGKILL: the out-of-memory killer, a host going down) while the
AI thinks: what was stored stays, its worker processes end with it, and the next bot process on
the database answers the move."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

import pytest

from bot.service import GameService
from bot.storage import open_store
from tests.bot.discord.conftest import channel_of
from tests.fake_discord import FakeDiscord, Message, User
from tests.fake_discord.bot_process import start_bot_process


def descendants(pid: int) -> set[int]:
    """The processes ``pid`` started, and the ones they started, from /proc."""
    found: set[int] = set()
    parents = {pid}
    while parents:
        children = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
            if parent in parents:
                children.add(int(stat.parent.name))
        found |= children
        parents = children
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists and is not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def ai_moves(fake: FakeDiscord) -> list[Message]:
    """The boards posted for the AI's moves in the default channel."""
    titles = [(m, (m.embed or {}).get("title", "")) for m in fake.channel.messages]
    return [m for m, title in titles if "(attackers) played" in title]


async def stop(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.kill()
        await asyncio.to_thread(child.wait)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("db", ["sqlite"], indirect=True)  # PostgreSQL: after 30 s (SETTLED)
async def test_a_bot_killed_while_the_ai_thinks_leaves_no_workers_and_loses_no_move(
    fake: FakeDiscord, db: str | Path, alice: User, tmp_path: Path
) -> None:
    log_path = tmp_path / "bot.log"
    with log_path.open("w") as log:
        child = start_bot_process(fake, db, log, "--ai-time", "3")
    try:
        await fake.wait_for(lambda: "caught up" in log_path.read_text(), timeout=60)
        challenge = await alice.slash(
            "tafl challenge", opponent=fake.bot_user, variant="brandubh", side="defenders"
        )
        await challenge.followup(timeout=30)  # the AI's first move
        move = await alice.slash("tafl move", move="d3-c3", wait=False)
        await move.result(timeout=10)  # alice's board; the AI thinks for 3 s now
        workers = descendants(child.pid)
        assert len(workers) >= 3  # two AI workers at least, one to draw, the resource tracker
        child.send_signal(signal.SIGKILL)
        await asyncio.to_thread(child.wait, 10)
    finally:
        await stop(child)
    await fake.wait_for(
        lambda: not any(alive(worker) for worker in workers), timeout=10, what="workers gone"
    )

    store = await open_store(db)
    state = await GameService(store).current_game(channel_of(fake))
    await store.close()
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
        await stop(restarted)
    store = await open_store(db)
    state = await GameService(store).current_game(channel_of(fake))
    await store.close()
    assert state is not None and len(state.game.history) == 3
