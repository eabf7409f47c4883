"""Exact proofs about lone-king endgames, for the benches that judge the AI by them.

``defenders_hold`` proves that no play of the attackers wins a position: whatever they do, the king
escapes by force, or the game goes round in circles, which the rules make a draw. Unlike the AI's
search, nothing here prunes or estimates: every attackers' move is answered, so a position called
held cannot be converted by anyone, and a conversion figure need not count it. (A position not
proven held may still be one: the proof looks a bounded number of plies ahead.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import Game, Move, Side, TaflGame
from engine.rules import Repetition


def going_round_holds(game: TaflGame) -> bool:
    """Whether a game that goes round in circles is not the attackers' win, whoever completes
    the third occurrence: repetition is a draw, or ignored (the game never ends)."""
    return game.rules.repetition in (Repetition.DRAW, Repetition.IGNORED)


class _OverBudget(Exception):
    """The proof tried more positions than it was given."""


def defenders_hold(variant: Any, position: str, plies: int, budget: int) -> bool | None:
    """Whether, in ``variant`` from the OTN ``position`` with the attackers to move, the
    defenders answer each of their moves with a king's move after which every attackers' move
    comes back to a position of the proof's line (where repetition is a draw or ignored), or
    lets the king escape within three plies, and so on for ``plies`` plies at most; None when
    that takes more than ``budget`` positions."""
    game = Game.from_position(variant, position, Side.ATTACKERS)
    if not isinstance(game, TaflGame):
        raise ValueError(f"{variant} has no king: the proof is for the hnefatafl games")
    proof = _HoldProof(game, budget)
    try:
        return proof.every_move_held(plies)
    except _OverBudget:
        return None


class _HoldProof:
    """An AND-OR search: every attackers' move, some king's move."""

    def __init__(self, game: TaflGame, budget: int) -> None:
        self.game = game
        self.budget = budget
        self.escapes: dict[tuple[str, Side], bool] | None = {} if going_round_holds(game) else None
        """Whether the king escapes from a position, by the position; kept only where a
        repetition is a draw (or ignored), so that how the game came there cannot turn an escape
        into the attackers' win."""

    def _tick(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _OverBudget

    def _ending_holds(self) -> bool:
        """Whether the game's end (it has ended) is not the attackers' win."""
        outcome = self.game.outcome
        assert outcome is not None
        return outcome.winner is not Side.ATTACKERS

    def _after(self, move: Move, judge: Callable[[], bool]) -> bool:
        """What ``judge`` says of the position after ``move``."""
        game = self.game
        game.push(move)
        try:
            self._tick()
            return judge()
        finally:
            game.undo()

    def _held_or(self, judge: Callable[[], bool]) -> Callable[[], bool]:
        """``judge``, where the game has not ended; where it has, whether the ending holds."""
        return lambda: self._ending_holds() if self.game.outcome is not None else judge()

    def every_move_held(self, plies: int) -> bool:
        """The attackers to move: whether each of their moves ends the game short of their win
        or leaves a position the defenders hold within ``plies - 1``."""
        judge = self._held_or(lambda: self._held(plies - 1))
        return all(self._after(move, judge) for move in self.game.legal_moves())

    def _held(self, plies: int) -> bool:
        """The defenders to move: a position of the line (the game starts at the proof's root)
        that they may go round to, a forced escape, or a king's move after which every
        attackers' move is held."""
        game = self.game
        if game.occurrences() > 1:
            return going_round_holds(game)
        if self._escapes():
            return True
        if plies < 2:
            return False
        judge = self._held_or(lambda: self.every_move_held(plies - 1))
        return any(self._after(move, judge) for move in game.king_moves())

    def _escapes(self) -> bool:
        """The defenders to move: whether the king escapes now, or makes a move after which he
        escapes whatever the attackers play."""
        if self.escapes is None:
            return self._escapes_within_three()
        key = (self.game.position(), self.game.turn)
        known = self.escapes.get(key)
        if known is None:
            known = self.escapes[key] = self._escapes_within_three()
        return known

    def _escapes_within_three(self) -> bool:
        if self._escapes_now():
            return True
        judge = self._still_on(self._every_reply_lets_him_out)
        return any(self._after(move, judge) for move in self.game.king_moves())

    def _every_reply_lets_him_out(self) -> bool:
        """The attackers to move: whether after each of their moves the king escapes at once."""
        judge = self._still_on(self._escapes_now)
        return all(self._after(move, judge) for move in self.game.legal_moves())

    def _escapes_now(self) -> bool:
        """The defenders to move: whether one of the king's moves wins."""
        return any(self._after(move, self._escaped) for move in self.game.king_moves())

    def _still_on(self, judge: Callable[[], bool]) -> Callable[[], bool]:
        """``judge``, where the game has not ended; False where it has (a move that ends it
        without the king's escape is no way out)."""
        return lambda: self.game.outcome is None and judge()

    def _escaped(self) -> bool:
        outcome = self.game.outcome
        return outcome is not None and outcome.winner is Side.DEFENDERS
