"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system"): the arithmetic alone.

A rating period is whatever the caller passes to ``update``; the bot makes each game its own
period, as lichess does. Ratings are on the Glicko scale (1500 for a new player).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko points per unit of the Glicko-2 scale."""
PROVISIONAL_DEVIATION = 110.0
"""A rating with a deviation above this is shown as provisional."""
TOLERANCE = 1e-6
"""How close the volatility iteration gets before it stops."""


@dataclass(frozen=True)
class Rating:
    """A player's strength (``rating``), how unsure it is (``deviation``, one standard
    deviation) and how erratic the player is (``volatility``)."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06

    def __post_init__(self) -> None:
        if not (self.deviation > 0 and self.volatility > 0 and math.isfinite(self.rating)):
            raise ValueError(
                "a rating is a finite number with a deviation and a volatility above 0, not "
                f"{self.rating}, {self.deviation}, {self.volatility}"
            )


NEW = Rating()
"""The rating of a player with no games; no deviation grows past this one's."""


def is_provisional(rating: Rating) -> bool:
    """Whether too few games stand behind ``rating`` to trust it."""
    return rating.deviation > PROVISIONAL_DEVIATION


def display(rating: Rating) -> str:
    """The rating as players see it: "1500", or "1500?" while provisional."""
    return f"{rating.rating:.0f}{'?' if is_provisional(rating) else ''}"


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    return 1 / (1 + math.exp(-g_j * (mu - mu_j)))


def update(player: Rating, results: list[tuple[Rating, float]], tau: float = 0.5) -> Rating:
    """``player``'s rating after one rating period with ``results`` (each opponent's rating
    before the period and the score against them: 1 win, 0.5 draw, 0 loss). A period without
    games only widens the deviation (up to a new player's). ``tau`` limits how fast the
    volatility changes."""
    for _, score in results:
        if not 0 <= score <= 1:
            raise ValueError(f"a score is between 0 (loss) and 1 (win), not {score}")
    if tau <= 0:
        raise ValueError(f"tau must be positive, not {tau}")
    mu = (player.rating - 1500) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        widened = min(math.hypot(phi, sigma) * SCALE, max(NEW.deviation, player.deviation))
        return Rating(player.rating, widened, sigma)
    information = improvement = 0.0
    for opponent, score in results:
        g_j = _g(opponent.deviation / SCALE)
        e_j = _expected(mu, (opponent.rating - 1500) / SCALE, g_j)
        information += g_j * g_j * e_j * (1 - e_j)
        improvement += g_j * (score - e_j)
    v = 1 / information
    delta = v * improvement
    sigma = _new_volatility(phi, sigma, v, delta, tau)
    phi_star = math.hypot(phi, sigma)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * improvement
    return Rating(1500 + SCALE * new_mu, SCALE * new_phi, sigma)


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """The volatility after the period, by the Illinois method on the paper's f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        total = phi * phi + v + ex
        return ex * (delta * delta - total) / (2 * total * total) - (x - a) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > TOLERANCE:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = middle, f_middle
    return math.exp(low / 2)
