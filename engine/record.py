"""Game records: OpenTafl's game record form, and the CSV game lines of ``tests/data``.

An OpenTafl record is tag lines ``[key:value]`` with the rules tag last, a blank line, then
numbered move lines, two plies a line, captures after ``x`` separated by ``/``::

    [variant:Copenhagen Hnefatafl]
    [result:1]
    [winner:attackers]
    [termination:king_captured]
    [rules:copenhagen]

    1. d1-d4 e5-e2xe3
    2. ...

``result`` is OpenTafl's (1 attackers won, -1 defenders won, 0 draw, ? other). ``winner`` and
``termination`` (a ``Reason`` value) are ours, so that a resignation, a timeout or an agreed draw,
which the board cannot show, replay too. ``position`` (OpenTafl) and ``turn`` (ours) are written
when the game did not begin at its rules' start.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.errors import RecordError, TaflError, shorten
from engine.game import Game
from engine.presets import DEFAULT_VARIANT
from engine.types import Outcome, Ply, Reason, Side

_TAG = re.compile(r"^\[(?P<key>[A-Za-z][\w-]*):(?P<value>[^\]\n]*)\]$")
_MOVE_NUMBER = re.compile(r"^\d+\.")
_PIECE_PREFIX = re.compile(r"^[tcnkTCNK](?=[a-z]\d)")
_RESIGNATION = "---"
__all__ = [
    "DataGame",
    "DataMove",
    "DataResult",
    "RecordError",
    "Replay",
    "game_from_record",
    "parse_data_line",
    "replay_data_game",
    "to_opentafl_record",
]

_BOARD_ENDS = {Reason.RESIGNED, Reason.TIMEOUT, Reason.DRAW_AGREED, Reason.VOIDED}
"""Reasons a record must state because the moves do not show them."""


# -- OpenTafl game records ---------------------------------------------------------------------


def to_opentafl_record(game: Game, tags: Mapping[str, str] | None = None) -> str:
    """The game as an OpenTafl game record; ``tags`` (date, attackers, event...) go first."""
    start, turn = game.start
    header: dict[str, str] = dict(tags or {})
    header.setdefault("variant", game.rules.name)
    header["result"] = _opentafl_result(game.outcome)
    if game.outcome is not None:
        header["winner"] = str(game.outcome.winner or "none")
        header["termination"] = str(game.outcome.reason)
    fresh = Game(game.rules_string)
    if start != fresh.position() or turn != fresh.turn:
        header["position"] = start
        header["turn"] = str(turn)
    header["rules"] = game.rules_string
    lines = []
    for key, value in header.items():
        if not re.fullmatch(r"[A-Za-z][\w-]*", key) or re.search(r"[\]\n]", value):
            raise RecordError(f"tag {key!r}: {value!r} cannot be written (no ']' or line breaks)")
        lines.append(f"[{key}:{value}]")
    lines.append("")
    plies = [_opentafl_ply(ply) for ply in game.history]
    for number, first in enumerate(range(0, len(plies), 2), start=1):
        lines.append(f"{number}. " + " ".join(plies[first : first + 2]))
    return "\n".join(lines) + "\n"


def game_from_record(text: str) -> Game:
    """Replay an OpenTafl game record, checking every move; RecordError says which and why."""
    tags, movetext = _split_record(text)
    if "rules" not in tags:
        raise RecordError("the record has no [rules:...] tag")
    try:
        if "position" in tags:
            turn = tags.get("turn") or Game(tags["rules"]).turn
            game = Game.from_position(tags["rules"], tags["position"], turn)
        else:
            game = Game(tags["rules"])
    except TaflError as error:
        raise RecordError(f"the record's rules or position cannot be used: {error}") from None
    tokens = [t for t in _without_comments(movetext).split() if not _MOVE_NUMBER.fullmatch(t)]
    for index, raw in enumerate(tokens):
        token = _MOVE_NUMBER.sub("", raw)
        where = f"move {index // 2 + 1} ({game.turn}: {shorten(token)})"
        if token == _RESIGNATION:
            if index != len(tokens) - 1:
                raise RecordError(f"{where}: moves follow a resignation")
            game.resign(game.turn)
            break
        try:
            game.play(_our_move_text(token))
        except TaflError as error:
            raise RecordError(f"{where}: {error}") from None
    _settle_outcome(game, tags)
    return game


def _opentafl_result(outcome: Outcome | None) -> str:
    if outcome is None:
        return "?"
    return {None: "0", Side.ATTACKERS: "1", Side.DEFENDERS: "-1"}.get(outcome.winner, "?")


def _opentafl_ply(ply: Ply) -> str:
    return str(ply.move) + ("x" + "/".join(ply.captures) if ply.captures else "")


def _our_move_text(token: str) -> str:
    """An OTN move record in our notation: no piece letter, no info symbol, ``x`` per capture."""
    token = _PIECE_PREFIX.sub("", token)
    token = token.rstrip("+")
    if re.search(r"\d-+$", token):
        token = token.rstrip("-")
    return token.replace("/", "x")


def _without_comments(movetext: str) -> str:
    """The move text with each ``[comment]`` made a space (a ``[`` never closed stays)."""
    parts = []
    at = 0
    while (opening := movetext.find("[", at)) != -1:
        closing = movetext.find("]", opening)
        if closing == -1:
            break
        parts += [movetext[at:opening], " "]
        at = closing + 1
    parts.append(movetext[at:])
    return "".join(parts)


def _split_record(text: str) -> tuple[dict[str, str], str]:
    """The tags at the head of a record, and the move text after them."""
    lines = text.strip().splitlines()
    tags: dict[str, str] = {}
    index = 0
    while index < len(lines) and (match := _TAG.match(lines[index].strip())):
        tags[match["key"]] = match["value"]
        index += 1
    return tags, "\n".join(lines[index:])


def _settle_outcome(game: Game, tags: Mapping[str, str]) -> None:
    """Apply the ending the record states but the board cannot show, and check the rest."""
    said = _stated_outcome(tags)
    if game.outcome is None:
        if said is not None and said.reason in _BOARD_ENDS:
            game.end(said)
        elif said is not None:
            raise RecordError(
                f"the record says the game ended ({said.reason.description}), "
                "but the moves do not end it"
            )
        return
    if said is not None and said != game.outcome:
        raise RecordError(
            f"the record says {_describe(said)}, but the moves give {_describe(game.outcome)}"
        )
    result = tags.get("result", "?")
    if result != "?" and result != _opentafl_result(game.outcome) and "winner" not in tags:
        raise RecordError(
            f"the record's result is {result}, but the moves give {_describe(game.outcome)}"
        )


def _stated_outcome(tags: Mapping[str, str]) -> Outcome | None:
    if "termination" not in tags:
        return None
    termination, winner = tags["termination"], tags.get("winner", "none")
    try:
        return Outcome(None if winner == "none" else Side(winner), Reason(termination))
    except ValueError:
        raise RecordError(
            f"the record's winner ({shorten(winner)!r}) or termination "
            f"({shorten(termination)!r}) is not one this engine knows"
        ) from None


def _describe(outcome: Outcome) -> str:
    who = f"{outcome.winner} won" if outcome.winner else "a draw"
    return f"{who} ({outcome.reason.description})"


# -- the CSV game lines of tests/data ----------------------------------------------------------


class DataResult(StrEnum):
    """The RESULT field: Black = attackers won, White = defenders won."""

    ATTACKERS_WON = "Black"
    DEFENDERS_WON = "White"
    DRAW = "Draw"
    ONGOING = "Ongoing"
    NONE = ""

    @property
    def outcome_winner(self) -> Side | None:
        """The winning side (None for a draw); only meaningful when ``decided``."""
        return _RESULT_WINNER.get(self)

    @property
    def decided(self) -> bool:
        return self in (DataResult.ATTACKERS_WON, DataResult.DEFENDERS_WON, DataResult.DRAW)


_RESULT_WINNER = {
    DataResult.ATTACKERS_WON: Side.ATTACKERS,
    DataResult.DEFENDERS_WON: Side.DEFENDERS,
}


@dataclass(frozen=True, slots=True)
class DataMove:
    """One recorded ply: ``move`` like ``g3-e3`` and the squares it says were captured."""

    move: str
    captures: frozenset[str]


@dataclass(frozen=True, slots=True)
class DataGame:
    """One CSV line: the plies (attackers first), whether it ended on time, and the result."""

    moves: tuple[DataMove, ...]
    timeout: bool
    result: DataResult
    capture_counts: tuple[int, int]


_DATA_MOVE = re.compile(r"^(?P<move>[a-z]\d{1,2}-[a-z]\d{1,2})(?P<caps>(?:x[a-z]\d{1,2})*)$")
_TIMEOUT = "timeout"


def parse_data_line(line: str) -> DataGame:
    """Read ``MOVES,N1,N2,RESULT`` (tests/data/README.md); RecordError says what is wrong."""
    fields = line.rstrip("\r\n").split(",")
    if len(fields) != 4:
        raise RecordError(
            f"a game line has 4 comma-separated fields (moves,n1,n2,result); got {len(fields)}"
        )
    moves_text, n1, n2, result_text = fields
    tokens = moves_text.split()
    timeout = bool(tokens) and tokens[-1] == _TIMEOUT
    if timeout:
        tokens.pop()
    moves = []
    for number, token in enumerate(tokens, start=1):
        match = _DATA_MOVE.match(token)
        if match is None:
            raise RecordError(
                f"ply {number}: {shorten(token)!r} is not a move like g3-e3 or g3-e3xe2"
            )
        caps = frozenset(re.findall(r"[a-z]\d{1,2}", match["caps"]))
        moves.append(DataMove(match["move"], caps))
    try:
        counts = (int(n1), int(n2))
        result = DataResult(result_text.strip())
    except ValueError:
        choices = ", ".join(repr(r.value) for r in DataResult)
        raise RecordError(
            f"the counts must be numbers and the result one of {choices}; "
            f"got {shorten(n1)!r}, {shorten(n2)!r}, {shorten(result_text)!r}"
        ) from None
    return DataGame(tuple(moves), timeout, result, counts)


@dataclass
class Replay:
    """A data game played through the engine."""

    game: Game
    played: int
    """How many recorded plies were played (fewer than recorded when the engine ended early)."""
    ended_early: bool
    """The engine ended the game before the record's last ply (``game.outcome`` says how)."""


def replay_data_game(
    data: DataGame, variant: str = DEFAULT_VARIANT, *, finish: bool = True
) -> Replay:
    """Play a data game, checking each move and its captures (RecordError says which ply failed).

    When the engine ends the game on the last recorded ply, its winner must agree with a decided
    RESULT. When the moves leave the game open and ``finish`` is set, the recorded result is
    applied: a loss on time after a ``timeout`` token, else a resignation or an agreed draw.
    """
    game = Game(variant)
    played = 0
    for number, recorded in enumerate(data.moves, start=1):
        if game.outcome is not None:
            return Replay(game, played, ended_early=True)
        where = f"ply {number} ({game.turn}: {recorded.move})"
        try:
            ply = game.play(recorded.move)
        except TaflError as error:
            raise RecordError(f"{where}: {error}") from None
        if frozenset(ply.captures) != recorded.captures:
            engine = ", ".join(sorted(ply.captures)) or "nothing"
            record = ", ".join(sorted(recorded.captures)) or "nothing"
            raise RecordError(f"{where}: the engine captured {engine}, the record says {record}")
        played += 1
    if game.outcome is not None:
        if data.result.decided and game.outcome.winner != data.result.outcome_winner:
            raise RecordError(
                f"the moves give {_describe(game.outcome)}, but the record's result is "
                f"{data.result.value}"
            )
    elif finish and data.result.decided:
        winner = data.result.outcome_winner
        if winner is None:
            game.agree_draw()
        elif data.timeout:
            game.time_out(winner.opponent)
        else:
            game.resign(winner.opponent)
    return Replay(game, played, ended_early=False)
