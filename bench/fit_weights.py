"""Fit the hnefatafl evaluation's weights to the real games (a Texel-style logistic fit).

    python bench/fit_weights.py [--variants copenhagen,brandubh] [--from-ply 6] [--prior 0.01]
                                [--every 1] [--print-weights]

Every quiet position of the recorded games in tests/data (no capture for the side to move, the game
not decided on the board, at least ``--from-ply`` plies in) is a sample: the terms of
``engine.ai.FITTED_WEIGHTS`` as the evaluation counts them, and the game's result (1 the defenders
won, 0 the attackers, 0.5 a draw; games without a result are left out). A logistic regression
(Newton's method, with an intercept for the side that wins more often and a ridge pull of
``--prior`` towards today's weights) predicts the result from the terms; its weights, scaled so
that an attacker is worth -100 as in the engine, are the fitted weights.

The games are split in two by their number: the fit learns from the even ones and is judged on the
odd ones. It prints, for today's weights and the fitted ones, the held-out log-loss (lower is
better; 0.693 is a coin) and how often the favoured side won, then the weights side by side.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Game, Side  # noqa: E402
from engine.ai import FITTED_WEIGHTS, TAFL_TERMS, _Tafl  # noqa: E402
from engine.record import DataResult, parse_data_line  # noqa: E402
from engine.tafl import TaflGame  # noqa: E402

DATA = ROOT / "tests" / "data"
ANCHOR = "attacker"
"""The term whose weight stays fixed (-100): the unit of the others."""


@dataclass(frozen=True)
class Sample:
    terms: tuple[int, ...]
    result: float
    """1 the defenders won, 0 the attackers, 0.5 a draw."""
    held_out: bool


def samples(variant: str, from_ply: int, every: int) -> list[Sample]:
    """The quiet positions of ``variant``'s recorded games, with their games' results."""
    found: list[Sample] = []
    for number, line in enumerate((DATA / f"{variant}.csv").read_text().splitlines()):
        if not line.strip():
            continue
        record = parse_data_line(line)
        if record.result is DataResult.DRAW:
            result = 0.5
        elif record.result.outcome_winner is None:
            continue
        else:
            result = 1.0 if record.result.outcome_winner is Side.DEFENDERS else 0.0
        game = Game(variant)
        assert isinstance(game, TaflGame)
        kind = _Tafl(game)
        for ply, recorded in enumerate(record.moves, start=1):
            if game.outcome is not None:
                break
            game.play(recorded.move)
            if ply < from_ply or ply % every or game.outcome is not None:
                continue
            if game.capturing_moves():
                continue
            terms = kind.terms()
            if terms is not None:
                found.append(Sample(tuple(terms), result, number % 2 == 1))
    return found


def _sigmoid(x: float) -> float:
    if x < -30:
        return 1e-13
    if x > 30:
        return 1 - 1e-13
    return 1 / (1 + math.exp(-x))


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix`` x = ``vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        head = rows[column][column]
        if abs(head) < 1e-12:
            continue
        for r in range(column + 1, n):
            factor = rows[r][column] / head
            if factor:
                row, top = rows[r], rows[column]
                for c in range(column, n + 1):
                    row[c] -= factor * top[c]
    solution = [0.0] * n
    for r in reversed(range(n)):
        head = rows[r][r]
        rest = sum(rows[r][c] * solution[c] for c in range(r + 1, n))
        solution[r] = (rows[r][n] - rest) / head if abs(head) >= 1e-12 else 0.0
    return solution


def fit(train: list[Sample], prior: list[float], strength: float) -> list[float]:
    """Logistic regression weights (the intercept last) by Newton's method, pulled towards
    ``prior`` (in the same units) with ridge ``strength`` per sample."""
    size = len(prior) + 1
    weights = [*prior, 0.0]
    pull = strength * len(train)
    for _ in range(25):
        gradient = [0.0] * size
        hessian = [[0.0] * size for _ in range(size)]
        for sample in train:
            x = (*sample.terms, 1)
            p = _sigmoid(sum(w * v for w, v in zip(weights, x, strict=True)))
            error = p - sample.result
            curve = p * (1 - p)
            active = [(i, v) for i, v in enumerate(x) if v]
            for i, v in active:
                gradient[i] += error * v
                row = hessian[i]
                for j, u in active:
                    row[j] += curve * v * u
        for i in range(size - 1):
            gradient[i] += pull * (weights[i] - prior[i])
            hessian[i][i] += pull
        step = _solve(hessian, gradient)
        weights = [w - s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return weights


def _log_loss(p: float, result: float) -> float:
    return -(result * math.log(p) + (1 - result) * math.log(1 - p))


def judge(samples_: list[Sample], weights: list[float], intercept: float) -> tuple[float, float]:
    """Log-loss and how often the side the weights favour won (draws left out)."""
    loss = 0.0
    right = decided = 0
    for sample in samples_:
        p = _sigmoid(sum(w * v for w, v in zip(weights, sample.terms, strict=True)) + intercept)
        loss += _log_loss(p, sample.result)
        if sample.result != 0.5:
            decided += 1
            right += (p > 0.5) == (sample.result == 1.0)
    return loss / len(samples_), right / max(decided, 1)


def scale_of(train: list[Sample], weights: list[float]) -> float:
    """The factor that turns evaluation units into the logistic's (a one-term fit)."""
    values = [sum(w * v for w, v in zip(weights, s.terms, strict=True)) for s in train]
    best, best_loss = 0.0, math.inf
    for step in range(1, 400):
        k = step / 40_000
        loss = 0.0
        for value, sample in zip(values, train, strict=True):
            loss += _log_loss(_sigmoid(k * value), sample.result)
        if loss < best_loss:
            best, best_loss = k, loss
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="copenhagen,brandubh")
    parser.add_argument("--from-ply", type=int, default=6)
    parser.add_argument("--every", type=int, default=1, help="take every n-th ply")
    parser.add_argument("--prior", type=float, default=0.01, help="ridge pull per sample")
    args = parser.parse_args()
    started = time.perf_counter()
    data: list[Sample] = []
    for variant in args.variants.split(","):
        found = samples(variant, args.from_ply, args.every)
        print(f"{variant}: {len(found)} quiet positions")
        data += found
    train = [s for s in data if not s.held_out]
    test = [s for s in data if s.held_out]
    today = [float(FITTED_WEIGHTS[t]) for t in TAFL_TERMS]
    k = scale_of(train, today)
    scaled_today = [w * k for w in today]
    fitted = fit(train, scaled_today, args.prior)
    *fitted_weights, intercept = fitted
    anchor = TAFL_TERMS.index(ANCHOR)
    unit = -100 / fitted_weights[anchor]
    base_loss, base_right = judge(test, scaled_today, 0.0)
    new_loss, new_right = judge(test, fitted_weights, intercept)
    print(f"{len(train)} positions to learn from, {len(test)} held out (odd-numbered games)")
    print(f"today's weights: held-out log-loss {base_loss:.4f}, favoured side won {base_right:.1%}")
    print(f"fitted weights:  held-out log-loss {new_loss:.4f}, favoured side won {new_right:.1%}")
    print(f"(intercept {intercept * unit:+.0f} for the defenders; scale {k:.6f} per unit)\n")
    print(f"{'term':24} {'today':>7} {'fitted':>7}")
    for term, old, new in zip(TAFL_TERMS, today, fitted_weights, strict=True):
        print(f"{term:24} {old:7.0f} {new * unit:7.0f}")
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
