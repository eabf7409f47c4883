"""Every bench that plays an older AI (``--old COMMIT``) refuses a commit it cannot load."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.endgames import ROOT


@pytest.mark.parametrize("bench", ["ai.py", "arena.py", "endgames.py", "forts.py"])
def test_a_commit_without_an_ai_is_refused_before_anything_is_played(bench: str) -> None:
    ran = subprocess.run(
        [sys.executable, str(ROOT / "bench" / bench), "--old", "no-such-commit"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.splitlines()[-1].endswith(
        "--old: no engine/ai.py at 'no-such-commit' in this repository's history"
    )
    assert ran.stdout == ""


def test_a_commit_with_an_ai_is_accepted() -> None:
    """The same check lets a real commit through: forts.py checks it first, and the next
    check it makes (a bad ``--plies``) is the one that stops it."""
    ran = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "forts.py"), "--old", "HEAD", "--plies", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 2 and "--plies" in ran.stderr.splitlines()[-1], ran.stderr


def test_the_older_ai_takes_the_attackers_only_with_an_older_ai() -> None:
    ran = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "endgames.py"), "--old-attacks"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.splitlines()[-1].endswith("--old-attacks needs --old")
