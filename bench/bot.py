"""The Discord bot under load: many games at once through the local Discord emulator.

The bot runs in a SUBPROCESS (the real discord.py client, as `tafl bot` would run it), connected
to the emulator running in this process, on a database first seeded with finished games through
the game service. Then every game is challenged, accepted and played at the same time; each
/tafl move is timed from the interaction's creation to the bot's answer carrying the board image.

Prints: the median and 95th percentile of that time, moves per second, errors (refusals,
interactions that failed, Discord rules broken, errors in the bot's log), lost moves (the moves
stored in the database compared with those answered), and the bot process's peak memory
(VmHWM, reported by the child as it exits).

With ``--db postgresql://...`` the same load runs twice, on a SQLite file with one bot process,
then on that PostgreSQL database (in a schema of its own, dropped afterwards) with
``--processes`` bot processes (default 2) on disjoint shards, the games spread over guilds of
each shard; the figures are printed side by side.

Run from the repository root: ``python bench/bot.py [--games 50] [--plies 20] [--seed 1000]
[--db postgresql://user:password@host/db]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
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

TARGET_P95_MS = 250.0
TARGET_MEMORY_MB = 200.0
TARGET_P95_RATIO = 1.5
"""PostgreSQL's p95 at most this many times SQLite's, under the same load."""
PEAK_MARK = "bot peak rss kB: "


# -- the bot process -----------------------------------------------------------------------------


def serve(
    base_url: str, gateway_url: str, token: str, db_path: str, shard: str = "", count: str = ""
) -> None:
    """The bot, in this (child) process, connected to the emulator at ``base_url``."""
    import logging

    import discord.gateway
    import discord.http
    import yarl

    from bot.discord import create_bot

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    discord.http.Route.BASE = f"{base_url}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    sharding = {"shard_count": int(count), "shard_ids": [int(shard)]} if count else {}
    bot = create_bot(db_path, sync=True, guild_ready_timeout=0.05, **sharding)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(15, stop.set)  # SIGTERM: close cleanly
        async with bot:
            runner = asyncio.create_task(bot.start(token))
            await stop.wait()
            await bot.close()
            await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(main())
    print(f"{PEAK_MARK}{peak_rss_kb()}", flush=True)


def peak_rss_kb() -> int:
    """This process's peak resident memory (VmHWM: its own pages since exec, in kB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


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
        "tafl challenge", channel=channel, opponent=defender, side="attackers"
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
class Result:
    """One run's figures."""

    p50: float
    p95: float
    moves: int
    elapsed: float
    errors: int
    lost: int
    peak_mb: float
    ok: bool


def guilds_by_shard(fake: Any, count: int) -> list[Any]:
    """One guild on each of ``count`` shards (Discord's ``(guild_id >> 22) % count``), the
    emulator's default guild first."""
    found = {(fake.guild.id >> 22) % count: fake.guild}
    while len(found) < count:
        guild = fake.add_guild(f"guild-{len(found)}")
        found.setdefault((guild.id >> 22) % count, guild)
        time.sleep(0.001)  # the next snowflake's timestamp picks the shard
    return [found[shard] for shard in range(count)]


async def run_once(args: argparse.Namespace, db: str, workdir: Path, processes: int = 1) -> Result:
    """The load on ``processes`` bot processes on ``db`` (each on its own shard, if more than
    one); prints the figures and returns them."""
    from tests.fake_discord import FakeDiscord

    rng = random.Random(args.random_seed)
    seconds = await seed(db, args.seed, rng)
    print(f"seeded {args.seed} finished games through the service in {seconds:.1f} s")

    log_paths = [workdir / f"bot-{number}.log" for number in range(processes)]
    async with FakeDiscord(check_on_exit=False, timeout=30) as fake:
        guilds = guilds_by_shard(fake, processes)
        children = []
        for number, log_path in enumerate(log_paths):
            shard = [str(number), str(processes)] if processes > 1 else []
            with log_path.open("w") as log:
                children.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            __file__,
                            "--serve",
                            fake.base_url,
                            fake.server.gateway_url,
                            fake.token,
                            db,
                            *shard,
                        ],
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        cwd=ROOT,
                    )
                )
        try:
            await fake.wait_for(
                lambda: len(fake.sessions) == processes and bool(fake.commands()),
                timeout=60,
                what="bots up",
            )
            for number, guild in enumerate(guilds):
                probe = fake.add_user(f"probe-{number}", guild=guild)
                await (await probe.slash("tafl variants", channel=fake.add_channel(
                    "probe", guild=guild))).result()  # fmt: skip

            tally = Tally()
            started = time.perf_counter()
            await asyncio.gather(
                *(
                    play(fake, guilds, n, args.plies, args.think, tally,
                         random.Random(rng.random()))
                    for n in range(args.games)
                )
            )  # fmt: skip
            elapsed = time.perf_counter() - started
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
    peak_mb = max(peaks) / 1024 if len(peaks) == processes else float("nan")
    bot_errors = [line for line in log_lines if "ERROR" in line]
    lost = await lost_moves(db, tally)

    latencies = sorted(tally.latencies)
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p95 = latencies[int(0.95 * (len(latencies) - 1))] * 1000 if latencies else float("nan")
    moves = len(latencies)
    print(
        f"{args.games} games in parallel, {args.plies} plies each, think time "
        f"{args.think:g} s on average; {processes} bot process(es) on {shown_target(db)}"
    )
    print(
        f"/tafl move -> answer with image: median {p50:.0f} ms, p95 {p95:.0f} ms "
        f"(target p95 < {TARGET_P95_MS:.0f} ms)"
    )
    print(f"moves answered: {moves} in {elapsed:.1f} s = {moves / elapsed:.1f} moves/s")
    print(
        f"errors: {len(tally.errors)} in games, {len(violations)} Discord rules broken, "
        f"{len(bot_errors)} in the bot's log"
    )
    for line in (tally.errors + violations + bot_errors)[:10]:
        print(f"  {line}")
    print(f"lost moves: {len(lost)} games differ from what was answered")
    for line in lost[:10]:
        print(f"  {line}")
    print(
        f"bot process peak memory: {peak_mb:.0f} MB (the largest VmHWM; target < "
        f"{TARGET_MEMORY_MB:.0f} MB) with {args.seed} finished games in the database"
    )
    errors = len(tally.errors) + len(violations) + len(bot_errors)
    ok = p95 < TARGET_P95_MS and not (errors or lost) and peak_mb < TARGET_MEMORY_MB
    print("all targets met" if ok else "TARGETS MISSED")
    return Result(p50, p95, moves, elapsed, errors, len(lost), peak_mb, ok)


@asynccontextmanager
async def own_schema(url: str) -> AsyncIterator[str]:
    """A new schema in the database at ``url`` for one run: the URL that uses it; dropped after."""
    import asyncpg

    name = f"tafl_bench_{os.getpid()}_{int(time.time())}"
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f"CREATE SCHEMA {name}")
        try:
            yield f"{url}{'&' if '?' in url else '?'}search_path={name}"
        finally:
            await admin.execute(f"DROP SCHEMA {name} CASCADE")
    finally:
        await admin.close()


def side_by_side(results: dict[str, Result]) -> bool:
    """Print the runs' figures in columns; whether PostgreSQL's p95 is within its target."""
    rows: list[tuple[str, Callable[[Result], str]]] = [
        ("median (ms)", lambda r: f"{r.p50:.0f}"),
        ("p95 (ms)", lambda r: f"{r.p95:.0f}"),
        ("moves/s", lambda r: f"{r.moves / r.elapsed:.1f}"),
        ("errors", lambda r: str(r.errors)),
        ("lost moves", lambda r: str(r.lost)),
        ("peak MB", lambda r: f"{r.peak_mb:.0f}"),
    ]
    print()
    print(f"{'':<14}" + "".join(f"{name:>12}" for name in results))
    for label, cell in rows:
        print(f"{label:<14}" + "".join(f"{cell(r):>12}" for r in results.values()))
    ratio = results["PostgreSQL"].p95 / results["SQLite"].p95
    within = ratio <= TARGET_P95_RATIO
    print(
        f"PostgreSQL p95 / SQLite p95: {ratio:.2f} (target <= {TARGET_P95_RATIO:g})"
        + ("" if within else ": MISSED")
    )
    return within


async def bench(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="tafl-bench-"))
    results = {"SQLite": await run_once(args, str(workdir / "bench.sqlite3"), workdir)}
    if args.db is not None:
        print()
        async with own_schema(args.db) as url:
            results["PostgreSQL"] = await run_once(args, url, workdir, args.processes)
    ok = all(r.ok for r in results.values())
    if len(results) == 2:
        ok = side_by_side(results) and ok
    if not args.keep:
        for path in workdir.iterdir():
            path.unlink()
        workdir.rmdir()
    return 0 if ok else 1


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve(*sys.argv[2:])
        return 0
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
    parser.add_argument("--random-seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the database and bot log")
    parser.add_argument(
        "--db",
        metavar="URL",
        help="also run on this PostgreSQL database (postgresql://...) and compare with SQLite",
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
