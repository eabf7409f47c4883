"""Glicko-2 against the worked example of Glickman's paper, and its properties on any ratings."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ratings import NEW, SCALE, Rating, display, is_provisional, update

# "Example of the Glicko-2 system": a 1500/200 player, volatility 0.06, tau 0.5, beats a
# 1400/30 and loses to a 1550/100 and a 1700/300.
PAPER_PLAYER = Rating(1500, 200, 0.06)
PAPER_RESULTS = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]


def test_the_papers_worked_example() -> None:
    after = update(PAPER_PLAYER, PAPER_RESULTS, tau=0.5)
    # The paper's figures on the Glicko-2 scale: mu' -0.2069, phi' 0.8722, sigma' 0.05999.
    assert (after.rating - 1500) / SCALE == pytest.approx(-0.2069, abs=0.00005)
    assert after.deviation / SCALE == pytest.approx(0.8722, abs=0.00005)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    # Then r' 1464.06 and RD' 151.52, which it works out from mu' and phi' rounded as above.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)


def test_a_new_player() -> None:
    assert Rating() == NEW == Rating(1500, 350, 0.06)
    assert is_provisional(NEW)
    assert display(NEW) == "1500?"


def test_provisional_above_110() -> None:
    assert display(Rating(1623.4, 110)) == "1623"
    assert not is_provisional(Rating(1623.4, 110))
    assert display(Rating(1623.6, 110.1)) == "1624?"


def test_an_empty_period_widens_the_deviation_alone() -> None:
    after = update(PAPER_PLAYER, [])
    assert after.rating == PAPER_PLAYER.rating
    assert after.volatility == PAPER_PLAYER.volatility
    assert after.deviation == pytest.approx(200.27, abs=0.005)  # sqrt(phi^2 + sigma^2)


def test_the_deviation_never_passes_a_new_players() -> None:
    rating = Rating(1700, 349.9)
    for _ in range(5):
        rating = update(rating, [])
    assert rating.deviation == NEW.deviation


@pytest.mark.parametrize("score", [-0.5, 1.5, float("nan")])
def test_a_score_outside_0_to_1_is_refused(score: float) -> None:
    with pytest.raises(ValueError, match=re.escape("a score is between 0 (loss) and 1 (win)")):
        update(NEW, [(NEW, score)])


@pytest.mark.parametrize(
    ("rating", "deviation", "volatility"),
    [(1500, 0, 0.06), (1500, 350, 0), (float("inf"), 350, 0.06), (1500, -1, 0.06)],
)
def test_a_rating_that_cannot_be_is_refused(
    rating: float, deviation: float, volatility: float
) -> None:
    with pytest.raises(ValueError, match="a rating is a finite number with a deviation"):
        Rating(rating, deviation, volatility)


# -- properties ----------------------------------------------------------------------------------

ratings = st.builds(
    Rating,
    st.floats(500, 2800),
    st.floats(30, 350),
    st.floats(0.03, 0.1),
)


@given(ratings, ratings)
def test_a_win_never_lowers_the_rating(player: Rating, opponent: Rating) -> None:
    won, drawn, lost = (update(player, [(opponent, score)]) for score in (1.0, 0.5, 0.0))
    assert won.rating > player.rating > lost.rating
    assert won.rating > drawn.rating > lost.rating


@given(
    ratings.filter(lambda r: r.deviation >= 100),
    st.lists(
        st.tuples(st.floats(-400, 400), st.floats(30, 350), st.sampled_from([0.0, 0.5, 1.0])),
        min_size=1,
        max_size=5,
    ),
)
def test_games_narrow_the_deviation(
    player: Rating, games: list[tuple[float, float, float]]
) -> None:
    """Games against opponents within 400 points narrow an unsure rating (against far weaker or
    stronger ones a game says little, and an upset raises the volatility)."""
    results = [(Rating(player.rating + gap, rd), score) for gap, rd, score in games]
    after = update(player, results)
    assert after.deviation < player.deviation
    assert after.deviation < update(player, []).deviation


@given(ratings)
def test_an_empty_period_grows_the_deviation(player: Rating) -> None:
    after = update(player, [])
    assert after.deviation > player.deviation or after.deviation == NEW.deviation
    assert (after.rating, after.volatility) == (player.rating, player.volatility)


@given(ratings, st.floats(30, 350))
def test_symmetric_results_keep_the_rating(player: Rating, deviation: float) -> None:
    equal = Rating(player.rating, deviation)
    assert update(player, [(equal, 0.5)]).rating == pytest.approx(player.rating)
    won_and_lost = update(player, [(equal, 1.0), (equal, 0.0)])
    assert won_and_lost.rating == pytest.approx(player.rating)


@given(ratings)
def test_between_equals_the_winner_gains_what_the_loser_loses(player: Rating) -> None:
    winner = update(player, [(player, 1.0)])
    loser = update(player, [(player, 0.0)])
    assert winner.rating - player.rating == pytest.approx(player.rating - loser.rating)
    assert winner.deviation == pytest.approx(loser.deviation)
