"""The by-hand session (python -m tests.fake_discord.serve) drives the real bot line by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.discord import create_bot
from tests.fake_discord import FakeDiscord
from tests.fake_discord.serve import Session


async def test_a_challenge_accepted_and_a_move_are_printed(
    fake_discord: FakeDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = create_bot(tmp_path / "tafl.sqlite3", sync=True, guild_ready_timeout=0.05)
    async with fake_discord.running(bot):
        session = Session(fake_discord)
        for line in (
            "alice /tafl challenge opponent=@bob variant=brandubh side=attackers thread=false",
            "bob click Accept",
            "alice /tafl move move=d2-c2",
            "bob /tafl move move=zz",
        ):
            await session.run(line)
            await session.print_new()
        with pytest.raises(ValueError, match="no message carol sees has a button 'Accept'"):
            await session.run("carol click Accept")
    out = capsys.readouterr().out
    assert "Alice challenges Bob to a rated game of Brandubh" in out
    assert "buttons: [Accept], [Decline]" in out
    assert "@bob, your move (defenders)." in out and "file: board.png" in out
    assert "(seen by only bob)\nCan't read 'zz' as a move" in out
