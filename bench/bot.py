"""The Discord bot under load: many games at once through the local Discord emulator.

The bot runs in a SUBPROCESS (the real discord.py client, as `tafl bot` would run it), connected
to the emulator running in this process, on a database first seeded with finished games through
the game service. Then every game is challenged, accepted and played at the same time; each
/tafl move is timed from the interaction's creation to the bot's answer carrying the board image.

Prints: the median and 95th percentile of that time, moves per second, errors (refusals,
interactions that failed, Discord rules broken, errors in the bot's log), lost moves (the moves
stored in the database compared with those answered), and the bot process's peak memory
(VmHWM, reported by the child as it exits).

With ``--ai-games K[,K...]`` it measures responsiveness instead: K people play the AI (each
answering the AI's move at once, so the AI is always thinking) while ``--games`` pairs of
people play each other in other channels; it runs once per K, with no AI games first, and
prints both groups' latencies side by side, with the longest the bot's event loop was held up.

With ``--long-game N`` it measures the end of one long game instead: a game of N plies is
stored first, then a player resigns it through Discord; it prints how long the report (final
board, record, replay GIF) took and the peak memory of the bot and of its image worker.

With ``--db postgresql://...`` each run is made twice, on a SQLite file with one bot process and
then on that PostgreSQL database (in a schema of its own, dropped afterwards) with
``--processes`` bot processes (default 2), each on its own shard, the games spread over guilds of
every shard; the figures are printed side by side.

Run from the repository root: ``python bench/bot.py [--games 50] [--plies 20] [--seed 1000]
[--db postgresql://user:password@host/db]``, or ``python bench/bot.py --ai-games 0,6,20
--games 2 --plies 30 --think 0.5``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bot.models import AI_PLAYER, Channel, Player  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.storage import is_url, open_store, shown_target  # noqa: E402
from tests.fake_discord.bot_process import (  # noqa: E402
    DRAW_PEAK_MARK,
    PEAK_MARK,
    STALL_MARK,
    start_bot_process,
)

TARGET_P95_MS = 250.0
TARGET_MEMORY_MB = 200.0
TARGET_LOADED_P95_MS = 300.0
"""With AI games running: the people's p95 at most this, and at most 4x (+100 ms) the p95
without AI games."""
TARGET_P95_RATIO = 1.5
"""PostgreSQL's p95 at most this many times SQLite's, under the same load."""


# -- seeding -------------------------------------------------------------------------------------


async def seed(db_path: str, games: int, rng: random.Random) -> float:
    """``games`` finished games (a few moves, then a resignation) through the service; seconds."""
    started = time.perf_counter()
    store = await open_store(db_path)
    service = GameService(store)
    try:
        for number in range(games):
            channel = Channel(f"bench:{10_000 + number}", "bench:1")
            players = {
                engine.Side.ATTACKERS: Player(f"discord:{20_000 + number}", f"seed{number}a"),
                engine.Side.DEFENDERS: AI_PLAYER,
            }
            state = await service.start_game(channel, players, "copenhagen")
            for _ in range(rng.randrange(4, 16)):
                if state.game.outcome is not None:
                    break
                mover = state.player_to_move()
                assert mover is not None
                move = rng.choice(state.game.legal_moves())
                state = (await service.move(channel, mover, str(move))).state
            if state.game.outcome is None:
                await service.resign(channel, players[engine.Side.ATTACKERS])
    finally:
        await store.close()
    return time.perf_counter() - started


# -- the games -----------------------------------------------------------------------------------


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    answered: dict[int, list[str]] = field(default_factory=dict)
    """Channel id -> the moves the bot answered with a board, in order."""
    ai_latencies: list[float] = field(default_factory=list)
    """From a move against the AI to the AI's answer."""


def quiet_move(game: engine.Game, rng: random.Random) -> engine.Move:
    """A random legal move that does not end the game (so every game runs its full length)."""
    moves = game.legal_moves()
    rng.shuffle(moves)
    for move in moves:
        game.push(move)
        ended = game.outcome is not None
        game.undo()
        if not ended:
            return move
    return moves[0]


async def play(
    fake: object,
    guilds: list[Any],
    number: int,
    plies: int,
    think: float,
    tally: Tally,
    rng: random.Random,
) -> None:
    from tests.fake_discord import FakeDiscord

    assert isinstance(fake, FakeDiscord)
    guild = guilds[number % len(guilds)]
    channel = fake.add_channel(f"game-{number}", guild=guild)
    attacker = fake.add_user(f"a{number}", guild=guild)
    defender = fake.add_user(f"d{number}", guild=guild)
    challenge = await attacker.slash(
        "tafl challenge", channel=channel, opponent=defender, side="attackers", thread=False
    )
    await (await defender.click(challenge, "Accept")).followup(timeout=30)
    game = engine.Game.from_position(
        "copenhagen", engine.VARIANTS["copenhagen"].start, engine.VARIANTS["copenhagen"].first
    )
    answered = tally.answered.setdefault(channel.id, [])
    loop = asyncio.get_running_loop()
    for _ in range(plies):
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))
        user = attacker if game.turn is engine.Side.ATTACKERS else defender
        move = quiet_move(game, rng)
        try:
            reply = await user.slash("tafl move", channel=channel, move=str(move), wait=False)
            message = await reply.result(timeout=30)
        except AssertionError as error:  # InteractionFailed / NotAnswered
            tally.errors.append(f"game {number}: {error}")
            return
        tally.latencies.append(loop.time() - reply.record.created)
        if message.ephemeral or not any(f.filename == "board.png" for f in message.files):
            tally.errors.append(f"game {number}: {move} answered {message.content!r}")
            return
        answered.append(str(move))
        game.push(move)


async def play_the_ai(
    fake: object,
    number: int,
    stop: asyncio.Event,
    tally: Tally,
    rng: random.Random,
    level: str = "max",
) -> None:
    """A person playing the AI at ``level`` (Copenhagen, as the attackers) and answering each of
    its moves at once, game after game, until ``stop`` is set."""
    from tests.fake_discord import FakeDiscord

    assert isinstance(fake, FakeDiscord)
    channel = fake.add_channel(f"ai-{number}")
    user = fake.add_user(f"ai-player-{number}")
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        challenge = await user.slash(
            "tafl challenge", channel=channel, opponent=fake.bot_user, side="attackers",
            level=level,
        )  # fmt: skip
        await challenge.result(timeout=30)
        game = engine.Game("copenhagen")
        while not stop.is_set() and game.outcome is None:
            move = quiet_move(game, rng)
            game.push(move)
            try:
                reply = await user.slash("tafl move", channel=channel, move=str(move), wait=False)
                await reply.result(timeout=30)
                answer = await reply.followup(0, timeout=60)
            except AssertionError as error:
                tally.errors.append(f"AI game {number}: {error}")
                return
            tally.ai_latencies.append(loop.time() - reply.record.created)
            title = (answer.embed or {}).get("title", "")
            if " played " not in title:
                break  # the game is over
            game.play(title.rsplit(" played ", 1)[1])
        if game.outcome is None and not stop.is_set():
            await (await user.slash("tafl resign", channel=channel)).result(timeout=30)


HOSTILE_MOVES = [
    "a1  " * 100,
    "a1 " * 133,
    "a1-" * 133,
    "a1" + " xa1" * 99,
    "x" * 400,
    "1" * 400,
    "k11-" * 100,
    "a١-a٢" * 80,
    "-" * 400,
]
HOSTILE_RULES = [
    "dim:11 start:/" + "t" * 980,
    "name:" + "N" * 995,
    "dim:11 " + "esc:c " * 165,
    "a:" * 500,
    "dim:19 start:" + "/" + "19/" * 320,
]


async def send_hostile_texts(fake: object, rounds: int, tally: Tally) -> None:
    """Texts built to be slow to read, in every free-text option, ``rounds`` times over; each
    must be refused with a short message."""
    from tests.fake_discord import FakeDiscord

    assert isinstance(fake, FakeDiscord)
    channel = fake.add_channel("hostile")
    user, other = fake.add_user("mallory"), fake.add_user("trent")
    challenge = await user.slash("tafl challenge", channel=channel, opponent=other, thread=False)
    await (await other.click(challenge, "Accept")).followup(timeout=30)
    for _ in range(rounds):
        for text in HOSTILE_MOVES:
            answer = await (await user.slash("tafl move", channel=channel, move=text)).result()
            if not answer.ephemeral or len(answer.content) > 300:
                tally.errors.append(f"hostile move answered {answer.content[:80]!r}")
            await user.autocomplete("tafl move", "move", channel=channel, move=text)
        for text in HOSTILE_RULES:
            reply = await user.slash("tafl challenge", channel=fake.add_channel("r"), rules=text)
            if not reply.ephemeral:
                tally.errors.append(f"hostile rules accepted: {text[:40]!r}")
        await (await user.slash("tafl board", channel=channel, piece="a1" * 5)).result()


async def lost_moves(db_path: str, tally: Tally) -> list[str]:
    """Differences between the stored games and the moves the bot answered."""
    store = await open_store(db_path)
    service = GameService(store)
    problems = []
    try:
        for channel_id, moves in tally.answered.items():
            state = await service.current_game(Channel(f"discord:{channel_id}"))
            stored = [] if state is None else [str(p.move) for p in state.game.history]
            if stored != moves:
                problems.append(
                    f"channel {channel_id}: answered {len(moves)}, stored {len(stored)}"
                )
    finally:
        await store.close()
    return problems


@dataclass
class Run:
    """What one run of the bot measured."""

    ai_games: int
    tally: Tally
    elapsed: float
    problems: list[str]
    """Refusals, failed interactions, Discord rules broken, errors in the bot's log."""
    lost: list[str]
    peak_mb: float
    stall_ms: float

    def people(self) -> tuple[float, float, float]:
        """The people's /tafl move round trip: p50, p95, max in ms."""
        return percentiles(self.tally.latencies)

    def ai(self) -> tuple[float, float, float]:
        """From a move against the AI to its answer: p50, p95, max in ms."""
        return percentiles(self.tally.ai_latencies)


def percentiles(seconds: list[float]) -> tuple[float, float, float]:
    if not seconds:
        return (float("nan"),) * 3
    ordered = sorted(seconds)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return statistics.median(ordered) * 1000, p95 * 1000, ordered[-1] * 1000


async def run_bot(
    args: argparse.Namespace, ai_games: int, rng: random.Random, database: str | None = None
) -> Run:
    """A fresh database (a SQLite file, or a new schema of the PostgreSQL ``database``) and
    bot process; ``args.games`` pairs play while ``ai_games`` people play the AI."""
    workdir = Path(tempfile.mkdtemp(prefix="tafl-bench-"))
    try:
        if database is None:
            return await run_bot_on(args, ai_games, rng, str(workdir / "bench.sqlite3"), workdir)
        async with own_schema(database) as url:
            return await run_bot_on(args, ai_games, rng, url, workdir, args.processes)
    finally:
        if not args.keep:
            for path in workdir.iterdir():
                path.unlink()
            workdir.rmdir()


@asynccontextmanager
async def own_schema(url: str) -> AsyncIterator[str]:
    """A new schema in the database at ``url`` for one run: the URL that uses it; dropped after."""
    import asyncpg

    name = f"tafl_bench_{os.getpid()}_{int(time.time() * 1000)}"
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{url}{'&' if '?' in url else '?'}search_path={name}"
        finally:
            await admin.execute(f"DROP SCHEMA {name} CASCADE")
    finally:
        await admin.close()


def guilds_by_shard(fake: Any, count: int) -> list[Any]:
    """One guild on each of ``count`` shards (Discord's ``(guild_id >> 22) % count``), the
    emulator's default guild first."""
    found = {(fake.guild.id >> 22) % count: fake.guild}
    while len(found) < count:
        guild = fake.add_guild(f"guild-{len(found)}")
        found.setdefault((guild.id >> 22) % count, guild)
        time.sleep(0.001)  # the next snowflake's timestamp picks the shard
    return [found[shard] for shard in range(count)]


async def run_bot_on(
    args: argparse.Namespace,
    ai_games: int,
    rng: random.Random,
    db_path: str,
    workdir: Path,
    processes: int = 1,
) -> Run:
    """The run on ``processes`` bot processes on ``db_path``, each on its own shard if more
    than one."""
    from tests.fake_discord import FakeDiscord

    print(f"on {shown_target(db_path)}, {processes} bot process(es)")
    seconds = await seed(db_path, args.seed, rng)
    print(f"seeded {args.seed} finished games through the service in {seconds:.1f} s")

    log_paths = [workdir / f"bot-{number}.log" for number in range(processes)]
    async with FakeDiscord(check_on_exit=False, timeout=30) as fake:
        guilds = guilds_by_shard(fake, processes)
        options = ["--ai-time", str(args.ai_time)]
        if args.slow_callbacks is not None:
            options += ["--slow-callbacks", str(args.slow_callbacks)]
        children = []
        for number, log_path in enumerate(log_paths):
            shard = ["--shard-count", str(processes), "--shard-id", str(number)]
            with log_path.open("w") as log:
                children.append(
                    start_bot_process(fake, db_path, log, *options,
                                      *(shard if processes > 1 else []))
                )  # fmt: skip
        try:
            await fake.wait_for(
                lambda: all("caught up" in path.read_text() for path in log_paths),
                timeout=60,
                what="bots up",
            )
            for number, guild in enumerate(guilds):
                probe = fake.add_user(f"probe-{number}", guild=guild)
                where = fake.add_channel(f"probe-{number}", guild=guild)
                await (await probe.slash("tafl variants", channel=where)).result()

            tally = Tally()
            stop = asyncio.Event()
            against_ai = [
                asyncio.create_task(play_the_ai(fake, n, stop, tally, random.Random(n), args.level))
                for n in range(ai_games)
            ]
            if against_ai:
                await asyncio.sleep(args.ai_time)  # the AI games under way first
            started = time.perf_counter()
            await asyncio.gather(
                send_hostile_texts(fake, args.hostile, tally),
                *(
                    play(
                        fake, guilds, n, args.plies, args.think, tally, random.Random(rng.random())
                    )
                    for n in range(args.games)
                ),
            )
            elapsed = time.perf_counter() - started
            stop.set()
            await asyncio.gather(*against_ai)
            violations = [str(v) for v in fake.take_violations()]
        finally:
            for child in children:
                child.send_signal(15)
            for child in children:
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
    log_lines = [line for path in log_paths for line in path.read_text().splitlines()]
    peaks = [int(line.removeprefix(PEAK_MARK)) for line in log_lines if line.startswith(PEAK_MARK)]
    stalls = [float(line.removeprefix(STALL_MARK)) for line in log_lines if STALL_MARK in line]
    bot_errors = [line for line in log_lines if "ERROR" in line]
    run = Run(
        ai_games=ai_games,
        tally=tally,
        elapsed=elapsed,
        problems=tally.errors + violations + bot_errors,
        lost=await lost_moves(db_path, tally),
        peak_mb=max(peaks) / 1024 if len(peaks) == processes else float("nan"),
        stall_ms=max(stalls) if len(stalls) == processes else float("nan"),
    )
    return run


def report_problems(run: Run) -> bool:
    """Print the run's problems and lost moves; True if there were none."""
    print(
        f"errors: {len(run.problems)} (refusals, failed interactions, Discord rules broken, "
        f"the bot's log); lost moves: {len(run.lost)} games differ from what was answered"
    )
    for line in (run.problems + run.lost)[:10]:
        print(f"  {line}")
    return not (run.problems or run.lost)


def side_by_side(runs: dict[str, Run]) -> bool:
    """Print the runs' figures in columns; whether PostgreSQL's p95 is within its target."""
    rows: list[tuple[str, Callable[[Run], str]]] = [
        ("median (ms)", lambda r: f"{r.people()[0]:.0f}"),
        ("p95 (ms)", lambda r: f"{r.people()[1]:.0f}"),
        ("moves/s", lambda r: f"{len(r.tally.latencies) / r.elapsed:.1f}"),
        ("errors", lambda r: str(len(r.problems))),
        ("lost moves", lambda r: str(len(r.lost))),
        ("peak MB", lambda r: f"{r.peak_mb:.0f}"),
    ]
    print()
    print(f"{'':<14}" + "".join(f"{name:>12}" for name in runs))
    for label, cell in rows:
        print(f"{label:<14}" + "".join(f"{cell(r):>12}" for r in runs.values()))
    ratio = runs["PostgreSQL"].people()[1] / runs["SQLite"].people()[1]
    within = ratio <= TARGET_P95_RATIO
    print(
        f"PostgreSQL p95 / SQLite p95: {ratio:.2f} (target <= {TARGET_P95_RATIO:g})"
        + ("" if within else ": MISSED")
    )
    return within


async def long_game(args: argparse.Namespace) -> int:
    """A stored game of ``args.long_game`` plies between two people, resigned through Discord:
    the time to the report and the peak memory of the bot and its image worker."""
    from tests.fake_discord import FakeDiscord

    workdir = Path(tempfile.mkdtemp(prefix="tafl-bench-"))
    db_path = str(workdir / "bench.sqlite3")
    log_path = workdir / "bot.log"
    async with FakeDiscord(check_on_exit=False, timeout=60) as fake:
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        started = time.perf_counter()
        await store_long_game(db_path, fake.channel.id, alice.id, bob.id, args)
        print(f"stored a {args.long_game}-ply game in {time.perf_counter() - started:.1f} s")
        with log_path.open("w") as log:
            child = start_bot_process(fake, db_path, log)
        try:
            await fake.wait_for(lambda: "caught up" in log_path.read_text(), timeout=60)
            to_move = alice if args.long_game % 2 == 0 else bob
            reply = await to_move.slash("tafl resign", wait=False)
            report = await reply.result(timeout=60)
            seconds = asyncio.get_running_loop().time() - reply.record.created
        finally:
            child.send_signal(15)
            child.wait(timeout=60)
    lines = log_path.read_text().splitlines()
    marks = {
        mark: int(line.removeprefix(mark))
        for line in lines
        for mark in (PEAK_MARK, DRAW_PEAK_MARK)
        if line.startswith(mark)
    }
    files = {f.filename: len(f.data) for f in report.files}
    print(f"/tafl resign -> report: {seconds:.2f} s; files: {files}")
    print(
        f"peak memory: bot {marks.get(PEAK_MARK, 0) / 1024:.0f} MB, image worker "
        f"{marks.get(DRAW_PEAK_MARK, 0) / 1024:.0f} MB (VmHWM)"
    )
    errors = [line for line in lines if "ERROR" in line]
    for line in errors[:5]:
        print(f"  {line}")
    if not args.keep:
        for path in workdir.iterdir():
            path.unlink()
        workdir.rmdir()
    return 1 if errors else 0


async def store_long_game(
    db_path: str, channel_id: int, alice_id: int, bob_id: int, args: argparse.Namespace
) -> None:
    """Alice and Bob's game of ``args.long_game`` quiet random plies, its moves marked shown."""
    store = await open_store(db_path)
    service = GameService(store)
    channel = Channel(f"discord:{channel_id}")
    alice, bob = Player(f"discord:{alice_id}", "alice"), Player(f"discord:{bob_id}", "bob")
    players = {engine.Side.ATTACKERS: alice, engine.Side.DEFENDERS: bob}
    rng = random.Random(args.random_seed)
    try:
        state = await service.start_game(channel, players, args.variant)
        for _ in range(args.long_game):
            mover = state.player_to_move()
            assert mover is not None
            state = (await service.move(channel, mover, str(quiet_move(state.game, rng)))).state
        while pending := await service.pending_announcements("discord:", limit=500):
            for announcement, _ in pending:
                await service.announced(announcement.game_id, announcement.kind, announcement.ply)
    finally:
        await store.close()


async def bench(args: argparse.Namespace) -> int:
    if args.long_game:
        return await long_game(args)
    rng = random.Random(args.random_seed)
    if args.ai_games is None and args.db is not None:
        runs = {
            "SQLite": await run_bot(args, 0, random.Random(args.random_seed)),
            "PostgreSQL": await run_bot(args, 0, random.Random(args.random_seed), args.db),
        }
        clean = all(report_problems(run) for run in runs.values())
        return 0 if side_by_side(runs) and clean else 1
    if args.ai_games is None:
        run = await run_bot(args, 0, rng)
        p50, p95, _ = run.people()
        moves = len(run.tally.latencies)
        print(
            f"{args.games} games in parallel, {args.plies} plies each, think time "
            f"{args.think:g} s on average; bot in a subprocess"
        )
        print(
            f"/tafl move -> answer with image: median {p50:.0f} ms, p95 {p95:.0f} ms "
            f"(target p95 < {TARGET_P95_MS:.0f} ms)"
        )
        print(f"moves answered: {moves} in {run.elapsed:.1f} s = {moves / run.elapsed:.1f} moves/s")
        clean = report_problems(run)
        print(
            f"bot process peak memory: {run.peak_mb:.0f} MB (its VmHWM; target < "
            f"{TARGET_MEMORY_MB:.0f} MB) with {args.seed} finished games in the database; "
            f"longest event loop stall {run.stall_ms:.0f} ms"
        )
        ok = p95 < TARGET_P95_MS and clean and run.peak_mb < TARGET_MEMORY_MB
        print("all targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1

    counts = sorted({0, *args.ai_games})
    loaded = []
    for count in counts:
        print(f"-- {count} AI games running, {args.games} pairs of people playing each other")
        loaded.append(await run_bot(args, count, rng, args.db))
        report_problems(loaded[-1])
    print(
        f"\n{args.games} pairs of people ({args.plies} plies each, {args.think:g} s to think on "
        f"average) while K people play the AI ({args.ai_time:g} s a move), on "
        f"{os.cpu_count()} cores"
    )
    print(
        "| AI games | people's /tafl move p50 / p95 / max | AI answers p50 / p95 / max "
        "| AI moves | longest loop stall | bot peak memory |"
    )
    print("|---|---|---|---|---|---|")
    for run in loaded:
        people, ai = run.people(), run.ai()
        print(
            f"| {run.ai_games} | {people[0]:.0f} / {people[1]:.0f} / {people[2]:.0f} ms "
            f"| {ai[0]:.0f} / {ai[1]:.0f} / {ai[2]:.0f} ms | {len(run.tally.ai_latencies)} "
            f"| {run.stall_ms:.0f} ms | {run.peak_mb:.0f} MB |"
        )
    quiet_p95 = loaded[0].people()[1]
    bound = min(TARGET_LOADED_P95_MS, 4 * quiet_p95 + 100)
    ok = all(not (r.problems or r.lost) for r in loaded)
    for run in loaded[1:]:
        fast = run.people()[1] <= bound
        moving = len(run.tally.ai_latencies) > 0
        print(
            f"{run.ai_games} AI games: people's p95 {run.people()[1]:.0f} ms "
            f"{'<=' if fast else '>'} {bound:.0f} ms; the AI "
            f"{'kept moving' if moving else 'STARVED'}"
        )
        ok = ok and fast and moving
    print("all targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games played at once")
    parser.add_argument("--plies", type=int, default=20, help="moves per game")
    parser.add_argument("--seed", type=int, default=1000, help="finished games stored first")
    parser.add_argument(
        "--think",
        type=float,
        default=1.0,
        help="mean seconds a player takes to move, drawn from 0 to twice "
        "that (0: at once, a stress test)",
    )
    parser.add_argument(
        "--ai-games",
        type=lambda text: [int(n) for n in text.split(",")],
        help="people playing the AI meanwhile, e.g. 0,6,20: measures responsiveness",
    )
    parser.add_argument("--ai-time", type=float, default=2.0, help="the AI's seconds a move")
    parser.add_argument(
        "--level",
        default="max",
        help="the AI's level in the AI games (max: it thinks the whole --ai-time)",
    )
    parser.add_argument(
        "--hostile",
        type=int,
        default=0,
        help="rounds of texts built to be slow to read, sent to every free-text option meanwhile",
    )
    parser.add_argument(
        "--long-game", type=int, default=0, metavar="PLIES", help="measure one long game's end"
    )
    parser.add_argument("--variant", default="copenhagen", help="the long game's variant")
    parser.add_argument(
        "--slow-callbacks",
        type=float,
        metavar="SECONDS",
        help="the bot logs each event loop callback that takes this long (with --keep: read it)",
    )
    parser.add_argument("--random-seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the database and bot log")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="a PostgreSQL database (postgresql://...): the plain run is made on SQLite and on"
        " it, side by side; with --ai-games, the runs are made on it",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=2,
        help="bot processes on PostgreSQL, each on its own shard (default: 2)",
    )
    args = parser.parse_args()
    if args.db is not None and not is_url(args.db):
        parser.error(f"--db takes a postgresql:// URL, not {args.db!r}")
    os.chdir(ROOT)
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
