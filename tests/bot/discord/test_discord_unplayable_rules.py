"""A challenge with custom rules whose start cannot be played is refused, naming the problem."""

from __future__ import annotations

import pytest

from bot.discord import TaflBot
from bot.errors import ChallengeNotFound
from tests.fake_discord import FakeDiscord, User


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        ("dim:7 start:/7/7/7/3K3/7/7/7/", "start: the attackers have no pieces"),
        (
            "dim:7 esc:e start:/7/7/7/6K/7/7/3t3/",
            "start: the king starts on g4, on the edge, where he has already escaped",
        ),
    ],
)
async def test_a_challenge_with_an_unplayable_start_is_refused(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User, rules: str, problem: str
) -> None:
    refused = await alice.slash("tafl challenge", opponent=bob, rules=rules)
    assert refused.ephemeral
    assert refused.content == f"Those rules can't be played: {problem}."
    with pytest.raises(ChallengeNotFound):
        await bot.service.get_challenge(1)
