"""Why the game service refuses a call: each error carries a short message a player can act on.

Engine errors (NotationError, IllegalMoveError, AmbiguousMoveError, UnknownVariantError...) pass
through the service as they are; those and these are all ``engine.TaflError``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from engine.errors import TaflError

if TYPE_CHECKING:
    from bot.models import Report


class ServiceError(TaflError):
    """A refused request; ``str(error)`` is the player-facing message."""

    default = "that can't be done"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.default)

    @property
    def message(self) -> str:
        return str(self.args[0])


class NoGameHere(ServiceError):
    default = "there is no game in this channel; start one with a challenge"


class ChannelBusy(ServiceError):
    default = (
        "a game is already being played in this channel; "
        "start a thread and play there (a thread can hold its own game)"
    )


class NotAPlayer(ServiceError):
    default = "you are not playing in this game"


class NotYourTurn(ServiceError):
    default = "it is not your turn"


class ChallengeNotFound(ServiceError):
    default = "there is no such challenge"


class ChallengeClosed(ServiceError):
    """The challenge was already accepted, declined, cancelled, or has expired."""

    default = "that challenge is closed"

    @classmethod
    def because(cls, status: str) -> ChallengeClosed:
        """The error for a challenge whose status is ``status`` (``"expired"``...)."""
        if status == "expired":
            return cls("that challenge has expired")
        return cls(f"that challenge has already been {status}")


class NotForYou(ServiceError):
    default = "that is not addressed to you"


class OfferNotFound(ServiceError):
    default = "there is no such offer"


class OfferClosed(OfferNotFound):
    """The offer was already answered, or went void when a move was played."""

    default = "that offer is no longer open"


class MoveConflict(ServiceError):
    default = "another move was made at the same moment; nothing changed"


class NoLongerReplays(ServiceError):
    """Why a stored game stops replaying: this version's rules refuse one of its moves (a fix
    to them came after it). Logged; a game still being played is then ended as void."""

    @classmethod
    def at(cls, game_id: int, ply: int, notation: str, why: Exception) -> NoLongerReplays:
        return cls(
            f"game #{game_id} no longer replays under this version's rules: its move {ply}, "
            f"{notation}, is refused ({why})"
        )


class TooEarly(ServiceError):
    """A claim made before its time; ``left`` is how long until it can be made."""

    default = "that can't be claimed yet"

    def __init__(self, message: str | None = None, left: timedelta = timedelta(0)) -> None:
        super().__init__(message)
        self.left = left


class GameEnded(ServiceError):
    """The game ended instead of doing what was asked; ``report`` tells how, for its channel
    to be shown."""

    default = "the game is over"

    def __init__(self, report: Report, message: str | None = None) -> None:
        super().__init__(message)
        self.report = report


class TimeUp(GameEnded):
    """A move came after the mover's time ran out: the game has ended on time instead."""

    default = "your time ran out before that move: the game is over"


class GameVoided(GameEnded):
    """The game's stored moves no longer replay (a rules fix came after them): it has ended as
    void instead."""


class ChannelNotAllowed(ServiceError):
    """The server lets the bot play only in some channels; ``channels`` are their ids."""

    def __init__(self, channels: tuple[str, ...], message: str | None = None) -> None:
        super().__init__(message or f"I play only in {', '.join(channels)} on this server")
        self.channels = channels


class NoPermission(ServiceError):
    default = "you need the Manage Server permission to change the bot's settings here"
