"""Rules as data: one record with every switch of RULES.md section 1; variants are presets of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from engine.board import MAX_SIZE, MIN_SIZE
from engine.errors import RulesError, TaflError
from engine.types import Piece, Side, parse_square


class Escape(StrEnum):
    """Where the king wins."""

    CORNERS = "corners"
    EDGE = "edge"


class KingStrength(StrEnum):
    """How many sides must be closed to capture the king."""

    STRONG = "strong"
    """Four sides: attackers or squares hostile to him."""
    STRONG_OR_3_AT_EDGE = "strong_or_3_at_edge"
    """Four sides, or the three sides he has on the edge."""
    STRONG_NEAR_THRONE = "strong_near_throne"
    """Four sides on or next to the throne, two (like a man) elsewhere."""
    WEAK = "weak"
    """Two opposite sides, like a man."""


class ThroneStop(StrEnum):
    """Who may end a move on the throne."""

    KING = "king"
    NOBODY = "nobody"
    ALL = "all"


class Repetition(StrEnum):
    """What the third occurrence of a position (the board and the side to move) does."""

    DRAW = "draw"
    DEFENDERS_LOSE = "defenders_lose"
    REPEATER_LOSES = "repeater_loses"
    """The side whose move made the third occurrence loses (OpenTafl's ``tfr:w``, as its code
    scores it: the side then to move wins)."""
    REPEATER_WINS = "repeater_wins"
    """The side whose move made the third occurrence wins (OpenTafl's ``tfr:l``)."""
    IGNORED = "ignored"


BOTH_SIDES: frozenset[Side] = frozenset({Side.ATTACKERS, Side.DEFENDERS})
NO_SIDE: frozenset[Side] = frozenset()


@dataclass(frozen=True)
class Rules:
    """A hnefatafl-family ruleset. Squares are named (``"f6"``); hostility sets name victim sides.

    The king is hostile-tested as a defender: a square hostile to defenders is hostile to him.
    """

    id: str
    name: str
    summary: str
    size: int
    start: str
    """OTN position, rank 1 first: ``/3ttttt3/5t5/.../``."""
    first: Side = Side.ATTACKERS
    escape: Escape = Escape.CORNERS
    corners: frozenset[str] = field(default_factory=frozenset)
    throne: str | None = None
    throne_stop: ThroneStop = ThroneStop.KING
    throne_pass: bool = True
    """Whether pieces other than the king may move through the empty throne."""
    corner_hostile_to: frozenset[Side] = BOTH_SIDES
    empty_throne_hostile_to: frozenset[Side] = BOTH_SIDES
    occupied_throne_hostile_to: frozenset[Side] = NO_SIDE
    edge_hostile: bool = False
    """The board edge is an anvil against men."""
    king_hammer: bool = True
    king_anvil: bool = True
    king_strength: KingStrength = KingStrength.STRONG
    lone_king_captured_on_edge: bool = False
    """Fetlar: the last defender can be captured on the edge by attackers on his three sides."""
    linnaean_capture: bool = False
    """OpenTafl's Tablut: with the king on the throne and attackers on three of his sides, the
    throne is an anvil against a defender on his fourth side."""
    shieldwall: bool = False
    exit_fort: bool = False
    encirclement: bool = False
    repetition: Repetition = Repetition.DRAW
    source: str = ""
    """Where the reading comes from (seed, site)."""

    def __post_init__(self) -> None:
        """RulesError when the record cannot be played: checked once, when it is built."""
        from engine.opentafl import parse_position  # opentafl reads rules strings into Rules

        def invalid(problem: str) -> RulesError:
            return RulesError(f"the rules {self.name!r} can't be played: {problem}")

        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise invalid(
                f"the board is {self.size}x{self.size}; it must be {MIN_SIZE} to {MAX_SIZE}"
            )
        if self.first not in BOTH_SIDES:
            raise invalid(f"the side moving first is attackers or defenders, not {self.first}")
        marked = [("throne", self.throne)] if self.throne is not None else []
        for what, name in [*marked, *(("corner", name) for name in sorted(self.corners))]:
            try:
                parse_square(name, self.size)
            except TaflError as error:
                raise invalid(f"the {what} square {name!r}: {error}") from None
        if self.escape is Escape.CORNERS and not self.corners:
            raise invalid("the king escapes to a corner, but there are no corners")
        try:
            pieces = parse_position(self.start, self.size, "tTK")
        except TaflError as error:
            raise invalid(f"the start position: {error}") from None
        kings = list(pieces.values()).count(Piece.KING)
        if kings != 1:
            raise invalid(f"the start position needs exactly one king (K), not {kings}")

    @property
    def king_armed(self) -> bool:
        return self.king_hammer and self.king_anvil
