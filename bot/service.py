"""The game service: every adapter (Discord, terminal...) plays through it and only through it.

It applies the rules with the engine and keeps the games in a Store. All calls are async; each
call that changes something is one transaction, and a refused call changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import datetime, timedelta

import engine
from bot import standings
from bot.clocks import DEFAULT_TIME_CONTROL, Kind, Stage, TimeControl
from bot.compute import Snapshot, think_at_level
from bot.errors import (
    ChallengeClosed,
    ChallengeNotFound,
    ChannelBusy,
    ChannelNotAllowed,
    GameVoided,
    MoveConflict,
    NoGameHere,
    NoLongerReplays,
    NotAPlayer,
    NotForYou,
    NotYourTurn,
    OfferClosed,
    OfferNotFound,
    ServiceError,
    TimeUp,
    TooEarly,
)
from bot.models import (
    GLOBAL_SCOPE,
    RANDOM_SIDE,
    VOID_COUNTS,
    Announcement,
    AnnouncementKind,
    Challenge,
    ChallengeStatus,
    Channel,
    GameState,
    GameStatus,
    GuildSettings,
    MoveResult,
    Offer,
    OfferKind,
    OfferStatus,
    PlayedGame,
    Player,
    PlayerStats,
    Reminder,
    ReminderStyle,
    Report,
    Result,
    Standing,
    build_report,
    format_duration,
    utc_now,
)
from bot.ratings import Rating
from bot.storage import GameRow, MoveRow, Session, Store
from engine import Move, Outcome, Reason, Side, TaflError

log = logging.getLogger(__name__)

AI_ACCEPTS = {OfferKind.DRAW: False, OfferKind.UNDO: True}
"""How the AI answers offers: it allows takebacks and declines draws."""

__all__ = ["CHALLENGE_TTL", "MOVE_TIMEOUT", "GameService", "utc_now"]

CHALLENGE_TTL = timedelta(minutes=15)
MOVE_TIMEOUT = timedelta(hours=24)
"""How long a player may take over a move before the opponent can claim the game."""
AI_TIME_LIMIT = 2.0
"""Seconds the AI may think per move, unless told otherwise."""
EVENT_MEMORY = timedelta(days=1)
"""How long a claimed event is remembered: far longer than any event is delivered again."""
LEADERBOARD_SIZE = 10
ARCHIVE_SIZE = 10
"""The finished games /tafl games lists."""
RECENT_FORM = 10
"""The last results the stats show."""
CHARTED_GAMES = 200
"""The rated games the stats' rating chart goes back."""
RETRY_FIRST = timedelta(minutes=1)
RETRY_LAST = timedelta(hours=1)
"""After a failed post, the next try waits RETRY_FIRST, doubling each time up to RETRY_LAST."""

Thinker = Callable[[Snapshot, float], Awaitable[Move]]
"""How the AI is asked for a move: a snapshot of the game and the seconds it may think."""


async def think_in_thread(snapshot: Snapshot, time_limit: float) -> Move:
    """The AI's move, searched in a thread of this process (the terminal's way)."""
    return await asyncio.to_thread(think_at_level, snapshot, time_limit)


class GameService:
    """Challenges, games, moves and offers, kept in ``store``; ``clock`` gives aware UTC times;
    ``move_timeout`` is how long a player may take over a move before the game can be claimed;
    ``think`` asks the AI for its moves (default: in a thread of this process).

    The store is the truth; games being played are also kept in memory, rebuilt by replaying
    their moves whenever the stored version differs. The ``GameState`` objects handed out are
    those kept ones: they change as the game goes on.
    """

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime] = utc_now,
        *,
        rng: random.Random | None = None,
        ai_time_limit: float = AI_TIME_LIMIT,
        move_timeout: timedelta = MOVE_TIMEOUT,
        think: Thinker = think_in_thread,
    ) -> None:
        if move_timeout <= timedelta(0):
            raise ValueError(f"the move timeout must be positive, not {move_timeout}")
        self._store = store
        self._clock = clock
        self._rng = rng or random.Random()
        self._ai_time_limit = ai_time_limit
        self._move_timeout = move_timeout
        self._think = think
        self._states: dict[int, GameState] = {}
        """Active games by id, as last loaded or played."""
        self._locks: dict[int, asyncio.Lock] = {}
        """One lock per active game: its changes are made one at a time in this process."""
        self._live = False
        """Whether a live game's clock was running at the last look (the sweep then runs
        every second)."""

    # -- challenges ----------------------------------------------------------------------------

    async def challenge(
        self,
        channel: Channel,
        challenger: Player,
        opponent: Player | None = None,
        variant: str | None = None,
        side: str = RANDOM_SIDE,
        ttl: timedelta = CHALLENGE_TTL,
        time_control: str | None = None,
        rated: bool | None = None,
        *,
        thread: bool | None = None,
        threads_allowed: bool = False,
    ) -> Challenge:
        """Open a challenge in ``channel``; ``opponent`` None lets anyone but the challenger accept;
        ``time_control`` as players write it (``"3d+12h"``, ``"none"``); ``rated`` None: rated
        on a preset variant (custom rules never are). ``variant``, ``time_control`` and
        ``thread`` (play in a thread of its own) default to the server's settings, then to the
        bot's defaults (a thread when ``threads_allowed``: the adapter may start one there).

        ChannelNotAllowed where the server's settings keep the bot out; ChannelBusy if a game
        is being played there (and none is to be in a thread); UnknownVariantError or
        RulesError for a variant that can't be played; TimeControlError for a time control
        that can't be read; ServiceError for an unknown side, a challenge to oneself or a rated
        custom game.
        """
        settings = await self.settings(channel.guild)
        if not settings.allows(channel):
            raise ChannelNotAllowed(settings.channels)
        control = TimeControl.parse(time_control or settings.time_control or DEFAULT_TIME_CONTROL)
        game = engine.new_game(variant or settings.variant or engine.DEFAULT_VARIANT)
        side = _side_wish(game, side)
        rated = _rated(game, rated)
        if opponent is not None and opponent.id == challenger.id:
            raise ServiceError("you can't challenge yourself; challenge someone else, or anyone")
        if thread is None:
            thread = threads_allowed if settings.threads is None else settings.threads
        return await self._open_challenge(
            channel, challenger, opponent, game.rules_string, side, ttl, str(control), thread,
            rated=rated,
        )  # fmt: skip

    async def _open_challenge(
        self,
        channel: Channel,
        challenger: Player,
        opponent: Player | None,
        rules_string: str,
        side: str,
        ttl: timedelta,
        control: str,
        thread: bool,
        rematch_of: int | None = None,
        *,
        rated: bool = False,
    ) -> Challenge:
        if ttl <= timedelta(0):
            raise ValueError("a challenge must stay open for some time")
        now = self._clock()
        async with self._store.transaction() as db:
            if not thread and await db.active_game_id(channel) is not None:
                raise ChannelBusy
            try:
                return await db.insert_challenge(
                    channel, challenger, opponent, rules_string, side, now, now + ttl, control,
                    thread=thread, rematch_of=rematch_of, rated=rated,
                )  # fmt: skip
            except db.integrity_error:  # only a second open rematch of a game breaks a rule
                raise ServiceError(
                    "a rematch was asked for at the same moment; press again"
                ) from None

    async def check_accept(self, challenge_id: int, player: Player) -> Challenge:
        """The challenge, if ``player`` may accept it now (``accept`` may still fail if someone
        comes first); the errors of ``accept``. Nothing changes."""
        async with self._store.reading() as db:
            challenge = _open_challenge(await db.challenge(challenge_id), self._clock())
        _check_accepter(challenge, player)
        return challenge

    async def accept(
        self, challenge_id: int, player: Player, channel: Channel | None = None
    ) -> GameState:
        """Accept a challenge and start its game (sides drawn at random if asked), in the
        challenge's channel or in ``channel`` (a thread started for it).

        ChallengeNotFound, ChallengeClosed, NotForYou (not the challenged player, or the
        challenger), ChannelBusy.
        """
        now = self._clock()
        async with self._store.transaction() as db:
            challenge = _open_challenge(await db.challenge(challenge_id), now)
            _check_accepter(challenge, player)
            game = engine.new_game(challenge.variant)
            players = self._seat(game, challenge.challenger, player, challenge.side)
            control = TimeControl.parse(challenge.time_control)
            where = challenge.channel if channel is None else channel
            parent = None if where.id == challenge.channel.id else challenge.channel
            game_id = await db.insert_game(
                where, game.variant, game.rules_string, players, now,
                str(control), _first_deadline(control, players[game.rules.first], now), parent,
                challenge.rated,
            )  # fmt: skip
            if not await db.close_challenge(
                challenge_id, ChallengeStatus.ACCEPTED, player, game_id
            ):
                raise ChallengeClosed
        return await self.get_game(game_id)

    async def rematch(self, game_id: int, player: Player) -> Challenge:
        """``player`` asks to play a finished game again: the same rules and time control,
        sides swapped, in the channel it was challenged in (in a thread again if it was in
        one). Returns the new challenge, addressed to the opponent; or, when the opponent has
        asked already, theirs, for ``player`` to ``accept``.

        NoGameHere; ServiceError (the game is still being played; asked already); NotForYou
        (not a player of the game); ChannelNotAllowed (the server's settings keep the bot out
        of that channel now); ChannelBusy.
        """
        state = await self.get_game(game_id)
        if state.status is not GameStatus.FINISHED:
            raise ServiceError(f"game #{game_id} is still being played; finish it first")
        side = state.side_of(player)
        opponent = state.opponent_of(player)
        if side is None or opponent is None:
            names = " and ".join(p.name for p in state.players.values())
            raise NotForYou(f"only {names} can ask for a rematch of game #{game_id}")
        async with self._store.reading() as db:
            waiting = await db.open_rematch(game_id, self._clock())
        settings = await self.settings(state.home.guild)
        if waiting is None and not settings.allows(state.home):
            raise ChannelNotAllowed(settings.channels)
        if waiting is not None:
            if waiting.challenger.id == player.id:
                raise ServiceError(
                    f"you have asked for a rematch already; it is up to {opponent.name}"
                )
            _check_accepter(waiting, player)
            return waiting
        return await self._open_challenge(
            state.home, player, opponent, state.rules_string, str(side.opponent),
            CHALLENGE_TTL, str(state.time_control), state.parent is not None, game_id,
            rated=state.rated,
        )  # fmt: skip

    async def decline(self, challenge_id: int, player: Player) -> Challenge:
        """The challenged player says no. ChallengeNotFound, ChallengeClosed, NotForYou."""

        def check(challenge: Challenge) -> None:
            if challenge.opponent is None:
                raise NotForYou("this challenge is open to anyone; there is nothing to decline")
            if challenge.opponent.id != player.id:
                raise NotForYou(f"only {challenge.opponent.name} can decline this challenge")

        return await self._close_challenge(challenge_id, ChallengeStatus.DECLINED, check)

    async def cancel(self, challenge_id: int, player: Player) -> Challenge:
        """The challenger withdraws. ChallengeNotFound, ChallengeClosed, NotForYou."""

        def check(challenge: Challenge) -> None:
            if challenge.challenger.id != player.id:
                raise NotForYou(f"only {challenge.challenger.name} can cancel this challenge")

        return await self._close_challenge(challenge_id, ChallengeStatus.CANCELLED, check)

    async def get_challenge(self, challenge_id: int) -> Challenge:
        """The challenge as it stands (an overdue open one shows as expired). ChallengeNotFound."""
        async with self._store.reading() as db:
            challenge = await db.challenge(challenge_id)
        if challenge is None:
            raise ChallengeNotFound
        if _overdue(challenge, self._clock()):
            return replace(challenge, status=ChallengeStatus.EXPIRED)
        return challenge

    async def attach_message(self, challenge_id: int, message_ref: str) -> Challenge:
        """Remember which message shows the challenge (``message_ref``, in the adapter's terms),
        so that it can be found again after a restart. ChallengeNotFound; ValueError if empty."""
        if not message_ref.strip():
            raise ValueError("a message reference can't be empty; give the adapter's message id")
        async with self._store.transaction() as db:
            if not await db.attach_message(challenge_id, message_ref):
                raise ChallengeNotFound
            challenge = await db.challenge(challenge_id)
        assert challenge is not None
        return challenge

    async def expire_challenges(self) -> list[Challenge]:
        """Mark the open challenges past their expiry as expired; return them (with the
        references of the messages that show them)."""
        now = self._clock()
        async with self._store.transaction() as db:
            return await db.expire_challenges(now)

    async def _close_challenge(
        self,
        challenge_id: int,
        status: ChallengeStatus,
        check: Callable[[Challenge], None],
    ) -> Challenge:
        now = self._clock()
        async with self._store.transaction() as db:
            check(_open_challenge(await db.challenge(challenge_id), now))
            if not await db.close_challenge(challenge_id, status):
                raise ChallengeClosed
            closed = await db.challenge(challenge_id)
        assert closed is not None
        return closed

    def _seat(
        self, game: engine.Game, challenger: Player, accepter: Player, wish: str
    ) -> dict[Side, Player]:
        """Both players by side, the challenger on the side wished for (or one drawn)."""
        first = game.rules.first
        side = self._rng.choice([first, first.opponent]) if wish == RANDOM_SIDE else Side(wish)
        return _by_side(first, {side: challenger, side.opponent: accepter})

    # -- settings ------------------------------------------------------------------------------

    async def settings(self, guild: str | None) -> GuildSettings:
        """A server's settings (the defaults for a server that changed none, or no server)."""
        if guild is None:
            return GuildSettings("")
        async with self._store.reading() as db:
            return await db.guild_settings(guild) or GuildSettings(guild)

    async def change_settings(
        self,
        guild: str,
        *,
        variant: str | None = None,
        time_control: str | None = None,
        threads: bool | None = None,
        channels: tuple[str, ...] | None = None,
        reminders: ReminderStyle | str | None = None,
    ) -> GuildSettings:
        """Change the settings given (the others stay); they apply to new challenges only.

        UnknownVariantError or RulesError for a variant that can't be played; TimeControlError;
        ServiceError for an unknown reminder style.
        """
        async with self._store.transaction() as db:
            settings = await db.guild_settings(guild) or GuildSettings(guild)
            if variant is not None:
                settings = replace(settings, variant=engine.new_game(variant).variant)
            if time_control is not None:
                settings = replace(settings, time_control=str(TimeControl.parse(time_control)))
            if threads is not None:
                settings = replace(settings, threads=threads)
            if channels is not None:
                settings = replace(settings, channels=tuple(dict.fromkeys(channels)))
            if reminders is not None:
                settings = replace(settings, reminders=reminder_style(reminders))
            await db.save_guild_settings(settings, self._clock())
        return settings

    async def set_reminders(self, player: Player, style: ReminderStyle | str) -> ReminderStyle:
        """Where ``player``'s turn reminders go from now on. ServiceError for an unknown style."""
        chosen = reminder_style(style)
        async with self._store.transaction() as db:
            await db.set_player_reminders(player.id, chosen, self._clock())
        return chosen

    async def reminders_for(self, player: Player, guild: str | None) -> ReminderStyle:
        """Where ``player``'s reminders go: their choice, else the server's, else the channel."""
        async with self._store.reading() as db:
            chosen = await db.player_reminders(player.id)
            server = None if guild is None else await db.guild_settings(guild)
        if chosen is not None:
            return chosen
        if server is not None and server.reminders is not None:
            return server.reminders
        return ReminderStyle.CHANNEL

    # -- games ---------------------------------------------------------------------------------

    async def start_game(
        self,
        channel: Channel,
        players: dict[Side, Player],
        variant: str = engine.DEFAULT_VARIANT,
        time_control: str = "none",
        rated: bool = False,
    ) -> GameState:
        """Start a game directly (hot-seat and AI games). ChannelBusy; ValueError for bad sides;
        TimeControlError for a time control that can't be read; ServiceError for a rated
        custom game."""
        control = TimeControl.parse(time_control)
        game = engine.new_game(variant)
        rated = _rated(game, rated)
        first = game.rules.first
        if set(players) != {first, first.opponent}:
            given = ", ".join(sorted(players)) or "none"
            raise ValueError(f"{game.rules.name} needs players for {first} and {first.opponent}"
                             f", not {given}")  # fmt: skip
        now = self._clock()
        async with self._store.transaction() as db:
            game_id = await db.insert_game(
                channel, game.variant, game.rules_string, _by_side(first, players), now,
                str(control), _first_deadline(control, players[first], now),
                rated=rated and standings.can_be_rated(players),
            )  # fmt: skip
        return await self.get_game(game_id)

    async def current_game(self, channel: Channel) -> GameState | None:
        """The game being played in ``channel``, if any (or the one there found void as it is
        read: a ``Reason.VOIDED`` outcome)."""
        async with self._store.reading() as db:
            game_id = await db.active_game_id(channel)
        return None if game_id is None else await self._load(game_id)

    async def games_awaiting_ai(self, idle: timedelta = timedelta(0)) -> list[GameState]:
        """The active games in which it is the AI's turn and nothing has happened for ``idle``
        or longer (a restart, or a failed search, left them so), oldest first."""
        async with self._store.reading() as db:
            game_ids = await db.games_with_ai()
        games = [await self._load(game_id) for game_id in game_ids]
        now = self._clock()
        return [
            g
            for g in games
            if g is not None
            and (mover := g.player_to_move()) is not None
            and mover.is_ai
            and (not idle or now - g.updated_at >= idle)
        ]

    async def get_game(self, game_id: int) -> GameState:
        """Any game by id, being played or finished. NoGameHere if there is none."""
        state = await self._load(game_id)
        if state is None:
            raise NoGameHere(f"there is no game #{game_id}")
        return state

    async def move(self, channel: Channel, player: Player, text: str) -> MoveResult:
        """Play ``text`` for ``player`` in the channel's game.

        NoGameHere, NotAPlayer, NotYourTurn, the engine's NotationError / IllegalMoveError /
        AmbiguousMoveError, MoveConflict (someone else changed the game at the same moment);
        TimeUp when the player's time ran out first (the game then ends on time).
        """
        async with self._game_in(channel) as state:
            _check_turn(state, player)
            move = state.game.parse_move(text)
            deadline = state.deadline()
            if deadline is not None and self._clock() > deadline:
                report = await self._end(state, Outcome(state.game.turn.opponent, Reason.TIMEOUT))
                raise TimeUp(report, f"your time ran out {_ago(self._clock() - deadline)}: "
                                     f"{report.result}")  # fmt: skip
            return await self._play(state, move)

    async def ai_move(self, channel: Channel, time_limit: float | None = None) -> MoveResult:
        """Let the AI play its move (thinking off the event loop). NoGameHere, NotYourTurn."""
        async with self._game_in(channel) as state:
            mover = state.player_to_move()
            if mover is None or not mover.is_ai:
                raise NotYourTurn("it is not the AI's turn")
            limit = self._ai_time_limit if time_limit is None else time_limit
            level = mover.ai_level
            assert level is not None  # the AI has a level
            choice = await self._think(Snapshot.of(state.game, level), limit)
            return await self._play(state, state.game.parse_move(str(choice)))

    async def game_to_move(self, channel: Channel, player: Player) -> GameState | None:
        """The channel's game when it is ``player``'s turn in it (None otherwise): for what the
        player may type next."""
        state = await self.current_game(channel)
        if state is None:
            return None
        mover = state.player_to_move()
        return state if mover is not None and mover.id == player.id else None

    async def resign(self, channel: Channel, player: Player) -> Report:
        """``player`` gives up the channel's game. NoGameHere, NotAPlayer."""
        async with self._game_in(channel) as state:
            side = state.side_of(player)
            if side is None:
                raise NotAPlayer
            return await self._end(state, Outcome(side.opponent, Reason.RESIGNED))

    async def time_out(self, channel: Channel, side: Side) -> Report:
        """``side`` ran out of time and loses the channel's game. NoGameHere."""
        async with self._game_in(channel) as state:
            if side not in state.players:
                raise ValueError(f"{side} do not play in {state.game.rules.name}")
            return await self._end(state, Outcome(Side(side).opponent, Reason.TIMEOUT))

    async def claim_timeout(self, channel: Channel, player: Player) -> Report:
        """``player`` wins because the opponent, to move, has not moved for ``move_timeout``
        since the last change to the game (a move, a takeback, or the start).

        NoGameHere, NotAPlayer; ServiceError when it is ``player``'s turn or the opponent is
        the AI (it always moves); TooEarly, with the time left, before the timeout has passed.
        """
        async with self._game_in(channel) as state:
            if state.side_of(player) is None:
                raise NotAPlayer
            mover = state.player_to_move()
            assert mover is not None  # an active game has a player to move
            if mover.id == player.id:
                raise ServiceError("it is your turn: there is nothing to claim; play a move")
            if mover.is_ai:
                raise ServiceError(f"{mover.name} always moves: there is nothing to claim")
            if state.time_control.kind is not Kind.NONE:
                raise ServiceError(
                    f"this game is played with a clock ({state.time_control.describe()}): it "
                    f"ends by itself when {mover.name} runs out of time"
                )
            waited = self._clock() - state.updated_at
            if waited < self._move_timeout:
                left = self._move_timeout - waited
                raise TooEarly(
                    f"{mover.name} has had {format_duration(waited)} of the "
                    f"{format_duration(self._move_timeout)} a move may take; "
                    f"you can claim the game in {format_duration(left)}",
                    left,
                )
            return await self._end(state, Outcome(state.game.turn.opponent, Reason.TIMEOUT))

    # -- clocks ------------------------------------------------------------------------------------

    async def time_out_games(self) -> list[tuple[GameState, Report]]:
        """End every game whose player to move has run out of time (reason ``timeout``); the
        games and their reports. A move stored before the deadline always counts: a game is
        read again under its lock, and ended only if its deadline is still past."""
        now = self._clock()
        async with self._store.reading() as db:
            due = await db.running_clocks(due_by=now)
        ended = []
        for row in due:
            async with self._lock(row.game_id):
                state = await self._load(row.game_id)
                if state is None or state.status is not GameStatus.ACTIVE:
                    continue
                deadline = state.deadline()
                if deadline is None or deadline >= now:  # a move at the deadline still counts
                    continue
                try:
                    outcome = Outcome(state.game.turn.opponent, Reason.TIMEOUT)
                    ended.append((state, await self._end(state, outcome)))
                except MoveConflict:  # a move (in another process) came first
                    continue
        return ended

    async def due_reminders(self) -> list[Reminder]:
        """The turn reminders due now, each recorded as sent (so it is returned once only,
        across restarts and processes): half of the player's time used, then its last part.
        None in live games, nor to the AI."""
        now = self._clock()
        async with self._store.reading() as db:
            clocks = await db.running_clocks()
        self._live = any(TimeControl.parse(row.time_control).is_live for row in clocks)
        due = []
        for row in clocks:
            control = TimeControl.parse(row.time_control)
            stage = control.reminder_due(row.turn_started_at, row.deadline, now)
            if stage is None:
                continue
            async with self._store.transaction() as db:
                fresh = await db.record_reminder(row.game_id, row.plies, str(stage), now)
                if stage is Stage.LAST:  # a half-time reminder would come too late now
                    await db.record_reminder(row.game_id, row.plies, str(Stage.HALF), now)
            if not fresh:
                continue
            state = await self._load(row.game_id)
            mover = None if state is None else state.player_to_move()
            if state is None or mover is None or len(state.game.history) != row.plies:
                continue
            due.append(Reminder(state, mover, stage, row.deadline - now))
        return due

    @property
    def has_live_games(self) -> bool:
        """Whether a live game (a clock under two hours) was running at the last look."""
        return self._live

    # -- offers --------------------------------------------------------------------------------

    async def offer(self, channel: Channel, player: Player, kind: OfferKind | str) -> Offer:
        """Offer a draw or ask to take back a move; the opponent answers with ``answer_offer``.

        NoGameHere, NotAPlayer, ServiceError (an unknown kind; an offer of that kind is already
        open; no move of yours to take back).
        """
        kind = _offer_kind(kind)
        async with self._game_in(channel) as state:
            opponent = state.opponent_of(player)
            if opponent is None:
                raise NotAPlayer
            if kind is OfferKind.UNDO and _plies_to_take_back(state, player) == 0:
                raise ServiceError("you have no move to take back yet")
            now = self._clock()
            async with self._store.transaction() as db:
                await db.expect_version(state.id, state.version)
                for waiting in await db.open_offers(state.id):
                    if waiting.kind is kind:
                        raise ServiceError(f"{_offer_text(waiting)} already waits for an answer")
                return await db.insert_offer(
                    state.id, kind, player, opponent, len(state.game.history), now
                )

    async def answer_as_ai(self, offer: Offer) -> tuple[Offer, GameState, Report | None]:
        """The AI's answer to an offer made to it: it allows takebacks and plays on for a win."""
        if not offer.to.is_ai:
            raise NotForYou(f"only {offer.to.name} can answer this offer")
        return await self.answer_offer(offer.id, offer.to, accept=AI_ACCEPTS[offer.kind])

    async def answer_offer(
        self, offer_id: int, player: Player, accept: bool
    ) -> tuple[Offer, GameState, Report | None]:
        """Accept or decline an offer made to ``player``.

        An accepted draw ends the game (the report is returned); an accepted undo takes back
        plies until it is the offerer's turn again, at least the offerer's last move.
        OfferNotFound, OfferClosed (answered or void), NotForYou.
        """
        offer = await self.get_offer(offer_id)
        if offer.to.id != player.id:
            raise NotForYou(f"only {offer.to.name} can answer this offer")
        async with self._lock(offer.game_id):
            state = await self._load(offer.game_id)
            assert state is not None  # offers belong to stored games
            offer = _open_offer(await self.get_offer(offer_id))
            if state.status is not GameStatus.ACTIVE or offer.ply != len(state.game.history):
                raise OfferClosed(f"{_offer_text(offer)} no longer applies")
            if not accept:
                async with self._store.transaction() as db:
                    await db.expect_version(state.id, state.version)
                    await _close_offer(db, offer, OfferStatus.DECLINED)
                return replace(offer, status=OfferStatus.DECLINED), state, None
            if offer.kind is OfferKind.DRAW:
                report = await self._end(state, Outcome(None, Reason.DRAW_AGREED), offer)
                return replace(offer, status=OfferStatus.ACCEPTED), state, report
            await self._take_back(state, offer)
            return replace(offer, status=OfferStatus.ACCEPTED), state, None

    async def get_offer(self, offer_id: int) -> Offer:
        """An offer by id. OfferNotFound."""
        async with self._store.reading() as db:
            offer = await db.offer(offer_id)
        if offer is None:
            raise OfferNotFound
        return offer

    async def open_offers(self, channel: Channel) -> list[Offer]:
        """The offers waiting for an answer in the channel's game, oldest first."""
        async with self._store.reading() as db:
            game_id = await db.active_game_id(channel)
            return [] if game_id is None else await db.open_offers(game_id)

    # -- finished games ------------------------------------------------------------------------

    async def finished_games(self, limit: int = 10, guild: str | None = None) -> list[Report]:
        """The reports of the latest finished games (of ``guild`` if given), newest first."""
        async with self._store.reading() as db:
            game_ids = await db.finished_game_ids(limit, guild)
        return [await self.report(game_id) for game_id in game_ids]

    async def report(self, game_id: int) -> Report:
        """The report of a finished game. NoGameHere; ServiceError if it is still being played."""
        state = await self.get_game(game_id)
        if state.status is not GameStatus.FINISHED:
            raise ServiceError(f"game #{game_id} is still being played")
        return build_report(state)

    # -- ratings, stats and the archive -----------------------------------------------------------

    async def leaderboard(
        self, variant: str, scope: str, player: Player | None = None, limit: int = LEADERBOARD_SIZE
    ) -> tuple[list[Standing], tuple[int, Standing] | None]:
        """The best ``limit`` standings of ``variant`` in ``scope`` (``GLOBAL_SCOPE`` or a
        guild), and ``player``'s place and standing when they have one outside them.
        ServiceError for an unknown variant."""
        variant = _preset(variant)
        async with self._store.reading() as db:
            top = await db.leaderboard(variant, scope, limit)
            if player is None or any(s.player.id == player.id for s in top):
                return top, None
            mine = (await db.standings([player], variant, [scope])).get((player.id, scope))
            if mine is None:
                return top, None
            return top, (await db.place(mine), mine)

    async def stats(
        self, player: Player, variant: str | None = None, scope: str = GLOBAL_SCOPE
    ) -> PlayerStats:
        """``player``'s standings in ``scope``, the rating history of ``variant`` (default: the
        one they played most rated), and their results (in ``variant`` only, if given).
        ServiceError for an unknown variant."""
        if variant is not None:
            variant = _preset(variant)
        player = standings.rated_player(player)
        async with self._store.reading() as db:
            name = await db.player_name(player.id)
            held = await db.player_standings(player.id, scope)
            charted = variant or (held[0].variant if held else None)
            history = (
                []
                if charted is None
                else await db.rating_history(player.id, charted, scope, CHARTED_GAMES)
            )
            tallies = await db.tallies(player.id)
            longest = await db.played_games(player.id, variant, 1, longest_first=True)
            recent = await db.played_games(player.id, variant, RECENT_FORM)
        if variant is not None:
            held = [s for s in held if s.variant == variant]
        by_side: dict[Side, dict[Result, int]] = {}
        per_variant: Counter[str] = Counter()
        for (played, side, result), count in sorted(tallies.items()):
            per_variant[played] += count
            if variant is None or played == variant:
                by_side.setdefault(side, dict.fromkeys(Result, 0))[result] += count
        most_played = max(per_variant.items(), key=lambda pair: (pair[1], pair[0]), default=None)
        return PlayerStats(
            player=player if name is None else replace(player, name=name),
            variant=charted,
            standings=held,
            history=history,
            by_side=by_side,
            longest=longest[0] if longest else None,
            most_played=most_played,
            recent=[played.result for played in recent],
        )

    async def rating_changes(self, game_id: int) -> list[tuple[Standing, Rating]]:
        """What game ``game_id`` did to its players' global ratings: each one's standing now
        and rating before the game; empty for an unrated game."""
        async with self._store.reading() as db:
            return await db.rating_changes(game_id, GLOBAL_SCOPE)

    async def played_games(
        self, player: Player, variant: str | None = None, limit: int = ARCHIVE_SIZE
    ) -> list[PlayedGame]:
        """``player``'s last ``limit`` finished games (of ``variant`` if given), newest first.
        ServiceError for an unknown variant."""
        if variant is not None:
            variant = _preset(variant)
        async with self._store.reading() as db:
            return await db.played_games(standings.rated_player(player).id, variant, limit)

    async def rebuild_ratings(self) -> int:
        """Compute every standing and the rating history again from the stored rated games, in
        the order they finished, in one transaction; returns how many games counted. Gives the
        numbers the games gave as they finished."""
        async with self._store.transaction() as db:
            games = await db.rated_games()
            await db.clear_ratings()
            table: dict[tuple[str, str, str], tuple[Standing, datetime]] = {}
            history = []
            for game in games:
                players = {side: standings.rated_player(p) for side, p in game.players.items()}
                for scope in standings.scopes(game.guild):
                    before = {}
                    for side, p in players.items():
                        kept = table.get((p.id, game.variant, scope))
                        fresh = Standing(p, game.variant, scope)
                        before[side] = fresh if kept is None else replace(kept[0], player=p)
                    for after in standings.after_game(before, game.winner).values():
                        table[(after.player.id, game.variant, scope)] = (after, game.finished_at)
                        history.append(
                            (game.id, after.player.id, scope, game.variant, after.rating,
                             game.finished_at)
                        )  # fmt: skip
            await db.replace_standings(table.values())
            await db.insert_rating_history(history)
        return len(games)

    # -- announcements (what a game's channel must be shown) ---------------------------------------

    async def pending_announcements(
        self, platform: str, settled: timedelta = timedelta(0), limit: int = 50
    ) -> list[tuple[Announcement, GameState]]:
        """What the channels of ``platform`` (a channel id prefix: ``"discord:"``) have not been
        shown yet, made ``settled`` ago or more and due after any failed post, oldest first;
        each with its game as it was then (a move's game stops after that move)."""
        now = self._clock()
        async with self._store.reading() as db:
            due = await db.pending_announcements(platform, now - settled, now, limit)
        pending = []
        for announcement in due:
            state = await self._load(announcement.game_id)
            if state is not None:
                pending.append((announcement, _state_at(state, announcement.ply)))
        return pending

    # -- events several processes may get -----------------------------------------------------

    async def claim_event(self, event_id: str) -> bool:
        """Whether this process should handle the adapter's event ``event_id`` (a Discord
        interaction): True once across the processes sharing the database, False after; always
        True on a database one process owns."""
        if not self._store.shared:
            return True
        async with self._store.transaction() as db:
            return await db.claim_event(event_id, self._clock())

    async def forget_events(self, age: timedelta = EVENT_MEMORY) -> None:
        """Forget the events claimed more than ``age`` ago."""
        if self._store.shared:
            async with self._store.transaction() as db:
                await db.forget_events(self._clock() - age)

    async def announced(
        self, game_id: int, kind: AnnouncementKind, ply: int, message_ref: str | None = None
    ) -> bool:
        """Note that the channel has been shown ``kind`` after ``ply`` plies of the game (the
        end in the message ``message_ref``, if known); False if it was not pending (shown
        already, or taken back)."""
        async with self._store.transaction() as db:
            if kind is AnnouncementKind.END and message_ref is not None:
                await db.set_final_message(game_id, message_ref)
            return await db.mark_announced(game_id, kind, ply, self._clock())

    async def announcement_failed(self, announcement: Announcement) -> datetime:
        """Note a failed post of ``announcement``; returns when it will be tried again (a
        minute after the first failure, twice as long after each next one, an hour at most)."""
        wait = min(RETRY_FIRST * (1 << min(announcement.attempts, 16)), RETRY_LAST)
        retry_at = self._clock() + wait
        async with self._store.transaction() as db:
            await db.announcement_failed(
                announcement.game_id, announcement.kind, announcement.ply, retry_at
            )
        return retry_at

    # -- loading and writing games -------------------------------------------------------------

    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    def _forget(self, game_id: int) -> None:
        """Drop what this process keeps of a game; the next read reloads it from the store."""
        self._states.pop(game_id, None)

    async def _load(self, game_id: int) -> GameState | None:
        """The game as stored now: the kept state if it is of the stored version, else rebuilt.
        A game being played whose stored moves no longer replay is ended as void (logged)."""
        async with self._store.reading() as db:
            row = await db.game(game_id)
            if row is None:
                return None
            kept = self._states.get(game_id)
            if kept is not None and kept.version == row.version:
                return kept
            moves = await db.moves(game_id)
        state, refused = _rebuild(row, moves)
        if refused is not None and state.status is GameStatus.ACTIVE:
            log.error("%s; it is ended as void", refused)
            return await self._void(state)
        if refused is not None:  # a finished game: shown as far as it replays, on every read
            log.info("%s; shown as far as it replays", refused)
        if state.status is GameStatus.ACTIVE:
            self._states[game_id] = state
        else:
            self._forget(game_id)
            self._locks.pop(game_id, None)
        return state

    async def _void(self, state: GameState) -> GameState:
        """End ``state`` as void (announced like any end); the game as stored then."""
        try:
            await self._end(state, Outcome(None, Reason.VOIDED))
        except MoveConflict:  # another process ended it first
            return await self.get_game(state.id)
        return state

    @asynccontextmanager
    async def _game_in(self, channel: Channel) -> AsyncIterator[GameState]:
        """The channel's game, locked and read again under the lock; NoGameHere if there is
        none or it ended meanwhile, GameVoided if it is found void as it is read."""
        found = await self.current_game(channel)
        if found is None:
            raise NoGameHere
        async with self._lock(found.id):
            state = await self._load(found.id)
            if state is None or state.status is not GameStatus.ACTIVE:
                if state is not None and state.game.outcome and state.game.outcome.void:
                    raise GameVoided(
                        build_report(state),
                        f"game #{state.id} here is void: {Reason.VOIDED.description}; "
                        f"{VOID_COUNTS}, and the channel is free for a new game",
                    )
                raise NoGameHere("the game here has just ended")
            yield state

    @asynccontextmanager
    async def _change(self, state: GameState, now: datetime) -> AsyncIterator[Session]:
        """One transaction that moves the game to its next version (MoveConflict if another
        change came first) and voids the offers still open after it. The kept state takes the
        new version once it commits; a failed change drops the kept state."""
        try:
            async with self._store.transaction() as db:
                version = await db.claim_version(state.id, state.version, now)
                yield db
                await db.void_offers(state.id)
        except BaseException:
            self._forget(state.id)
            raise
        state.version, state.updated_at = version, now

    async def _play(self, state: GameState, move: Move) -> MoveResult:
        """Play a legal move and store it (with its announcements); if storing fails the game
        is left as it was."""
        now = self._clock()
        ply = state.game.push(move)
        plies = len(state.game.history)
        outcome = state.game.outcome
        try:
            async with self._change(state, now) as db:
                await db.insert_move(state.id, plies, ply, now)
                if outcome is None:
                    times = [*state.move_times, now]
                    deadline = _deadline_after(state, times, state.game.turn, now)
                    await db.set_deadline(state.id, deadline)
                await db.insert_announcement(state.id, AnnouncementKind.MOVE, plies, now)
                if outcome is not None:
                    await self._finish(db, state, outcome, now, plies)
                    await db.insert_announcement(state.id, AnnouncementKind.END, plies, now)
        except BaseException:
            state.game.undo()
            raise
        state.move_times.append(now)
        if outcome is None:
            return MoveResult(state, ply, None, plies)
        self._finished(state, now)
        return MoveResult(state, ply, build_report(state), plies)

    async def _end(self, state: GameState, outcome: Outcome, offer: Offer | None = None) -> Report:
        """End the game with ``outcome`` (accepting ``offer`` if it brought it about)."""
        now = self._clock()
        plies = len(state.game.history)
        async with self._change(state, now) as db:
            await self._finish(db, state, outcome, now, plies)
            if outcome.void:  # its moves past the cut were announced, and no longer replay
                await db.drop_announcements_after(state.id, plies)
            await db.insert_announcement(state.id, AnnouncementKind.END, plies, now)
            if offer is not None:
                await _close_offer(db, offer, OfferStatus.ACCEPTED)
        state.game.end(outcome)
        self._finished(state, now)
        return build_report(state)

    async def _take_back(self, state: GameState, offer: Offer) -> None:
        """Take back plies as the accepted undo ``offer`` asks."""
        count = _plies_to_take_back(state, offer.by)
        keep = len(state.game.history) - count
        to_move = state.game.history[keep].side  # whose ply goes back first moves again
        now = self._clock()
        async with self._change(state, now) as db:
            await _close_offer(db, offer, OfferStatus.ACCEPTED)
            await db.delete_moves_after(state.id, keep)
            await db.drop_announcements_after(state.id, keep)
            deadline = _deadline_after(state, state.move_times[:keep], to_move, now)
            await db.set_deadline(state.id, deadline)
            await db.count_takeback(state.id)
        for _ in range(count):
            state.game.undo()
        del state.move_times[keep:]
        state.takebacks += 1

    async def _finish(
        self, db: Session, state: GameState, outcome: Outcome, now: datetime, plies: int
    ) -> None:
        """Store the result and, for a rated game, its players' new standings in every scope
        it counts in (in the transaction that finishes it)."""
        state.rated = state.rated and not outcome.void  # a void game counts for nobody
        await db.finish_game(state.id, outcome, now, plies, rated=state.rated)
        if not state.rated:
            return
        players = {side: standings.rated_player(p) for side, p in state.players.items()}
        scopes = standings.scopes(state.channel.guild)
        held = await db.claim_standings(list(players.values()), state.variant, scopes, now)
        after: list[Standing] = []
        for scope in scopes:
            before = {side: replace(held[(p.id, scope)], player=p) for side, p in players.items()}
            after += standings.after_game(before, outcome.winner).values()
        await db.save_standings(state.id, after, now)

    def _finished(self, state: GameState, now: datetime) -> None:
        state.status, state.finished_at = GameStatus.FINISHED, now
        self._forget(state.id)
        self._locks.pop(state.id, None)


# -- helpers -----------------------------------------------------------------------------------


def _rebuild(row: GameRow, moves: list[MoveRow]) -> tuple[GameState, NoLongerReplays | None]:
    """The game replayed from its stored moves, under the rules it was created with; where a
    later fix to the rules refuses one of them (or ends the game before it), the game as far as
    it replays, and why it stops there."""
    game = engine.Game(row.rules_string)
    refused = None
    for ply, stored in enumerate(moves, start=1):
        try:
            game.play(stored.notation)
        except TaflError as error:
            refused = NoLongerReplays.at(row.id, ply, stored.notation, error)
            if game.outcome is not None:
                game.undo()  # it ended early: the stored result (or void) is the game's own
            break
    replayed = len(game.history)
    if row.outcome is not None and game.outcome is None:
        game.end(row.outcome)
    state = GameState(
        id=row.id,
        channel=row.channel,
        variant=row.variant,
        rules_string=row.rules_string,
        players=row.players,
        status=row.status,
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        finished_at=row.finished_at,
        game=game,
        move_times=[stored.played_at for stored in moves[:replayed]],
        time_control=TimeControl.parse(row.time_control),
        parent=row.parent,
        rated=row.rated,
        takebacks=row.takebacks,
    )
    return state, refused


def _state_at(state: GameState, plies: int) -> GameState:
    """The game as it stood after its first ``plies`` plies (``state`` itself if that is now)."""
    if plies >= len(state.game.history):
        return state
    game = engine.Game(state.rules_string)
    for ply in state.game.history[:plies]:
        game.push(ply.move)
    return replace(
        state,
        status=GameStatus.ACTIVE,
        finished_at=None,
        game=game,
        move_times=state.move_times[:plies],
        updated_at=state.move_times[plies - 1] if plies else state.created_at,
    )


def _preset(variant: str) -> str:
    """A preset variant's id, as given or by name; ServiceError naming the choices."""
    wanted = variant.strip().lower()
    for variant_id, rules in engine.VARIANTS.items():
        if wanted in (variant_id, str(rules.name).lower()):
            return variant_id
    raise ServiceError(f"unknown variant {variant!r}; choose one of {', '.join(engine.VARIANTS)}")


def _rated(game: engine.Game, wish: bool | None) -> bool:
    """Whether a game of ``game``'s rules is rated, as wished (None: rated on a preset
    variant); ServiceError for a rated custom game."""
    preset = game.variant in engine.VARIANTS
    if wish and not preset:
        raise ServiceError("custom rules games are never rated; play it unrated (rated: False)")
    return preset if wish is None else wish


def _by_side(first: Side, players: dict[Side, Player]) -> dict[Side, Player]:
    """``players`` with the side that moves first first."""
    return {first: players[first], first.opponent: players[first.opponent]}


def _side_wish(game: engine.Game, side: str) -> str:
    """``side`` checked against the variant's sides; ServiceError naming the choices."""
    first = game.rules.first
    choices = [str(first), str(first.opponent), RANDOM_SIDE]
    wish = side.strip().lower()
    if wish not in choices:
        raise ServiceError(f"unknown side {side!r} for {game.rules.name}; choose "
                         f"{choices[0]}, {choices[1]} or {choices[2]}")  # fmt: skip
    return wish


def _overdue(challenge: Challenge, now: datetime) -> bool:
    return challenge.status is ChallengeStatus.OPEN and now >= challenge.expires_at


def _open_challenge(challenge: Challenge | None, now: datetime) -> Challenge:
    """The challenge if it can still be answered; ChallengeNotFound or ChallengeClosed."""
    if challenge is None:
        raise ChallengeNotFound
    if _overdue(challenge, now):
        raise ChallengeClosed.because(ChallengeStatus.EXPIRED)
    if challenge.status is not ChallengeStatus.OPEN:
        raise ChallengeClosed.because(challenge.status)
    return challenge


def _check_accepter(challenge: Challenge, player: Player) -> None:
    """NotForYou unless ``player`` may accept ``challenge``."""
    if player.id == challenge.challenger.id:
        raise NotForYou("that is your own challenge; you can cancel it")
    if challenge.opponent is not None and challenge.opponent.id != player.id:
        raise NotForYou(f"this challenge is for {challenge.opponent.name}")


def reminder_style(style: ReminderStyle | str) -> ReminderStyle:
    """``style`` as a ReminderStyle; ServiceError naming the choices."""
    try:
        return ReminderStyle(str(style).strip().lower())
    except ValueError:
        choices = ", ".join(ReminderStyle)
        raise ServiceError(f"unknown reminder style {style!r}; choose {choices}") from None


def _check_turn(state: GameState, player: Player) -> None:
    """NotAPlayer or NotYourTurn unless ``player`` is to move."""
    if state.side_of(player) is None:
        raise NotAPlayer
    mover = state.player_to_move()
    if mover is None or mover.id != player.id:
        turn = state.game.turn
        raise NotYourTurn(f"it is {mover.name if mover else 'nobody'}'s turn ({turn})")


def _offer_kind(kind: OfferKind | str) -> OfferKind:
    try:
        return OfferKind(str(kind).strip().lower())
    except ValueError:
        choices = " or ".join(OfferKind)
        raise ServiceError(f"unknown offer {kind!r}; choose {choices}") from None


def _offer_text(offer: Offer) -> str:
    """``"Alice's draw offer"``."""
    what = "draw offer" if offer.kind is OfferKind.DRAW else "takeback request"
    return f"{offer.by.name}'s {what}"


def _open_offer(offer: Offer) -> Offer:
    if offer.status is OfferStatus.VOID:
        raise OfferClosed(f"{_offer_text(offer)} lapsed when a move was played")
    if offer.status is not OfferStatus.OPEN:
        raise OfferClosed(f"{_offer_text(offer)} was already {offer.status}")
    return offer


def _deadline_after(
    state: GameState, move_times: list[datetime], to_move: Side, turn_started: datetime
) -> datetime | None:
    """When ``to_move`` runs out of time once ``state`` has these move times, their turn
    starting at ``turn_started`` (None: no clock, or the AI to move)."""
    mover = state.players.get(to_move)
    if mover is None or mover.is_ai:
        return None
    return state.time_control.deadline(state.created_at, move_times, turn_started)


def _first_deadline(control: TimeControl, first: Player, now: datetime) -> datetime | None:
    """When the first player's time runs out in a game starting ``now`` (None: no clock, or
    the AI moves first)."""
    return None if first.is_ai else control.deadline(now, [], now)


def _ago(late: timedelta) -> str:
    """``"3 min 02 s ago"``."""
    return f"{format_duration(late)} ago"


async def _close_offer(db: Session, offer: Offer, status: OfferStatus) -> None:
    """Answer the offer in the store; OfferClosed if it was answered elsewhere meanwhile."""
    if not await db.close_offer(offer.id, status):
        raise OfferClosed(f"{_offer_text(offer)} was answered at the same moment")


def _plies_to_take_back(state: GameState, player: Player) -> int:
    """How many plies to undo so that ``player``'s last move is taken back (0: none made)."""
    sides = {side for side, p in state.players.items() if p.id == player.id}
    history = state.game.history
    for count, ply in enumerate(reversed(history), start=1):
        if ply.side in sides:
            return count
    return 0
