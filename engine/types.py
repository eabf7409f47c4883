"""Value types shared by every variant: squares, sides, pieces, moves, plies and outcomes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.errors import NotationError, shorten

Square = int
"""A square index: ``rank * size + file``, with file 0 = ``a`` and rank 0 = ``1``."""

Bitboard = int
"""A set of squares: bit ``s`` is set when square ``s`` is in it."""


class Side(StrEnum):
    """A player. Hnefatafl-family games use attackers/defenders, Halatafl white/black."""

    ATTACKERS = "attackers"
    DEFENDERS = "defenders"
    WHITE = "white"
    BLACK = "black"

    @property
    def opponent(self) -> Side:
        return _OPPONENT[self]


_OPPONENT = {
    Side.ATTACKERS: Side.DEFENDERS,
    Side.DEFENDERS: Side.ATTACKERS,
    Side.WHITE: Side.BLACK,
    Side.BLACK: Side.WHITE,
}


class Piece(StrEnum):
    """A piece kind, by its letter in position strings (OTN)."""

    ATTACKER = "t"
    DEFENDER = "T"
    KING = "K"
    WHITE = "W"
    BLACK = "B"

    @property
    def side(self) -> Side:
        return _PIECE_SIDE[self]


_PIECE_SIDE = {
    Piece.ATTACKER: Side.ATTACKERS,
    Piece.DEFENDER: Side.DEFENDERS,
    Piece.KING: Side.DEFENDERS,
    Piece.WHITE: Side.WHITE,
    Piece.BLACK: Side.BLACK,
}


class Reason(StrEnum):
    """Why a game ended."""

    KING_ESCAPED = "king_escaped"
    KING_CAPTURED = "king_captured"
    EXIT_FORT = "exit_fort"
    ENCIRCLED = "encircled"
    REPETITION = "repetition"
    NO_LEGAL_MOVES = "no_legal_moves"
    TOO_FEW_PIECES = "too_few_pieces"
    RESIGNED = "resigned"
    DRAW_AGREED = "draw_agreed"
    TIMEOUT = "timeout"
    VOIDED = "voided"
    """No result: the game's moves no longer replay under the rules it was played by (a fix to
    them came later); it counts for nobody."""

    @property
    def description(self) -> str:
        """A short phrase for reports: 'the king escaped'."""
        return _REASON_TEXT[self]


_REASON_TEXT = {
    Reason.KING_ESCAPED: "the king escaped",
    Reason.KING_CAPTURED: "the king was captured",
    Reason.EXIT_FORT: "the king built an exit fort",
    Reason.ENCIRCLED: "the defenders were encircled",
    Reason.REPETITION: "the position was repeated three times",
    Reason.NO_LEGAL_MOVES: "no legal move was left",
    Reason.TOO_FEW_PIECES: "fewer than five pieces were left",
    Reason.RESIGNED: "resignation",
    Reason.DRAW_AGREED: "a draw was agreed",
    Reason.TIMEOUT: "time ran out",
    Reason.VOIDED: "its moves no longer replay under these rules",
}


def square_name(square: Square, size: int) -> str:
    """``square_name(3, 11) == "d1"``."""
    return f"{chr(97 + square % size)}{square // size + 1}"


def parse_square(text: str, size: int) -> Square:
    """The square named ``text`` (``"d1"``, case-insensitive); NotationError if it is not one of
    the board."""
    t = text.strip().lower()
    if len(t) < 2 or not ("a" <= t[0] <= "z") or not t[1:].isdecimal():
        raise NotationError(f"{shorten(text)!r} is not a square; squares look like a1 or k11")
    digits = t[1:]
    file = ord(t[0]) - 97
    rank = int(digits) - 1 if len(digits) <= len(str(size)) else size
    if not (0 <= file < size and 0 <= rank < size):
        last = f"{chr(96 + size)}{size}"
        raise NotationError(f"{shorten(t)} is off the board; squares go from a1 to {last}")
    return rank * size + file


@dataclass(frozen=True, slots=True)
class Move:
    """A move as the squares its piece visits: ``(from, to)``, or a Halatafl jump chain."""

    size: int
    path: tuple[Square, ...]

    @classmethod
    def parse(cls, text: str, size: int) -> Move:
        """The move ``text`` spells out on a ``size`` board: ``Move.parse("d1-d4", 11)``, or a
        jump chain ``e5-c3-a5``. NotationError unless it names every square the piece visits
        (a destination alone, or captures, need a game: ``Game.parse_move``)."""
        from engine.notation import parse_move_text

        parsed = parse_move_text(text, size)
        if len(parsed.path) < 2 or parsed.captures is not None:
            raise NotationError(
                f"{text.strip()!r} is not a move on its own: give its squares, like d1-d4"
            )
        return cls(size, parsed.path)

    @property
    def origin(self) -> Square:
        return self.path[0]

    @property
    def target(self) -> Square:
        return self.path[-1]

    def __str__(self) -> str:
        return "-".join(square_name(s, self.size) for s in self.path)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r}, {self.size})"


@dataclass(frozen=True, slots=True)
class Ply:
    """A move as played: who made it and the squares whose men it removed (never the king)."""

    move: Move
    side: Side
    captures: tuple[str, ...] = ()

    @property
    def notation(self) -> str:
        """Record form: ``d1-d4xd5xe6``."""
        return str(self.move) + "".join(f"x{c}" for c in self.captures)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is None for a draw (or a void game)."""

    winner: Side | None
    reason: Reason

    @property
    def void(self) -> bool:
        """Whether the game has no result at all (not even a draw)."""
        return self.reason is Reason.VOIDED
