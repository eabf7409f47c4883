"""The bot in a process of its own, connected to an emulator running in another process, run as
`tafl bot` runs it (worker processes, SIGTERM and SIGINT stop it gracefully).

``python -m tests.fake_discord.bot_process BASE_URL GATEWAY_URL TOKEN DB [--ai-time S]``; as it
exits it prints its peak memory (``PEAK_MARK`` and kB), its image worker's (``DRAW_PEAK_MARK``)
and the longest its event loop was held up (``STALL_MARK`` and ms). ``start_bot_process``
starts one.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import subprocess
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tests.fake_discord.driver import FakeDiscord

if TYPE_CHECKING:
    from bot.discord.client import TaflBot

PEAK_MARK = "bot peak rss kB: "
STALL_MARK = "bot longest event loop stall ms: "
DRAW_PEAK_MARK = "image worker peak rss kB: "
TICK = 0.005
"""Seconds between two looks at the event loop's clock."""
ROOT = Path(__file__).resolve().parents[2]


def start_bot_process(
    fake: FakeDiscord, db_path: str | Path, log: IO[str], *options: str
) -> subprocess.Popen[bytes]:
    """The bot, started in a child process on ``db_path``, logging to ``log``; ``options``
    are this module's (``--ai-time 2``)."""
    command = [sys.executable, "-m", "tests.fake_discord.bot_process"]
    arguments = [fake.base_url, fake.server.gateway_url, fake.token, str(db_path), *options]
    return subprocess.Popen([*command, *arguments], stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)


def peak_rss_kb() -> int:
    """This process's peak resident memory (VmHWM: its own pages since exec, in kB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


class StallWatch:
    """How late the event loop wakes a task that sleeps TICK at a time, from the moment the bot
    is ready until it starts to stop: the longest time any callback held the loop (an AI
    search, a render, a parse in the loop's interpreter would show here)."""

    def __init__(self) -> None:
        self.longest = 0.0

    async def run(self, bot: TaflBot, slow_callbacks: float | None = None) -> None:
        loop = asyncio.get_running_loop()
        if slow_callbacks is not None:  # log every callback that holds the loop this long
            loop.set_debug(True)
            loop.slow_callback_duration = slow_callbacks
        await bot.wait_until_ready()
        while not bot.stopping:
            before = loop.time()
            await asyncio.sleep(TICK)
            self.longest = max(self.longest, loop.time() - before - TICK)


async def watched(bot: TaflBot, token: str, slow_callbacks: float | None = None) -> StallWatch:
    from bot.discord.client import serve

    watch = StallWatch()
    watching = asyncio.create_task(watch.run(bot, slow_callbacks))
    try:
        await serve(bot, token)
    finally:
        watching.cancel()
    return watch


def main(argv: list[str] | None = None) -> int:
    import discord.gateway
    import discord.http
    import yarl

    from bot.compute import Compute
    from bot.discord import create_bot

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url")
    parser.add_argument("gateway_url")
    parser.add_argument("token")
    parser.add_argument("db")
    parser.add_argument("--ai-time", type=float, default=2.0, help="the AI's seconds a move")
    parser.add_argument("--shard-count", type=int, help="the bot's shards in all (default: 1)")
    parser.add_argument("--shard-id", type=int, help="with --shard-count: this process's shard")
    parser.add_argument(
        "--slow-callbacks",
        type=float,
        metavar="SECONDS",
        help="log each event loop callback that takes this long (asyncio's debug mode)",
    )
    args = parser.parse_args(argv)
    sharding: dict[str, object] = {}
    if args.shard_count is not None:
        sharding = {"shard_count": args.shard_count, "shard_ids": [args.shard_id or 0]}
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    discord.http.Route.BASE = f"{args.base_url}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(args.gateway_url)
    compute = Compute.in_processes()
    bot = create_bot(
        args.db,
        sync=True,
        guild_ready_timeout=0.05,
        ai_time_limit=args.ai_time,
        compute=compute,
        **sharding,
    )
    watch = asyncio.run(watched(bot, args.token, args.slow_callbacks))
    draw_peak = asyncio.run(compute.drawing_worker(peak_rss_kb))
    asyncio.run(compute.close())
    print(f"{PEAK_MARK}{peak_rss_kb()}", flush=True)
    print(f"{DRAW_PEAK_MARK}{draw_peak}", flush=True)
    print(f"{STALL_MARK}{watch.longest * 1000:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
