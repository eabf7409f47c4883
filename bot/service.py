"""The game service: every adapter (Discord, terminal...) plays through it and only through it.

It applies the rules with the engine and keeps the games in a Store. All calls are async; each
call that changes something is one transaction, and a refused call changes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.models import (
    RANDOM_SIDE,
    Challenge,
    Channel,
    GameState,
    MoveResult,
    Offer,
    OfferKind,
    Player,
    Report,
    utc_now,
)
from bot.storage import Store
from engine import Side

__all__ = ["CHALLENGE_TTL", "GameService", "utc_now"]

CHALLENGE_TTL = timedelta(minutes=15)
AI_TIME_LIMIT = 2.0
"""Seconds the AI may think per move, unless told otherwise."""
MAX_SUGGESTIONS = 25


class GameService:
    """Challenges, games, moves and offers, kept in ``store``; ``clock`` gives aware UTC times."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime] = utc_now,
        *,
        rng: random.Random | None = None,
        ai_time_limit: float = AI_TIME_LIMIT,
    ) -> None:
        self._store = store
        self._clock = clock
        self._rng = rng or random.Random()
        self._ai_time_limit = ai_time_limit

    # -- challenges ----------------------------------------------------------------------------

    async def challenge(
        self,
        channel: Channel,
        challenger: Player,
        opponent: Player | None = None,
        variant: str = "copenhagen",
        side: str = RANDOM_SIDE,
        ttl: timedelta = CHALLENGE_TTL,
    ) -> Challenge:
        """Open a challenge in ``channel``; ``opponent`` None lets anyone but the challenger accept.

        ChannelBusy if a game is being played there; ValueError for an unknown variant or side;
        ServiceError for a challenge to oneself.
        """
        raise NotImplementedError

    async def accept(self, challenge_id: int, player: Player) -> GameState:
        """Accept a challenge and start its game (sides drawn at random if asked).

        ChallengeNotFound, ChallengeClosed, NotForYou (not the challenged player, or the
        challenger), ChannelBusy.
        """
        raise NotImplementedError

    async def decline(self, challenge_id: int, player: Player) -> Challenge:
        """The challenged player says no. ChallengeNotFound, ChallengeClosed, NotForYou."""
        raise NotImplementedError

    async def cancel(self, challenge_id: int, player: Player) -> Challenge:
        """The challenger withdraws. ChallengeNotFound, ChallengeClosed, NotForYou."""
        raise NotImplementedError

    async def get_challenge(self, challenge_id: int) -> Challenge:
        """The challenge as it stands (an overdue open one shows as expired). ChallengeNotFound."""
        raise NotImplementedError

    async def expire_challenges(self) -> list[Challenge]:
        """Mark the open challenges past their expiry as expired; return them."""
        raise NotImplementedError

    # -- games ---------------------------------------------------------------------------------

    async def start_game(
        self, channel: Channel, players: dict[Side, Player], variant: str = "copenhagen"
    ) -> GameState:
        """Start a game directly (hot-seat and AI games). ChannelBusy; ValueError for bad sides."""
        raise NotImplementedError

    async def current_game(self, channel: Channel) -> GameState | None:
        """The game being played in ``channel``, if any."""
        raise NotImplementedError

    async def get_game(self, game_id: int) -> GameState:
        """Any game by id, being played or finished. NoGameHere if there is none."""
        raise NotImplementedError

    async def move(self, channel: Channel, player: Player, text: str) -> MoveResult:
        """Play ``text`` for ``player`` in the channel's game.

        NoGameHere, NotAPlayer, NotYourTurn, the engine's NotationError / IllegalMoveError /
        AmbiguousMoveError, MoveConflict (someone else changed the game at the same moment).
        """
        raise NotImplementedError

    async def ai_move(self, channel: Channel, time_limit: float | None = None) -> MoveResult:
        """Let the AI play its move (it thinks in a worker thread). NoGameHere, NotYourTurn."""
        raise NotImplementedError

    async def legal_moves(self, channel: Channel, player: Player, typed: str = "") -> list[str]:
        """Up to 25 of ``player``'s legal moves starting with ``typed``, most relevant first.

        Captures first, then king moves, then the rest in board order. Empty when there is no
        game or it is not their turn. ``typed`` may be partial and in any accepted form
        ("d1-d", "d1d4", "D1 d").
        """
        raise NotImplementedError

    async def resign(self, channel: Channel, player: Player) -> Report:
        """``player`` gives up the channel's game. NoGameHere, NotAPlayer."""
        raise NotImplementedError

    async def time_out(self, channel: Channel, side: Side) -> Report:
        """``side`` ran out of time and loses the channel's game. NoGameHere."""
        raise NotImplementedError

    # -- offers --------------------------------------------------------------------------------

    async def offer(self, channel: Channel, player: Player, kind: OfferKind | str) -> Offer:
        """Offer a draw or ask to take back a move; the opponent answers with ``answer_offer``.

        NoGameHere, NotAPlayer, ServiceError (an offer of that kind is already open; no move of
        yours to take back); ValueError for an unknown kind.
        """
        raise NotImplementedError

    async def answer_offer(
        self, offer_id: int, player: Player, accept: bool
    ) -> tuple[Offer, GameState, Report | None]:
        """Accept or decline an offer made to ``player``.

        An accepted draw ends the game (the report is returned); an accepted undo takes back
        plies until it is the offerer's turn again, at least the offerer's last move.
        OfferNotFound, OfferClosed (answered or void), NotForYou.
        """
        raise NotImplementedError

    async def get_offer(self, offer_id: int) -> Offer:
        """An offer by id. OfferNotFound."""
        raise NotImplementedError

    async def open_offers(self, channel: Channel) -> list[Offer]:
        """The offers waiting for an answer in the channel's game, oldest first."""
        raise NotImplementedError

    # -- finished games ------------------------------------------------------------------------

    async def finished_games(self, limit: int = 10, guild: str | None = None) -> list[Report]:
        """The reports of the latest finished games (of ``guild`` if given), newest first."""
        raise NotImplementedError

    async def report(self, game_id: int) -> Report:
        """The report of a finished game. NoGameHere; ServiceError if it is still being played."""
        raise NotImplementedError
