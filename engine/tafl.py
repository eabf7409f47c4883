"""Hnefatafl-family games on bitboards: one game class, the rules are data (``engine.rules.Rules``).

The position is the attackers' and the defender men's bitboards and the king's square, plus the
two boards transposed so that a file reads like a rank. Legal moves are worked out per rank and
file from per-piece runs precomputed for each rules record, and kept per side: after a move only
the ranks and files it changed are worked out again.

Each rule concept has one home, found by its name:
- moving: ``TaflTables.may_stop`` and ``TaflTables.may_pass`` (throne and corners);
- hostile squares: ``TaflTables.hostile_to`` (corners, throne empty or occupied, the edge), and
  ``TaflTables.linnaean_anvil`` (the king's throne against a defender, in OpenTafl's Tablut);
- capturing men: ``TaflGame._captures`` (custodial, decided by ``TaflTables.flanked``) and
  ``TaflGame._shieldwall_captures``; the queries ``capture_targets`` and ``capturing_moves`` (for
  the AI) are built on the same functions;
- capturing the king: ``TaflGame._king_captured`` (every king strength);
- game ends: ``_king_escaped``, ``_exit_fort``, ``_encircled``, ``_can_move``, repetition in
  ``_repetition_outcome``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from functools import lru_cache
from itertools import chain
from typing import Any

from engine.board import Geometry, geometry, squares_of
from engine.errors import IllegalMoveError, PositionError, Refusal, RulesError, shorten
from engine.game import Game
from engine.opentafl import parse_position
from engine.rules import Escape, KingStrength, Repetition, Rules, ThroneStop
from engine.types import Bitboard, Move, Outcome, Piece, Ply, Reason, Side, Square, parse_square

ATTACKERS = Side.ATTACKERS
DEFENDERS = Side.DEFENDERS
STRONG = KingStrength.STRONG
WEAK = KingStrength.WEAK

_State = tuple[int, int, int, int, int]
_Context = tuple[Bitboard, Bitboard, Bitboard, Bitboard]
_Flanked = tuple[Bitboard, Bitboard, Bitboard, Bitboard]
"""Four bitboards, one per side of a square: north, south, east, west."""
_Known = tuple[Bitboard, Bitboard, Square, Side, _Context, _Flanked, Bitboard]
"""A position (attackers, defenders, king, side to move), its capture context, flanked men
and capture targets."""
_Runs = tuple[tuple[Move, ...], ...]


class TaflTables:
    """What one rules record implies for its board, derived once: the marked squares, the
    hostile squares per side, where men may stop, and each line's runs of moves."""

    def __init__(self, rules: Rules) -> None:
        g = geometry(rules.size)
        n = rules.size
        self.rules = rules
        self.geometry = g
        self.corner_squares = frozenset(_square(name, n, "corner") for name in rules.corners)
        self.corners: Bitboard = sum(g.bit[s] for s in self.corner_squares)
        self.throne_square: Square | None = (
            None if rules.throne is None else _square(rules.throne, n, "throne")
        )
        self.throne: Bitboard = 0 if self.throne_square is None else g.bit[self.throne_square]
        self.escape: Bitboard = self.corners if rules.escape is Escape.CORNERS else g.edge
        self.throne_zone: Bitboard = 0 if self.throne_square is None else g.spread(self.throne)
        """The throne and its neighbours, where a strong-near-throne king is strong."""
        self._full = g.full
        self._west_of_last_file: Bitboard = g.full & ~g.last_file
        self._east_of_first_file: Bitboard = g.full & ~g.first_file
        self._sides_of_the_board = (g.last_rank, g.first_rank, g.last_file, g.first_file)
        """Per side (north, south, east, west): the squares whose side that is the edge."""
        bits = (*g.bit, 0)  # OFF_BOARD's bit: none
        self.side_bits: tuple[_Flanked, ...] = tuple(
            (bits[north], bits[south], bits[east], bits[west])
            for north, south, east, west in g.sides
        )
        """Per square: the squares on its four sides (north, south, east, west), 0 off the board."""
        self.men_stops: Bitboard = sum(
            g.bit[s] for s in range(n * n) if self.may_stop(s, king=False)
        )
        self.king_stops: Bitboard = sum(
            g.bit[s] for s in range(n * n) if self.may_stop(s, king=True)
        )
        self.men_pass: Bitboard = sum(
            g.bit[s] for s in range(n * n) if self.may_pass(s, king=False)
        )
        self.king_pass: Bitboard = sum(
            g.bit[s] for s in range(n * n) if self.may_pass(s, king=True)
        )
        """Where men, and the king, may stop on or pass an empty square (from ``may_stop`` and
        ``may_pass``), for the moves worked out back from their target."""
        self.king_anvil = rules.king_anvil
        self.king_hammer = rules.king_hammer
        self._hostile_att_empty = self._hostile_mask(ATTACKERS, throne_occupied=False)
        self._hostile_att_occupied = self._hostile_mask(ATTACKERS, throne_occupied=True)
        self._hostile_def_empty = self._hostile_mask(DEFENDERS, throne_occupied=False)
        self._hostile_def_occupied = self._hostile_mask(DEFENDERS, throne_occupied=True)
        self.lines: tuple[tuple[Square, ...], ...] = g.rows + g.columns
        """Ranks then files; bit i of a line pattern is square ``lines[line][i]``."""
        self.size = n
        self.line_mask = g.line_mask
        self._runs_by_line: list[
            tuple[list[tuple[_Runs, _Runs]], list[tuple[_Runs, _Runs]]] | None
        ] = [None] * len(self.lines)

    # -- movement ------------------------------------------------------------------------------

    def may_stop(self, square: Square, *, king: bool) -> bool:
        """Whether a piece (the king or a man) may end a move on the empty ``square``."""
        if square in self.corner_squares:
            return king
        if square == self.throne_square:
            stop = self.rules.throne_stop
            return stop is ThroneStop.ALL or (king and stop is ThroneStop.KING)
        return True

    def may_pass(self, square: Square, *, king: bool) -> bool:
        """Whether a piece may move on through the empty ``square``; nothing passes a corner."""
        if square in self.corner_squares:
            return False
        if square == self.throne_square:
            return king or self.rules.throne_pass
        return True

    def refresh_lines(
        self,
        moves_by_line: tuple[list[Sequence[Move]], list[Sequence[Move]]],
        lines: int,
        attackers: int,
        defenders: int,
        kings: int,
    ) -> None:
        """Work out the moves along each line of ``lines`` (bit L for line L) of the pieces on
        it, into ``moves_by_line`` (the attackers', the defenders'). Each pattern holds the ranks
        then the files: bits ``L * size`` up to ``(L + 1) * size`` are line L, and bit i of it is
        square ``self.lines[L][i]``. ``defenders`` holds the men, ``kings`` the king.
        """
        n = self.size
        mask = self.line_mask
        runs_by_line = self._runs_by_line
        slot_table = self.geometry.line_slots
        slots_of = self.geometry.slots_of
        attacker_moves, defender_moves = moves_by_line
        occupied = attackers | defenders | kings
        while lines:
            low = lines & -lines
            lines ^= low
            line = low.bit_length() - 1
            shift = line * n
            o = occupied >> shift & mask
            if not o:
                attacker_moves[line] = defender_moves[line] = ()
                continue
            runs = runs_by_line[line]
            if runs is None:
                runs = runs_by_line[line] = self._line_runs(line)
            men_runs, king_runs = runs
            a = attackers >> shift & mask
            k = kings >> shift & mask
            ours: list[Move] = []
            theirs: list[Move] = []
            slots = slot_table.get(o)
            if slots is None:
                slots = slots_of(o)
            for piece, i, up_index, down_index in slots:
                if piece & k:
                    up, down = king_runs[i]
                    theirs += up[up_index]
                    theirs += down[down_index]
                    continue
                up, down = men_runs[i]
                moves = ours if a & piece else theirs
                moves += up[up_index]
                moves += down[down_index]
            attacker_moves[line] = ours
            defender_moves[line] = theirs

    def _line_runs(self, line: int) -> tuple[list[tuple[_Runs, _Runs]], list[tuple[_Runs, _Runs]]]:
        """Per index i of ``line``, for a man and for the king, his runs up and down the line.

        Up: entry k is his moves when the nearest piece above him is k squares away, entry 0
        when there is none; ``k = (above & -above).bit_length()`` for ``above``, the pattern of
        the squares above him. Down: entry k is his moves when the nearest piece below him is on
        index k - 1, entry 0 when there is none; ``k = (below).bit_length()``.
        """
        squares = self.lines[line]
        runs: tuple[list[tuple[_Runs, _Runs]], list[tuple[_Runs, _Runs]]] = ([], [])
        for king in (False, True):
            for i, origin in enumerate(squares):
                up = self._runs(origin, squares[i + 1 :], king=king)
                down = self._runs(origin, squares[:i][::-1], king=king)
                runs[king].append(((up[-1], *up[:-1]), down[::-1]))
        return runs

    def _runs(self, origin: Square, ray: tuple[Square, ...], *, king: bool) -> _Runs:
        """The moves out along ``ray``: entry d when its d-th square (from 0) holds the nearest
        piece, the last entry when it is free."""
        runs: list[tuple[Move, ...]] = []
        moves: list[Move] = []
        open_ray = True
        for square in ray:
            runs.append(tuple(moves))
            if open_ray:
                if self.may_stop(square, king=king):
                    moves.append(Move(self.size, (origin, square)))
                open_ray = self.may_pass(square, king=king)
        runs.append(tuple(moves))
        return tuple(runs)

    # -- hostility -----------------------------------------------------------------------------

    def _hostile_mask(self, victim: Side, *, throne_occupied: bool) -> Bitboard:
        rules = self.rules
        mask = self.corners if victim in rules.corner_hostile_to else 0
        throne_sides = (
            rules.occupied_throne_hostile_to if throne_occupied else rules.empty_throne_hostile_to
        )
        if victim in throne_sides:
            mask |= self.throne
        if rules.edge_hostile:
            mask |= 1 << self.geometry.off_board
        return mask

    def hostile_to(self, victim: Side, occupied: Bitboard) -> Bitboard:
        """The squares that act as an enemy piece against ``victim``'s pieces: the corners and
        the throne (empty or occupied, as the rules say), and OFF_BOARD when the edge is hostile
        to men. A square hostile to the defenders is hostile to the king."""
        if victim is ATTACKERS:
            return self._hostile_att_occupied if occupied & self.throne else self._hostile_att_empty
        return self._hostile_def_occupied if occupied & self.throne else self._hostile_def_empty

    def flanked(self, victims: Bitboard, anvils: Bitboard) -> _Flanked:
        """Per side (north, south, east, west): the ``victims`` with an anvil on that side, a
        square of ``anvils`` or the edge where ``anvils`` holds OFF_BOARD. A piece arriving on
        the opposite side of one captures him: the one test of a custodial capture."""
        n = self.size
        held = anvils & self._full
        north = victims & held >> n
        south = victims & held << n
        east = victims & held >> 1 & self._west_of_last_file
        west = victims & held << 1 & self._east_of_first_file
        if anvils > held:  # OFF_BOARD: the edge is an anvil
            last_rank, first_rank, last_file, first_file = self._sides_of_the_board
            return (
                north | victims & last_rank,
                south | victims & first_rank,
                east | victims & last_file,
                west | victims & first_file,
            )
        return north, south, east, west

    def hammers(self, flanked: _Flanked) -> Bitboard:
        """The squares a piece arrives on to capture one of the ``flanked`` men (as returned
        by ``flanked``): the square on each man's side opposite his anvil."""
        north, south, east, west = flanked
        n = self.size
        return (
            north >> n
            | (south << n & self.geometry.full)
            | (east & self._east_of_first_file) >> 1
            | (west & self._west_of_last_file) << 1
        )

    def linnaean_anvil(self, king: Square, attackers: Bitboard) -> Bitboard:
        """The Linnaean capture: the throne, as an anvil against defenders, when the rules have
        it, the king stands on the throne and attackers hold three of his sides; else nothing."""
        if king != self.throne_square or not self.rules.linnaean_capture:
            return 0
        held = attackers & self.geometry.neighbours[king]
        return self.throne if bin(held).count("1") >= 3 else 0


@lru_cache(maxsize=64)
def tables_for(rules: Rules) -> TaflTables:
    """The derived tables of ``rules``, built once per rules record (the last 64 are kept)."""
    return TaflTables(rules)


def _square(name: str, size: int, what: str) -> Square:
    try:
        return parse_square(name, size)
    except ValueError as error:
        raise RulesError(f"the {what} square {shorten(name)!r} is not valid: {error}") from None


class TaflGame(Game):
    """A game of any hnefatafl-family variant (every preset but Halatafl, and custom rules)."""

    rules_type = Rules
    rules: Rules

    # -- position ------------------------------------------------------------------------------

    def _setup(self, position: str, turn: Side) -> None:
        if turn not in (ATTACKERS, DEFENDERS):
            raise PositionError(f"the side to move is attackers or defenders, not {turn}")
        tables = tables_for(self.rules)
        self._tables = tables
        self._geo: Geometry = tables.geometry
        self.throne = tables.throne_square
        self.corners = tables.corner_squares
        pieces = parse_position(position, self.size, "tTK")
        kings = [s for s, p in pieces.items() if p is Piece.KING]
        if len(kings) != 1:
            raise PositionError(f"a position needs exactly one king (K); this one has {len(kings)}")
        g = self._geo
        self._att = sum(g.bit[s] for s, p in pieces.items() if p is Piece.ATTACKER)
        self._dfd = sum(g.bit[s] for s, p in pieces.items() if p is Piece.DEFENDER)
        self._att_t = sum(g.transposed_bit[s] for s, p in pieces.items() if p is Piece.ATTACKER)
        self._dfd_t = sum(g.transposed_bit[s] for s, p in pieces.items() if p is Piece.DEFENDER)
        self._king = kings[0]
        lines = len(self._tables.lines)
        self._line_moves: tuple[list[Sequence[Move]], list[Sequence[Move]]] = (
            [()] * lines,
            [()] * lines,
        )
        """Per side (attackers, defenders), the moves along each rank and file."""
        self._dirty = (1 << lines) - 1
        """The lines whose moves must be worked out again."""
        self._known: _Known | None = None
        """The last position ``capture_targets`` was asked in (the board and the side to move),
        with its capture context, flanked men and targets: a move from it captures the same
        men (``_capture_context``)."""

    def pieces(self) -> dict[Square, Piece]:
        pieces = dict.fromkeys(squares_of(self._att), Piece.ATTACKER)
        pieces.update(dict.fromkeys(squares_of(self._dfd), Piece.DEFENDER))
        pieces[self._king] = Piece.KING
        return pieces

    @property
    def bitboards(self) -> tuple[Bitboard, Bitboard, Square]:
        """The attackers' bitboard, the defender men's bitboard and the king's square (a
        read-only view, e.g. for the AI's evaluation; also a key of the board)."""
        return self._att, self._dfd, self._king

    def piece_at(self, square: Square) -> Piece | None:
        if square == self._king:
            return Piece.KING
        if self._att >> square & 1:
            return Piece.ATTACKER
        if self._dfd >> square & 1:
            return Piece.DEFENDER
        return None

    @property
    def rules_string(self) -> str:
        from engine.presets import PRESETS

        if PRESETS.get(self.rules.id) == self.rules:
            return self.rules.id
        from engine.opentafl import rules_to_opentafl

        return rules_to_opentafl(self.rules)

    def _copy_board_from(self, original: TaflGame) -> None:
        attackers, defenders = original._line_moves
        self._line_moves = (list(attackers), list(defenders))

    def _snapshot(self) -> _State:
        return (self._att, self._dfd, self._king, self._att_t, self._dfd_t)

    def _restore(self, state: Any) -> None:
        att, dfd, king, self._att_t, self._dfd_t = state
        bit = self._geo.bit
        self._touch(self._att ^ att | self._dfd ^ dfd | bit[self._king] ^ bit[king])
        self._att, self._dfd, self._king = att, dfd, king

    def _key(self) -> Hashable:
        return (self._att, self._dfd, self._king)

    # -- moves ---------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        if self.outcome is not None:
            return []
        return list(chain.from_iterable(self._line_moves_of(self.turn)))

    def _line_moves_of(self, side: Side) -> list[Sequence[Move]]:
        """``side``'s moves per rank and file; the lines that changed since the last call are
        worked out again (for both sides)."""
        if self._dirty:
            g = self._geo
            area = self.size * self.size
            # Ranks then files as one pattern: the transposed board sits above the board.
            self._tables.refresh_lines(
                self._line_moves,
                self._dirty,
                self._att | self._att_t << area,
                self._dfd | self._dfd_t << area,
                g.bit[self._king] | g.transposed_bit[self._king] << area,
            )
            self._dirty = 0
        return self._line_moves[side is DEFENDERS]

    def _touch(self, changed: Bitboard) -> None:
        """Mark the ranks and files of the ``changed`` squares for the move tables."""
        lines = 0
        line_bits = self._geo.line_bits
        for square in squares_of(changed):
            lines |= line_bits[square]
        self._dirty |= lines

    def _apply(self, move: Move) -> Iterable[Square]:
        origin, target = move.path
        g = self._geo
        att, dfd, king = self._att, self._dfd, self._king
        flip = g.bit[origin] | g.bit[target]
        flip_t = g.transposed_bit[origin] | g.transposed_bit[target]
        self._dirty |= g.line_bits[origin] | g.line_bits[target]
        if self.turn is ATTACKERS:
            self._att ^= flip
            self._att_t ^= flip_t
            if not g.neighbours[target] & (self._dfd | g.bit[self._king]):
                return ()
        else:
            if origin == self._king:
                self._king = target
                if not self._tables.king_hammer:
                    return ()
            else:
                self._dfd ^= flip
                self._dfd_t ^= flip_t
            if not g.neighbours[target] & self._att:
                return ()
        before = self._known  # what capture_targets knew of the position before the move
        if before is not None and not (
            before[0] is att and before[1] is dfd and before[2] == king and before[3] is self.turn
        ):
            before = None
        return self._captures(target, before)

    def _capture_context(self) -> _Context:
        """What a move of the side to move captures with: the enemy men it may take, its pieces
        that hold a capture (the king only if he is an anvil), the pieces a shieldwall row is
        made of (the king may stand in the defenders' row), and the anvils: those pieces of the
        mover's, the squares hostile to the enemy and the Linnaean throne.

        Asked before or after the mover's piece moves, it gives the same captures: the square
        he leaves can be neither an anvil of a man next to his target (he would have to pass
        that man) nor part of a shieldwall he closes."""
        g = self._geo
        t = self._tables
        king = self._king
        king_bit = g.bit[king]
        occupied = self._att | self._dfd | king_bit
        if self.turn is ATTACKERS:
            victims, own = self._dfd, self._att
            anvils = own | t.hostile_to(DEFENDERS, occupied)
            if t.rules.linnaean_capture:
                anvils |= t.linnaean_anvil(king, own)
            return victims, own, victims | king_bit, anvils
        victims = self._att
        own = self._dfd | king_bit if t.king_anvil else self._dfd
        return victims, own, victims, own | t.hostile_to(ATTACKERS, occupied)

    def _captures(self, hammer: Square, before: _Known | None) -> list[Square]:
        """Remove and return the men the piece that just moved to ``hammer`` captures: each enemy
        man next to it with an anvil beyond (``TaflTables.flanked``), and any shieldwall it
        closes. ``_apply`` calls it only when an enemy piece stands next to ``hammer``; it hands
        on what ``capture_targets`` knew of the position ``before`` the move, if it was asked
        there (the move captures the same men, see ``_capture_context``)."""
        g = self._geo
        t = self._tables
        if before is not None:
            victims, own, row_pieces, anvils = before[4]
            north, south, east, west = before[5]
        else:
            victims, own, row_pieces, anvils = self._capture_context()
            north, south, east, west = t.flanked(victims & g.neighbours[hammer], anvils)
        up, down, right, left = t.side_bits[hammer]
        gone = north & up | south & down | east & right | west & left
        if not gone:
            captured = []
        elif gone & (gone - 1):
            captured = list(squares_of(gone))
        else:
            captured = [gone.bit_length() - 1]
        if t.rules.shieldwall and g.edge_runs[hammer] is not None:
            for man in self._shieldwall_captures(hammer, own, row_pieces, anvils):
                if not gone >> man & 1:
                    captured.append(man)
                    gone |= g.bit[man]
        if gone:
            self._touch(gone)
            transposed = g.transposed_bit
            gone_t = transposed[captured[0]]
            for man in captured[1:]:
                gone_t |= transposed[man]
            if self.turn is ATTACKERS:
                self._dfd ^= gone
                self._dfd_t ^= gone_t
            else:
                self._att ^= gone
                self._att_t ^= gone_t
        return captured

    def _shieldwall_captures(
        self, hammer: Square, own: Bitboard, row_pieces: Bitboard, closers: Bitboard
    ) -> list[Square]:
        """The men of the edge rows that the move onto the edge square ``hammer`` closes: two or
        more enemy pieces along the edge, each faced by one of the mover's pieces on the next line
        inward, shut at the far end by a mover's piece or a hostile square. The king may stand in
        the row but is never taken."""
        edge_run = self._geo.edge_runs[hammer]
        assert edge_run is not None
        runs, inward = edge_run
        captured: list[Square] = []
        for run in runs:
            row: list[Square] = []
            end = self._geo.off_board
            for square in run:
                if not row_pieces >> square & 1:
                    end = square
                    break
                row.append(square)
            if len(row) < 2 or not closers >> end & 1:
                continue
            if all(own >> (s + inward) & 1 for s in row):
                captured += [s for s in row if s != self._king]
        return captured

    def capture_targets(self, *, king: bool = False) -> Bitboard:
        """The empty squares where a man of the side to move (``king``: its king), arriving,
        would capture at least one enemy man: between two (against his side's pieces, the
        squares hostile to the enemy and the Linnaean throne) or by closing a shieldwall. None
        for the king where he is no hammer. Squares the piece may not stop on can be among them.
        Worked out once per position (asked again, it costs a comparison)."""
        known = self._known
        if known is None or not (
            known[0] is self._att
            and known[1] is self._dfd
            and known[2] == self._king
            and known[3] is self.turn
        ):
            g = self._geo
            t = self._tables
            context = self._capture_context()
            victims, own, row_pieces, anvils = context
            flanked = t.flanked(victims, anvils)
            empty = g.full & ~(self._att | self._dfd | g.bit[self._king])
            targets = t.hammers(flanked) & empty
            if t.rules.shieldwall:
                targets |= self._shieldwall_hammers(own, row_pieces, anvils)
            known = (self._att, self._dfd, self._king, self.turn, context, flanked, targets)
            self._known = known
        if king and (self.turn is ATTACKERS or not self._tables.king_hammer):
            return 0
        return known[6]

    def _shieldwall_hammers(
        self, own: Bitboard, row_pieces: Bitboard, closers: Bitboard
    ) -> Bitboard:
        """The edge squares where a piece of the side to move, arriving, closes a shieldwall
        (``_shieldwall_captures`` decides, on the few squares next to a row of enemy pieces
        each faced by one of the mover's)."""
        g = self._geo
        n = self.size
        on_edge = row_pieces & g.edge
        if not on_edge & (on_edge >> 1 | on_edge >> n):
            return 0  # no two enemy pieces side by side on the edge
        faced = on_edge & (
            (g.first_rank & own >> n)
            | (g.last_rank & own << n)
            | (g.first_file & own >> 1)
            | (g.last_file & own << 1)
        )
        if not faced & (faced >> 1 | faced >> n):
            return 0  # no two faced pieces side by side: no shieldwall to close
        empty = g.full & ~(self._att | self._dfd | g.bit[self._king])
        candidates = g.spread(faced) & g.edge & empty
        hammers = 0
        for square in squares_of(candidates):
            if g.edge_runs[square] is not None and self._shieldwall_captures(
                square, own, row_pieces, closers
            ):
                hammers |= g.bit[square]
        return hammers

    def capturing_moves(self) -> list[Move]:
        """The legal moves that capture at least one man (those whose ``captures_of`` is not
        empty): the moves onto ``capture_targets``, the king's only where he is a hammer.
        Worked out back from the targets to the pieces that reach them, by target, then north,
        south, east and west of it."""
        if self.outcome is not None:
            return []
        targets = self.capture_targets()
        if not targets:
            return []
        g = self._geo
        t = self._tables
        king = self._king
        occupied = self._att | self._dfd | g.bit[king]
        men = self._att if self.turn is ATTACKERS else self._dfd
        king_captures = bool(self.capture_targets(king=True))
        men_pass, king_pass = t.men_pass, t.king_pass
        found: list[Move] = []
        for target in squares_of(targets):
            man_may_stop = t.men_stops >> target & 1
            king_may_stop = king_captures and t.king_stops >> target & 1
            for ray in g.rays[target]:
                man_may_come, king_may_come = man_may_stop, king_may_stop
                for square in ray:
                    if occupied >> square & 1:
                        if square == king:
                            if king_may_come:
                                found.append(Move(self.size, (square, target)))
                        elif man_may_come and men >> square & 1:
                            found.append(Move(self.size, (square, target)))
                        break
                    man_may_come = man_may_come and men_pass >> square & 1
                    king_may_come = king_may_come and king_pass >> square & 1
                    if not (man_may_come or king_may_come):
                        break
        return found

    # -- game ends -----------------------------------------------------------------------------

    def _ending(self, ply: Ply) -> Outcome | None:
        if ply.side is DEFENDERS:
            if self._king_escaped():
                return Outcome(DEFENDERS, Reason.KING_ESCAPED)
            if self.rules.exit_fort and self._exit_fort():
                return Outcome(DEFENDERS, Reason.EXIT_FORT)
        else:
            if self._king_captured(ply.move.path[-1]):
                return Outcome(ATTACKERS, Reason.KING_CAPTURED)
            if self.rules.encirclement and self._encircled():
                return Outcome(ATTACKERS, Reason.ENCIRCLED)
        if not self._can_move(self.turn):
            return Outcome(ply.side, Reason.NO_LEGAL_MOVES)
        return None

    def standing_outcome(self) -> Outcome | None:
        if self._king_escaped():
            return Outcome(DEFENDERS, Reason.KING_ESCAPED)
        if self.rules.exit_fort and self._exit_fort():
            return Outcome(DEFENDERS, Reason.EXIT_FORT)
        hammers = self._geo.neighbours[self._king] & self._att
        if any(self._king_captured(hammer) for hammer in squares_of(hammers)):
            return Outcome(ATTACKERS, Reason.KING_CAPTURED)
        if self.rules.encirclement and self._encircled():
            return Outcome(ATTACKERS, Reason.ENCIRCLED)
        if not self._can_move(self.turn):
            return Outcome(self.turn.opponent, Reason.NO_LEGAL_MOVES)
        return None

    def _king_escaped(self) -> bool:
        """The king stands on an escape square (a corner, or the edge in edge-escape rules)."""
        return bool(self._tables.escape >> self._king & 1)

    def _king_captured(self, hammer: Square) -> bool:
        """Whether the attacker that just moved to ``hammer`` captured the king.

        Strong: all four sides closed by attackers or squares hostile to him; the edge closes a
        side only for strong-or-3-at-edge, or for a lone king where the rules say so (Fetlar).
        Strong near the throne: strong on or next to the throne, weak elsewhere. Weak: like a
        man, between the hammer and an anvil beyond him.
        """
        return self._king_taken(hammer, self._att)

    def king_capture_squares(self, king: Square | None = None) -> Bitboard:
        """The empty squares next to the king (or next to ``king``, were he there instead) where
        an attacker, arriving, would capture him (whether one can get there or not)."""
        g = self._geo
        king = self._king if king is None else king
        att = self._att
        empty = g.neighbours[king] & ~(att | self._dfd)
        if not empty:
            return 0
        t = self._tables
        if empty & t.throne:  # an attacker there would change what is hostile: one by one
            return sum(
                g.bit[hammer]
                for hammer in squares_of(empty)
                if self._king_taken(hammer, att | g.bit[hammer], king)
            )
        closed = att | t.hostile_to(DEFENDERS, att | self._dfd | g.bit[king])
        strength, edge_closes = self._king_strength_at(king)
        if strength is WEAK:  # a hammer on one side, an anvil on the other
            north, south, east, west = g.sides[king]
            found: Bitboard = 0
            for hammer, beyond in ((north, south), (south, north), (east, west), (west, east)):
                if empty >> hammer & 1 and closed >> beyond & 1:
                    found |= 1 << hammer
            return found
        still_open = self._open_sides(king, closed, edge_closes)
        if still_open & (still_open - 1):
            return 0  # one arriving attacker closes one side
        return empty & still_open if still_open else empty

    def _king_strength_at(self, king: Square) -> tuple[KingStrength, bool]:
        """How the king on ``king`` is captured: weak (between two) or strong (on every side),
        and whether the edge then closes a side (strong-or-3-at-edge, or a lone king where the
        rules say so)."""
        t = self._tables
        rules = t.rules
        strength = rules.king_strength
        if strength is KingStrength.STRONG_NEAR_THRONE:
            strength = STRONG if t.throne_zone >> king & 1 else WEAK
        edge_closes = strength is KingStrength.STRONG_OR_3_AT_EDGE or (
            rules.lone_king_captured_on_edge and not self._dfd
        )
        return strength, edge_closes

    def _king_taken(self, hammer: Square, att: Bitboard, king: Square | None = None) -> bool:
        """``_king_captured`` with the attackers on ``att`` (the hammer among them) and the king
        on ``king`` (by default where he stands)."""
        g = self._geo
        king = self._king if king is None else king
        if not g.neighbours[king] >> hammer & 1:
            return False
        t = self._tables
        occupied = att | self._dfd | g.bit[king]
        closed = att | t.hostile_to(DEFENDERS, occupied)
        strength, edge_closes = self._king_strength_at(king)
        if strength is WEAK:
            beyond = next(b for man, b in g.steps[hammer] if man == king)
            return bool(closed >> beyond & 1)
        return not self._open_sides(king, closed, edge_closes)

    def _open_sides(self, king: Square, closed: Bitboard, edge_closes: bool) -> Bitboard:
        """The sides of a strong king on ``king`` that neither ``closed`` nor, where
        ``edge_closes``, the edge closes (OFF_BOARD's bit for the edge): none, and he is taken."""
        g = self._geo
        still_open: Bitboard = 0
        for side in g.sides[king]:
            if side == g.off_board:
                if not edge_closes:
                    still_open |= 1 << side
            elif not closed >> side & 1:
                still_open |= 1 << side
        return still_open

    def _exit_fort(self) -> bool:
        """Whether the king stands in an exit fort: on the edge, able to move, walled in by
        defenders that no attacker can ever capture (RULES.md section 1, 'Exit fort').

        R is the king's square and the empty squares he reaches; no attacker may touch R. S is
        what is left of the defenders after removing, until nothing changes, each one that has
        on some axis neither neighbour in R, in S or off the board. A fort: the wall is in S.
        """
        g = self._geo
        king = self._king
        if not g.edge >> king & 1:
            return False
        attackers = self._att
        king_bit = g.bit[king]
        open_squares = g.full & ~(attackers | self._dfd)
        region = king_bit
        while True:
            reach = g.spread(region)
            if reach & attackers:
                return False
            grown = reach & open_squares
            if grown == region:
                break
            region = grown
        if not self._piece_moves(king):
            return False
        wall = g.spread(region) & ~region
        n = self.size
        solid = self._dfd
        while True:
            held = region | solid
            across = (
                ((held >> 1) & ~g.last_file)
                | ((held << 1) & ~g.first_file)
                | g.first_file
                | g.last_file
            )
            along = (held >> n) | ((held << n) & g.full) | g.first_rank | g.last_rank
            kept = solid & across & along
            if kept == solid:
                return not wall & ~solid
            solid = kept

    def _encircled(self) -> bool:
        """Whether no defender and not the king can reach the edge through squares free of
        attackers (flood fill from the free edge squares)."""
        g = self._geo
        free = g.full & ~self._att
        targets = self._dfd | g.bit[self._king]
        region = g.edge & free
        while not region & targets:
            grown = g.spread(region) & free
            if grown == region:
                return True
            region = grown
        return False

    def _can_move(self, side: Side) -> bool:
        """Whether ``side`` has a legal move: a man with a free square above or below him, or
        the king with one beside him, where he may stop settles it; otherwise the moves are
        worked out."""
        g = self._geo
        empty = ~(self._att | self._dfd | g.bit[self._king])
        free = self._tables.men_stops & empty
        men = self._att if side is ATTACKERS else self._dfd
        if men << self.size & free or men >> self.size & free:
            return True
        if side is DEFENDERS and g.neighbours[self._king] & self._tables.king_stops & empty:
            return True
        return any(self._line_moves_of(side))

    def king_moves(self) -> list[Move]:
        """The king's legal moves (whichever side is to move)."""
        return [] if self.outcome is not None else self._piece_moves(self._king)

    def _piece_moves(self, square: Square) -> list[Move]:
        """The moves of the piece on ``square``."""
        g = self._geo
        area = self.size * self.size
        piece = g.bit[square] | g.transposed_bit[square] << area
        others = (
            self._att
            | self._dfd
            | g.bit[self._king]
            | (self._att_t | self._dfd_t | g.transposed_bit[self._king]) << area
        ) ^ piece
        # The other pieces only block: count them as attackers, the piece as a defender.
        lines = 2 * self.size
        moves_by_line: tuple[list[Sequence[Move]], list[Sequence[Move]]] = (
            [()] * lines,
            [()] * lines,
        )
        men, kings = (0, piece) if square == self._king else (piece, 0)
        self._tables.refresh_lines(moves_by_line, g.line_bits[square], others, men, kings)
        return list(chain.from_iterable(moves_by_line[1]))

    def _repetition_outcome(self, mover: Side) -> Outcome | None:
        repetition = self.rules.repetition
        if repetition is Repetition.DRAW:
            return Outcome(None, Reason.REPETITION)
        if repetition is Repetition.DEFENDERS_LOSE:
            return Outcome(ATTACKERS, Reason.REPETITION)
        if repetition is Repetition.REPEATER_LOSES:
            return Outcome(mover.opponent, Reason.REPETITION)
        if repetition is Repetition.REPEATER_WINS:
            return Outcome(mover, Reason.REPETITION)
        return None

    # -- refusals ------------------------------------------------------------------------------

    def _refusal(self, move: Move) -> IllegalMoveError:
        def refuse(reason: Refusal, message: str) -> IllegalMoveError:
            return IllegalMoveError(message, reason)

        if self.outcome is not None:
            return refuse(Refusal.GAME_OVER, "the game is over")
        name = self.square_name
        if len(move.path) != 2:
            return refuse(
                Refusal.NOT_A_MOVE_SHAPE,
                f"a move goes from one square to another in a straight line, like d1-d4: {move}",
            )
        origin, target = move.path
        piece = self.piece_at(origin)
        if piece is None:
            return refuse(Refusal.NO_PIECE, f"there is no piece on {name(origin)}")
        if piece.side is not self.turn:
            return refuse(
                Refusal.NOT_YOUR_PIECE,
                f"that is not your piece: it is the {self.turn}' turn, and {name(origin)} holds "
                f"one of the {piece.side}",
            )
        n = self.size
        if origin // n != target // n and origin % n != target % n:
            return refuse(
                Refusal.NOT_A_MOVE_SHAPE,
                f"pieces move in a straight line along a rank or file; {move} is neither",
            )
        if self.piece_at(target) is not None:
            return refuse(
                Refusal.OCCUPIED,
                f"{name(target)} is taken: a piece moves only onto an empty square",
            )
        is_king = piece is Piece.KING
        t = self._tables
        step = _unit(target - origin, n)
        for square in range(origin + step, target, step):
            if self.piece_at(square) is not None:
                return refuse(Refusal.BLOCKED, f"{name(square)} blocks the way")
            if not t.may_pass(square, king=is_king):
                what = "the throne" if square == t.throne_square else "a corner"
                who = "nothing" if square in t.corner_squares else "only the king"
                return refuse(Refusal.RESTRICTED_SQUARE, f"{who} may pass {what} ({name(square)})")
        if not t.may_stop(target, king=is_king):
            if target in t.corner_squares:
                message = "only the king may stop on a corner"
            elif t.rules.throne_stop is ThroneStop.NOBODY:
                message = "nobody may stop on the throne"
            else:
                message = "only the king may stop on the throne"
            return refuse(Refusal.RESTRICTED_SQUARE, message)
        return refuse(Refusal.NOT_LEGAL, f"{move} is not a legal move here")


def _unit(delta: int, size: int) -> int:
    """The one-square step from a square towards another on the same rank or file."""
    if abs(delta) < size and delta % size:
        return 1 if delta > 0 else -1
    return size if delta > 0 else -size
