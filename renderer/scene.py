"""What a picture shows: a position, its special squares and the marks laid over it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from engine.errors import TaflError
from engine.game import Game
from engine.types import Piece, Reason, Side, Square, parse_square
from engine.variants import DEFAULT_VARIANT, resolve_rules


@dataclass(frozen=True)
class BoardView:
    """Everything a board image shows, independent of how it is drawn.

    ``last_move`` is the path of the last move (from, any chain landings, to; empty for none),
    ``captures`` the squares whose men it removed, ``fallen_king`` the square of a captured king,
    ``selected`` a chosen piece and ``targets`` the squares it can move to.
    """

    size: int
    pieces: Mapping[Square, Piece]
    throne: Square | None = None
    corners: frozenset[Square] = frozenset()
    last_move: tuple[Square, ...] = ()
    captures: frozenset[Square] = frozenset()
    fallen_king: Square | None = None
    selected: Square | None = None
    targets: frozenset[Square] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pieces", MappingProxyType(dict(self.pieces)))
        squares = self.size * self.size
        named = [
            *self.pieces,
            *([] if self.throne is None else [self.throne]),
            *self.corners,
            *self.last_move,
            *self.captures,
            *([] if self.fallen_king is None else [self.fallen_king]),
            *([] if self.selected is None else [self.selected]),
            *self.targets,
        ]
        off = sorted({s for s in named if not 0 <= s < squares})
        if off:
            raise ValueError(
                f"squares {off} are off a {self.size}x{self.size} board "
                f"(squares are 0..{squares - 1})"
            )
        if len(self.last_move) == 1:
            raise ValueError("a last move needs at least a from-square and a to-square")
        if self.fallen_king is not None and self.pieces.get(self.fallen_king) is not Piece.KING:
            raise ValueError("fallen_king must be the square the king stands on")

    def __reduce__(self) -> tuple[type[BoardView], tuple[object, ...]]:
        """Pickled with a plain dict of pieces (a mapping proxy can't be), to be drawn in a
        worker process."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["pieces"] = dict(self.pieces)
        return (BoardView, tuple(values.values()))

    @classmethod
    def from_game(cls, game: Game, *, moves_of: Square | str | None = None) -> BoardView:
        """The game's position with its last ply marked; ``moves_of`` shows one piece's moves."""
        pieces = game.pieces()
        path: tuple[Square, ...] = ()
        captures: frozenset[Square] = frozenset()
        if game.history:
            last = game.history[-1]
            path = last.move.path
            captures = frozenset(parse_square(name, game.size) for name in last.captures)
        fallen_king = None
        if game.outcome is not None and game.outcome.reason is Reason.KING_CAPTURED:
            fallen_king = next((s for s, p in pieces.items() if p is Piece.KING), None)
        selected, targets = None, frozenset[Square]()
        if moves_of is not None:
            selected = _square(moves_of, game.size)
            if selected not in pieces:
                raise TaflError(f"there is no piece on {game.square_name(selected)}")
            targets = frozenset(m.target for m in game.distinct_moves() if m.origin == selected)
        return cls(
            size=game.size,
            pieces=pieces,
            throne=game.throne,
            corners=frozenset(game.corners),
            last_move=path,
            captures=captures,
            fallen_king=fallen_king,
            selected=selected,
            targets=targets,
        )

    @classmethod
    def from_position(
        cls,
        position: str,
        variant: str = DEFAULT_VARIANT,
        *,
        turn: Side | str | None = None,
        moves_of: Square | str | None = None,
    ) -> BoardView:
        """An OTN ``position`` on the board of ``variant`` (no last move; ``turn`` for moves_of).

        Raises ValueError when the position does not fit the variant.
        """
        side = resolve_rules(variant).first if turn is None else _side(turn)
        return cls.from_game(Game.from_position(variant, position, side), moves_of=moves_of)


def _side(side: Side | str) -> Side:
    try:
        return Side(side)
    except ValueError:
        choices = ", ".join(s.value for s in Side)
        raise ValueError(f"unknown side {side!r}; choose one of: {choices}") from None


def _square(square: Square | str, size: int) -> Square:
    return parse_square(square, size) if isinstance(square, str) else square
