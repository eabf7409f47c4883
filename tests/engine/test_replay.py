"""Replay every real game of tests/data (see its README) and compare with the records.

Every recorded move must be legal until the engine ends the game, each move's captures must equal
the recorded ones, and a game the engine ends on its last recorded move, or that ends in a
``timeout`` token (the player to move loses), must have the recorded winner. The figures by
reason must be exactly those of tests/data/README.md; ``pytest -s`` prints them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from engine import Game, Reason, Side

DATA = Path(__file__).resolve().parent.parent / "data"
WINNERS = {"Black": Side.ATTACKERS, "White": Side.DEFENDERS}


@dataclass
class Report:
    """What replaying one file found."""

    games: int = 0
    plies: int = 0
    ended_on_last_move: Counter[Reason] = field(default_factory=Counter)
    ended_early: Counter[Reason] = field(default_factory=Counter)
    ended_early_recorded_as_attackers_wins: Counter[Reason] = field(default_factory=Counter)
    timeouts: int = 0
    """Games whose last token is ``timeout`` and that the engine had not ended."""
    problems: list[str] = field(default_factory=list)

    def lines(self, name: str) -> list[str]:
        def counts(counter: Counter[Reason]) -> str:
            return ", ".join(f"{r.description} {n}" for r, n in counter.most_common()) or "none"

        return [
            f"{name}: {self.games} games, {self.plies} plies, {self.timeouts} lost on time",
            f"  ended on the last recorded move: {counts(self.ended_on_last_move)}",
            f"  ended early: {counts(self.ended_early)} (recorded as attackers' wins: "
            f"{counts(self.ended_early_recorded_as_attackers_wins)})",
        ]


def replay(variant: str, path: Path) -> Report:
    """Replay each game of a records file (format in tests/data/README.md)."""
    report = Report()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        moves_text, _, _, result = line.rsplit(",", 3)
        tokens = moves_text.split()
        timed_out = bool(tokens) and tokens[-1] == "timeout"
        if timed_out:
            tokens.pop()
        report.games += 1
        problems = len(report.problems)
        game = Game(variant)
        for index, token in enumerate(tokens):
            move_text, *recorded = token.split("x")
            where = f"game {number}, ply {index + 1} ({token})"
            try:
                ply = game.play(move_text)
            except ValueError as error:
                report.problems.append(f"{where}: refused: {error}")
                break
            report.plies += 1
            if set(ply.captures) != set(recorded):
                report.problems.append(f"{where}: captured {sorted(ply.captures)}")
                break
            outcome = game.outcome
            if outcome is None:
                continue
            if index == len(tokens) - 1:
                report.ended_on_last_move[outcome.reason] += 1
                if outcome.winner is not WINNERS.get(result):
                    report.problems.append(f"{where}: {outcome} but the record says {result!r}")
            else:
                report.ended_early[outcome.reason] += 1
                if result == "Black":
                    report.ended_early_recorded_as_attackers_wins[outcome.reason] += 1
            break
        if timed_out and game.outcome is None and len(report.problems) == problems:
            # The player to move ran out of time.
            report.timeouts += 1
            outcome = game.time_out(game.turn)
            if result in WINNERS and outcome.winner is not WINNERS[result]:
                report.problems.append(f"game {number}: {outcome} but the record says {result!r}")
    return report


EXPECTED = {
    "copenhagen": (
        {
            Reason.KING_ESCAPED: 233,
            Reason.EXIT_FORT: 48,
            Reason.KING_CAPTURED: 45,
            Reason.ENCIRCLED: 24,
            Reason.NO_LEGAL_MOVES: 20,
        },
        {Reason.REPETITION: 11},
        {Reason.REPETITION: 9},
        1752,
        271,
    ),
    "brandubh": (
        {Reason.KING_CAPTURED: 67, Reason.KING_ESCAPED: 37, Reason.NO_LEGAL_MOVES: 1},
        {Reason.REPETITION: 5},
        {Reason.REPETITION: 4},
        525,
        11,
    ),
}


@pytest.mark.parametrize("variant", list(EXPECTED))
def test_replay_real_games(variant: str) -> None:
    report = replay(variant, DATA / f"{variant}.csv")
    print("\n" + "\n".join(report.lines(variant)))
    on_last, early, early_attackers, games, timeouts = EXPECTED[variant]
    assert report.problems == []
    assert (report.games, report.timeouts) == (games, timeouts)
    assert dict(report.ended_on_last_move) == on_last
    assert dict(report.ended_early) == early
    assert dict(report.ended_early_recorded_as_attackers_wins) == early_attackers
