"""The Discord bot under load: many games at once through the local Discord emulator.

The bot runs in a SUBPROCESS (the real discord.py client, as `tafl bot` would run it), connected
to the emulator running in this process, on a database first seeded with finished games through
the game service. Then every game is challenged, accepted and played at the same time; each
/tafl move is timed from the interaction's creation to the bot's answer carrying the board image.

Prints: the median and 95th percentile of that time, moves per second, errors (refusals,
interactions that failed, Discord rules broken, errors in the bot's log), lost moves (the moves
stored in the database compared with those answered), and the bot process's peak memory
(VmHWM, reported by the child as it exits).

Run from the repository root: ``python bench/bot.py [--games 50] [--plies 20] [--seed 1000]``.
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
from bot.models import AI_PLAYER, Channel, Player  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.storage import Store  # noqa: E402
from tests.fake_discord.bot_process import PEAK_MARK, start_bot_process  # noqa: E402

TARGET_P95_MS = 250.0
TARGET_MEMORY_MB = 200.0


# -- seeding -------------------------------------------------------------------------------------


async def seed(db_path: str, games: int, rng: random.Random) -> float:
    """``games`` finished games (a few moves, then a resignation) through the service; seconds."""
    started = time.perf_counter()
    store = await Store.open(db_path)
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
    fake: object, number: int, plies: int, think: float, tally: Tally, rng: random.Random
) -> None:
    from tests.fake_discord import FakeDiscord

    assert isinstance(fake, FakeDiscord)
    channel = fake.add_channel(f"game-{number}")
    attacker, defender = fake.add_user(f"a{number}"), fake.add_user(f"d{number}")
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
    store = await Store.open(db_path)
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


async def bench(args: argparse.Namespace) -> int:
    from tests.fake_discord import FakeDiscord

    rng = random.Random(args.random_seed)
    workdir = Path(tempfile.mkdtemp(prefix="tafl-bench-"))
    db_path = str(workdir / "bench.sqlite3")
    seconds = await seed(db_path, args.seed, rng)
    print(f"seeded {args.seed} finished games through the service in {seconds:.1f} s")

    log_path = workdir / "bot.log"
    async with FakeDiscord(check_on_exit=False, timeout=30) as fake:
        with log_path.open("w") as log:
            child = start_bot_process(fake, db_path, log)
        try:
            await fake.wait_for(
                lambda: bool(fake.sessions) and bool(fake.commands()), timeout=60, what="bot up"
            )
            probe = fake.add_user("probe")
            await (await probe.slash("tafl variants")).result()

            tally = Tally()
            started = time.perf_counter()
            await asyncio.gather(
                *(
                    play(fake, n, args.plies, args.think, tally, random.Random(rng.random()))
                    for n in range(args.games)
                )
            )
            elapsed = time.perf_counter() - started
            violations = [str(v) for v in fake.take_violations()]
        finally:
            child.send_signal(15)
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    log_lines = log_path.read_text().splitlines()
    peaks = [int(line.removeprefix(PEAK_MARK)) for line in log_lines if line.startswith(PEAK_MARK)]
    peak_mb = peaks[-1] / 1024 if peaks else float("nan")
    bot_errors = [line for line in log_lines if "ERROR" in line]
    lost = await lost_moves(db_path, tally)

    latencies = sorted(tally.latencies)
    p50 = statistics.median(latencies) * 1000 if latencies else float("nan")
    p95 = latencies[int(0.95 * (len(latencies) - 1))] * 1000 if latencies else float("nan")
    moves = len(latencies)
    print(
        f"{args.games} games in parallel, {args.plies} plies each, think time "
        f"{args.think:g} s on average; bot in a subprocess"
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
        f"bot process peak memory: {peak_mb:.0f} MB (its VmHWM; target < "
        f"{TARGET_MEMORY_MB:.0f} MB) with {args.seed} finished games in the database"
    )
    ok = (
        p95 < TARGET_P95_MS
        and not (tally.errors or violations or bot_errors or lost)
        and peak_mb < TARGET_MEMORY_MB
    )
    print("all targets met" if ok else "TARGETS MISSED")
    if not args.keep:
        for path in workdir.iterdir():
            path.unlink()
        workdir.rmdir()
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
    parser.add_argument("--random-seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the database and bot log")
    args = parser.parse_args()
    os.chdir(ROOT)
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
