"""Community play through Discord: AI levels, ratings, leaderboards, stats and the game archive,
the real discord.py bot against the local emulator."""

from __future__ import annotations

from bot.discord import TaflBot
from bot.models import ai_player
from tests.bot.discord.conftest import channel_of, embed_of
from tests.fake_discord import FakeDiscord, User


async def test_challenging_the_ai_at_a_level_plays_that_level(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    started = await alice.slash(
        "tafl challenge", opponent=fake.bot_user, side="attackers", level="hard"
    )
    assert "Tafl AI (hard) (defenders)" in embed_of(await started.result())["title"]
    state = await bot.service.current_game(channel_of(fake))
    assert state is not None and ai_player("hard") in state.players.values()

    refused = await alice.slash("tafl challenge", opponent=bob, level="easy")
    assert refused.ephemeral and "A level is for games against me" in refused.content
