"""Community play through Discord: AI levels, ratings, leaderboards, stats and the game archive,
the real discord.py bot against the local emulator."""

from __future__ import annotations

from bot.discord import TaflBot
from bot.discord.views import ARCHIVE_PLACEHOLDER
from bot.models import Channel, OfferKind, Player, ai_player
from bot.ratings import NEW, display, update
from engine import Side
from renderer.chart import CHART_SIZE
from tests.bot.discord.conftest import RunBot, channel_of, embed_of
from tests.fake_discord import FakeDiscord, Message, User


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


async def rated_game_won_by_bob(alice: User, bob: User) -> Message:
    """Alice challenges Bob (rated by default), Bob accepts, Alice resigns: the report."""
    challenge = await alice.slash(
        "tafl challenge", opponent=bob, variant="brandubh", side="attackers", thread=False
    )
    assert "a rated game of Brandubh" in embed_of(challenge.message)["description"]
    await (await bob.click(challenge, "Accept")).followup()
    return await (await alice.slash("tafl resign")).result()


async def test_a_rated_game_shows_on_the_leaderboards_stats_and_archive_after_a_restart(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User
) -> None:
    async with run_bot():
        report = await rated_game_won_by_bob(alice, bob)
        assert b"[rated:yes]" in next(f for f in report.files if f.filename.endswith(".otg")).data
        winner = display(update(NEW, [(NEW, 1)]))
        won = round(update(NEW, [(NEW, 1)]).rating) - 1500
        fields = {f["name"]: f["value"] for f in embed_of(report)["fields"]}
        assert fields["Ratings"].splitlines() == [
            f"Alice {display(update(NEW, [(NEW, 0)]))} ({-won:+d})",
            f"Bob {winner} ({won:+d})",
        ]
        for scope in ("server", "global"):
            board = await alice.slash("tafl leaderboard", variant="brandubh", scope=scope)
            text = embed_of(await board.result())["description"]
            assert text.splitlines() == [
                f"1. Bob: {winner} (1 game, W/D/L 1/0/0)",
                f"2. Alice: {display(update(NEW, [(NEW, 0)]))} (1 game, W/D/L 0/0/1)",
            ]
        stats = await (await bob.slash("tafl stats", variant="brandubh")).result()
        lines = embed_of(stats)["description"].splitlines()
        assert lines[0] == "Bob: 1 finished game." and lines[-1].endswith(": W.")
        assert "As defenders: 1 won, 0 drawn, 0 lost." in lines
        (chart,) = stats.files
        assert chart.image().format == "PNG" and chart.image().size == CHART_SIZE
        listed = await (await alice.slash("tafl games", player=bob)).result()
        (line,) = embed_of(listed)["description"].splitlines()
        assert line.startswith("#1 Brandubh, won against Alice as defenders: resignation")
        assert f"/{report.channel.id}/{report.id})" in line  # the final board's link

    async with run_bot():
        picked = await alice.select(listed, ARCHIVE_PLACEHOLDER, ["1"])
        sent = await picked.result()
        assert picked.ephemeral
        names = {f.filename for f in sent.files}
        assert {"board.png", "tafl-game-1.otg", "replay.gif"} <= names
        assert embed_of(sent)["title"] == "Bob wins"


async def test_the_leaderboard_shows_the_callers_place_below_the_top_ten(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await rated_game_won_by_bob(alice, bob)
    others = [Player(f"test:{n:02d}", f"Player {n:02d}") for n in range(12)]
    for first, second in zip(others[::2], others[1::2], strict=True):
        channel = Channel(f"test:{first.id}")
        await bot.service.start_game(
            channel, {Side.ATTACKERS: first, Side.DEFENDERS: second}, "brandubh", rated=True
        )
        offer = await bot.service.offer(channel, first, OfferKind.DRAW)
        await bot.service.answer_offer(offer.id, second, accept=True)
    board = await alice.slash("tafl leaderboard", variant="brandubh", scope="global")
    lines = embed_of(await board.result())["description"].splitlines()
    assert len(lines) == 12 and lines[0].startswith("1. Bob: ") and lines[10] == "..."
    assert lines[1] == "2. Player 00: 1500? (1 game, W/D/L 0/1/0)"
    assert lines[11].startswith("14. Alice: ")
    here = await alice.slash("tafl leaderboard", variant="copenhagen")
    assert (
        "Nobody has finished a rated game here yet" in embed_of(await here.result())["description"]
    )


async def test_the_ai_levels_are_rated_and_listed_by_name(
    fake: FakeDiscord, bot: TaflBot, alice: User
) -> None:
    started = await alice.slash("tafl challenge", opponent=fake.bot_user, variant="brandubh",
                                side="defenders", level="easy")  # fmt: skip
    await started.result()
    await (await alice.slash("tafl resign")).result()
    board = await alice.slash("tafl leaderboard", variant="brandubh")
    first = embed_of(await board.result())["description"].splitlines()[0]
    assert first.startswith("1. Tafl AI (easy): ")
    stats = await (await alice.slash("tafl stats", player=fake.bot_user)).result()
    assert embed_of(stats)["description"].startswith("Tafl AI (medium) has no finished game yet.")
