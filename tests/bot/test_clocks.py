"""Time controls as players write them, and clocks that follow from the stored move times."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.clocks import NO_CLOCK, Kind, TimeControl, TimeControlError, format_left

START = datetime(2026, 1, 1, tzinfo=UTC)
H, D = timedelta(hours=1), timedelta(days=1)


@pytest.mark.parametrize(
    ("text", "kind", "base", "increment", "shown"),
    [
        ("none", Kind.NONE, timedelta(0), timedelta(0), "none"),
        ("3d", Kind.PER_MOVE, 3 * D, timedelta(0), "3d"),
        ("5d+12h", Kind.CLOCK, 5 * D, 12 * H, "5d+12h"),
        (" 10M+5S ", Kind.CLOCK, timedelta(minutes=10), timedelta(seconds=5), "10m+5s"),
        ("1d12h+0s", Kind.CLOCK, 36 * H, timedelta(0), "1d12h+0s"),
        ("2w", Kind.PER_MOVE, 14 * D, timedelta(0), "14d"),
    ],
)
def test_time_controls_read_as_written(
    text: str, kind: Kind, base: timedelta, increment: timedelta, shown: str
) -> None:
    control = TimeControl.parse(text)
    assert (control.kind, control.base, control.increment) == (kind, base, increment)
    assert str(control) == shown
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("3", "can't read '3'"),
        ("d", "can't read 'd'"),
        ("3x", "can't read '3x'"),
        ("+5s", "can't read '+5s'"),
        ("5m+", "can't read '5m+'"),
        ("0s", "from 1s to 52w"),
        ("60w", "from 1s to 52w"),
        ("1m+2m", "increment can't be more"),
        ("1d" * 40, "too long"),
        ("３d", "can't read"),
    ],
)
def test_bad_time_controls_say_what_is_expected(text: str, says: str) -> None:
    with pytest.raises(TimeControlError, match=re.escape(says)) as error:
        TimeControl.parse(text)
    assert "like 3d" in str(error.value) and len(str(error.value)) < 200


def test_live_controls_are_the_short_ones() -> None:
    assert TimeControl.parse("10m+5s").is_live and TimeControl.parse("1h").is_live
    assert not TimeControl.parse("3d").is_live and not NO_CLOCK.is_live


def test_a_clock_takes_thinking_time_and_adds_the_increment_up_to_the_start() -> None:
    control = TimeControl.parse("1d+12h")
    # first player thinks 2 h, second 30 h (over his day but the increment came after)...
    moves = [START + 2 * H, START + 32 * H]
    first, second = control.time_left(START, moves, START + 32 * H) or (None, None)
    assert first == D  # 24 - 2 + 12 = 34 h, capped at the starting 24 h
    assert second == D - 30 * H + 12 * H  # 6 h
    later = control.time_left(START, moves, START + 42 * H)
    assert later == (D - 10 * H, 6 * H)  # the first player's clock runs now
    assert control.deadline(START, moves) == START + 32 * H + D


def test_a_time_per_move_starts_afresh_with_each_move() -> None:
    control = TimeControl.parse("3d")
    moves = [START + 2 * D]
    assert control.time_left(START, moves, START + 3 * D) == (D, 2 * D)
    assert control.deadline(START, moves) == START + 5 * D
    assert control.deadline(START, []) == START + 3 * D
    assert NO_CLOCK.time_left(START, moves, START) is None and NO_CLOCK.deadline(START, []) is None


@given(
    gaps=st.lists(st.integers(min_value=0, max_value=5 * 86_400), max_size=30),
    extra=st.integers(min_value=0, max_value=5 * 86_400),
    text=st.sampled_from(["2d+6h", "3d", "10m+5s", "1h"]),
)
def test_the_player_to_move_has_left_the_time_to_the_deadline(
    gaps: list[int], extra: int, text: str
) -> None:
    """Whatever the history, the two ways of reading the clock agree, and a clock never holds
    more than its starting time."""
    control = TimeControl.parse(text)
    moves: list[datetime] = []
    for gap in gaps:
        moves.append((moves[-1] if moves else START) + timedelta(seconds=gap))
    now = (moves[-1] if moves else START) + timedelta(seconds=extra)
    left = control.time_left(START, moves, now)
    deadline = control.deadline(START, moves)
    assert left is not None and deadline is not None
    assert left[len(moves) % 2] == deadline - now
    assert max(left) <= control.base


def test_time_left_reads_in_the_two_largest_units() -> None:
    assert format_left(4 * D + 3 * H + timedelta(minutes=5)) == "4d 3h"
    assert format_left(2 * H + timedelta(minutes=5)) == "2h 05m"
    assert format_left(timedelta(minutes=3, seconds=7)) == "3m 07s"
    assert format_left(-H) == "0s"
