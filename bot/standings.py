"""What a rated game does to its players' standings: the one rule that both the service (as a
game finishes) and the rebuild (from the stored games) apply, so that they agree exactly.

Each game is its own Glicko-2 rating period: each player's rating is updated against the
other's rating before the game. A game counts in the global scope and, when played on a
server, in that server's scope.
"""

from __future__ import annotations

from dataclasses import replace

from bot.models import GLOBAL_SCOPE, Player, Result, Standing, ai_player
from bot.ratings import update
from engine import Side


def scopes(guild: str | None) -> tuple[str, ...]:
    """The scopes a game on ``guild`` (None: no server) counts in."""
    return (GLOBAL_SCOPE,) if guild is None else (GLOBAL_SCOPE, guild)


def rated_player(player: Player) -> Player:
    """Who holds the rating of ``player``: the AI of the games from before levels is medium."""
    level = player.ai_level
    return player if level is None else ai_player(level)


def can_be_rated(players: dict[Side, Player]) -> bool:
    """Whether a game between ``players`` can count: two different players."""
    return len({p.id for p in players.values()}) == 2


def after_game(before: dict[Side, Standing], winner: Side | None) -> dict[Side, Standing]:
    """Both sides' standings after a game ``winner`` won (None: a draw), from ``before``."""
    (side_a, a), (side_b, b) = before.items()
    return {
        side_a: _after(a, b, Result.of(winner, side_a)),
        side_b: _after(b, a, Result.of(winner, side_b)),
    }


def _after(mine: Standing, theirs: Standing, result: Result) -> Standing:
    return replace(
        mine,
        rating=update(mine.rating, [(theirs.rating, result.score)]),
        games=mine.games + 1,
        wins=mine.wins + (result is Result.WIN),
        draws=mine.draws + (result is Result.DRAW),
        losses=mine.losses + (result is Result.LOSS),
    )
