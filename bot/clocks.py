"""Time controls and the clocks they give, computed from a game's stored move times.

A time control is written as players write it: ``none``; ``3d`` (a fixed time for each move, as
correspondence games have); ``5d+12h`` (a clock: a buffer the player's thinking time is taken
from, and an increment added after each of their moves, never above the starting buffer); and
the same for live games, ``10m+5s``. Units are ``s``, ``m``, ``h``, ``d`` and ``w`` and may be
combined (``1d12h``). The clocks are never stored: they follow from when the game started and
when each move was made, so that the moves stay the one truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from engine.errors import TaflError, shorten

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
LONGEST = timedelta(days=365)
"""The longest time a control may give (a buffer or a time per move)."""
DEFAULT_TIME_CONTROL = "3d+12h"
"""What a challenge plays under unless it says otherwise: three days, and half a day more for
each move."""
LIVE_UNDER = timedelta(hours=2)
"""A control giving less than this is a live one: players are at the board, so nobody is
pinged, and clocks are checked to the second."""
MAX_TEXT = 24
"""The longest time control text read (``"52w+6d23h59m59s"`` fits)."""
HELP = "write a time control like 3d (per move), 5d+12h (a clock plus an increment), 10m+5s or none"


class TimeControlError(TaflError):
    """A time control that can't be read; the message says what is expected."""


REMINDER_BEFORE = timedelta(hours=24)
"""How long before a fixed per-move limit the last reminder comes."""


class Stage(StrEnum):
    """Which turn reminder: half of the time used, or its last part."""

    HALF = "half"
    LAST = "last"


class Kind(StrEnum):
    NONE = "none"
    PER_MOVE = "per move"
    CLOCK = "clock"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """How much time the players have: none, ``base`` for each move, or a clock starting at
    ``base`` with ``increment`` added after each move."""

    kind: Kind
    base: timedelta = timedelta(0)
    increment: timedelta = timedelta(0)

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"none"``, ``"3d"``, ``"5d+12h"``, ``"10m+5s"``; TimeControlError if it is not one."""
        written = text.strip().lower()
        quoted = repr(shorten(text.strip()))
        if len(written) > MAX_TEXT:
            raise TimeControlError(f"{quoted} is too long for a time control: {HELP}")
        if written in ("", "none", "no", "off"):
            return NO_CLOCK
        base_text, plus, increment_text = written.partition("+")
        base = _duration(base_text, quoted)
        if not timedelta(0) < base <= LONGEST:
            raise TimeControlError(f"{quoted}: the time must be from 1s to 52w; {HELP}")
        if not plus:
            return cls(Kind.PER_MOVE, base)
        increment = _duration(increment_text, quoted)
        if increment > base:
            raise TimeControlError(
                f"{quoted}: the increment can't be more than the starting time; {HELP}"
            )
        return cls(Kind.CLOCK, base, increment)

    def __str__(self) -> str:
        if self.kind is Kind.NONE:
            return "none"
        if self.kind is Kind.PER_MOVE:
            return format_duration(self.base)
        return f"{format_duration(self.base)}+{format_duration(self.increment)}"

    @property
    def is_live(self) -> bool:
        """Played at the board, in real time (no pings; checked to the second)."""
        return self.kind is not Kind.NONE and self.base < LIVE_UNDER

    def describe(self) -> str:
        """``"5d and 12h a move"``, ``"3d per move"``, ``"no time limit"``."""
        if self.kind is Kind.NONE:
            return "no time limit"
        if self.kind is Kind.PER_MOVE:
            return f"{format_duration(self.base)} per move"
        return f"{format_duration(self.base)} and {format_duration(self.increment)} a move"

    def time_left(
        self,
        started_at: datetime,
        move_times: list[datetime],
        now: datetime,
        turn_started: datetime | None = None,
    ) -> tuple[timedelta, timedelta] | None:
        """The time each player has left at ``now``: (the first player's, the second's), the
        player to move's running down since ``turn_started`` (default: the last move, or the
        start; a takeback starts a turn afresh). None without a time control.

        A player whose clock ran out shows zero or less (the time over), also when the game
        went on past it (a move stored before the deadline always counts)."""
        if self.kind is Kind.NONE:
            return None
        left = [self.base, self.base]
        since = started_at
        for ply, played_at in enumerate(move_times):
            mover = ply % 2
            spent = played_at - since
            if self.kind is Kind.PER_MOVE:
                left[mover] = self.base - spent
            else:
                left[mover] = min(left[mover] - spent + self.increment, self.base)
            since = played_at
        to_move = len(move_times) % 2
        if self.kind is Kind.PER_MOVE:
            left[to_move] = self.base
        left[to_move] -= now - (since if turn_started is None else turn_started)
        return left[0], left[1]

    def deadline(
        self,
        started_at: datetime,
        move_times: list[datetime],
        turn_started: datetime | None = None,
    ) -> datetime | None:
        """When the player to move runs out of time, their turn having started at
        ``turn_started`` (default: the last move, or the start). None without a time control."""
        if self.kind is Kind.NONE:
            return None
        since = turn_started or (move_times[-1] if move_times else started_at)
        left = self.time_left(started_at, move_times, since, since)
        assert left is not None
        return since + left[len(move_times) % 2]

    def reminder_due(
        self, turn_started: datetime, deadline: datetime, now: datetime
    ) -> Stage | None:
        """The reminder a player thinking since ``turn_started`` is due at ``now``: ``LAST`` in
        the last tenth of their time (24 h before a per-move limit of more than two days),
        else ``HALF`` once half of it is used; None before that, and always in live games."""
        if self.kind is Kind.NONE or self.is_live:
            return None
        allotted = deadline - turn_started
        last_call = allotted / 10
        if self.kind is Kind.PER_MOVE and allotted > 2 * REMINDER_BEFORE:
            last_call = REMINDER_BEFORE
        if now >= deadline - last_call:
            return Stage.LAST
        if now >= turn_started + allotted / 2:
            return Stage.HALF
        return None


NO_CLOCK = TimeControl(Kind.NONE)


def format_duration(duration: timedelta) -> str:
    """``"5d12h"``, ``"10m"``, ``"45s"``: the shortest way to write it in the control's units."""
    seconds = int(duration.total_seconds())
    if seconds <= 0:
        return "0s"
    parts = []
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)


def format_left(left: timedelta) -> str:
    """``"4d 3h"``, ``"2h 05m"``, ``"3m 07s"``, ``"0s"``: the two largest units left, for a
    board message."""
    seconds = max(0, int(left.total_seconds()))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {seconds:02d}s"
    return f"{seconds}s"


def _duration(text: str, quoted: str) -> timedelta:
    """``"1d12h"`` as a timedelta; TimeControlError quoting the whole control if it is not one."""
    seconds = 0
    number = ""
    for char in text.strip():
        if char.isascii() and char.isdigit():
            number += char
        elif char in UNITS and number:
            seconds += int(number) * UNITS[char]
            number = ""
        else:
            raise TimeControlError(f"can't read {quoted} as a time control: {HELP}")
    if number or not text.strip():
        raise TimeControlError(f"can't read {quoted} as a time control: {HELP}")
    return timedelta(seconds=seconds)
