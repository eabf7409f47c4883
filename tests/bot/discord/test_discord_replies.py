"""Answers in time whatever happens: slow work is deferred, bugs get an apology with an id."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import discord
import pytest

from bot.discord import TaflBot
from bot.discord.replies import sentence
from bot.models import GameState, MoveResult
from renderer import THEMES
from tests.bot.discord.conftest import RunBot, channel_of, embed_of
from tests.fake_discord import FakeDiscord, User

KING_CAPTURED = ["d1-e1", "d3-e3", "d2-c2", "d4-d2", "e1-e2"]
"""Brandubh: the king walks into d2 and the attackers' e1-e2 captures him."""


async def start_game(alice: User, bob: User, **options: Any) -> None:
    challenge = await alice.slash(
        "tafl challenge", opponent=bob, side="attackers", thread=False, **options
    )
    await (await bob.click(challenge, "Accept")).followup()


async def test_slow_answers_are_deferred_then_sent(
    fake: FakeDiscord,
    run_bot: RunBot,
    alice: User,
    bob: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with run_bot(answer_budget=0.05) as bot:
        real_accept = bot.service.accept

        async def slow_accept(*args: Any) -> GameState:
            await asyncio.sleep(0.3)
            return await real_accept(*args)

        monkeypatch.setattr(bot.service, "accept", slow_accept)
        challenge = await alice.slash(
            "tafl challenge", opponent=bob, side="attackers", thread=False
        )
        click = await bob.click(challenge, "Accept")
        assert click.deferred
        updated = await click.result()
        assert updated.buttons == [] and "Accepted" in embed_of(updated)["description"]
        assert alice.mention in (await click.followup()).content

        real_move = bot.service.move

        async def slow_move(*args: Any) -> MoveResult:
            await asyncio.sleep(0.3)
            return await real_move(*args)

        monkeypatch.setattr(bot.service, "move", slow_move)
        reply = await alice.slash("tafl move", move="d1-c1")
        assert reply.deferred
        answer = await reply.result()
        assert "d1-c1" in embed_of(answer)["title"]
        assert answer.files[0].image().format == "PNG"

        refused = await bob.slash("tafl move", move="zz")
        assert refused.deferred
        await refused.wait_for(lambda r: bool(r.followups), what="the refusal")
        assert refused.followups[-1].ephemeral and "zz" in refused.followups[-1].content
        assert all(bob.sees(m) for m in refused.followups)
        assert not any("zz" in m.content for m in fake.channel.messages)


async def test_an_unexpected_error_gets_an_apology_with_the_logged_id(
    fake: FakeDiscord,
    bot: TaflBot,
    alice: User,
    bob: User,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await start_game(alice, bob)

    async def broken(*args: Any) -> MoveResult:
        raise RuntimeError("the database fell over")

    monkeypatch.setattr(bot.service, "move", broken)
    reply = await alice.slash("tafl move", move="d1-c1")
    assert reply.ephemeral
    match = re.search(r"error id `([0-9a-f]+)`", reply.content)
    assert match is not None and "Sorry" in reply.content
    (record,) = [r for r in caplog.records if match.group(1) in r.getMessage()]
    assert record.exc_info is not None and "database fell over" in str(record.exc_info[1])


async def test_a_move_that_ends_the_game_posts_the_report(
    fake: FakeDiscord,
    bot: TaflBot,
    alice: User,
    bob: User,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.discord")
    await start_game(alice, bob, variant="brandubh")
    players = [alice, bob, alice, bob]
    for user, move in zip(players, KING_CAPTURED[:-1], strict=True):
        await (await user.slash("tafl move", move=move)).result()
    last = await alice.slash("tafl move", move=KING_CAPTURED[-1])
    board = await last.result()
    assert "e1-e2" in embed_of(board)["title"]
    report = await last.followup(0)
    assert embed_of(report)["title"] == "Alice wins"
    assert "king was captured" in embed_of(report)["description"]
    assert {f.filename for f in report.files} >= {"board.png", "replay.gif"}
    assert any("king was captured" in r.getMessage() for r in caplog.records)
    assert await bot.service.current_game(channel_of(fake)) is None
    after = await bob.slash("tafl move", move="c2-c1")
    assert after.ephemeral and "no game" in after.content


async def test_board_history_rules_and_variants(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User, carol: User
) -> None:
    nothing = await carol.slash("tafl board")
    assert nothing.ephemeral and "no game" in nothing.content

    await start_game(alice, bob)
    await (await alice.slash("tafl move", move="d1-c1")).result()
    board = await (await carol.slash("tafl board")).result()
    assert not board.ephemeral and board.files[0].image().format == "PNG"
    assert bob.mention in board.content

    history = await (await carol.slash("tafl history")).result()
    assert "1. d1-c1" in embed_of(history)["description"]
    (record,) = history.files
    assert record.filename.endswith(".otg") and "d1-c1" in record.data.decode()

    rules = await (await carol.slash("tafl rules", variant="tablut")).result()
    assert "Tablut" in embed_of(rules)["title"]
    assert rules.files[0].image().size[0] > 0
    default = await (await carol.slash("tafl rules")).result()
    assert "Copenhagen" in embed_of(default)["title"]

    listing = await (await carol.slash("tafl variants")).result()
    for variant in ("copenhagen", "brandubh", "halatafl", "alea-evangelii"):
        assert f"`{variant}`" in embed_of(listing)["description"]


async def test_the_synced_schema_is_one_tafl_group(fake: FakeDiscord, bot: TaflBot) -> None:
    (tafl,) = fake.commands()
    assert tafl["name"] == "tafl"
    names = {option["name"] for option in tafl["options"]}
    assert names == {
        "challenge", "move", "board", "resign", "claim", "draw", "undo", "history", "rules",
        "leaderboard", "stats", "games", "variants", "settings", "notify",
    }  # fmt: skip
    move = next(o for o in tafl["options"] if o["name"] == "move")
    assert move["options"][0]["autocomplete"] is True
    challenge = next(o for o in tafl["options"] if o["name"] == "challenge")
    side = next(o for o in challenge["options"] if o["name"] == "side")
    assert {c["value"] for c in side["choices"]} >= {"attackers", "defenders", "random"}
    board = next(o for o in tafl["options"] if o["name"] == "board")
    choices = {o["name"]: [c["value"] for c in o.get("choices", [])] for o in board["options"]}
    assert choices == {
        "piece": [], "view": ["attackers", "defenders", "white", "black"], "theme": list(THEMES),
    }  # fmt: skip


async def test_commands_are_synced_only_when_asked(fake: FakeDiscord, run_bot: RunBot) -> None:
    async with run_bot(sync=False) as bot:
        assert fake.commands() == [] and fake.world.command_syncs == 0
        assert bot.intents == discord.Intents(guilds=True)  # no message, member or presence


async def test_commands_answer_at_once_while_the_ai_thinks(
    fake: FakeDiscord, run_bot: RunBot, alice: User, carol: User
) -> None:
    async with run_bot(ai_time_limit=1.5) as bot:
        started = await alice.slash("tafl challenge", opponent=fake.bot_user, side="defenders")
        await started.result()  # the board; now the AI thinks about its first move
        elsewhere = fake.add_channel("elsewhere")
        variants = await carol.slash("tafl variants", channel=elsewhere)
        assert not variants.deferred  # answered directly: the AI's thread left the loop free
        assert not started.followups  # ... before the AI had moved
        await started.followup(0, timeout=10)  # the AI's move came after all
        state = await bot.service.current_game(channel_of(fake))
        assert state is not None and len(state.game.history) == 1


@pytest.mark.parametrize(
    ("refusal", "shown"),
    [
        ("it is not your turn", "It is not your turn."),
        (
            "d1 is taken: a piece moves only onto an empty square",
            "d1 is taken: a piece moves only onto an empty square.",
        ),
        ("ber:y: berserk moves are not supported", "ber:y: berserk moves are not supported."),
        ("you have no move to take back yet.", "You have no move to take back yet."),
    ],
)
def test_refusals_read_as_sentences_and_keep_notation_as_written(refusal: str, shown: str) -> None:
    assert sentence(refusal) == shown
