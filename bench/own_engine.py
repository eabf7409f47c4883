"""Our own AI behind bench/arena.py's engine protocol: a stand-in for an independent engine.

    python bench/own_engine.py [--depth 2] [--log FILE]

It answers ``rules``, ``moves``, ``position`` and ``think`` as the protocol says (bench/arena.py's
docstring), choosing its moves with ``engine.ai.choose_move`` (``--depth`` caps its search).
It lets the benches' ``--engine`` paths run where no independent engine is installed, as the
tests run them; ``--log`` writes the side to move at each ``think``, so that they can tell which
side it played.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import Game, TaflError  # noqa: E402
from engine.ai import choose_move  # noqa: E402


class StandIn:
    """The protocol's state: the rules string of the game and the game so far."""

    def __init__(self, depth: int | None, log: TextIO | None) -> None:
        self.depth = depth
        self.log = log
        self.rules = ""
        self.game: Game | None = None

    def answer(self, line: str) -> str:
        """The one-line answer to ``line``."""
        command, _, rest = line.strip().partition(" ")
        try:
            if command == "rules":
                self.rules, self.game = rest, Game(rest)
                return "ok"
            game = self.game
            if game is None:
                return "error no rules yet"
            if command == "moves":
                game = self.game = Game(self.rules)
                for text in rest.split():
                    game.play(text)
                return "ok"
            if command == "position":
                return f"position {game.position()}"
            if command == "think":
                move = choose_move(game, time_limit=float(rest), depth=self.depth, book=False)
                if self.log is not None:
                    print(game.turn, file=self.log, flush=True)
                return f"move {move}"
        except (TaflError, ValueError) as error:
            return f"error {error}"
        return f"error unknown command {command!r}: rules, moves, position or think"


def serve(lines: Iterable[str], out: TextIO, stand_in: StandIn) -> None:
    """Answer each of ``lines`` on ``out``, one line each."""
    for line in lines:
        print(stand_in.answer(line), file=out, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, help="the most plies it searches")
    parser.add_argument("--log", type=Path, help="write the side to move at each think here")
    args = parser.parse_args()
    log = args.log.open("a") if args.log else None
    serve(sys.stdin, sys.stdout, StandIn(args.depth, log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
