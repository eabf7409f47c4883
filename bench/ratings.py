"""Ratings at scale: leaderboards, stats and the archive on a database of many finished games.

Fills a fresh database with ``--games`` finished games (default 100,000) among ``--players``
players (5,000; a few play far more than most, as on a real server, and the four AI levels play
too) on 20 servers, in bulk through the store (games and their players as rows, then the
ratings by ``tafl ratings rebuild``'s own code), then measures the service time of
``leaderboard``, ``stats`` and ``played_games`` for random players and scopes (target p95 <=
50 ms), and the time of a move that finishes a rated game against a move that does not (target:
within 10 ms of each other at the median and the p95).

With ``--db postgresql://...`` it runs on a SQLite file and then on that PostgreSQL database (in
a schema of its own, dropped afterwards), and prints the figures of both.

Run from the repository root: ``python bench/ratings.py [--games 100000] [--players 5000]
[--samples 300] [--db postgresql://user:password@host/db]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bench.bot import own_schema  # noqa: E402
from bot.models import GLOBAL_SCOPE, Channel, Player, ai_player  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.storage import Store, open_store  # noqa: E402
from engine import Reason  # noqa: E402
from engine.ai import LEVELS  # noqa: E402

TARGET_READ_P95_MS = 50.0
TARGET_FINISH_EXTRA_MS = 10.0
VARIANTS = {"copenhagen": 5, "brandubh": 3, "tablut": 2, "fetlar": 1}
"""The variants played, by weight."""
GUILDS = [f"bench:guild{n}" for n in range(20)]
REASONS = [Reason.KING_ESCAPED, Reason.KING_CAPTURED, Reason.RESIGNED, Reason.TIMEOUT]
ESCAPE = ["d6-e6", "d5-e5", "d7-e7", "d4-d7", "f4-f5", "d7-a7"]
"""Brandubh: the king reaches the a7 corner on the 6th ply."""
BATCH = 5_000


def players(count: int) -> list[Player]:
    people = [Player(f"bench:{n:05d}", f"Player {n:05d}") for n in range(count - len(LEVELS))]
    return people + [ai_player(level) for level in LEVELS]


async def fill(store: Store, games: int, everyone: list[Player], rng: random.Random) -> float:
    """Store ``games`` finished games in bulk (rows, not moves); the seconds it took."""
    started = time.perf_counter()
    rules = {variant: engine.new_game(variant).rules_string for variant in VARIANTS}
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(everyone))]  # a few play a lot
    when = datetime(2024, 1, 1, tzinfo=UTC)
    rows: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []

    async def flush() -> None:
        async with store.transaction() as db:
            await db.insert_rows("games", rows)
            await db.insert_rows("game_players", seats)
        rows.clear()
        seats.clear()

    for game_id in range(1, games + 1):
        first, second = rng.choices(everyone, weights, k=2)
        while second.id == first.id:
            second = rng.choice(everyone)
        variant = rng.choices(list(VARIANTS), list(VARIANTS.values()))[0]
        guild = rng.choice(GUILDS)
        started_at = when
        when += timedelta(minutes=rng.randint(1, 30))
        draw = rng.random() < 0.05
        rows.append(
            {
                "id": game_id, "guild": guild, "channel": f"{guild}:c{game_id % 50}",
                "variant": variant, "rules_string": rules[variant], "status": "finished",
                "winner": None if draw else rng.choice(["attackers", "defenders"]),
                "reason": str(Reason.DRAW_AGREED if draw else rng.choice(REASONS)),
                "version": 1, "created_at": started_at, "updated_at": when,
                "finished_at": when, "time_control": "3d+12h", "rated": int(rng.random() < 0.9),
                "plies": rng.randint(10, 200), "takebacks": 0,
            }
        )  # fmt: skip
        seats += [
            {"game_id": game_id, "side": "attackers", "player_id": first.id,
             "player_name": first.name},
            {"game_id": game_id, "side": "defenders", "player_id": second.id,
             "player_name": second.name},
        ]  # fmt: skip
        if len(rows) == BATCH:
            await flush()
    if rows:
        await flush()
    async with store.transaction() as db:
        await db.after_copy("games")  # new games get ids after these
    return time.perf_counter() - started


async def timed(samples: int, call: Callable[[int], Awaitable[object]]) -> list[float]:
    """Milliseconds each of ``samples`` calls took."""
    times = []
    for n in range(samples):
        started = time.perf_counter()
        await call(n)
        times.append((time.perf_counter() - started) * 1000)
    return times


def p95(times: list[float]) -> float:
    return statistics.quantiles(times, n=20)[-1]


async def finishing_moves(service: GameService, samples: int) -> tuple[list[float], list[float]]:
    """The milliseconds of a rated game's last move (the king escapes), and of the move just
    before it (which finishes nothing), over ``samples`` games on a server."""
    first, second = Player("bench:mover-a", "Mover A"), Player("bench:mover-b", "Mover B")
    finishing, ordinary = [], []
    for n in range(samples):
        channel = Channel(f"bench:moves{n}", GUILDS[n % len(GUILDS)])
        challenge = await service.challenge(channel, first, second, "brandubh", "attackers")
        await service.accept(challenge.id, second)
        for ply, text in enumerate(ESCAPE):
            mover = first if ply % 2 == 0 else second
            started = time.perf_counter()
            result = await service.move(channel, mover, text)
            took = (time.perf_counter() - started) * 1000
            if ply == len(ESCAPE) - 2:
                ordinary.append(took)
            elif ply == len(ESCAPE) - 1:
                assert result.report is not None and result.state.rated
                finishing.append(took)
    return finishing, ordinary


async def run(db: str | Path, args: argparse.Namespace) -> dict[str, float]:
    rng = random.Random(args.seed)
    everyone = players(args.players)
    store = await open_store(db)
    try:
        filled = await fill(store, args.games, everyone, rng)
        service = GameService(store)
        started = time.perf_counter()
        rated = await service.rebuild_ratings()
        rebuilt = time.perf_counter() - started
        print(f"  stored {args.games} games in {filled:.1f} s; ratings of {rated} rated games "
              f"built in {rebuilt:.1f} s")  # fmt: skip
        variants = list(VARIANTS)

        def someone(n: int) -> Player:
            return everyone[rng.randrange(len(everyone))]

        async def leaderboard(n: int) -> object:
            scope = GLOBAL_SCOPE if n % 2 else rng.choice(GUILDS)
            return await service.leaderboard(variants[n % len(variants)], scope, someone(n))

        async def stats(n: int) -> object:
            return await service.stats(someone(n), variants[n % 4] if n % 3 == 0 else None)

        async def archive(n: int) -> object:
            return await service.played_games(someone(n), None)

        heaviest = everyone[0]
        figures = {
            "leaderboard": p95(await timed(args.samples, leaderboard)),
            "stats": p95(await timed(args.samples, stats)),
            "games": p95(await timed(args.samples, archive)),
            "stats of the busiest player": p95(
                await timed(args.samples // 5, lambda n: service.stats(heaviest))
            ),
        }
        finishing, ordinary = await finishing_moves(service, args.moves)
        figures["finishing move p50"] = statistics.median(finishing)
        figures["other move p50"] = statistics.median(ordinary)
        figures["finishing move p95"] = p95(finishing)
        figures["other move p95"] = p95(ordinary)
        return figures
    finally:
        await store.close()


async def bench(args: argparse.Namespace) -> int:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="tafl-ratings-") as folder:
        print("SQLite:")
        results["SQLite"] = await run(Path(folder) / "ratings.sqlite3", args)
    if args.db is not None:
        print("PostgreSQL:")
        async with own_schema(args.db) as url:
            results["PostgreSQL"] = await run(url, args)
    print(f"\n{args.games} finished games, {args.players} players; p95 of {args.samples} calls"
          f" (ms of service time), and {args.moves} rated games' last two moves")  # fmt: skip
    names = list(results)
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for measure in next(iter(results.values())):
        cells = " | ".join(f"{results[name][measure]:.1f}" for name in names)
        print(f"| {measure} | {cells} |")
    ok = True
    for name, figures in results.items():
        reads = max(figures["leaderboard"], figures["stats"], figures["games"])
        extra = max(
            figures["finishing move p50"] - figures["other move p50"],
            figures["finishing move p95"] - figures["other move p95"],
        )
        fine = reads <= TARGET_READ_P95_MS and extra <= TARGET_FINISH_EXTRA_MS
        print(
            f"{name}: slowest read p95 {reads:.1f} ms (target <= {TARGET_READ_P95_MS:.0f}); a "
            f"finishing move costs {extra:+.1f} ms more (target <= {TARGET_FINISH_EXTRA_MS:.0f})"
            f"{'' if fine else '  MISSED'}"
        )
        ok = ok and fine
    print("all targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000, help="finished games stored")
    parser.add_argument("--players", type=int, default=5_000, help="players among them")
    parser.add_argument("--samples", type=int, default=300, help="calls timed per read")
    parser.add_argument("--moves", type=int, default=200, help="rated games played to the end")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", metavar="URL", help="also run on this PostgreSQL database")
    args = parser.parse_args()
    if args.players < len(LEVELS) + 2 or args.games < 1:
        parser.error("--players must be at least 6 and --games at least 1")
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
