"""The fit of the evaluation's weights to the real games (bench/fit_weights.py): it recovers known
weights from results drawn by them, and the fitted corner weights the engine ships predict the
held-out real games better than the hand-set ones."""

from __future__ import annotations

import math
import random

from bench.fit_weights import Sample, fit, judge, samples, scale_of
from engine.ai import EDGE_WEIGHTS, FITTED_WEIGHTS, TAFL_TERMS


def test_the_fit_recovers_the_weights_that_drew_the_results() -> None:
    rng = random.Random(5)
    truth, intercept = [0.6, -1.1, 0.25], 0.4
    drawn = []
    for _ in range(6_000):
        terms = tuple(rng.randint(-3, 3) for _ in truth)
        value = sum(w * t for w, t in zip(truth, terms, strict=True)) + intercept
        won = rng.random() < 1 / (1 + math.exp(-value))
        drawn.append(Sample(terms, 1.0 if won else 0.0, held_out=False))
    *weights, found_intercept = fit(drawn, [0.0, 0.0, 0.0], strength=0.0)
    assert all(abs(w - t) < 0.1 for w, t in zip(weights, truth, strict=True)), weights
    assert abs(found_intercept - intercept) < 0.1


def test_the_shipped_corner_weights_predict_the_held_out_games_better() -> None:
    data = samples("brandubh", 6, 2) + samples("copenhagen", 6, 5)
    learn = [s for s in data if not s.held_out]
    held_out = [s for s in data if s.held_out]
    losses = {}
    for name, weights in (("fitted", FITTED_WEIGHTS), ("by hand", EDGE_WEIGHTS)):
        values = [float(weights[term]) for term in TAFL_TERMS]
        scale = scale_of(learn, values)
        losses[name], _ = judge(held_out, [v * scale for v in values], 0.0)
    assert losses["fitted"] < losses["by hand"] - 0.01, losses
