"""OpenTafl notation (OTN): position strings, and rules strings for custom variants.

A rules string is ``key:value`` entries separated by spaces, ``dim:`` first and ``start:`` last
(``dim:9 esc:e ks:c cens: start:/3ttt3/.../``), as in OpenTafl's notation specification. A key
left out takes OpenTafl's default. Keys for what this engine cannot play (berserk pieces and
mode, jumps, fortresses, speed limits, weak shieldwalls) are refused with a RulesError naming
them.

Repetition (``tfr``) is read as OpenTafl's code scores it, which its comments contradict: the
result is decided after the turn has passed, for the side then to move. So ``tfr:w`` (its
Copenhagen) means the side whose move made the third occurrence LOSES, and ``tfr:l`` that it
wins; ``tfr:d`` is a draw and ``tfr:i`` ignores repetition. Games replay as OpenTafl scored them.
``linc:y`` is its Linnaean capture (Tablut): the king's throne is an anvil against a defender
when attackers hold the king's three other sides.

Three switches of RULES.md that OpenTafl cannot express are written as entries of our own, which
OpenTafl ignores (it reads ``tfr:dl`` as a draw):
- ``edge:y``: the board edge is hostile to men (seed 001).
- ``lkc:y``: Fetlar's lone king can be captured on the edge.
- ``tfr:dl``: a third repetition loses for the defenders (Copenhagen).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from engine.errors import PositionError, RulesError, shorten
from engine.rules import Escape, KingStrength, Repetition, Rules, ThroneStop
from engine.types import Piece, Side, Square, parse_square, square_name

_RANK_TOKEN = re.compile(r"\d+|\D")
_T = TypeVar("_T")

MIN_SIZE, MAX_SIZE = 7, 19
CUSTOM_ID = "custom"
DEFAULT_NAME = "Custom"


def format_position(pieces: Mapping[Square, str], size: int) -> str:
    """The OTN position (rank 1 first) of ``pieces``, each given by its letter: the inverse of
    ``parse_position``. ``format_position({3: "t"}, 7) == "/3t3/7/7/7/7/7/7/"``."""
    ranks = []
    for rank in range(size):
        row, empty = "", 0
        for file in range(size):
            letter = pieces.get(rank * size + file)
            if letter is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        ranks.append(row + (str(empty) if empty else ""))
    return "/" + "/".join(ranks) + "/"


def parse_position(text: str, size: int, letters: str) -> dict[Square, Piece]:
    """The pieces of an OTN position (rank 1 first) on a ``size`` board, using only ``letters``.

    ``parse_position("/3t3/.../", 7, "tTK")``; PositionError says what is wrong.
    """
    body = text.strip()
    if len(body) < 2 or not (body.startswith("/") and body.endswith("/")):
        raise PositionError(
            f"a position starts and ends with '/' and lists the ranks from rank 1 up, "
            f"digits counting empty squares, like /3t3/...; got {shorten(text.strip())!r}"
        )
    ranks = body[1:-1].split("/")
    if len(ranks) != size:
        raise PositionError(
            f"the position has {len(ranks)} ranks; a {size}x{size} board needs {size}"
        )
    pieces: dict[Square, Piece] = {}
    for rank, row in enumerate(ranks):
        file = 0
        for match in _RANK_TOKEN.finditer(row):
            token = match[0]
            if file > size or (token.isdigit() and len(token) > len(str(MAX_SIZE)) + 1):
                raise PositionError(
                    f"rank {rank + 1} ({shorten(row)!r}) has more than {size} squares; "
                    f"expected {size}"
                )
            if token.isdigit():
                file += int(token)
                continue
            if token not in letters:
                allowed = ", ".join(letters)
                raise PositionError(
                    f"rank {rank + 1}: {token!r} is not a piece here; the pieces are {allowed}"
                )
            if file < size:
                pieces[rank * size + file] = Piece(token)
            file += 1
        if file != size:
            raise PositionError(
                f"rank {rank + 1} ({shorten(row)!r}) has {file} squares; expected {size}"
            )
    return pieces


# -- values ------------------------------------------------------------------------------------

_PIECE_LETTERS = "tcnkTCNK"
"""OpenTafl's piece letters: taflman, commander, knight, king; attackers lower case."""


class _KeyError(ValueError):
    """A rules entry is wrong; the message is completed with the key and value."""


def _yes_no(value: str) -> bool:
    if value not in ("y", "n"):
        raise _KeyError("expected y or n")
    return value == "y"


def _choice(table: dict[str, _T]) -> Callable[[str], _T]:
    def read(value: str) -> _T:
        if value not in table:
            raise _KeyError("expected one of " + ", ".join(repr(v) for v in table))
        return table[value]

    return read


def _letters(value: str) -> set[str]:
    """The piece letters of a piece-type list (``tcnkTCNK``); c, n, k are ignored."""
    bad = sorted(set(value) - set(_PIECE_LETTERS))
    if bad:
        raise _KeyError(f"{bad[0]!r} is not a piece letter; use t (attackers), T and K (defenders)")
    return set(value) & set("tTK")


def _sides(value: str) -> frozenset[Side]:
    """Sides a hostility list names; the king is tested as a defender, so K goes with T."""
    letters = _letters(value)
    if ("T" in letters) != ("K" in letters):
        raise _KeyError("the king counts as a defender here: list T and K together or neither")
    sides = set()
    if "t" in letters:
        sides.add(Side.ATTACKERS)
    if "T" in letters:
        sides.add(Side.DEFENDERS)
    return frozenset(sides)


def _side_letters(sides: frozenset[Side]) -> str:
    return ("t" if Side.ATTACKERS in sides else "") + ("TK" if Side.DEFENDERS in sides else "")


_THRONE_STOP = {"": ThroneStop.NOBODY, "K": ThroneStop.KING, "tTK": ThroneStop.ALL}
_THRONE_STOP_LETTERS = {stop: letters for letters, stop in _THRONE_STOP.items()}


def _throne_stop(value: str) -> ThroneStop:
    letters = "".join(c for c in "tTK" if c in _letters(value))
    if letters not in _THRONE_STOP:
        raise _KeyError("supported: empty (nobody), K (king only) or tTK (everyone)")
    return _THRONE_STOP[letters]


def _throne_pass(value: str) -> bool:
    letters = _letters(value)
    if "K" not in letters:
        raise _KeyError("the king always passes the throne here; list K")
    if ("t" in letters) != ("T" in letters):
        raise _KeyError("attackers and defenders pass the throne alike: list t and T, or neither")
    return "t" in letters


def _only(accepted: str, feature: str) -> Callable[[str], None]:
    def read(value: str) -> None:
        if value != accepted:
            raise _KeyError(f"{feature} are not supported")

    return read


def _king_only_stops(value: str) -> None:
    if _letters(value) != {"K"}:
        raise _KeyError("only the king may stop on a corner here; write K")


def _no_men_pass(value: str) -> None:
    if _letters(value) & {"t", "T"}:
        raise _KeyError("nothing but the king passes a corner here")


def _all_reenter(value: str) -> None:
    if _letters(value) != {"t", "T", "K"}:
        raise _KeyError("limits on re-entering a square are not supported")


def _any_pieces(value: str) -> None:
    _letters(value)


def _jump_mode(value: str) -> None:
    _choice({"n": None, "r": None, "j": None, "c": None})(value)


# -- the keys ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    """One rules entry: its OpenTafl default, how it reads into Rules fields, how it is written.

    ``read`` returns the Rules fields the value sets (keyword arguments); ``write`` gives the
    value for a Rules record, or is None for keys we accept but never write.
    """

    name: str
    default: str
    read: Callable[[str, int], dict[str, Any]]
    write: Callable[[Rules], str] | None = None


def _field(
    field: str, parse: Callable[[str], Any], fmt: Callable[[Any], str] | None = None
) -> tuple[Callable[[str, int], dict[str, Any]], Callable[[Rules], str] | None]:
    def read(value: str, size: int) -> dict[str, Any]:
        return {field: parse(value)}

    if fmt is None:
        return read, None
    format_value = fmt

    def write(rules: Rules) -> str:
        return format_value(getattr(rules, field))

    return read, write


def _check(parse: Callable[[str], None]) -> Callable[[str, int], dict[str, Any]]:
    def read(value: str, size: int) -> dict[str, Any]:
        parse(value)
        return {}

    return read


def _yn(flag: bool) -> str:
    return "y" if flag else "n"


def _inverse(table: dict[str, _T]) -> Callable[[_T], str]:
    back = {v: k for k, v in reversed(table.items())}
    return lambda value: back[value]


_ESCAPE = {"c": Escape.CORNERS, "e": Escape.EDGE}
_REPETITION = {
    "d": Repetition.DRAW,
    "i": Repetition.IGNORED,
    "w": Repetition.REPEATER_LOSES,
    "l": Repetition.REPEATER_WINS,
    "dl": Repetition.DEFENDERS_LOSE,
}
_KING_ARMED = {"y": (True, True), "h": (True, False), "a": (False, True), "n": (False, False)}
_KING_STRENGTH = {
    "s": KingStrength.STRONG,
    "y": KingStrength.STRONG,
    "c": KingStrength.STRONG_NEAR_THRONE,
    "m": KingStrength.STRONG_OR_3_AT_EDGE,
    "w": KingStrength.WEAK,
    "n": KingStrength.WEAK,
}
_SHIELDWALL = {"n": False, "s": True}


def _read_shieldwall(value: str) -> bool:
    if value == "w":
        raise _KeyError("weak shieldwalls (corners may not close them) are not supported")
    return _choice(_SHIELDWALL)(value)


def _read_first(value: str, size: int) -> dict[str, Any]:
    return {"first": Side.ATTACKERS if _yes_no(value) else Side.DEFENDERS}


def _read_king_armed(value: str, size: int) -> dict[str, Any]:
    hammer, anvil = _choice(_KING_ARMED)(value)
    return {"king_hammer": hammer, "king_anvil": anvil}


def _write_king_armed(rules: Rules) -> str:
    return _inverse(_KING_ARMED)((rules.king_hammer, rules.king_anvil))


def _squares(value: str, size: int) -> list[str]:
    """The squares a comma-separated list names, each once (``a1,g7,``)."""
    names = []
    for part in dict.fromkeys(value.split(",")):
        if part.strip():
            try:
                names.append(square_name(parse_square(part, size), size))
            except ValueError as error:
                raise _KeyError(str(error)) from None
    return names


def _default_corners(size: int) -> frozenset[str]:
    last = size - 1
    return frozenset(square_name(s, size) for s in (0, last, last * size, last * size + last))


def _default_throne(size: int) -> str:
    centre = (size - 1) // 2
    return square_name(centre * size + centre, size)


def _square_order(name: str) -> tuple[int, str]:
    return int(name[1:]), name[0]


def _read_corners(value: str, size: int) -> dict[str, Any]:
    if value == "default":
        return {"corners": _default_corners(size)}
    return {"corners": frozenset(_squares(value, size))}


def _write_corners(rules: Rules) -> str:
    if rules.corners == _default_corners(rules.size):
        return "default"
    return "".join(f"{name}," for name in sorted(rules.corners, key=_square_order))


def _read_throne(value: str, size: int) -> dict[str, Any]:
    if value == "default":
        return {"throne": _default_throne(size)}
    names = _squares(value, size)
    if len(names) > 1:
        raise _KeyError("only one centre square is supported")
    return {"throne": names[0] if names else None}


def _write_throne(rules: Rules) -> str:
    if rules.throne == _default_throne(rules.size):
        return "default"
    return f"{rules.throne}," if rules.throne else ""


def _read_occupied_throne(value: str, size: int) -> dict[str, Any]:
    return {"occupied_throne_hostile_to": _sides(value)}


def _read_empty_throne(value: str, size: int) -> dict[str, Any]:
    """``cenhe`` adds to ``cenh``: the empty throne is hostile to both lists (combined later)."""
    return {"empty_throne_hostile_to": _sides(value)}


def _write_occupied_throne(rules: Rules) -> str:
    if not rules.occupied_throne_hostile_to <= rules.empty_throne_hostile_to:
        raise ValueError(
            "OpenTafl cannot write a throne hostile to a side when occupied but not when empty"
        )
    return _side_letters(rules.occupied_throne_hostile_to)


_KEYS: tuple[_Key, ...] = (
    _Key("esc", "c", *_field("escape", _choice(_ESCAPE), _inverse(_ESCAPE))),
    _Key("surf", "y", *_field("encirclement", _yes_no, _yn)),
    _Key("atkf", "y", _read_first, lambda r: _yn(r.first == Side.ATTACKERS)),
    _Key("tfr", "d", *_field("repetition", _choice(_REPETITION), _inverse(_REPETITION))),
    _Key("ka", "y", _read_king_armed, _write_king_armed),
    _Key("ks", "s", *_field("king_strength", _choice(_KING_STRENGTH), _inverse(_KING_STRENGTH))),
    _Key("kj", "n", _check(_only("n", "king jumps"))),
    _Key("nj", "c", _check(_jump_mode)),
    _Key("cj", "j", _check(_jump_mode)),
    _Key("cor", "default", _read_corners, _write_corners),
    _Key("cen", "default", _read_throne, _write_throne),
    _Key("afor", "", _check(_only("", "attacker fortresses"))),
    _Key("dfor", "", _check(_only("", "defender fortresses"))),
    _Key("spd", "-1", _check(_only("-1", "speed limits"))),
    _Key("corh", "tcnkTCNK", *_field("corner_hostile_to", _sides, _side_letters)),
    _Key("cenh", "tcnk", _read_occupied_throne, _write_occupied_throne),
    _Key(
        "cenhe", "tcnkTCNK", _read_empty_throne, lambda r: _side_letters(r.empty_throne_hostile_to)
    ),
    _Key("aforh", "TCNK", _check(_any_pieces)),
    _Key("dforh", "tcnk", _check(_any_pieces)),
    _Key("corp", "K", _check(_no_men_pass)),
    _Key("cenp", "tcnkTCNK", *_field("throne_pass", _throne_pass, lambda p: "tTK" if p else "K")),
    _Key("aforp", "tcnkTCNK", _check(_any_pieces)),
    _Key("dforp", "tcnkTCNK", _check(_any_pieces)),
    _Key("cors", "K", _check(_king_only_stops)),
    _Key("cens", "K", *_field("throne_stop", _throne_stop, _THRONE_STOP_LETTERS.__getitem__)),
    _Key("afors", "tcnkTCNK", _check(_any_pieces)),
    _Key("dfors", "TCNK", _check(_any_pieces)),
    _Key("corre", "tcnkTCNK", _check(_all_reenter)),
    _Key("cenre", "tcnkTCNK", _check(_all_reenter)),
    _Key("aforre", "tcnkTCNK", _check(_any_pieces)),
    _Key("dforre", "tcnkTCNK", _check(_any_pieces)),
    _Key("sw", "n", *_field("shieldwall", _read_shieldwall, _inverse(_SHIELDWALL))),
    _Key("swf", "y", _check(_only("y", "shieldwall captures without a flanking move (swf:n)"))),
    _Key("efe", "n", *_field("exit_fort", _yes_no, _yn)),
    _Key("ber", "n", _check(_only("n", "berserk moves"))),
    _Key("linc", "n", *_field("linnaean_capture", _yes_no, _yn)),
)
_OWN_KEYS: tuple[_Key, ...] = (
    _Key("edge", "n", *_field("edge_hostile", _yes_no, _yn)),
    _Key("lkc", "n", *_field("lone_king_captured_on_edge", _yes_no, _yn)),
)
"""Our own entries (module docstring), which OpenTafl ignores."""
_KEYS += _OWN_KEYS
_BY_NAME = {key.name: key for key in _KEYS}
_SPECIAL = ("dim", "name", "start")


# -- reading and writing -----------------------------------------------------------------------


def rules_from_opentafl(text: str) -> Rules:
    """Rules from an OpenTafl rules string; RulesError names the wrong or unsupported entry."""
    try:
        return _read_rules(text)
    except ValueError as error:  # the readers below say what is wrong as a ValueError
        raise RulesError(str(error)) from None


def _read_rules(text: str) -> Rules:
    entries = _entries(text)
    size = _read_size(entries)
    start = _read_start(entries["start"], size)
    fields: dict[str, Any] = {}
    for key in _KEYS:
        value = entries.get(key.name, key.default)
        try:
            fields.update(key.read(value, size))
        except _KeyError as error:
            raise ValueError(f"{key.name}:{shorten(value)}: {error}") from None
    empty_extra = _sides(entries.get("cenhe", _BY_NAME["cenhe"].default))
    fields["empty_throne_hostile_to"] = fields["occupied_throne_hostile_to"] | empty_extra
    if fields["escape"] is Escape.CORNERS and not fields["corners"]:
        raise ValueError("esc:c needs corner squares, but cor: lists none")
    name = entries.get("name", "").replace("_", " ") or DEFAULT_NAME
    return Rules(
        id=CUSTOM_ID,
        name=name,
        summary=_summary(size, fields),
        size=size,
        start=start,
        source="OpenTafl rules string",
        **fields,
    )


def as_opentafl_plays(rules: Rules) -> Rules:
    """``rules`` as OpenTafl plays their rules string: without our own entries, which it
    ignores, and with a third repetition a draw where ours makes it a loss for the defenders."""
    fields: dict[str, Any] = {}
    for key in _OWN_KEYS:
        fields.update(key.read(key.default, rules.size))
    if rules.repetition is Repetition.DEFENDERS_LOSE:
        fields["repetition"] = Repetition.DRAW
    return replace(rules, **fields)


def rules_to_opentafl(rules: Rules) -> str:
    """The OpenTafl rules string of ``rules`` (entries that differ from OpenTafl's defaults)."""
    parts = [f"dim:{rules.size}"]
    if rules.name:
        parts.append("name:" + re.sub(r"\s", "_", rules.name))
    for key in _KEYS:
        if key.write is None:
            continue
        value = key.write(rules)
        if key.read(value, rules.size) != key.read(key.default, rules.size):
            parts.append(f"{key.name}:{value}")
    parts.append(f"start:{rules.start}")
    return " ".join(parts)


def _entries(text: str) -> dict[str, str]:
    entries: dict[str, str] = {}
    for token in text.split():
        key, colon, value = token.partition(":")
        if not colon:
            raise ValueError(
                f"{shorten(token)!r} is not a rules entry; entries look like key:value"
            )
        if key in entries:
            raise ValueError(f"{shorten(key)}: is given twice")
        if key not in _BY_NAME and key not in _SPECIAL:
            raise ValueError(f"{shorten(key)}: is not an OpenTafl rules key this engine knows")
        entries[key] = value
    for required in ("dim", "start"):
        if required not in entries:
            raise ValueError(f"a rules string needs {required}: (like dim:9 ... start:/3ttt3/.../)")
    return entries


def _read_size(entries: dict[str, str]) -> int:
    value = entries["dim"]
    if not (
        value.isdecimal()
        and len(value) <= len(str(MAX_SIZE))
        and MIN_SIZE <= int(value) <= MAX_SIZE
    ):
        raise ValueError(
            f"dim:{shorten(value)}: the board size must be a number from {MIN_SIZE} to {MAX_SIZE}"
        )
    return int(value)


def _read_start(value: str, size: int) -> str:
    if set(value) & set("cnCN"):
        raise ValueError("start: berserk pieces (commanders c/C, knights n/N) are not supported")
    if "k" in value:
        raise ValueError("start: an attacking king (k) is not supported")
    try:
        pieces = parse_position(value, size, "tTK")
    except ValueError as error:
        raise ValueError(f"start: {error}") from None
    kings = list(pieces.values()).count(Piece.KING)
    if kings != 1:
        raise ValueError(f"start: the position needs exactly one king (K); it has {kings}")
    return value


def _summary(size: int, fields: dict[str, Any]) -> str:
    goal = "a corner" if fields["escape"] is Escape.CORNERS else "the edge"
    return (
        f"Custom {size}x{size} rules from an OpenTafl rules string: the {fields['first']} move "
        f"first and the king escapes to {goal}."
    )
