"""Halatafl (RULES.md section 3): 7x7, 22 against 22, pieces step forward and capture by jumping.

The board is two bitboards (White's and Black's pieces); steps and jumps come from tables
precomputed per board size.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Any

from engine.errors import IllegalMoveError, PositionError, Refusal
from engine.game import Game
from engine.opentafl import parse_position
from engine.types import Bitboard, Move, Outcome, Piece, Ply, Reason, Side, Square

MIN_PIECES = 5
"""A player left with fewer pieces than this loses."""


@dataclass(frozen=True)
class HalataflRules:
    """Halatafl's rules record: the fields every variant has; the rules themselves are fixed."""

    id: str = "halatafl"
    name: str = "Halatafl"
    summary: str = (
        "A jumping game on 7x7, 22 pieces against 22, with no king. A piece steps one square "
        "forward, sideways or diagonally forward, or jumps over any neighbour onto the empty "
        "square behind it, in chains; enemy pieces jumped are captured. White moves first, with "
        "a step into the centre; a side with fewer than five pieces or no legal move loses."
    )
    size: int = 7
    start: str = "/1WWWWW1/WWWWWWW/WWWWWWW/WWW1BBB/BBBBBBB/BBBBBBB/1BBBBB1/"
    """OTN position, rank 1 first, with W and B; the corners and the centre are empty."""
    first: Side = Side.WHITE
    source: str = "seed 000"


HALATAFL = HalataflRules()

_SIDES = (Side.WHITE, Side.BLACK)
_PIECE_OF = {Side.WHITE: Piece.WHITE, Side.BLACK: Piece.BLACK}


@dataclass(frozen=True)
class _Geometry:
    """Precomputed tables for one board size."""

    size: int
    corners: Bitboard
    centre: Square
    steps: dict[Side, tuple[tuple[Square, ...], ...]]
    """Per side and square, the squares a step may go to (forward, sideways, diagonally forward)."""
    jumps: tuple[tuple[tuple[Square, Square], ...], ...]
    """Per square, the (jumped, landing) square pairs in all eight directions."""
    around: tuple[Bitboard, ...]
    """Per square, the squares next to it in all eight directions."""
    step_origins: dict[Side, tuple[tuple[int, Bitboard], ...]]
    """Per side, ``steps`` by direction: a step's offset, and the squares it can be made from."""
    jump_origins: tuple[tuple[int, Bitboard], ...]
    """``jumps`` by direction: the offset to the square jumped, and the squares a jump that way
    can be made from."""


def _by_offset(moves: dict[Square, tuple[Square, ...]]) -> tuple[tuple[int, Bitboard], ...]:
    """Moves given per origin as their first targets, grouped by the offset from origin to
    target: each offset with the origins it applies to."""
    origins: dict[int, Bitboard] = {}
    for origin, targets in moves.items():
        for target in targets:
            origins[target - origin] = origins.get(target - origin, 0) | 1 << origin
    return tuple(sorted(origins.items()))


def _shifted(board: Bitboard, offset: int) -> Bitboard:
    """``board`` with every square moved by ``offset`` (a square number difference)."""
    return board << offset if offset > 0 else board >> -offset


@cache
def _geometry(size: int) -> _Geometry:
    def on_board(file: int, rank: int) -> bool:
        return 0 <= file < size and 0 <= rank < size

    def directions(forward: int) -> list[tuple[int, int]]:
        return [(-1, 0), (1, 0), (-1, forward), (0, forward), (1, forward)]

    steps: dict[Side, tuple[tuple[Square, ...], ...]] = {}
    for side, forward in ((Side.WHITE, 1), (Side.BLACK, -1)):
        steps[side] = tuple(
            tuple(
                (sq // size + dr) * size + sq % size + df
                for df, dr in directions(forward)
                if on_board(sq % size + df, sq // size + dr)
            )
            for sq in range(size * size)
        )
    all_ways = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]
    jumps = tuple(
        tuple(
            (
                (sq // size + dr) * size + sq % size + df,
                (sq // size + 2 * dr) * size + sq % size + 2 * df,
            )
            for df, dr in all_ways
            if on_board(sq % size + 2 * df, sq // size + 2 * dr)
        )
        for sq in range(size * size)
    )
    last = size - 1
    corners = 0
    for sq in (0, last, last * size, last * size + last):
        corners |= 1 << sq
    around = tuple(
        sum(1 << other for other in range(size * size) if _adjacent(sq, other, size))
        for sq in range(size * size)
    )
    step_origins = {side: _by_offset(dict(enumerate(steps[side]))) for side in steps}
    jump_origins = _by_offset({sq: tuple(over for over, _ in jumps[sq]) for sq in range(size**2)})
    return _Geometry(
        size,
        corners,
        (size // 2) * size + size // 2,
        steps,
        jumps,
        around,
        step_origins,
        jump_origins,
    )


class HalataflGame(Game):
    """A game of Halatafl. Moves are paths: a step ``c3-d4`` or a jump chain ``e5-c3-a5``."""

    rules_type = HalataflRules
    rules: HalataflRules

    def __init__(self, variant: Any = "halatafl") -> None:
        super().__init__(variant)

    # -- the hooks of Game ---------------------------------------------------------------------

    def _setup(self, position: str, turn: Side) -> None:
        if not isinstance(self.rules, HalataflRules):
            raise TypeError(f"HalataflGame plays Halatafl rules, not {self.rules.name}")
        if turn not in _SIDES:
            raise PositionError(f"the sides in Halatafl are white and black, not {turn}")
        self._geo = _geometry(self.size)
        self.throne = self._geo.centre
        self.corners = frozenset(s for s in range(self.size**2) if self._geo.corners >> s & 1)
        boards = _boards_of(position, self.size)
        for side, board in boards.items():
            if board.bit_count() < MIN_PIECES:
                raise PositionError(
                    f"{side} has {board.bit_count()} pieces; with fewer than {MIN_PIECES} "
                    "the game is already lost"
                )
        self._boards = boards
        self._opening = _boards_of(self.rules.start, self.size), self.rules.first
        """The start position and its side to move, where only the steps into the centre count."""

    def _copy_board_from(self, original: HalataflGame) -> None:
        self._boards = dict(original._boards)

    def _snapshot(self) -> tuple[Bitboard, Bitboard]:
        return self._boards[Side.WHITE], self._boards[Side.BLACK]

    def _restore(self, state: Any) -> None:
        self._boards = {Side.WHITE: state[0], Side.BLACK: state[1]}

    def _key(self) -> Hashable:
        return self._snapshot()

    def _apply(self, move: Move) -> tuple[Square, ...]:
        side = self.turn
        enemy = side.opponent
        captured = self.captures_of(move)
        if move.target != move.origin:  # a chain may come back to where it started
            self._boards[side] ^= (1 << move.origin) | (1 << move.target)
        for square in captured:
            self._boards[enemy] ^= 1 << square
        return captured

    def captures_of(self, move: Move) -> tuple[Square, ...]:
        """The enemy pieces ``move`` jumps: it captures them (worked out without playing it)."""
        path = move.path
        around = self._geo.around
        if len(path) == 2 and around[path[0]] >> path[1] & 1:
            return ()  # a step
        enemy = self._boards[self.turn.opponent]
        return tuple(
            [
                over
                for a, b in pairwise(path)
                if not around[a] >> b & 1 and enemy >> (over := (a + b) // 2) & 1
            ]
        )

    def _ending(self, ply: Ply) -> Outcome | None:
        loser = self.turn
        if self._boards[loser].bit_count() < MIN_PIECES:
            return Outcome(ply.side, Reason.TOO_FEW_PIECES)
        if not self._can_move(loser):
            return Outcome(ply.side, Reason.NO_LEGAL_MOVES)
        return None

    def standing_outcome(self) -> Outcome | None:
        for side in (self.turn, self.turn.opponent):
            if self._boards[side].bit_count() < MIN_PIECES:
                return Outcome(side.opponent, Reason.TOO_FEW_PIECES)
        if not self._can_move(self.turn):
            return Outcome(self.turn.opponent, Reason.NO_LEGAL_MOVES)
        return None

    def _repetition_outcome(self, mover: Side) -> Outcome | None:
        return Outcome(None, Reason.REPETITION)

    def legal_moves(self) -> list[Move]:
        if self.outcome is not None:
            return []
        if self._at_opening():
            return [m for m in self._moves_from_all(self.turn) if self._opening_move(m)]
        return self._moves_from_all(self.turn)

    def distinct_moves(self) -> list[Move]:
        """One move per landing square and set of pieces taken of each piece: jump chains that
        take the same pieces in another order, or jump a man of their own on another way, lead
        to the same position (a crowded board has thousands of chains and far fewer ends)."""
        if self.outcome is not None or self._at_opening():
            return self.legal_moves()
        return self._moves_from_all(self.turn, distinct=True)

    def _at_opening(self) -> bool:
        """Whether this is the start position with its first side to move (RULES.md section 3:
        there the side may only step into the centre; a jump into it would leave the other side
        without a move)."""
        boards, first = self._opening
        return self.turn is first and self._boards == boards

    def _opening_move(self, move: Move) -> bool:
        """A step into the centre: the only kind of move allowed in the start position."""
        return move.target == self._geo.centre and _adjacent(move.origin, move.target, self.size)

    def _moves_from_all(self, side: Side, *, distinct: bool = False) -> list[Move]:
        """Every move of ``side`` by the movement rules (a cornered piece leaving first); with
        ``distinct``, one per position reached (``distinct_moves``)."""
        cornered = self._boards[side] & self._geo.corners
        if cornered:
            leaving = [
                move
                for origin in _squares(cornered)
                for move in self._moves_from(origin, side, distinct)
                if move.target != origin
            ]
            if leaving:
                return leaving
        moves = [
            move
            for origin in _squares(self._boards[side])
            for move in self._moves_from(origin, side, distinct)
        ]
        return self._one_way_home(moves) if distinct else moves

    def _one_way_home(self, moves: list[Move]) -> list[Move]:
        """``moves`` but for chains that come back to where they started and take the same
        pieces as one before them: whichever piece makes it, the board is the same (every
        other pair of moves of different pieces leaves a piece on a different square)."""
        taken_home: set[tuple[Square, ...]] = set()
        kept = []
        for move in moves:
            if move.target == move.origin:
                taken = tuple(sorted(self.captures_of(move)))
                if taken in taken_home:
                    continue
                taken_home.add(taken)
            kept.append(move)
        return kept

    def pieces(self) -> dict[Square, Piece]:
        return {
            square: _PIECE_OF[side] for side in _SIDES for square in _squares(self._boards[side])
        }

    @property
    def bitboards(self) -> tuple[Bitboard, Bitboard]:
        """White's and Black's bitboards (a read-only view, e.g. for the AI's evaluation; also
        a key of the board)."""
        return self._boards[Side.WHITE], self._boards[Side.BLACK]

    @property
    def rules_string(self) -> str:
        return "halatafl"

    # -- moves ---------------------------------------------------------------------------------

    def _moves_from(self, origin: Square, side: Side, distinct: bool = False) -> Iterator[Move]:
        """Every step and every jump chain prefix of the piece on ``origin`` (with
        ``distinct``, one chain per landing square and set of pieces taken)."""
        geo = self._geo
        occupied = (self._boards[Side.WHITE] | self._boards[Side.BLACK]) & ~(1 << origin)
        enemy = self._boards[side.opponent]
        for target in geo.steps[side][origin]:
            if not (occupied | geo.corners) >> target & 1:
                yield Move(self.size, (origin, target))
        if distinct:
            yield from self._distinct_jump_chains(origin, occupied, enemy)
        else:
            yield from self._jump_chains((origin,), 0, occupied, enemy)

    def _jump_chains(
        self, path: tuple[Square, ...], jumped: Bitboard, occupied: Bitboard, enemy: Bitboard
    ) -> Iterator[Move]:
        """Every jump chain that goes on from ``path``, over none of the ``jumped`` pieces
        again (a method: a nested function calling itself would be a reference cycle)."""
        for over, land in self._next_jumps(path[-1], jumped, occupied, enemy):
            longer = (*path, land)
            yield Move(self.size, longer)
            yield from self._jump_chains(longer, jumped | 1 << over, occupied, enemy)

    def _next_jumps(
        self, square: Square, jumped: Bitboard, occupied: Bitboard, enemy: Bitboard
    ) -> Iterator[tuple[Square, Square]]:
        """The jumps (the square jumped, the square landed on) a piece on ``square`` can make
        next: over a piece not yet ``jumped`` onto an empty square, onto a corner only over an
        enemy."""
        corners = self._geo.corners
        for over, land in self._geo.jumps[square]:
            if (
                occupied >> over & 1
                and not jumped >> over & 1
                and not occupied >> land & 1
                and (enemy >> over & 1 or not corners >> land & 1)
            ):
                yield over, land

    def _distinct_jump_chains(
        self, origin: Square, occupied: Bitboard, enemy: Bitboard
    ) -> Iterator[Move]:
        """The first jump chain found from ``origin`` to each landing square with each set of
        pieces taken. A chain goes on by where it stands and what it has jumped, not by the
        way it came, so each such state is gone on from once."""
        reached = {(origin, 0)}
        ends: set[tuple[Square, Bitboard]] = set()
        chains: list[tuple[tuple[Square, ...], Bitboard]] = [((origin,), 0)]
        while chains:
            path, jumped = chains.pop()
            for over, land in self._next_jumps(path[-1], jumped, occupied, enemy):
                jumped_now = jumped | 1 << over
                if (land, jumped_now) in reached:
                    continue
                reached.add((land, jumped_now))
                longer = (*path, land)
                end = (land, jumped_now & enemy)
                if end not in ends:
                    ends.add(end)
                    yield Move(self.size, longer)
                chains.append((longer, jumped_now))

    def _can_move(self, side: Side) -> bool:
        """Whether ``side`` has any legal move (a step or a first jump)."""
        return bool(self.step_landings(side) or self.jump_landings(side))

    def landings(self, side: Side) -> Bitboard:
        """The squares a piece of ``side`` could move to now: where its steps and its first
        jumps end."""
        return self.step_landings(side) | self.jump_landings(side)

    def step_landings(self, side: Side) -> Bitboard:
        """Where the steps of ``side`` end: on an empty square that is not a corner."""
        geo = self._geo
        own = self._boards[side]
        stepped = 0
        for offset, origins in geo.step_origins[side]:
            stepped |= _shifted(own & origins, offset)
        return stepped & ~(own | self._boards[side.opponent] | geo.corners)

    def jump_landings(self, side: Side) -> Bitboard:
        """Where the first jumps of ``side`` end (as ``_next_jumps`` allows: on an empty square,
        a corner only over an enemy)."""
        geo = self._geo
        own, enemy = self._boards[side], self._boards[side.opponent]
        occupied = own | enemy
        found = 0
        for offset, origins in geo.jump_origins:
            ready = own & origins
            over_any = _shifted(ready & _shifted(occupied, -offset), 2 * offset)
            over_enemy = _shifted(ready & _shifted(enemy, -offset), 2 * offset)
            found |= over_any & ~geo.corners | over_enemy & geo.corners
        return found & ~occupied

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal, checked leg by leg (a crowded board has hundreds of
        thousands of jump chains: listing them all takes seconds)."""
        return self.outcome is None and self._fault(move) is None

    def _refusal(self, move: Move) -> IllegalMoveError:
        if self.outcome is not None:
            return IllegalMoveError("the game is over", Refusal.GAME_OVER)
        return self._fault(move) or IllegalMoveError(
            f"{move} is not a legal move", Refusal.NOT_LEGAL
        )

    def _fault(self, move: Move) -> IllegalMoveError | None:
        """What breaks the rules in ``move``, or None when it is legal."""

        def refuse(reason: Refusal, message: str) -> IllegalMoveError:
            return IllegalMoveError(message, reason)

        name = self.square_name
        side = self.turn
        origin = move.origin
        owner = next((s for s in _SIDES if self._boards[s] >> origin & 1), None)
        if owner is None:
            return refuse(Refusal.NO_PIECE, f"there is no piece on {name(origin)}")
        if owner != side:
            return refuse(
                Refusal.NOT_YOUR_PIECE,
                f"the piece on {name(origin)} is {owner}'s; it is {side}'s turn",
            )
        cornered = self._boards[side] & self._geo.corners
        if (
            cornered
            and not (cornered >> origin & 1)
            and any(m.target != s for s in _squares(cornered) for m in self._moves_from(s, side))
        ):
            corner = name(next(_squares(cornered)))
            return refuse(
                Refusal.MUST_LEAVE_CORNER, f"your piece on {corner} must leave the corner this turn"
            )
        occupied = (self._boards[Side.WHITE] | self._boards[Side.BLACK]) & ~(1 << origin)
        enemy = self._boards[side.opponent]
        corners = self._geo.corners
        jumped = 0
        for leg, (a, b) in enumerate(pairwise(move.path)):
            if _adjacent(a, b, self.size):
                if len(move.path) > 2:
                    return refuse(
                        Refusal.NOT_A_MOVE_SHAPE,
                        "a step cannot be part of a jump chain: only jumps can be chained",
                    )
                if b not in self._geo.steps[side][a]:
                    return refuse(Refusal.BACKWARD, "pieces never step backward")
                if occupied >> b & 1:
                    return refuse(Refusal.OCCUPIED, f"{name(b)} is not empty")
                if corners >> b & 1:
                    return refuse(Refusal.RESTRICTED_SQUARE, "a step may not end on a corner")
                continue
            if not _jump_shaped(a, b, self.size):
                what = "a jump" if leg else "a step (one square) or a jump (over one piece)"
                return refuse(Refusal.NOT_A_MOVE_SHAPE, f"{name(a)} to {name(b)} is not {what}")
            over = (a + b) // 2
            if not occupied >> over & 1:
                return refuse(
                    Refusal.NOTHING_TO_JUMP, f"there is no piece on {name(over)} to jump over"
                )
            if jumped >> over & 1:
                return refuse(Refusal.JUMPED_TWICE, "you may not jump the same piece twice")
            if occupied >> b & 1:
                return refuse(Refusal.OCCUPIED, f"{name(b)} is not empty")
            if corners >> b & 1 and not enemy >> over & 1:
                return refuse(
                    Refusal.RESTRICTED_SQUARE,
                    "a piece may land on a corner only by jumping an enemy piece",
                )
            jumped |= 1 << over
        if cornered >> origin & 1 and move.target == origin:
            return refuse(
                Refusal.MUST_LEAVE_CORNER, f"the piece on {name(origin)} must leave the corner"
            )
        if self._at_opening() and not self._opening_move(move):
            steps = ", ".join(str(m) for m in self.legal_moves())
            return refuse(
                Refusal.OPENING,
                f"in the start position {side} may only step into the centre: {steps}",
            )
        return None


def _boards_of(position: str, size: int) -> dict[Side, Bitboard]:
    """White's and Black's bitboards in an OTN position."""
    boards = {Side.WHITE: 0, Side.BLACK: 0}
    for square, piece in parse_position(position, size, "WB").items():
        boards[piece.side] |= 1 << square
    return boards


def _squares(board: Bitboard) -> Iterator[Square]:
    while board:
        low = board & -board
        yield low.bit_length() - 1
        board ^= low


def _adjacent(a: Square, b: Square, size: int) -> bool:
    return max(abs(a % size - b % size), abs(a // size - b // size)) == 1


def _jump_shaped(a: Square, b: Square, size: int) -> bool:
    """Two squares apart in one of the eight directions."""
    df, dr = abs(a % size - b % size), abs(a // size - b // size)
    return (df, dr) in ((2, 0), (0, 2), (2, 2))
