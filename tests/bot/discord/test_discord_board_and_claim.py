"""/tafl board with its options and /tafl claim, through the real bot and the emulator."""

from __future__ import annotations

import io
import logging
from datetime import timedelta
from typing import Any

import pytest
from PIL import Image

from bot.discord import TaflBot
from bot.models import GameStatus
from renderer import render
from tests.bot.conftest import FakeClock
from tests.bot.discord.conftest import RunBot, channel_of, embed_of
from tests.bot.discord.test_discord_game import OPENING, game_here, moved, png, start_game
from tests.fake_discord import FakeDiscord, User

RENDER_ARGUMENT = {"piece": "moves_of", "view": "viewer", "theme": "theme"}
"""Each /tafl board option and the renderer argument it stands for."""


def pixels(image: Image.Image) -> bytes:
    return image.convert("RGB").tobytes()


async def test_board_options_reach_the_image(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User, carol: User
) -> None:
    await start_game(alice, bob)
    await moved(alice, OPENING[0])
    game = (await game_here(bot, fake)).game
    plain = pixels(png(await (await carol.slash("tafl board")).result()))
    assert plain == pixels(Image.open(io.BytesIO(render(game))))

    option_sets: list[dict[str, str]] = [
        {"piece": "f4"},
        {"view": "defenders"},
        {"theme": "contrast"},
        {"piece": "F4", "view": "defenders", "theme": "contrast"},
    ]
    for options in option_sets:
        shown = await (await carol.slash("tafl board", options=options)).result()
        assert not shown.ephemeral, options
        arguments: dict[str, Any] = {RENDER_ARGUMENT[k]: v for k, v in options.items()}
        expected = pixels(Image.open(io.BytesIO(render(game, **arguments))))
        assert pixels(png(shown)) == expected, options
        assert expected != plain, options
        if "piece" in options:
            targets = sorted(m.target for m in game.legal_moves() if str(m).startswith("f4-"))
            names = [game.square_name(square) for square in targets]
            listed = f"{', '.join(names[:-1])} and {names[-1]}"
            assert len(names) > 1 and "f4-f3" in [str(m) for m in game.legal_moves()]
            assert f"The piece on f4 can move to {listed}." in embed_of(shown)["description"]
    assert bob.mention in shown.content  # the player to move is pinged, as on every board


async def test_a_piece_with_no_move_now_says_whose_turn_it_is(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    shown = await (await alice.slash("tafl board", piece="f6")).result()
    assert "f6 (defenders) has no move now: attackers to move" in embed_of(shown)["description"]


async def test_bad_board_options_are_refused_privately_and_change_nothing(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    await moved(alice, OPENING[0])
    before = await game_here(bot, fake)
    version, history = before.version, list(before.game.history)
    posted = len(fake.channel.messages)

    reasons = {
        ("piece", "e4"): "there is no piece on e4",
        ("piece", "l5"): "off the board; squares go from a1 to k11",
        ("piece", "zz"): "'zz' is not a square",
        ("view", "white"): "Copenhagen Hnefatafl has no white side; choose attackers or defenders",
    }
    for (option, value), reason in reasons.items():
        refused = await bob.slash("tafl board", options={option: value})
        assert refused.ephemeral, value
        assert refused.files == [] and refused.embeds == []
        assert reason in refused.content, refused.content

    after = await game_here(bot, fake)
    assert (after.version, after.game.history) == (version, history)
    assert len(fake.channel.messages) == posted


async def test_claim_waits_for_the_move_timeout_then_wins_the_game(
    fake: FakeDiscord,
    run_bot: RunBot,
    clock: FakeClock,
    alice: User,
    bob: User,
    carol: User,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.discord")
    async with run_bot(clock=clock, move_timeout=timedelta(hours=2)) as bot:
        await start_game(alice, bob, time="none")  # no clock: a claim ends a game left alone
        await moved(alice, OPENING[0])  # Bob to move
        clock.advance(minutes=30)
        refusals = {
            alice: "Bob has had 30 min 00 s of the 2 h 00 min a move may take; "
            "you can claim the game in 1 h 30 min",
            bob: "It is your turn",
            carol: "You are not playing in this game",
        }
        for user, text in refusals.items():
            refused = await user.slash("tafl claim")
            assert refused.ephemeral and refused.files == [], user.name
            assert text in refused.content, refused.content
        state = await game_here(bot, fake)
        assert state.status is GameStatus.ACTIVE and len(state.game.history) == 1

        clock.advance(hours=1, minutes=30)
        report = await (await alice.slash("tafl claim")).result()
        assert not report.ephemeral
        assert embed_of(report)["title"] == "Alice wins"
        assert "time ran out" in embed_of(report)["description"]
        assert {f.filename for f in report.files} == {
            "board.png", "replay.gif", f"tafl-game-{state.id}.otg",
        }  # fmt: skip
        png(report)
        assert alice.mention in report.content and bob.mention in report.content

        assert await bot.service.current_game(channel_of(fake)) is None
        finished = await bot.service.get_game(state.id)
        assert finished.status is GameStatus.FINISHED and finished.finished_at == clock.now
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "won: time ran out" in logged
        assert (await bob.slash("tafl claim")).ephemeral  # no game here any more
