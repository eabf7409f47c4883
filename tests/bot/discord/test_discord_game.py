"""Games played through Discord: the real discord.py bot against the local emulator."""

from __future__ import annotations

import asyncio
import io
import logging
from datetime import datetime
from pathlib import Path

import pytest
from PIL import Image

from bot.discord import TaflBot
from bot.errors import ChallengeNotFound
from bot.models import AI_PLAYER, GameState, Player
from bot.service import GameService
from bot.storage import open_store
from engine import Side
from tests.bot.conftest import FakeClock, raw_execute
from tests.bot.discord.conftest import (
    RunBot,
    channel_of,
    embed_of,
    settled_on_a_shared_database,
)
from tests.fake_discord import FakeDiscord, Message, User
from tests.fake_discord import rules as fake_rules

OPENING = ["d1-c1", "f4-j4", "a4-i4"]
"""Copenhagen: attackers, defenders, then attackers take j4 (a4-i4 with k4 as the anvil)."""


async def start_game(alice: User, bob: User, time: str | None = None) -> Message:
    """Alice (attackers) challenges Bob (with a ``time`` control, if given) to a game in the
    channel (no thread), who accepts; the first board."""
    options: dict[str, object] = {"thread": False}
    if time is not None:
        options["time"] = time
    challenge = await alice.slash("tafl challenge", opponent=bob, side="attackers", options=options)
    accepted = await bob.click(challenge, "Accept")
    return await accepted.followup()


async def game_here(bot: TaflBot, fake: FakeDiscord) -> GameState:
    state = await bot.service.current_game(channel_of(fake))
    assert state is not None
    return state


async def moved(user: User, move: str) -> Message:
    """The message the bot answers a /tafl move with."""
    reply = await user.slash("tafl move", move=move)
    return await reply.result()


def png(message: Message) -> Image.Image:
    (board,) = [f for f in message.files if f.filename == "board.png"]
    image = board.image()
    assert image.format == "PNG"
    assert message.embed is not None
    assert embed_of(message)["image"]["url"] == "attachment://board.png"
    return image


async def test_challenge_accept_then_moves_with_board_images(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    challenge = await alice.slash("tafl challenge", opponent=bob, side="attackers", thread=False)
    assert bob.mention in challenge.content
    assert [b["label"] for b in challenge.buttons] == ["Accept", "Decline", "Cancel"]

    accepted = await bob.click(challenge, "Accept")
    assert accepted.message is not None and accepted.message.buttons == []
    assert "Accepted" in embed_of(accepted.message)["description"]
    first = await accepted.followup()
    assert alice.mention in first.content
    first_image = png(first)

    answers = [
        await moved(user, move) for user, move in zip([alice, bob, alice], OPENING, strict=True)
    ]
    for answer, move in zip(answers, OPENING, strict=True):
        assert move in embed_of(answer)["title"]
        image = png(answer)
        assert image.size == first_image.size
        assert image.tobytes() != first_image.tobytes()
    assert bob.mention in answers[0].content and alice.mention in answers[1].content
    assert "a4-i4xj4" in embed_of(answers[2])["title"]
    assert "capturing j4" in embed_of(answers[2])["description"]
    assert "defenders to move" in embed_of(answers[2])["description"]
    assert bob.mention in answers[2].content

    state = await game_here(bot, fake)
    assert [str(ply.move) for ply in state.game.history] == OPENING


async def test_illegal_and_unreadable_moves_are_refused_privately(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    before = (await game_here(bot, fake)).game.position()

    reasons = {"d1-d9": "blocks the way", "zz": "read 'zz' as a move", "e5-e6": "not your piece"}
    for text, reason in reasons.items():
        refused = await alice.slash("tafl move", move=text)
        assert refused.ephemeral, text
        assert refused.files == [] and refused.embeds == []
        assert reason in refused.content, refused.content

    state = await game_here(bot, fake)
    assert state.game.position() == before and state.game.history == []
    assert all(m.author.id == fake.bot_user.id for m in fake.channel.messages)


async def test_only_the_player_to_move_may_move(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User, carol: User
) -> None:
    await start_game(alice, bob)
    early = await bob.slash("tafl move", move="e6-e8")
    assert early.ephemeral and "alice's turn" in early.content.lower()
    stranger = await carol.slash("tafl move", move="d1-c1")
    assert stranger.ephemeral and "not playing" in stranger.content
    assert (await game_here(bot, fake)).game.history == []


async def test_autocomplete_offers_the_callers_legal_moves(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    choices = await alice.autocomplete("tafl move", "move", move="d1-d")
    legal = {str(m) for m in (await game_here(bot, fake)).game.legal_moves()}
    assert {c.value for c in choices} == {m for m in legal if m.startswith("d1-d")}
    assert {c.value for c in choices} <= legal
    assert len(await alice.autocomplete("tafl move", "move")) == 25
    assert await bob.autocomplete("tafl move", "move") == []  # not his turn


async def test_draw_offer_declined_keeps_the_game_going(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    await moved(alice, OPENING[0])
    offer = await alice.slash("tafl draw")
    assert bob.mention in offer.content
    refused = await alice.click(offer, "Accept")
    assert refused.ephemeral and "bob" in refused.content.lower()

    declined = await bob.click(offer, "Decline")
    assert declined.message is not None
    assert (
        declined.message.buttons == [] and "Declined" in embed_of(declined.message)["description"]
    )
    state = await game_here(bot, fake)
    assert state.game.outcome is None and len(state.game.history) == 1
    await moved(bob, OPENING[1])


async def test_takeback_allowed_shows_the_board_before_the_move(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    await moved(alice, OPENING[0])
    request = await alice.slash("tafl undo")
    allowed = await bob.click(request, "Accept")
    board = await allowed.followup()
    png(board)
    assert alice.mention in board.content
    assert (await game_here(bot, fake)).game.history == []


async def test_resign_posts_the_report_with_record_and_replay(
    fake: FakeDiscord,
    bot: TaflBot,
    alice: User,
    bob: User,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.discord")
    await start_game(alice, bob)
    for user, move in zip([alice, bob, alice], OPENING, strict=True):
        await moved(user, move)

    report = await (await bob.slash("tafl resign")).result()
    assert report.embed is not None and not report.ephemeral
    assert embed_of(report)["title"] == "Alice wins"
    assert "resignation" in embed_of(report)["description"]
    fields = {f["name"]: f["value"] for f in embed_of(report)["fields"]}
    assert fields["Moves"] == "2 moves (3 plies)"
    assert "Attackers: 1" in fields["Captured by"] and "Defenders: 0" in fields["Captured by"]
    assert "Duration" in fields

    files = {f.filename: f for f in report.files}
    png(report)
    (record_name,) = [name for name in files if name.endswith(".otg")]
    record = files[record_name].data.decode()
    assert "a4-i4" in record
    replay = Image.open(io.BytesIO(files["replay.gif"].data))
    assert replay.format == "GIF" and getattr(replay, "n_frames", 1) == len(OPENING) + 1

    assert await bot.service.current_game(channel_of(fake)) is None
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "won: resignation" in logged and "a4-i4xj4" in logged


async def test_restart_mid_game_keeps_buttons_and_game(
    fake: FakeDiscord, run_bot: RunBot, alice: User, bob: User, carol: User
) -> None:
    thread = fake.world.add_thread(fake.channel, "next game", carol.account)
    async with run_bot():
        await start_game(alice, bob)
        await moved(alice, OPENING[0])
        offer = await bob.slash("tafl draw")
        challenge = await carol.slash("tafl challenge", opponent=bob, channel=thread)
    async with run_bot() as restarted:
        declined = await alice.click(offer, "Decline")
        assert declined.message is not None and declined.message.buttons == []
        answer = await moved(bob, OPENING[1])
        png(answer)
        state = await game_here(restarted, fake)
        assert [str(ply.move) for ply in state.game.history] == OPENING[:2]

        accepted = await bob.click(challenge, "Accept")
        png(await accepted.followup())
        assert await restarted.service.current_game(channel_of(fake, thread)) is not None


async def test_two_moves_at_the_same_instant_one_applies(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    await start_game(alice, bob)
    first, second = await asyncio.gather(
        alice.slash("tafl move", move="d1-c1", wait=False),
        alice.slash("tafl move", move="h1-i1", wait=False),
    )
    results = [await reply.result() for reply in (first, second)]
    refused = [m for m in results if m.ephemeral]
    played = [m for m in results if not m.ephemeral]
    assert len(refused) == 1 and len(played) == 1
    assert "turn" in refused[0].content or "same moment" in refused[0].content
    state = await game_here(bot, fake)
    assert len(state.game.history) == 1
    assert str(state.game.history[0].move) in embed_of(played[0])["title"]


async def test_a_challenge_in_a_busy_channel_suggests_a_thread(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User, carol: User
) -> None:
    await start_game(alice, bob)
    busy = await carol.slash("tafl challenge", opponent=alice, thread=False)
    assert busy.ephemeral and "thread" in busy.content

    thread = fake.world.add_thread(fake.channel, "second game", carol.account)
    elsewhere = await carol.slash("tafl challenge", opponent=alice, channel=thread)
    accepted = await alice.click(elsewhere, "Accept")
    assert png(await accepted.followup())
    assert await bot.service.current_game(channel_of(fake, thread)) is not None


async def test_challenge_answers(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User, carol: User
) -> None:
    declined = await alice.slash("tafl challenge", opponent=bob)
    wrong = await carol.click(declined, "Accept")
    assert wrong.ephemeral and "bob" in wrong.content.lower()
    done = await bob.click(declined, "Decline")
    assert done.message is not None and "Declined" in embed_of(done.message)["description"]

    cancelled = await alice.slash("tafl challenge")
    assert [b["label"] for b in cancelled.buttons] == ["Accept", "Cancel"]
    own = await alice.click(cancelled, "Accept")
    assert own.ephemeral and "cancel" in own.content
    gone = await alice.click(cancelled, "Cancel")
    assert gone.message is not None and gone.message.buttons == []
    assert "Cancelled" in embed_of(gone.message)["description"]

    anyone = await alice.slash("tafl challenge", variant="brandubh", thread=False)
    board = await (await carol.click(anyone, "Accept")).followup()
    assert png(board).size[0] > 0
    assert (await game_here(bot, fake)).game.size == 7


async def test_the_ai_answers_a_move_that_a_restart_left_unanswered(
    fake: FakeDiscord, run_bot: RunBot, db: str | Path, alice: User, clock: FakeClock
) -> None:
    store = await open_store(db)
    alice_player = Player(f"discord:{alice.id}", alice.name)
    players = {Side.ATTACKERS: AI_PLAYER, Side.DEFENDERS: alice_player}
    await GameService(store, clock).start_game(channel_of(fake), players, "brandubh")
    await store.close()

    async with run_bot(clock=clock, sweep_seconds=0.05) as bot:
        await settled_on_a_shared_database(fake, db, clock)
        posted = await fake.channel.wait_for_message(lambda m: bool(m.files))
        assert alice.mention in posted.content
        assert "played" in embed_of(posted)["title"]
        assert png(posted).size[0] > 0
        state = await game_here(bot, fake)
        assert len(state.game.history) == 1
        assert state.player_to_move() == alice_player


async def test_a_custom_variant_from_an_opentafl_rules_string(
    fake: FakeDiscord, bot: TaflBot, alice: User, bob: User
) -> None:
    start = "start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
    refused = await alice.slash("tafl challenge", opponent=bob, rules=f"dim:7 ber:y {start}")
    assert refused.ephemeral and "can't be played: ber:y" in refused.content
    with pytest.raises(ChallengeNotFound):
        await bot.service.get_challenge(1)

    challenge = await alice.slash(
        "tafl challenge", opponent=bob, rules=f"dim:7 name:Little_One ks:w {start}", thread=False
    )
    assert "to an unrated game of Little One" in embed_of(challenge.message)["description"]
    board = await (await bob.click(challenge, "Accept")).followup()
    assert png(board).size[0] > 0
    game = (await game_here(bot, fake)).game
    assert (game.rules.id, game.rules.name, game.size) == ("custom", "Little One", 7)


async def test_against_the_ai_its_reply_follows_each_move(
    fake: FakeDiscord, bot: TaflBot, alice: User
) -> None:
    started = await alice.slash("tafl challenge", opponent=fake.bot_user, side="defenders")
    first = await started.result()
    assert "Tafl AI (medium) (attackers)" in embed_of(first)["title"]
    ai_first = await started.followup(0)  # attackers move first: the AI
    png(ai_first)
    assert alice.mention in ai_first.content

    state = await game_here(bot, fake)
    assert len(state.game.history) == 1
    move = str(state.game.legal_moves()[0])
    answer = await alice.slash("tafl move", move=move)
    png(await answer.result())
    ai_reply = await answer.followup(0)
    assert alice.mention in ai_reply.content
    assert len((await game_here(bot, fake)).game.history) == 3


async def test_expired_challenges_are_marked_on_click_and_by_the_sweep(
    fake: FakeDiscord, run_bot: RunBot, clock: FakeClock, alice: User, bob: User
) -> None:
    async with run_bot(clock=clock) as bot:
        clicked = await alice.slash("tafl challenge", opponent=bob)
        swept = await bob.slash("tafl challenge", opponent=alice)
        clock.advance(minutes=16)

        late = await bob.click(clicked, "Accept")
        assert late.message is not None and late.message.buttons == []
        assert "Expired" in embed_of(late.message)["description"]
        assert (await late.followup()).ephemeral and "expired" in late.followups[0].content

        expired = await bot.sweep_challenges()
        assert 2 in [c.id for c in expired]
        message = swept.message
        assert message is not None
        await fake.wait_for(lambda: message.buttons == [], what="the swept challenge's edit")
        assert "Expired" in embed_of(message)["description"]
        assert await bot.service.current_game(channel_of(fake)) is None


async def test_the_sweep_marks_challenges_posted_before_a_restart(
    fake: FakeDiscord, run_bot: RunBot, clock: FakeClock, alice: User, bob: User
) -> None:
    async with run_bot(clock=clock):
        posted = await alice.slash("tafl challenge", opponent=bob)
    message = posted.message
    assert message is not None
    assert [b["label"] for b in message.buttons] == ["Accept", "Decline", "Cancel"]

    async with run_bot(clock=clock) as restarted:
        clock.advance(minutes=15, seconds=1)
        expired = await restarted.sweep_challenges()
        assert [c.id for c in expired] == [1]
        await fake.wait_for(lambda: message.buttons == [], what="the swept challenge's edit")
        assert "Expired" in embed_of(message)["description"]
        assert message.edits == 1
        assert await restarted.sweep_challenges() == []


async def test_the_ai_allows_takebacks_and_refuses_draws(
    fake: FakeDiscord, bot: TaflBot, alice: User
) -> None:
    started = await alice.slash("tafl challenge", opponent=fake.bot_user, side="attackers")
    await started.result()
    answer = await alice.slash("tafl move", move=OPENING[0])
    await answer.followup(0)  # the AI's reply
    assert len((await game_here(bot, fake)).game.history) == 2

    takeback = await alice.slash("tafl undo")
    assert "Accepted" in embed_of(await takeback.result())["description"]
    board = await takeback.followup(0)
    png(board)
    assert alice.mention in board.content
    assert (await game_here(bot, fake)).game.history == []

    draw = await alice.slash("tafl draw")
    assert "Declined" in embed_of(await draw.result())["description"]
    assert (await game_here(bot, fake)).game.outcome is None


async def test_a_replay_larger_than_discord_allows_is_left_out(
    fake: FakeDiscord,
    bot: TaflBot,
    alice: User,
    bob: User,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await start_game(alice, bob)
    await moved(alice, OPENING[0])
    monkeypatch.setattr(fake_rules, "ATTACHMENT_SIZE_LIMIT", 60_000)  # a board, not a replay
    report = await (await bob.slash("tafl resign")).result()
    assert {f.filename for f in report.files} == {"board.png", "tafl-game-1.otg"}
    fields = {f["name"]: f["value"] for f in embed_of(report)["fields"]}
    assert "too long" in fields["Replay"]


async def test_the_running_bot_writes_the_heartbeat_the_health_check_reads(
    run_bot: RunBot, db: str | Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.health import check_health, heartbeat_path
    from bot.models import utc_now

    monkeypatch.chdir(tmp_path)  # a bot on PostgreSQL beats in its working folder
    beat = heartbeat_path(db)
    async with run_bot(heartbeat_interval=0.05):
        started = utc_now()
        for _ in range(100):
            if beat.exists() and datetime.fromisoformat(beat.read_text().strip()) >= started:
                break
            await asyncio.sleep(0.02)
        assert (await check_health(db, utc_now())).startswith("healthy")
    last = beat.read_text()
    await asyncio.sleep(0.15)
    assert beat.read_text() == last  # a closed bot beats no more


async def test_a_game_that_no_longer_replays_after_a_restart_is_void_and_frees_the_channel(
    fake: FakeDiscord, run_bot: RunBot, db: str | Path, alice: User, bob: User
) -> None:
    async with run_bot():
        await start_game(alice, bob)
        for user, move in zip([alice, bob, alice], OPENING, strict=True):
            await moved(user, move)
    # A later fix to the rules refuses Bob's move (here, by rewriting it as stored).
    await raw_execute(db, "UPDATE moves SET notation = 'f4-f1' WHERE ply = 2")
    async with run_bot(sweep_seconds=0.05):
        refused = await bob.slash("tafl move", move="e6-e8")
        assert refused.ephemeral
        assert "is void: its moves no longer replay under these rules" in refused.content
        assert "counts for neither player" in refused.content
        report = await fake.channel.wait_for_message(lambda m: "Void" in str(m.embeds))
        assert embed_of(report)["title"] == "Void"
        assert "counts for neither player" in embed_of(report)["description"]
        await start_game(alice, bob)  # the channel is free again
