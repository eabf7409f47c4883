"""bench/arena.py: how long a game may run before it is called a draw."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.arena import MAX_PLIES, max_plies_for
from bench.endgames import ROOT
from engine import Game
from engine.opentafl import rules_to_opentafl


@pytest.mark.parametrize("variant", ["brandubh", "copenhagen", "hnefatafl", "tablut"])
def test_games_on_boards_up_to_13x13_run_the_default_plies(variant: str) -> None:
    assert max_plies_for(variant, None) == MAX_PLIES


def test_alea_evangelii_on_its_19x19_board_runs_twice_as_long() -> None:
    assert max_plies_for("alea-evangelii", None) == 2 * MAX_PLIES


def test_a_rules_string_is_judged_by_its_board() -> None:
    large = rules_to_opentafl(Game("alea-evangelii").rules)
    assert max_plies_for(large, None) == 2 * MAX_PLIES


def test_a_given_limit_wins_on_every_board() -> None:
    assert max_plies_for("alea-evangelii", 120) == 120
    assert max_plies_for("brandubh", 500) == 500


def test_a_limit_below_one_ply_is_refused() -> None:
    ran = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "arena.py"), "--max-plies", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 2
    assert "--max-plies 1 or more" in ran.stderr.splitlines()[-1]
    assert ran.stdout == ""
