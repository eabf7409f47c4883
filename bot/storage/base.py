"""The store interface, the queries both databases share, and the row-to-model conversions.

Every SQL statement of the project lives in this package. A ``Session`` holds the queries,
written once with ``?`` placeholders; each dialect (``sqlite.py``, ``postgresql.py``) supplies
how a statement is run, how a time is passed, and how a write transaction locks what it reads.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence, Sized
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol

from bot.errors import ChannelBusy, MoveConflict
from bot.models import (
    Announcement,
    AnnouncementKind,
    Challenge,
    ChallengeStatus,
    Channel,
    GameStatus,
    GuildSettings,
    Offer,
    OfferKind,
    OfferStatus,
    PlayedGame,
    Player,
    RatingPoint,
    ReminderStyle,
    Result,
    Standing,
)
from bot.ratings import NEW, Rating
from engine import Outcome, Ply, Reason, Side

_COUNTED = f"g.reason <> '{Reason.VOIDED}'"
"""SQL: the game ``g`` counts for its players (it was not void)."""

MIGRATIONS = Path(__file__).parent.parent / "migrations"
"""One folder of numbered migrations per dialect: ``sqlite/``, ``postgresql/``."""
_MIGRATION_NAME = re.compile(r"^(\d{4})_\w+\.sql$")


class Row(Protocol):
    """A result row of either driver: by column name or position."""

    def __getitem__(self, key: Any, /) -> Any: ...

    def keys(self) -> Any: ...

    def __len__(self) -> int: ...


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game without its moves."""

    id: int
    channel: Channel
    variant: str
    rules_string: str
    players: dict[Side, Player]
    status: GameStatus
    outcome: Outcome | None
    """The stored result once finished (None while the game is being played)."""
    version: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    time_control: str = "none"
    """As written: ``none``, ``3d``, ``5d+12h``."""
    parent: Channel | None = None
    """The channel a thread game was started from (None: played where it was challenged)."""
    rated: bool = False
    takebacks: int = 0


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A finished rated game, as the ratings need it."""

    id: int
    guild: str | None
    variant: str
    players: dict[Side, Player]
    winner: Side | None
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class ClockRow:
    """An active game whose clock runs: what the sweep needs to time it out or remind."""

    game_id: int
    time_control: str
    turn_started_at: datetime
    """When the player to move started thinking (the last move, takeback, or the start)."""
    deadline: datetime
    plies: int


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A stored ply: ``ply`` counts from 1."""

    ply: int
    side: Side
    notation: str
    captures: tuple[str, ...]
    played_at: datetime


class Store(ABC):
    """Games, moves, challenges and offers in one database: a SQLite file or PostgreSQL.

    ``reading()`` gives a session for reads, ``transaction()`` one whose writes are committed
    together at the end, or not at all. ``open_store`` opens the right kind.
    """

    dialect: ClassVar[str]
    """``sqlite`` or ``postgresql``: also the name of its migrations folder."""
    shared: ClassVar[bool]
    """Whether several bot processes may use the database at once (else one owns it)."""

    @classmethod
    @abstractmethod
    async def open(
        cls, target: str | Path, migrations: Path | None = None, *, migrate: bool = True
    ) -> Store:
        """Open the store at ``target`` and apply any pending ``migrations`` (default: the
        project's for this dialect; none if not ``migrate``)."""

    @property
    @abstractmethod
    def target(self) -> str | Path:
        """What the store was opened with: the file, or the URL."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    def reading(self) -> AbstractAsyncContextManager[Session]:
        """A session for reads (it sees only committed data)."""

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Session]:
        """A session whose writes are committed together at the end, or not at all."""

    @abstractmethod
    def leading(self, job: str) -> AbstractAsyncContextManager[bool]:
        """Whether this process may do background ``job`` now (True for one holder at a time,
        across every process on the database, until the block ends); False: another does it."""

    @classmethod
    def migrations(cls) -> Path:
        """The folder of this dialect's numbered migrations."""
        return MIGRATIONS / cls.dialect

    async def schema_version(self) -> int:
        """The number of the last migration applied."""
        async with self.reading() as session:
            return await session.schema_version()


class Session(ABC):
    """The queries, on a connection a ``Store`` has handed out.

    In a write transaction (``writing``), the reads a decision rests on lock what they read
    until the commit (the challenge being answered, the game's version, the channel), so that
    two processes deciding at once decide one after the other.
    """

    integrity_error: ClassVar[type[Exception]]
    """What the driver raises when a constraint (unique, foreign key, check) refuses a write."""
    _for_update: ClassVar[str] = ""
    """Added to a locking read in a write transaction."""

    def __init__(self, writing: bool) -> None:
        self.writing = writing

    # -- what each dialect supplies ----------------------------------------------------------

    @abstractmethod
    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows of a statement written with ``?`` placeholders."""

    @abstractmethod
    async def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a write; the number of rows it changed."""

    @abstractmethod
    async def _execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    @abstractmethod
    def _time_param(self, moment: datetime) -> Any:
        """How a time (aware, UTC) is passed to the database."""

    @abstractmethod
    async def _commit_without_waiting(self) -> None:
        """Let this transaction's commit return before its writes reach the disk."""

    @abstractmethod
    async def _lock_channel(self, channel: Channel) -> None:
        """Hold the channel until the transaction ends (nothing to do where writes are serial)."""

    @abstractmethod
    async def schema_version(self) -> int: ...

    @abstractmethod
    async def table_names(self) -> list[str]:
        """The project's tables (not the migration bookkeeping), by name."""

    @abstractmethod
    async def after_copy(self, table: str) -> None:
        """Let new rows of ``table`` get ids after those just copied in (where ids need it)."""

    # -- helpers -----------------------------------------------------------------------------

    async def _row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self._rows(sql, params)
        return rows[0] if rows else None

    def _time(self, moment: datetime) -> Any:
        return self._time_param(utc(moment))

    def _locking(self) -> str:
        return self._for_update if self.writing else ""

    # -- games ---------------------------------------------------------------------------------

    async def insert_game(
        self,
        channel: Channel,
        variant: str,
        rules_string: str,
        players: dict[Side, Player],
        now: datetime,
        time_control: str = "none",
        deadline: datetime | None = None,
        parent: Channel | None = None,
        rated: bool = False,
    ) -> int:
        """A new active game (in a thread of ``parent``, if given); ChannelBusy if the channel
        already has one."""
        stamp = self._time(now)
        if await self.active_game_id(channel) is not None:
            raise ChannelBusy
        try:
            row = await self._row(
                "INSERT INTO games (guild, channel, variant, rules_string, created_at, updated_at,"
                " time_control, runs_out_at, parent_channel, rated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (channel.guild, channel.id, variant, rules_string, stamp, stamp, time_control,
                 None if deadline is None else self._time(deadline),
                 None if parent is None else parent.id, int(rated)),
            )  # fmt: skip
        except self.integrity_error:
            raise ChannelBusy from None
        assert row is not None
        game_id = int(row["id"])
        await self._execute_many(
            "INSERT INTO game_players (game_id, side, player_id, player_name) VALUES (?, ?, ?, ?)",
            [(game_id, str(side), p.id, p.name) for side, p in players.items()],
        )
        return game_id

    async def active_game_id(self, channel: Channel) -> int | None:
        if self.writing:
            await self._lock_channel(channel)
        row = await self._row(
            "SELECT id FROM games WHERE channel = ? AND status = 'active'", (channel.id,)
        )
        return None if row is None else int(row["id"])

    async def games_with_ai(self) -> list[int]:
        """The active games in which the AI (at any level) plays, oldest first."""
        rows = await self._rows(
            "SELECT DISTINCT games.id FROM games"
            " JOIN game_players ON game_players.game_id = games.id"
            " WHERE games.status = 'active' AND game_players.player_id LIKE 'ai:%'"
            " ORDER BY games.id"
        )
        return [int(row["id"]) for row in rows]

    async def game(self, game_id: int) -> GameRow | None:
        row = await self._row("SELECT * FROM games WHERE id = ?", (game_id,))
        if row is None:
            return None
        players = await self._rows(
            "SELECT side, player_id, player_name FROM game_players WHERE game_id = ?", (game_id,)
        )
        return GameRow(
            id=int(row["id"]),
            channel=Channel(row["channel"], row["guild"]),
            variant=row["variant"],
            rules_string=row["rules_string"],
            players={Side(p["side"]): Player(p["player_id"], p["player_name"]) for p in players},
            status=GameStatus(row["status"]),
            outcome=(
                None
                if row["reason"] is None
                else Outcome(_side_or_none(row["winner"]), Reason(row["reason"]))
            ),
            version=int(row["version"]),
            created_at=read_time(row["created_at"]),
            updated_at=read_time(row["updated_at"]),
            finished_at=_time_or_none(row["finished_at"]),
            time_control=row["time_control"],
            parent=(
                None
                if row["parent_channel"] is None
                else Channel(row["parent_channel"], row["guild"])
            ),
            rated=bool(row["rated"]),
            takebacks=int(row["takebacks"]),
        )

    async def set_deadline(self, game_id: int, deadline: datetime | None) -> None:
        """When the player to move runs out of time (None: no clock runs now)."""
        await self._execute(
            "UPDATE games SET runs_out_at = ? WHERE id = ?",
            (None if deadline is None else self._time(deadline), game_id),
        )

    async def running_clocks(self, due_by: datetime | None = None) -> list[ClockRow]:
        """The active games whose clock runs (only those out of time at ``due_by``, if given),
        soonest deadline first."""
        rows = await self._rows(
            "SELECT id, time_control, updated_at, runs_out_at,"
            " (SELECT count(*) FROM moves WHERE moves.game_id = games.id) AS plies"
            " FROM games WHERE status = 'active' AND runs_out_at IS NOT NULL"
            " AND (CAST(? AS TEXT) IS NULL OR runs_out_at <= ?) ORDER BY runs_out_at, id",
            (None if due_by is None else "due",
             None if due_by is None else self._time(due_by)),
        )  # fmt: skip
        return [
            ClockRow(
                game_id=int(r["id"]),
                time_control=r["time_control"],
                turn_started_at=read_time(r["updated_at"]),
                deadline=read_time(r["runs_out_at"]),
                plies=int(r["plies"]),
            )
            for r in rows
        ]

    async def record_reminder(self, game_id: int, ply: int, stage: str, now: datetime) -> bool:
        """Note a turn reminder sent; False if that one was sent already."""
        changed = await self._execute(
            "INSERT INTO reminders (game_id, ply, stage, sent_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (game_id, ply, stage, self._time(now)),
        )
        return changed == 1

    async def game_version(self, game_id: int) -> int | None:
        row = await self._row("SELECT version FROM games WHERE id = ?", (game_id,))
        return None if row is None else int(row["version"])

    async def finished_game_ids(self, limit: int, guild: str | None = None) -> list[int]:
        """The latest finished games, newest first."""
        rows = await self._rows(
            "SELECT id FROM games WHERE status = 'finished'"
            " AND (CAST(? AS TEXT) IS NULL OR guild = ?)"
            " ORDER BY finished_at DESC, id DESC LIMIT ?",
            (guild, guild, limit),
        )
        return [int(r["id"]) for r in rows]

    async def claim_version(self, game_id: int, version: int, now: datetime) -> int:
        """Move an active game from ``version`` to the next; MoveConflict if it is not there."""
        changed = await self._execute(
            "UPDATE games SET version = version + 1, updated_at = ?"
            " WHERE id = ? AND version = ? AND status = 'active'",
            (self._time(now), game_id, version),
        )
        if changed != 1:
            raise MoveConflict
        return version + 1

    async def expect_version(self, game_id: int, version: int) -> None:
        """MoveConflict unless the game is active and still at ``version``."""
        row = await self._row(
            "SELECT 1 FROM games WHERE id = ? AND version = ? AND status = 'active'"
            + self._locking(),
            (game_id, version),
        )
        if row is None:
            raise MoveConflict

    async def finish_game(
        self, game_id: int, outcome: Outcome, now: datetime, plies: int, *, rated: bool
    ) -> None:
        """Record the result after ``plies`` plies, and whether it counts for ratings (call
        after ``claim_version`` in the same transaction)."""
        await self._execute(
            "UPDATE games SET status = 'finished', winner = ?, reason = ?, finished_at = ?,"
            " plies = ?, rated = ? WHERE id = ?",
            (_text_or_none(outcome.winner), str(outcome.reason), self._time(now), plies,
             int(rated), game_id),
        )  # fmt: skip

    async def count_takeback(self, game_id: int) -> None:
        """Note one more takeback allowed in the game."""
        await self._execute("UPDATE games SET takebacks = takebacks + 1 WHERE id = ?", (game_id,))

    async def set_final_message(self, game_id: int, message_ref: str) -> None:
        """Remember which message shows the game's final board."""
        await self._execute(
            "UPDATE games SET final_message_ref = ? WHERE id = ?", (message_ref, game_id)
        )

    # -- moves ---------------------------------------------------------------------------------

    async def moves(self, game_id: int) -> list[MoveRow]:
        rows = await self._rows(
            "SELECT ply, side, notation, captures, played_at FROM moves"
            " WHERE game_id = ? ORDER BY ply",
            (game_id,),
        )
        return [
            MoveRow(
                ply=int(r["ply"]),
                side=Side(r["side"]),
                notation=r["notation"],
                captures=tuple(r["captures"].split()),
                played_at=read_time(r["played_at"]),
            )
            for r in rows
        ]

    async def insert_move(self, game_id: int, number: int, ply: Ply, played_at: datetime) -> None:
        """Store ``ply`` as ply ``number`` (from 1) of the game."""
        await self._execute(
            "INSERT INTO moves (game_id, ply, side, notation, captures, played_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, number, str(ply.side), ply.notation, " ".join(ply.captures),
             self._time(played_at)),
        )  # fmt: skip

    async def delete_moves_after(self, game_id: int, keep: int) -> None:
        """Take back every ply after the first ``keep``."""
        await self._execute("DELETE FROM moves WHERE game_id = ? AND ply > ?", (game_id, keep))

    # -- challenges ----------------------------------------------------------------------------

    async def insert_challenge(
        self,
        channel: Channel,
        challenger: Player,
        opponent: Player | None,
        variant: str,
        side: str,
        created_at: datetime,
        expires_at: datetime,
        time_control: str = "none",
        *,
        thread: bool = False,
        rematch_of: int | None = None,
        rated: bool = False,
    ) -> Challenge:
        """A new open challenge (a second open rematch of a game is refused by the database:
        ``integrity_error``)."""
        row = await self._row(
            "INSERT INTO challenges (guild, channel, challenger_id, challenger_name, opponent_id,"
            " opponent_name, variant, side, created_at, expires_at, time_control, thread,"
            " rematch_of, rated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
            (channel.guild, channel.id, challenger.id, challenger.name,
             opponent.id if opponent else None, opponent.name if opponent else None,
             variant, side, self._time(created_at), self._time(expires_at), time_control,
             int(thread), rematch_of, int(rated)),
        )  # fmt: skip
        assert row is not None
        return _challenge(row)

    async def open_rematch(self, game_id: int, now: datetime) -> Challenge | None:
        """The open, unexpired rematch challenge of a finished game, if any."""
        row = await self._row(
            "SELECT * FROM challenges WHERE rematch_of = ? AND status = 'open'"
            " AND expires_at > ?" + self._locking(),
            (game_id, self._time(now)),
        )
        return None if row is None else _challenge(row)

    async def challenge(self, challenge_id: int) -> Challenge | None:
        row = await self._row(
            "SELECT * FROM challenges WHERE id = ?" + self._locking(), (challenge_id,)
        )
        return None if row is None else _challenge(row)

    async def close_challenge(
        self,
        challenge_id: int,
        status: ChallengeStatus,
        opponent: Player | None = None,
        game_id: int | None = None,
    ) -> bool:
        """Move an open challenge to ``status`` (recording who accepted and the game if given);
        False if it was no longer open."""
        changed = await self._execute(
            "UPDATE challenges SET status = ?,"
            " opponent_id = coalesce(?, opponent_id), opponent_name = coalesce(?, opponent_name),"
            " game_id = coalesce(?, game_id)"
            " WHERE id = ? AND status = 'open'",
            (str(status), opponent.id if opponent else None, opponent.name if opponent else None,
             game_id, challenge_id),
        )  # fmt: skip
        return changed == 1

    async def attach_message(self, challenge_id: int, message_ref: str) -> bool:
        """Record which message shows the challenge; False if there is no such challenge."""
        changed = await self._execute(
            "UPDATE challenges SET message_ref = ? WHERE id = ?", (message_ref, challenge_id)
        )
        return changed == 1

    async def expire_challenges(self, now: datetime) -> list[Challenge]:
        """Mark the open challenges due at ``now`` expired; return them as they are now."""
        rows = await self._rows(
            "UPDATE challenges SET status = 'expired' WHERE status = 'open' AND expires_at <= ?"
            " RETURNING *",
            (self._time(now),),
        )
        return sorted((_challenge(r) for r in rows), key=lambda c: c.id)

    async def open_challenges(self, channel: Channel) -> list[Challenge]:
        rows = await self._rows(
            "SELECT * FROM challenges WHERE channel = ? AND status = 'open' ORDER BY id",
            (channel.id,),
        )
        return [_challenge(r) for r in rows]

    # -- settings ------------------------------------------------------------------------------

    async def guild_settings(self, guild: str) -> GuildSettings | None:
        """A server's settings; None if it never changed any."""
        row = await self._row("SELECT * FROM guild_settings WHERE guild = ?", (guild,))
        if row is None:
            return None
        return GuildSettings(
            guild=row["guild"],
            variant=row["variant"],
            time_control=row["time_control"],
            threads=None if row["threads"] is None else bool(row["threads"]),
            channels=tuple(row["channels"].split()),
            reminders=None if row["reminders"] is None else ReminderStyle(row["reminders"]),
        )

    async def save_guild_settings(self, settings: GuildSettings, now: datetime) -> None:
        """Store a server's settings (all of them, replacing what was there)."""
        await self._execute(
            "INSERT INTO guild_settings"
            " (guild, variant, time_control, threads, channels, reminders, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild) DO UPDATE SET"
            " variant = excluded.variant, time_control = excluded.time_control,"
            " threads = excluded.threads, channels = excluded.channels,"
            " reminders = excluded.reminders, updated_at = excluded.updated_at",
            (settings.guild, settings.variant, settings.time_control,
             None if settings.threads is None else int(settings.threads),
             " ".join(settings.channels), _text_or_none(settings.reminders), self._time(now)),
        )  # fmt: skip

    async def player_reminders(self, player_id: str) -> ReminderStyle | None:
        """Where a player asked for their reminders to go; None if they never said."""
        row = await self._row(
            "SELECT reminders FROM player_settings WHERE player_id = ?", (player_id,)
        )
        return None if row is None else ReminderStyle(row["reminders"])

    async def set_player_reminders(
        self, player_id: str, style: ReminderStyle, now: datetime
    ) -> None:
        await self._execute(
            "INSERT INTO player_settings (player_id, reminders, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (player_id) DO UPDATE SET reminders = excluded.reminders,"
            " updated_at = excluded.updated_at",
            (player_id, str(style), self._time(now)),
        )

    # -- offers --------------------------------------------------------------------------------

    async def insert_offer(
        self, game_id: int, kind: OfferKind, by: Player, to: Player, ply: int, now: datetime
    ) -> Offer:
        row = await self._row(
            "INSERT INTO offers (game_id, kind, by_id, by_name, to_id, to_name, ply, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
            (game_id, str(kind), by.id, by.name, to.id, to.name, ply, self._time(now)),
        )
        assert row is not None
        return _offer(row)

    async def offer(self, offer_id: int) -> Offer | None:
        row = await self._row("SELECT * FROM offers WHERE id = ?", (offer_id,))
        return None if row is None else _offer(row)

    async def open_offers(self, game_id: int) -> list[Offer]:
        rows = await self._rows(
            "SELECT * FROM offers WHERE game_id = ? AND status = 'open' ORDER BY id", (game_id,)
        )
        return [_offer(r) for r in rows]

    async def close_offer(self, offer_id: int, status: OfferStatus) -> bool:
        """Move an open offer to ``status``; False if it was no longer open."""
        changed = await self._execute(
            "UPDATE offers SET status = ? WHERE id = ? AND status = 'open'",
            (str(status), offer_id),
        )
        return changed == 1

    async def void_offers(self, game_id: int) -> None:
        """Void the game's open offers (a move was played, or the game changed otherwise)."""
        await self._execute(
            "UPDATE offers SET status = 'void' WHERE game_id = ? AND status = 'open'", (game_id,)
        )

    # -- announcements (the outbox) ------------------------------------------------------------

    async def insert_announcement(
        self, game_id: int, kind: AnnouncementKind, ply: int, now: datetime
    ) -> None:
        """Note that the game's channel must be shown ``kind`` after ``ply`` plies."""
        await self._execute(
            "INSERT INTO announcements (game_id, kind, ply, created_at) VALUES (?, ?, ?, ?)",
            (game_id, str(kind), ply, self._time(now)),
        )

    async def pending_announcements(
        self, channel_prefix: str, created_before: datetime, now: datetime, limit: int
    ) -> list[Announcement]:
        """Announcements not posted yet in the channels whose ids start with ``channel_prefix``,
        made before ``created_before`` and due for a try at ``now``; oldest first."""
        rows = await self._rows(
            "SELECT game_id, kind, ply, announcements.created_at, attempts FROM announcements"
            " JOIN games ON games.id = announcements.game_id"
            " WHERE posted_at IS NULL AND substr(games.channel, 1, length(CAST(? AS TEXT))) = ?"
            " AND announcements.created_at <= ?"
            " AND (next_attempt_at IS NULL OR next_attempt_at <= ?)"
            " ORDER BY announcements.id LIMIT ?",
            (channel_prefix, channel_prefix, self._time(created_before), self._time(now), limit),
        )
        return [
            Announcement(
                game_id=int(r["game_id"]),
                kind=AnnouncementKind(r["kind"]),
                ply=int(r["ply"]),
                created_at=read_time(r["created_at"]),
                attempts=int(r["attempts"]),
            )
            for r in rows
        ]

    async def mark_announced(
        self, game_id: int, kind: AnnouncementKind, ply: int, now: datetime
    ) -> bool:
        """Mark an announcement posted; False if there was none pending."""
        changed = await self._execute(
            "UPDATE announcements SET posted_at = ?"
            " WHERE game_id = ? AND kind = ? AND ply = ? AND posted_at IS NULL",
            (self._time(now), game_id, str(kind), ply),
        )
        return changed == 1

    async def announcement_failed(
        self, game_id: int, kind: AnnouncementKind, ply: int, retry_at: datetime
    ) -> None:
        """Count a failed post and put the next try off until ``retry_at``."""
        await self._execute(
            "UPDATE announcements SET attempts = attempts + 1, next_attempt_at = ?"
            " WHERE game_id = ? AND kind = ? AND ply = ? AND posted_at IS NULL",
            (self._time(retry_at), game_id, str(kind), ply),
        )

    async def drop_announcements_after(self, game_id: int, keep: int) -> None:
        """Forget the announcements of plies taken back (every ply after the first ``keep``)."""
        await self._execute(
            "DELETE FROM announcements WHERE game_id = ? AND ply > ?", (game_id, keep)
        )

    # -- events claimed by one process -------------------------------------------------------

    async def claim_event(self, event_id: str, now: datetime) -> bool:
        """Claim the adapter's event ``event_id`` for this process; False if one already has.
        The claim does not wait for the disk: one lost in a crash went with its event."""
        await self._commit_without_waiting()
        changed = await self._execute(
            "INSERT INTO interactions (id, claimed_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
            (event_id, self._time(now)),
        )
        return changed == 1

    async def forget_events(self, claimed_before: datetime) -> None:
        """Delete the claims made before ``claimed_before`` (their events are long answered)."""
        await self._execute(
            "DELETE FROM interactions WHERE claimed_at < ?", (self._time(claimed_before),)
        )

    # -- ratings -------------------------------------------------------------------------------

    async def standings(
        self, players: Sequence[Player], variant: str, scopes: Sequence[str]
    ) -> dict[tuple[str, str], Standing]:
        """The stored standings of ``players`` in ``variant`` and ``scopes``, by player id and
        scope; a player without one in a scope is left out."""
        ids = [p.id for p in players]
        rows = await self._rows(
            f"SELECT * FROM ratings WHERE variant = ? AND scope IN ({_marks(scopes)})"
            f" AND player_id IN ({_marks(ids)})",
            (variant, *scopes, *ids),
        )
        return {(r["player_id"], r["scope"]): _standing(r) for r in rows}

    async def claim_standings(
        self, players: Sequence[Player], variant: str, scopes: Sequence[str], now: datetime
    ) -> dict[tuple[str, str], Standing]:
        """The standings of ``players`` in ``variant`` and ``scopes`` (a new one for a player
        without), held until the transaction ends: a game finishing at the same moment in
        another process waits, then reads what this one wrote. Locked in one order (player,
        scope), so that two such games never wait for each other."""
        keys = sorted({(p.id, scope): p for p in players for scope in scopes}.items())
        fresh = [Standing(p, variant, scope) for (_, scope), p in keys]
        stamp = self._time(now)
        await self._execute(
            "INSERT INTO ratings (player_id, variant, scope, player_name, rating, deviation,"
            " volatility, games, wins, draws, losses, updated_at) VALUES "
            + ", ".join(f"({_marks(range(12))})" for _ in fresh)
            + " ON CONFLICT (player_id, variant, scope) DO NOTHING",
            [value for s in fresh for value in (*_standing_values(s), stamp)],
        )
        ids = [p.id for p in players]
        rows = await self._rows(
            f"SELECT * FROM ratings WHERE variant = ? AND scope IN ({_marks(scopes)})"
            f" AND player_id IN ({_marks(ids)}) ORDER BY player_id, scope" + self._locking(),
            (variant, *scopes, *ids),
        )
        return {(r["player_id"], r["scope"]): _standing(r) for r in rows}

    async def save_standings(
        self, game_id: int, standings: Sequence[Standing], now: datetime
    ) -> None:
        """Store each standing as it is after game ``game_id`` (finished ``now``), and note it
        in the rating history: two statements, whatever the number of standings."""
        stamp = self._time(now)
        await self._execute(
            "INSERT INTO ratings (player_id, variant, scope, player_name, rating, deviation,"
            " volatility, games, wins, draws, losses, updated_at) VALUES "
            + ", ".join(f"({_marks(range(12))})" for _ in standings)
            + " ON CONFLICT (player_id, variant, scope) DO UPDATE SET"
            " player_name = excluded.player_name, rating = excluded.rating,"
            " deviation = excluded.deviation, volatility = excluded.volatility,"
            " games = excluded.games, wins = excluded.wins, draws = excluded.draws,"
            " losses = excluded.losses, updated_at = excluded.updated_at",
            [value for s in standings for value in (*_standing_values(s), stamp)],
        )
        await self._execute(
            "INSERT INTO rating_history (game_id, player_id, scope, variant, rating, deviation,"
            " volatility, rated_at) VALUES "
            + ", ".join(f"({_marks(range(8))})" for _ in standings),
            [value for s in standings
             for value in (game_id, s.player.id, s.scope, s.variant, s.rating.rating,
                           s.rating.deviation, s.rating.volatility, stamp)],
        )  # fmt: skip

    async def insert_rating_history(
        self, points: Iterable[tuple[int, str, str, str, Rating, datetime]]
    ) -> None:
        """Rows of the rating history: game, player id, scope, variant, rating after, when."""
        await self._execute_many(
            "INSERT INTO rating_history (game_id, player_id, scope, variant, rating, deviation,"
            " volatility, rated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(game_id, player_id, scope, variant, r.rating, r.deviation, r.volatility,
              self._time(at)) for game_id, player_id, scope, variant, r, at in points],
        )  # fmt: skip

    async def replace_standings(self, standings: Iterable[tuple[Standing, datetime]]) -> None:
        """Every standing at once (each with when it last changed), after ``clear_ratings``."""
        await self._execute_many(
            "INSERT INTO ratings (player_id, variant, scope, player_name, rating, deviation,"
            " volatility, games, wins, draws, losses, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*_standing_values(s), self._time(at)) for s, at in standings],
        )

    async def clear_ratings(self) -> None:
        """Forget every rating and its history (before they are rebuilt)."""
        await self._execute("DELETE FROM rating_history")
        await self._execute("DELETE FROM ratings")

    async def leaderboard(self, variant: str, scope: str, limit: int) -> list[Standing]:
        """The best ``limit`` standings of ``variant`` in ``scope``, best first."""
        rows = await self._rows(
            "SELECT * FROM ratings WHERE variant = ? AND scope = ?"
            " ORDER BY rating DESC, player_id LIMIT ?",
            (variant, scope, limit),
        )
        return [_standing(r) for r in rows]

    async def place(self, standing: Standing) -> int:
        """Where ``standing`` ranks on its leaderboard (1 for the best)."""
        row = await self._row(
            "SELECT count(*) FROM ratings WHERE variant = ? AND scope = ?"
            " AND (rating > ? OR (rating = ? AND player_id < ?))",
            (standing.variant, standing.scope, standing.rating.rating, standing.rating.rating,
             standing.player.id),
        )  # fmt: skip
        assert row is not None
        return int(row[0]) + 1

    async def player_standings(self, player_id: str, scope: str) -> list[Standing]:
        """``player_id``'s standings in ``scope``, the variant with the most games first."""
        rows = await self._rows(
            "SELECT * FROM ratings WHERE player_id = ? AND scope = ? ORDER BY games DESC, variant",
            (player_id, scope),
        )
        return [_standing(r) for r in rows]

    async def rating_history(
        self, player_id: str, variant: str, scope: str, limit: int
    ) -> list[RatingPoint]:
        """``player_id``'s rating after each of their last ``limit`` rated games of ``variant``
        in ``scope``, oldest first."""
        rows = await self._rows(
            "SELECT game_id, rating, deviation, volatility, rated_at FROM rating_history"
            " WHERE player_id = ? AND variant = ? AND scope = ?"
            " ORDER BY rated_at DESC, game_id DESC LIMIT ?",
            (player_id, variant, scope, limit),
        )
        rows.reverse()
        return [
            RatingPoint(
                game_id=int(r["game_id"]),
                rating=Rating(r["rating"], r["deviation"], r["volatility"]),
                at=read_time(r["rated_at"]),
            )
            for r in rows
        ]

    async def rating_changes(self, game_id: int, scope: str) -> list[tuple[Standing, Rating]]:
        """Each player's standing's rating before and after game ``game_id`` in ``scope`` (the
        standing's name and counts as they are now); empty for an unrated game."""
        rows = await self._rows(
            "SELECT h.player_id, h.variant, h.rating, h.deviation, h.volatility, h.rated_at,"
            " r.player_name, r.games, r.wins, r.draws, r.losses"
            " FROM rating_history h JOIN ratings r ON r.player_id = h.player_id"
            " AND r.variant = h.variant AND r.scope = h.scope"
            " WHERE h.game_id = ? AND h.scope = ? ORDER BY h.player_id",
            (game_id, scope),
        )
        changes = []
        for r in rows:
            earlier = await self._row(
                "SELECT rating, deviation, volatility FROM rating_history"
                " WHERE player_id = ? AND variant = ? AND scope = ?"
                " AND (rated_at < ? OR (rated_at = ? AND game_id < ?))"
                " ORDER BY rated_at DESC, game_id DESC LIMIT 1",
                (r["player_id"], r["variant"], scope, r["rated_at"], r["rated_at"], game_id),
            )
            before = (
                NEW
                if earlier is None
                else Rating(earlier["rating"], earlier["deviation"], earlier["volatility"])
            )
            standing = Standing(
                player=Player(r["player_id"], r["player_name"]),
                variant=r["variant"],
                scope=scope,
                rating=Rating(r["rating"], r["deviation"], r["volatility"]),
                games=int(r["games"]),
                wins=int(r["wins"]),
                draws=int(r["draws"]),
                losses=int(r["losses"]),
            )
            changes.append((standing, before))
        return changes

    async def played_games(
        self,
        player_id: str,
        variant: str | None = None,
        limit: int | None = None,
        *,
        longest_first: bool = False,
    ) -> list[PlayedGame]:
        """``player_id``'s finished games (of ``variant`` if given), newest first (or longest
        first); not the void ones, which count for nobody."""
        order = "g.plies DESC, g.id" if longest_first else "g.finished_at DESC, g.id DESC"
        rows = await self._rows(
            "SELECT g.id, g.variant, g.guild, g.winner, g.reason, g.plies, g.finished_at,"
            " g.rated, g.final_message_ref, picked.side, them.player_id AS opponent_id,"
            " them.player_name AS opponent_name"
            " FROM (SELECT me.game_id, me.side FROM game_players me"
            " JOIN games g ON g.id = me.game_id"
            f" WHERE me.player_id = ? AND g.status = 'finished' AND {_COUNTED}"
            " AND (CAST(? AS TEXT) IS NULL OR g.variant = ?)"
            f" ORDER BY {order}{'' if limit is None else ' LIMIT ?'}) picked"
            " JOIN games g ON g.id = picked.game_id"
            " JOIN game_players them ON them.game_id = g.id AND them.side <> picked.side"
            f" ORDER BY {order}",
            (player_id, variant, variant) + (() if limit is None else (limit,)),
        )
        return [
            PlayedGame(
                game_id=int(r["id"]),
                variant=r["variant"],
                side=Side(r["side"]),
                opponent=Player(r["opponent_id"], r["opponent_name"]),
                winner=_side_or_none(r["winner"]),
                reason=Reason(r["reason"]),
                plies=int(r["plies"] or 0),
                finished_at=read_time(r["finished_at"]),
                guild=r["guild"],
                rated=bool(r["rated"]),
                final_message_ref=r["final_message_ref"],
            )
            for r in rows
        ]

    async def tallies(self, player_id: str) -> dict[tuple[str, Side, Result], int]:
        """How many finished games ``player_id`` won, drew and lost, by variant and side (void
        games are none of these)."""
        rows = await self._rows(
            "SELECT g.variant, me.side, g.winner, count(*) AS n FROM game_players me"
            " JOIN games g ON g.id = me.game_id"
            f" WHERE me.player_id = ? AND g.status = 'finished' AND {_COUNTED}"
            " GROUP BY g.variant, me.side, g.winner",
            (player_id,),
        )
        counts: dict[tuple[str, Side, Result], int] = {}
        for r in rows:
            side = Side(r["side"])
            key = (r["variant"], side, Result.of(_side_or_none(r["winner"]), side))
            counts[key] = counts.get(key, 0) + int(r["n"])
        return counts

    async def player_name(self, player_id: str) -> str | None:
        """The name ``player_id`` played their last game under; None if they never played."""
        row = await self._row(
            "SELECT player_name FROM game_players WHERE player_id = ?"
            " ORDER BY game_id DESC LIMIT 1",
            (player_id,),
        )
        return None if row is None else str(row["player_name"])

    async def rated_games(self) -> list[RatedGame]:
        """Every finished rated game, in the order they count (as they finished)."""
        rows = await self._rows(
            "SELECT g.id, g.guild, g.variant, g.winner, g.finished_at, p.side, p.player_id,"
            " p.player_name FROM games g JOIN game_players p ON p.game_id = g.id"
            " WHERE g.status = 'finished' AND g.rated = 1 ORDER BY g.finished_at, g.id"
        )
        games: dict[int, RatedGame] = {}
        for r in rows:
            game_id = int(r["id"])
            game = games.get(game_id)
            if game is None:
                game = games[game_id] = RatedGame(
                    id=game_id,
                    guild=r["guild"],
                    variant=r["variant"],
                    players={},
                    winner=_side_or_none(r["winner"]),
                    finished_at=read_time(r["finished_at"]),
                )
            game.players[Side(r["side"])] = Player(r["player_id"], r["player_name"])
        return list(games.values())

    # -- whole tables (for tests and tools) ----------------------------------------------------

    async def table_rows(self, table: str) -> list[dict[str, Any]]:
        """Every row of ``table``, by column name."""
        rows = await self._rows(f'SELECT * FROM "{_known(table, await self.table_names())}"')
        return [{key: row[key] for key in row.keys()} for row in rows]  # noqa: SIM118 (a row
        # iterates over its values)

    async def row_count(self, table: str) -> int:
        row = await self._row(f'SELECT count(*) FROM "{_known(table, await self.table_names())}"')
        assert row is not None
        return int(row[0])

    async def insert_rows(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Insert rows as ``table_rows`` gives them (times of either database, as read)."""
        if not rows:
            return
        columns = list(rows[0])
        await self._execute_many(
            f'INSERT INTO "{_known(table, await self.table_names())}"'
            f" ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            [
                [self._copied(column, row[column]) for column in columns]
                for row in rows
            ],
        )  # fmt: skip

    async def delete_rows(self, table: str) -> None:
        await self._execute(f'DELETE FROM "{_known(table, await self.table_names())}"')

    def _copied(self, column: str, value: Any) -> Any:
        """A value read from either database, as this one takes it: every time column's
        name ends in ``_at`` (a test holds the migrations to it)."""
        if value is None or not column.endswith("_at"):
            return value
        return self._time(read_time(value))

    async def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, in a fixed order: to compare the database before and after."""
        dump: dict[str, list[tuple[Any, ...]]] = {}
        for name in await self.table_names():
            rows = await self._rows(f'SELECT * FROM "{name}"')
            dump[name] = sorted((tuple(r[i] for i in range(len(r))) for r in rows), key=repr)
        return dump


# -- migrations --------------------------------------------------------------------------------


def migration_files(folder: Path) -> list[tuple[int, Path]]:
    """The migrations in ``folder`` by number; ValueError for a misnamed or repeated number."""
    found: dict[int, Path] = {}
    for path in sorted(folder.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise ValueError(f"migration {path.name!r} should be named like 0002_add_clocks.sql")
        number = int(match[1])
        if number in found:
            raise ValueError(f"two migrations are numbered {number}: {found[number].name}, {path}")
        found[number] = path
    return sorted(found.items())


def newest_migration(folder: Path) -> int:
    """The number of the last migration in ``folder`` (0 if there is none)."""
    files = migration_files(folder)
    return files[-1][0] if files else 0


# -- conversions -------------------------------------------------------------------------------


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC; ValueError for a naive time."""
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware; the clock should return UTC times")
    return moment.astimezone(UTC)


def read_time(value: str | datetime) -> datetime:
    """A stored time: ISO 8601 text (SQLite) or a ``timestamptz`` (PostgreSQL)."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value.astimezone(UTC)


def _time_or_none(value: str | datetime | None) -> datetime | None:
    return None if value is None else read_time(value)


def _text_or_none(value: object | None) -> str | None:
    return None if value is None else str(value)


def _side_or_none(text: str | None) -> Side | None:
    return None if text is None else Side(text)


def _known(table: str, tables: list[str]) -> str:
    if table not in tables:
        raise ValueError(f"there is no table {table!r}; the tables are {', '.join(tables)}")
    return table


def _challenge(row: Row) -> Challenge:
    opponent = row["opponent_id"]
    return Challenge(
        id=int(row["id"]),
        channel=Channel(row["channel"], row["guild"]),
        challenger=Player(row["challenger_id"], row["challenger_name"]),
        opponent=None if opponent is None else Player(opponent, row["opponent_name"]),
        variant=row["variant"],
        side=row["side"],
        status=ChallengeStatus(row["status"]),
        created_at=read_time(row["created_at"]),
        expires_at=read_time(row["expires_at"]),
        game_id=None if row["game_id"] is None else int(row["game_id"]),
        message_ref=row["message_ref"],
        time_control=row["time_control"],
        thread=bool(row["thread"]),
        rematch_of=None if row["rematch_of"] is None else int(row["rematch_of"]),
        rated=bool(row["rated"]),
    )


def _marks(values: Sized) -> str:
    """``?, ?, ?``: a placeholder for each of ``values``."""
    return ", ".join("?" * len(values))


def _standing(row: Row) -> Standing:
    return Standing(
        player=Player(row["player_id"], row["player_name"]),
        variant=row["variant"],
        scope=row["scope"],
        rating=Rating(row["rating"], row["deviation"], row["volatility"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
        draws=int(row["draws"]),
        losses=int(row["losses"]),
    )


def _standing_values(s: Standing) -> tuple[Any, ...]:
    """A standing's columns of ``ratings``, but for ``updated_at``."""
    return (s.player.id, s.variant, s.scope, s.player.name, s.rating.rating, s.rating.deviation,
            s.rating.volatility, s.games, s.wins, s.draws, s.losses)  # fmt: skip


def _offer(row: Row) -> Offer:
    return Offer(
        id=int(row["id"]),
        game_id=int(row["game_id"]),
        kind=OfferKind(row["kind"]),
        by=Player(row["by_id"], row["by_name"]),
        to=Player(row["to_id"], row["to_name"]),
        status=OfferStatus(row["status"]),
        ply=int(row["ply"]),
        created_at=read_time(row["created_at"]),
    )
