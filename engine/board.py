"""Square geometry of an n x n board as bitboards, computed once per size.

Squares are ``rank * n + file``; a bitboard is a Python int with bit ``s`` for square ``s``.
``OFF_BOARD`` (bit ``n * n``) stands for "beyond the edge" in neighbour tables and hostility
masks, so the edge can be tested like any square; piece bitboards never hold it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from engine.types import Bitboard, Square

MIN_SIZE = 7
MAX_SIZE = 19
SLOTS_KEPT = 1 << 14


class Geometry:
    """Masks and tables for one board size."""

    __slots__ = (
        "bit",
        "columns",
        "edge",
        "edge_runs",
        "first_file",
        "first_rank",
        "full",
        "last_file",
        "last_rank",
        "line_bits",
        "line_mask",
        "line_slots",
        "neighbours",
        "off_board",
        "rays",
        "rows",
        "sides",
        "size",
        "steps",
        "transposed_bit",
    )

    def __init__(self, size: int) -> None:
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(
                f"a board is {MIN_SIZE}x{MIN_SIZE} to {MAX_SIZE}x{MAX_SIZE}, not {size}"
            )
        n = size
        count = n * n
        self.size = n
        self.off_board: Square = count
        self.full: Bitboard = (1 << count) - 1
        self.line_mask: Bitboard = (1 << n) - 1
        self.line_slots: dict[int, tuple[tuple[int, int, int, int], ...]] = {}
        """By the pattern of the pieces on a line: ``slots_of(pattern)``, as it is asked for."""
        self.bit: tuple[Bitboard, ...] = tuple(1 << s for s in range(count))
        self.transposed_bit: tuple[Bitboard, ...] = tuple(
            1 << ((s % n) * n + s // n) for s in range(count)
        )
        self.first_rank: Bitboard = self.line_mask
        self.last_rank: Bitboard = self.line_mask << (n * (n - 1))
        self.first_file: Bitboard = sum(1 << (r * n) for r in range(n))
        self.last_file: Bitboard = self.first_file << (n - 1)
        self.edge: Bitboard = self.first_rank | self.last_rank | self.first_file | self.last_file
        self.line_bits: tuple[int, ...] = tuple(
            (1 << (s // n)) | (1 << (n + s % n)) for s in range(count)
        )
        """Per square, its rank (bit ``rank``) and file (bit ``size + file``) as line numbers."""
        self.rows: tuple[tuple[Square, ...], ...] = tuple(
            tuple(r * n + f for f in range(n)) for r in range(n)
        )
        self.columns: tuple[tuple[Square, ...], ...] = tuple(
            tuple(r * n + f for r in range(n)) for f in range(n)
        )
        # Per square, per direction (north, south, east, west): the squares out to the edge.
        self.rays: tuple[tuple[tuple[Square, ...], ...], ...] = tuple(
            tuple(self._ray(s, step) for step in (n, -n, 1, -1)) for s in range(count)
        )
        # Per square: its four sides (a neighbour, or OFF_BOARD), north, south, east, west.
        self.sides: tuple[tuple[Square, ...], ...] = tuple(
            tuple(ray[0] if ray else count for ray in self.rays[s]) for s in range(count)
        )
        # Per square: (neighbour, square beyond it or OFF_BOARD) for each on-board neighbour.
        self.steps: tuple[tuple[tuple[Square, Square], ...], ...] = tuple(
            tuple((ray[0], ray[1] if len(ray) > 1 else count) for ray in self.rays[s] if ray)
            for s in range(count)
        )
        self.neighbours: tuple[Bitboard, ...] = tuple(
            sum(1 << t for t, _ in self.steps[s]) for s in range(count)
        )
        # Per edge square: the runs along the edge each way, and the step to the next line inward.
        self.edge_runs: tuple[tuple[tuple[tuple[Square, ...], ...], int] | None, ...] = tuple(
            self._edge_run(s) for s in range(count)
        )

    def _ray(self, square: Square, step: int) -> tuple[Square, ...]:
        n = self.size
        ray: list[Square] = []
        s = square
        while True:
            file = s % n
            s += step
            if not 0 <= s < n * n or (abs(step) == 1 and abs(s % n - file) != 1):
                return tuple(ray)
            ray.append(s)

    def _edge_run(self, square: Square) -> tuple[tuple[tuple[Square, ...], ...], int] | None:
        n = self.size
        rank, file = divmod(square, n)
        on_rank_edge = rank in (0, n - 1)
        on_file_edge = file in (0, n - 1)
        if on_rank_edge == on_file_edge:  # inside, or a corner square of the board
            return None
        north, south, east, west = self.rays[square]
        if on_rank_edge:
            return (east, west), (n if rank == 0 else -n)
        return (north, south), (1 if file == 0 else -1)

    def slots_of(self, pattern: int) -> tuple[tuple[int, int, int, int], ...]:
        """For each piece of a line ``pattern`` (bit i: index i of the line), lowest first:
        ``(its bit, i, up, down)`` where ``up`` is the distance to the nearest piece above him
        (0: none) and ``down`` is one more than the index of the nearest piece below him (0:
        none). Remembered (per size, at most ``SLOTS_KEPT`` patterns)."""
        slots = []
        rest = pattern
        while rest:
            piece = rest & -rest
            rest ^= piece
            i = piece.bit_length() - 1
            above = pattern >> i >> 1
            slots.append(
                (piece, i, (above & -above).bit_length(), (pattern & (piece - 1)).bit_length())
            )
        if len(self.line_slots) >= SLOTS_KEPT:
            self.line_slots.clear()
        found = self.line_slots[pattern] = tuple(slots)
        return found

    def spread(self, board: Bitboard) -> Bitboard:
        """``board`` and every square orthogonally next to one of its squares."""
        n = self.size
        return (
            board
            | ((board << n) & self.full)
            | (board >> n)
            | ((board << 1) & ~self.first_file & self.full)
            | ((board >> 1) & ~self.last_file)
        )

    def moves_count(self, pieces: Bitboard, empty: Bitboard) -> int:
        """How many moves ``pieces`` have, all told, going like rooks over ``empty`` squares."""
        n = self.size
        east_ok = empty & ~self.first_file
        west_ok = empty & ~self.last_file
        count = 0
        north, south, east, west = pieces, pieces, pieces, pieces
        while north or south or east or west:
            north = (north << n) & empty
            south = (south >> n) & empty
            east = (east << 1) & east_ok
            west = (west >> 1) & west_ok
            count += north.bit_count() + south.bit_count() + east.bit_count() + west.bit_count()
        return count

    def flood(self, seed: Bitboard, passable: Bitboard) -> Bitboard:
        """``seed`` grown orthogonally through ``passable`` squares as far as it goes."""
        region = seed
        while True:
            grown = self.spread(region) & (passable | region)
            if grown == region:
                return region
            region = grown

    def on_edge(self, square: Square) -> bool:
        return bool(self.edge >> square & 1)


@cache
def geometry(size: int) -> Geometry:
    """The geometry of an ``size`` x ``size`` board (built once per size)."""
    return Geometry(size)


def squares_of(board: Bitboard) -> Iterator[Square]:
    """The squares of a bitboard, lowest first."""
    while board:
        low = board & -board
        yield low.bit_length() - 1
        board ^= low
