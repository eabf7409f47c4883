"""The game interface every variant shares: play, undo, legal moves, outcome, positions.

``Game("copenhagen")`` builds the right kind of game for the variant (a hnefatafl-family game
or Halatafl); the kinds subclass ``Game`` and fill in the hooks at the end. ``Game`` is not an
ABC, so that type checkers accept ``Game(variant)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any, ClassVar, Protocol, Self

from engine.errors import AmbiguousMoveError, IllegalMoveError, PositionError, Refusal, shorten
from engine.notation import parse_move_text
from engine.opentafl import format_position
from engine.presets import DEFAULT_VARIANT
from engine.types import Move, Outcome, Piece, Ply, Reason, Side, Square, square_name

AMBIGUOUS_LISTED = 8
"""The most moves an ambiguous target square's refusal lists (the shortest first)."""


class VariantRules(Protocol):
    """What every variant's rules record has, whatever its kind."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def start(self) -> str: ...
    @property
    def first(self) -> Side: ...


_GAME_KINDS: dict[type, type[Game]] = {}


class Game:
    """A game in progress. ``Game(variant)`` takes a preset id or an OpenTafl rules string."""

    rules_type: ClassVar[type]
    """The rules record class this kind of game plays; ``Game(...)`` dispatches on it."""

    rules: Any
    size: int
    turn: Side
    outcome: Outcome | None
    history: list[Ply]
    throne: Square | None
    """The marked centre square, if any (Halatafl's centre too)."""
    corners: frozenset[Square]
    """The marked corner squares (Alea Evangelii: its 2x2 blocks)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "rules_type" in cls.__dict__:
            _GAME_KINDS[cls.rules_type] = cls

    def __new__(cls, variant: Any = DEFAULT_VARIANT) -> Game:
        if cls is Game:
            cls = _GAME_KINDS[type(_resolve(variant))]
        return super().__new__(cls)

    def __init__(self, variant: Any = DEFAULT_VARIANT) -> None:
        self.rules = _resolve(variant)
        self.size = self.rules.size
        self.history = []
        self.outcome = None
        self._undo_stack: list[tuple[Any, Outcome | None, Hashable]] = []
        self._seen: Counter[Hashable] = Counter()
        self._first: Side = self.rules.first
        self._second: Side = self._first.opponent
        self._set_position(self.rules.start, self.rules.first)

    @classmethod
    def from_position(cls, variant: Any, position: str, turn: str | Side) -> Game:
        """A game of ``variant`` starting from an OTN ``position`` with ``turn`` to move. Its
        ``outcome`` is left unset (``standing_outcome`` tells one): a position cannot tell a
        captured king from one who walked in between two attackers."""
        game = cls(variant)
        game._set_position(position, _side(turn))
        return game

    def _set_position(self, position: str, turn: Side) -> None:
        self._setup(position, turn)
        self._start = (self.position(), turn)
        self.turn = turn
        self.history.clear()
        self._undo_stack.clear()
        self._seen.clear()
        self._seen[self._position_key()] += 1
        self.outcome = None

    @property
    def start(self) -> tuple[str, Side]:
        """The OTN position and the side to move that the game began with."""
        return self._start

    def copy(self) -> Self:
        """An independent game in the same state: the same position, history and outcome, and
        ``undo`` takes back the same moves."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.history = list(self.history)
        other._undo_stack = list(self._undo_stack)
        other._seen = Counter(self._seen)
        other._copy_board_from(self)
        return other

    def __eq__(self, other: object) -> bool:
        """Equal games have the same rules, pieces and side to move, however they got there
        (as python-chess compares boards); the history and outcome are not compared."""
        if not isinstance(other, Game):
            return NotImplemented
        return (self.rules, self.turn, self._key()) == (other.rules, other.turn, other._key())

    __hash__ = None  # type: ignore[assignment]  # a game changes as it is played

    def __repr__(self) -> str:
        """Code that builds an equal game: ``Game('brandubh')``, or ``Game.from_position(...)``
        for any other position."""
        rules = self.rules_string
        here = (self.position(), self.turn)
        if here == (Game(rules).position(), self.rules.first):
            return f"Game({rules!r})"
        return f"Game.from_position({rules!r}, {here[0]!r}, {str(self.turn)!r})"

    # -- playing -------------------------------------------------------------------------------

    def play(self, text: str) -> Ply:
        """Play a move given as text; raises NotationError, IllegalMoveError, AmbiguousMoveError."""
        return self.push(self.parse_move(text))

    def parse_move(self, text: str) -> Move:
        """The legal move ``text`` names, checked against any capture suffix it gives."""
        parsed = parse_move_text(text, self.size)
        if self.outcome is not None:
            raise IllegalMoveError("the game is over", Refusal.GAME_OVER)
        if len(parsed.path) == 1:
            target = parsed.path[0]
            candidates = [m for m in self.distinct_moves() if m.target == target]
            if not candidates:
                name = square_name(target, self.size)
                raise IllegalMoveError(
                    f"none of the {self.turn}' pieces can move to {name}", Refusal.UNREACHABLE
                )
            if len(candidates) > 1:
                named = sorted((str(m) for m in candidates), key=lambda text: (len(text), text))
                listed = ", ".join(named[:AMBIGUOUS_LISTED])
                if len(named) > AMBIGUOUS_LISTED:
                    listed += f" and {len(named) - AMBIGUOUS_LISTED} more"
                raise AmbiguousMoveError(f"more than one move goes there: {listed}")
            move = candidates[0]
        else:
            move = Move(self.size, parsed.path)
            if not self.is_legal(move):
                raise self._refusal(move)
        if parsed.captures is not None:
            real = self.captures_of(move)
            if frozenset(real) != parsed.captures:
                said = ", ".join(sorted(square_name(s, self.size) for s in parsed.captures))
                names = ", ".join(square_name(s, self.size) for s in real) or "nothing"
                raise IllegalMoveError(
                    f"{move} captures {names}, not {said}", Refusal.WRONG_CAPTURES
                )
        return move

    def push(self, move: Move) -> Ply:
        """Play a move taken from ``legal_moves()`` (not checked again)."""
        side = self.turn
        state = self._snapshot()
        captured = self._apply(move)
        names = tuple([square_name(s, self.size) for s in captured]) if captured else ()
        ply = Ply(move, side, names)
        self.turn = self._second if side is self._first else self._first
        key = self._position_key()
        self._undo_stack.append((state, self.outcome, key))
        seen = self._seen[key] = self._seen.get(key, 0) + 1
        self.history.append(ply)
        self.outcome = outcome = self._ending(ply)
        if outcome is None and seen >= 3:
            self.outcome = self._repetition_outcome(side)
        return ply

    def _position_key(self) -> Hashable:
        """The position as repetition counts it: the board and the side to move."""
        return (self._key(), self.turn is self._first)

    def occurrences(self) -> int:
        """How many times the current position (board and side to move) has occurred in this
        game, this time included."""
        key = self._undo_stack[-1][2] if self._undo_stack else self._position_key()
        return self._seen[key]

    def repetition_outcome(self) -> Outcome | None:
        """What the rules make of the current position if this is its third occurrence (made by
        the side that moved last); None where repetition is ignored."""
        mover = self._second if self.turn is self._first else self._first
        return self._repetition_outcome(mover)

    def undo(self) -> Ply:
        """Take back the last move; restores the exact position, turn and outcome."""
        if not self.history:
            raise IllegalMoveError("there is no move to take back", Refusal.NOTHING_TO_UNDO)
        state, outcome, key = self._undo_stack.pop()
        if self._seen[key] == 1:
            del self._seen[key]  # the positions a search tries must not pile up
        else:
            self._seen[key] -= 1
        ply = self.history.pop()
        self._restore(state)
        self.turn = ply.side
        self.outcome = outcome
        return ply

    def captures_of(self, move: Move) -> tuple[Square, ...]:
        """The squares whose men ``move`` would remove, without playing it."""
        state = self._snapshot()
        try:
            return tuple(self._apply(move))
        finally:
            self._restore(state)

    def capturing_moves(self) -> list[Move]:
        """The legal moves that capture something (``captures_of`` is not empty)."""
        return [move for move in self.legal_moves() if self.captures_of(move)]

    def resign(self, side: str | Side) -> Outcome:
        """``side`` gives up; the other side wins."""
        return self.end(Outcome(Side(side).opponent, Reason.RESIGNED))

    def agree_draw(self) -> Outcome:
        return self.end(Outcome(None, Reason.DRAW_AGREED))

    def time_out(self, side: str | Side) -> Outcome:
        """``side`` ran out of time and loses."""
        return self.end(Outcome(Side(side).opponent, Reason.TIMEOUT))

    def end(self, outcome: Outcome) -> Outcome:
        if self.outcome is not None:
            raise IllegalMoveError("the game is over", Refusal.GAME_OVER)
        self.outcome = outcome
        return outcome

    # -- reading the position ------------------------------------------------------------------

    def position(self) -> str:
        """The board as an OTN position string, rank 1 first: ``/3ttttt3/5t5/.../``."""
        return format_position(self.pieces(), self.size)

    def piece_at(self, square: Square) -> Piece | None:
        return self.pieces().get(square)

    def square_name(self, square: Square) -> str:
        return square_name(square, self.size)

    @property
    def variant(self) -> str:
        """The preset id, or ``"custom"``."""
        return str(self.rules.id)

    # -- hooks for each kind of game -----------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move (empty once the game is over)."""
        raise NotImplementedError

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is one of ``legal_moves()``."""
        return move in self.legal_moves()

    def distinct_moves(self) -> list[Move]:
        """One legal move for each position the side to move can reach (what a search needs to
        try): where several moves lead to the same position, only one of them."""
        return self.legal_moves()

    def pieces(self) -> dict[Square, Piece]:
        """Every piece on the board by square."""
        raise NotImplementedError

    @property
    def rules_string(self) -> str:
        """A string that ``Game(...)`` accepts to rebuild these exact rules (stored with games)."""
        raise NotImplementedError

    def _setup(self, position: str, turn: Side) -> None:
        """Load an OTN position; PositionError (saying why) if it is not valid for these rules."""
        raise NotImplementedError

    def _apply(self, move: Move) -> Iterable[Square]:
        """Make the move on the board (turn not yet switched); return the squares captured."""
        raise NotImplementedError

    def _snapshot(self) -> Any:
        """Everything ``_apply`` changes, to hand back to ``_restore``."""
        raise NotImplementedError

    def _restore(self, state: Any) -> None:
        raise NotImplementedError

    def _copy_board_from(self, original: Self) -> None:
        """After ``copy`` shared every attribute with ``original``: make this game's own copies
        of the mutable ones that hold its board."""
        raise NotImplementedError

    def _key(self) -> Hashable:
        """The board alone, for repetition (the base adds the side to move)."""
        raise NotImplementedError

    def _ending(self, ply: Ply) -> Outcome | None:
        """The outcome the ply just played brings about, if any (turn already switched)."""
        raise NotImplementedError

    def standing_outcome(self) -> Outcome | None:
        """The outcome the position shows as it stands, whoever moved last: how a game from it
        would be over before anyone moved (a start position is checked with it)."""
        raise NotImplementedError

    def _repetition_outcome(self, mover: Side) -> Outcome | None:
        """What a third occurrence of the position reached by ``mover``'s move does."""
        raise NotImplementedError

    def _refusal(self, move: Move) -> IllegalMoveError:
        """Why ``move`` (not legal) is refused: "d3 blocks the way", "that is not your piece"..."""
        raise NotImplementedError


def _side(turn: str | Side) -> Side:
    """``turn`` as a side; PositionError naming the choices."""
    try:
        return Side(turn)
    except ValueError:
        choices = ", ".join(Side)
        raise PositionError(
            f"unknown side to move {shorten(str(turn))!r}; choose one of: {choices}"
        ) from None


def _resolve(variant: Any) -> VariantRules:
    from engine.variants import resolve_rules

    return resolve_rules(variant)
