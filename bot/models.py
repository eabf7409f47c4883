"""What the game service hands to adapters: players, channels, challenges, games, offers, reports.

Platform-neutral: ids are platform-qualified strings (``"discord:1234"``, ``"terminal"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum

import engine
from bot.clocks import NO_CLOCK, Stage, TimeControl
from bot.ratings import NEW, Rating, display
from engine import Ply, Reason, Side
from engine.ai import DEFAULT_LEVEL, LEVELS

VOID_COUNTS = "it counts for neither player"
"""What a void game (``Reason.VOIDED``) means for its players."""


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC (the service's default clock)."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Player:
    """Someone who plays: ``id`` is platform-qualified (``"discord:1234"``, ``"ai:tafl"``)."""

    id: str
    name: str

    @property
    def is_ai(self) -> bool:
        return self.id.startswith("ai:")

    @property
    def ai_level(self) -> str | None:
        """The level the AI plays at (``"hard"``); None for a person. The bare ``ai:tafl`` of
        the games before levels plays medium."""
        if not self.is_ai:
            return None
        level = self.id.removeprefix(AI_PLAYER_ID).removeprefix(":")
        return level or DEFAULT_LEVEL.name


AI_PLAYER_ID = "ai:tafl"
AI_PLAYER = Player(AI_PLAYER_ID, "Tafl AI")
"""The bot as an opponent, before a level is chosen (and in games from before levels)."""


TERMINAL_PLAYER = Player("terminal:you", "You")
"""Whoever plays the AI at the terminal: rated, and whom ``tafl stats`` shows by default."""


def ai_player(level: str = DEFAULT_LEVEL.name) -> Player:
    """The AI at ``level`` (easy, medium, hard, max): a player of its own, rated apart.
    ServiceError for an unknown level."""
    from bot.errors import ServiceError

    name = level.strip().lower()
    if name not in LEVELS:
        raise ServiceError(f"unknown AI level {level!r}; choose {', '.join(LEVELS)}")
    return Player(f"{AI_PLAYER_ID}:{name}", f"Tafl AI ({name})")


@dataclass(frozen=True, slots=True)
class Channel:
    """Where a game is played: ``id`` is platform-qualified (a thread is a channel too);
    ``parent`` is the id of the channel a thread belongs to (None for a channel)."""

    id: str
    guild: str | None = None
    parent: str | None = field(default=None, compare=False)


class ChallengeStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


RANDOM_SIDE = "random"
"""The side a challenger asks for when either will do."""


@dataclass(frozen=True, slots=True)
class Challenge:
    """An invitation to play in a channel; ``opponent`` None means anyone but the challenger.

    ``side`` is the challenger's wish: a side of the variant or ``"random"``; ``message_ref``
    names the message that shows it, in the adapter's own terms (None until one is attached).
    """

    id: int
    channel: Channel
    challenger: Player
    opponent: Player | None
    variant: str
    side: str
    status: ChallengeStatus
    created_at: datetime
    expires_at: datetime
    game_id: int | None
    message_ref: str | None
    time_control: str = "none"
    """The time control the game will be played under, as written (``"3d+12h"``)."""
    thread: bool = False
    """Whether the game is to be played in a thread of its own, started from the challenge."""
    rematch_of: int | None = None
    """The finished game this challenge asks to play again, if any."""
    rated: bool = False
    """Whether the game counts for the players' ratings."""


class GameStatus(StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"


@dataclass(eq=False)
class GameState:
    """A stored game and the engine game rebuilt by replaying its moves."""

    id: int
    channel: Channel
    variant: str
    rules_string: str
    players: dict[Side, Player]
    status: GameStatus
    version: int
    """Bumped by every change to the game; a write on an older version is refused."""
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    game: engine.Game
    move_times: list[datetime] = field(default_factory=list)
    """When each ply of ``game.history`` was played."""
    time_control: TimeControl = NO_CLOCK
    parent: Channel | None = None
    """The channel a thread game was started from (its start and end are announced there);
    None when the game is played in the channel it was challenged in."""

    @property
    def home(self) -> Channel:
        """Where the game was challenged: its parent channel, or its own channel."""
        return self.parent or self.channel

    rated: bool = False
    """Whether the game counts for the players' ratings."""
    takebacks: int = 0
    """Takebacks allowed so far (a rated game's record notes them)."""

    def time_left(self, now: datetime) -> dict[Side, timedelta] | None:
        """Each side's time left at ``now`` (the player to move's running); None without a
        time control."""
        left = self.time_control.time_left(self.created_at, self.move_times, now, self.updated_at)
        if left is None:
            return None
        first = self.game.rules.first
        return {first: left[0], first.opponent: left[1]}

    def deadline(self) -> datetime | None:
        """When the player to move runs out of time; None when no clock runs (no time
        control, the game over, or the AI to move: it never runs out of time)."""
        mover = self.player_to_move()
        if mover is None or mover.is_ai:
            return None
        return self.time_control.deadline(self.created_at, self.move_times, self.updated_at)

    def player_to_move(self) -> Player | None:
        """Whose turn it is; None once the game is over."""
        if self.status is GameStatus.FINISHED or self.game.outcome is not None:
            return None
        return self.players.get(self.game.turn)

    def side_of(self, player: Player) -> Side | None:
        """The side ``player`` plays (the side to move if they play both); None if not playing."""
        sides = [side for side, p in self.players.items() if p.id == player.id]
        if not sides:
            return None
        return self.game.turn if self.game.turn in sides else sides[0]

    def opponent_of(self, player: Player) -> Player | None:
        """The player of the other side; None if ``player`` is not in this game."""
        side = self.side_of(player)
        return None if side is None else self.players.get(side.opponent)


class ReminderStyle(StrEnum):
    """Where a player's turn reminders go."""

    CHANNEL = "channel"
    DM = "dm"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's choices for new challenges; None (and no channels) means the bot's default."""

    guild: str
    variant: str | None = None
    time_control: str | None = None
    threads: bool | None = None
    channels: tuple[str, ...] = ()
    """The channel ids the bot plays in (empty: every channel)."""
    reminders: ReminderStyle | None = None

    def allows(self, channel: Channel) -> bool:
        """Whether the bot plays in ``channel`` (a thread counts as its parent channel)."""
        if not self.channels:
            return True
        return channel.id in self.channels or (channel.parent or "") in self.channels


class OfferKind(StrEnum):
    DRAW = "draw"
    UNDO = "undo"


class OfferStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    VOID = "void"
    """A move was played (or the game ended) before it was answered."""


@dataclass(frozen=True, slots=True)
class Offer:
    """A draw offer or takeback request from ``by`` to ``to``, made after ``ply`` plies."""

    id: int
    game_id: int
    kind: OfferKind
    by: Player
    to: Player
    status: OfferStatus
    ply: int
    created_at: datetime


class AnnouncementKind(StrEnum):
    MOVE = "move"
    END = "end"


@dataclass(frozen=True, slots=True)
class Announcement:
    """Something a game's channel must be shown: the move that made ``ply`` plies, or the end
    of the game after ``ply`` plies. Stored with the change itself; pending until posted."""

    game_id: int
    kind: AnnouncementKind
    ply: int
    created_at: datetime
    attempts: int = 0
    """Failed posts so far."""


@dataclass(frozen=True, slots=True)
class Report:
    """The story of a finished game, for the terminal, the bot's log and the Discord report.

    A game replayed from a record is not stored and has no known times: its ``game_id``,
    ``started_at`` and ``finished_at`` are None, and the report leaves them out.
    """

    game_id: int | None
    variant_name: str
    players: dict[Side, Player]
    winner: Player | None
    winner_side: Side | None
    reason: Reason
    plies: list[Ply]
    captures: dict[Side, int]
    """Men captured BY each side."""
    started_at: datetime | None
    finished_at: datetime | None
    record: str
    """The OpenTafl game record."""
    rated: bool = False

    @property
    def duration(self) -> timedelta | None:
        """How long the game took; None when its times are unknown."""
        if self.started_at is None or self.finished_at is None:
            return None
        return self.finished_at - self.started_at

    @property
    def winner_name(self) -> str | None:
        """Who won, by name (the side's name when the player is unknown); None for a draw."""
        if self.winner_side is None:
            return None
        return self.winner.name if self.winner else self.winner_side.capitalize()

    @property
    def headline(self) -> str:
        """``"Bob wins"``, ``"Draw"`` or ``"Void"``: the result in a word or two."""
        if self.reason is Reason.VOIDED:
            return "Void"
        return "Draw" if self.winner_name is None else f"{self.winner_name} wins"

    @property
    def result(self) -> str:
        """``"Bob (defenders) won: resignation."`` or ``"Draw: a draw was agreed."``."""
        if self.reason is Reason.VOIDED:
            return f"Void: {self.reason.description}; {VOID_COUNTS}."
        if self.winner_side is None:
            return f"Draw: {self.reason.description}."
        return f"{self.winner_name} ({self.winner_side}) won: {self.reason.description}."

    @property
    def length(self) -> str:
        """``"12 moves (23 plies)"``: a move is a ply of each side."""
        moves = (len(self.plies) + 1) // 2
        return f"{counted(moves, 'move')} ({counted(len(self.plies), 'ply', 'plies')})"

    def text(self) -> str:
        """A plain multi-line report: result, moves, captures, duration (when known) and the
        move list."""
        title = self.variant_name
        if self.game_id is not None:
            title += f", game #{self.game_id}"
        lines = [title]
        seats = (f"{side.capitalize()}: {player.name}" for side, player in self.players.items())
        lines.append(", ".join(seats))
        lines.append(self.result)
        lines.append(f"{self.length}.")
        taken = ", ".join(f"{side} {n}" for side, n in self.captures.items())
        lines.append(f"Captures: {taken}.")
        if self.duration is not None:
            lines.append(f"Duration: {format_duration(self.duration)}.")
        if self.plies:
            lines.append("")
            lines.extend(numbered_moves(self.plies))
        return "\n".join(lines)


def numbered_moves(plies: list[Ply]) -> list[str]:
    """``["1. d1-d4 e5-e2xe3", "2. ..."]``: one line per move, both sides' plies on it."""
    notations = [ply.notation for ply in plies]
    return [
        f"{n}. {' '.join(notations[i : i + 2])}"
        for n, i in enumerate(range(0, len(notations), 2), start=1)
    ]


def format_duration(duration: timedelta) -> str:
    """``"1 h 02 min"``, ``"4 min 05 s"``, ``"12 s"``."""
    seconds = max(0, int(duration.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``"1 move"``, ``"3 plies"``."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


@dataclass(frozen=True, slots=True)
class Reminder:
    """A turn reminder due: ``player`` has ``left`` to make their move in ``state``."""

    state: GameState
    player: Player
    stage: Stage
    left: timedelta


@dataclass(frozen=True, slots=True)
class MoveResult:
    """A move that was played: the game after it, the ply, and the report if it ended the game."""

    state: GameState
    ply: Ply
    report: Report | None
    number: int
    """Plies played once this one was (1 for the game's first move)."""


def build_report(state: GameState) -> Report:
    """The report of a finished stored game; ValueError if it is still being played."""
    if state.finished_at is None:
        raise ValueError(f"game #{state.id} is still being played")
    return game_report(
        state.game,
        state.players,
        game_id=state.id,
        started_at=state.created_at,
        finished_at=state.finished_at,
        rated=state.rated,
        takebacks=state.takebacks,
    )


def game_report(
    game: engine.Game,
    players: dict[Side, Player],
    *,
    game_id: int | None = None,
    started_at: datetime | None = None,
    finished_at: datetime | None = None,
    rated: bool = False,
    takebacks: int = 0,
) -> Report:
    """The report of a finished game played by ``players``; what is not known (a replayed
    record's id and times) is left None. A rated game's record says so, and how many
    takebacks were allowed in it. ValueError if the game is still being played."""
    from engine.record import to_opentafl_record

    outcome = game.outcome
    if outcome is None:
        where = "the game" if game_id is None else f"game #{game_id}"
        raise ValueError(f"{where} is still being played")
    captures = dict.fromkeys(players, 0)
    for ply in game.history:
        captures[ply.side] = captures.get(ply.side, 0) + len(ply.captures)
    winner_side = outcome.winner
    return Report(
        game_id=game_id,
        variant_name=str(game.rules.name),
        players=dict(players),
        winner=None if winner_side is None else players.get(winner_side),
        winner_side=winner_side,
        reason=outcome.reason,
        plies=list(game.history),
        captures=captures,
        started_at=started_at,
        finished_at=finished_at,
        record=to_opentafl_record(game, _record_tags(players, started_at, rated, takebacks)),
        rated=rated,
    )


def _record_tags(
    players: dict[Side, Player], started_at: datetime | None, rated: bool, takebacks: int
) -> dict[str, str]:
    """The players and start date (when known), whether rated (and the takebacks then), for
    the record's header (a tag holds no ']' or line break)."""
    tags = {str(side): " ".join(player.name.replace("]", ")").split())
            for side, player in players.items()}  # fmt: skip
    if started_at is not None:
        tags["date"] = started_at.date().isoformat()
    if rated:
        tags["rated"] = "yes"
        tags["takebacks"] = str(takebacks)
    return tags


GLOBAL_SCOPE = "global"
"""The scope of the ratings across every server (a server's scope is its guild id)."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one variant and scope, and the rated games behind it."""

    player: Player
    variant: str
    scope: str
    rating: Rating = NEW
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def shown(self) -> str:
        """``"1623"``, or ``"1500?"`` while provisional."""
        return display(self.rating)

    @property
    def record(self) -> str:
        """``"12/3/4"``: wins, draws, losses."""
        return f"{self.wins}/{self.draws}/{self.losses}"


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A player's rating after one rated game."""

    game_id: int
    rating: Rating
    at: datetime


class Result(StrEnum):
    WIN = "W"
    DRAW = "D"
    LOSS = "L"

    @classmethod
    def of(cls, winner: Side | None, side: Side) -> Result:
        """The result for ``side`` of a game ``winner`` won (None: a draw)."""
        if winner is None:
            return cls.DRAW
        return cls.WIN if winner is side else cls.LOSS

    @property
    def score(self) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss."""
        return {Result.WIN: 1.0, Result.DRAW: 0.5, Result.LOSS: 0.0}[self]


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game as one of its players sees it."""

    game_id: int
    variant: str
    side: Side
    opponent: Player
    winner: Side | None
    reason: Reason
    plies: int
    finished_at: datetime
    guild: str | None
    rated: bool
    final_message_ref: str | None
    """The message that shows the final board, in the adapter's terms (None: not known)."""

    @property
    def result(self) -> Result:
        return Result.of(self.winner, self.side)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """What /tafl stats shows: ``standings`` (global, one per variant played rated, most games
    first), the rating history of ``variant`` (the one asked for, or the most played), the
    results by side, the longest game, the most played variant and the recent form."""

    player: Player
    variant: str | None
    standings: list[Standing]
    history: list[RatingPoint]
    by_side: dict[Side, dict[Result, int]]
    longest: PlayedGame | None
    most_played: tuple[str, int] | None
    recent: list[Result]
    """The last results, newest first."""

    @property
    def games(self) -> int:
        return sum(sum(counts.values()) for counts in self.by_side.values())
