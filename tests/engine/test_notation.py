"""Move text: the forms read, hostile text read in time proportional to its length, short quotes."""

from __future__ import annotations

import contextlib
import re
import timeit
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import QUOTE_LIMIT, NotationError
from engine.notation import (
    MAX_CAPTURES,
    MAX_MOVE_TEXT,
    MAX_PATH,
    ParsedMove,
    parse_move_text,
)
from engine.types import parse_square


def squares(*names: str, size: int = 11) -> tuple[int, ...]:
    return tuple(parse_square(name, size) for name in names)


@pytest.mark.parametrize(
    ("text", "path", "captures"),
    [
        ("d1-d4", ("d1", "d4"), None),
        ("d1d4", ("d1", "d4"), None),
        ("D1 D4", ("d1", "d4"), None),
        ("  d1 -  d4 ", ("d1", "d4"), None),
        ("d4", ("d4",), None),
        ("d1-d4xd5xe6", ("d1", "d4"), {"d5", "e6"}),
        ("d1-d4 X d5 x e6 ", ("d1", "d4"), {"d5", "e6"}),
        ("e5-c3-a5", ("e5", "c3", "a5"), None),
        ("k10-k11", ("k10", "k11"), None),
        ("a\u0661-a\u0664", ("a1", "a4"), None),
    ],
)
def test_the_forms_read(text: str, path: tuple[str, ...], captures: set[str] | None) -> None:
    expected = frozenset(squares(*captures)) if captures is not None else None
    assert parse_move_text(text, 11) == ParsedMove(squares(*path), expected)


@pytest.mark.parametrize(
    "text", ["", "d1-", "-d1", "d1--d4", "d1-d4x", "d1-d4xd5 e6", "d1-d4!", "d123", "hello"]
)
def test_text_that_is_not_a_move_is_refused(text: str) -> None:
    with pytest.raises(NotationError, match="write a move as from-to"):
        parse_move_text(text, 11)


def test_squares_off_the_board_and_standing_still_are_refused() -> None:
    with pytest.raises(NotationError, match="l1 is off the board; squares go from a1 to k11"):
        parse_move_text("d1-l1", 11)
    with pytest.raises(NotationError, match="from and to squares are the same"):
        parse_move_text("d1-d1", 11)


def test_the_longest_real_moves_are_read_and_longer_ones_refused() -> None:
    chain = "-".join(("c3", "e3") * (MAX_PATH // 2))
    captures = "".join(f"x{chr(97 + i % 7)}{i // 7 + 1}" for i in range(MAX_CAPTURES))
    assert len(chain + captures) < MAX_MOVE_TEXT / 2
    parsed = parse_move_text(chain + captures, 7)
    assert len(parsed.path) == MAX_PATH
    assert parsed.captures is not None and len(parsed.captures) == MAX_CAPTURES
    with pytest.raises(NotationError, match=f"visits at most {MAX_PATH} squares"):
        parse_move_text(chain + "-c3", 7)
    with pytest.raises(NotationError, match=f"captures at most {MAX_CAPTURES} pieces"):
        parse_move_text(chain + captures + "xa1", 7)


def test_text_longer_than_any_move_is_refused_unread() -> None:
    text = "d1-d4" + " " * MAX_MOVE_TEXT
    with pytest.raises(NotationError, match=f"too long for a move \\(at most {MAX_MOVE_TEXT}\\)"):
        parse_move_text(text, 11)


@pytest.mark.parametrize("length", [MAX_MOVE_TEXT - 1, 6000])
def test_refusals_quote_the_text_briefly(length: int) -> None:
    junk = ("q" * length)[:length]
    with pytest.raises(NotationError) as refused:
        parse_move_text(junk, 11)
    message = str(refused.value)
    assert "q" * (QUOTE_LIMIT + 1) not in message
    assert len(message) < 200


HOSTILE = {
    "double spaces, the issue's 17 s": "a1  " * 11 + "!",
    "single spaces, the issue's 15 s": "a1 " * 16 + "!",
    "a run of squares": "a1" * (MAX_MOVE_TEXT // 2),
    "a run of spaced squares": "a1 " * (MAX_MOVE_TEXT // 3),
    "a run of squares and dashes": "a1 - " * (MAX_MOVE_TEXT // 5),
    "a run of captures": "a1-a2" + "xa1" * (MAX_MOVE_TEXT // 3 - 2),
    "a run of spaced captures ending badly": "a1-a2" + " x a1" * 70 + "!",
    "a run of x": "x" * MAX_MOVE_TEXT,
    "a run of dashes": "-" * MAX_MOVE_TEXT,
    "a run of spaces": " " * MAX_MOVE_TEXT,
    "a run of digits": "a" + "1" * (MAX_MOVE_TEXT - 1),
    "unicode digits": "a\u0661 " * (MAX_MOVE_TEXT // 3),
    "unicode spaces": "a1\u00a0\u2003" * (MAX_MOVE_TEXT // 4),
    "the longest chain, all the same square": "a1a1" * (MAX_PATH // 2),
    "6,000 characters of squares": "a1 " * 2000,
    "6,000 characters of junk": "#" * 6000,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_text_is_read_in_time_like_a_move(text: str) -> None:
    """Under 50 times the time of a normal move (a backtracking parser takes millions)."""

    def parse(text: str) -> None:
        with contextlib.suppress(NotationError):
            parse_move_text(text, 11)

    def best(text: str) -> float:
        return min(timeit.repeat(lambda: parse(text), number=200, repeat=5))

    normal = best("d1-d4")
    assert best(text) < 50 * normal


_OLD_SQUARE = r"[a-zA-Z]\d{1,2}"
_OLD_MOVE = re.compile(
    rf"^\s*(?P<path>{_OLD_SQUARE}(?:\s*[-\s]?\s*{_OLD_SQUARE})*)\s*"
    rf"(?P<caps>(?:[xX]\s*{_OLD_SQUARE}\s*)*)$"
)
"""The grammar as it was (it backtracks catastrophically, so only short texts are tried)."""


def old_parse(text: str, size: int) -> ParsedMove:
    match = _OLD_MOVE.match(text)
    if not match:
        raise NotationError("no match")
    try:
        path = tuple(parse_square(s, size) for s in re.findall(_OLD_SQUARE, match["path"]))
        caps = re.findall(_OLD_SQUARE, match["caps"])
        captures = frozenset(parse_square(s, size) for s in caps) if caps else None
    except ValueError as error:
        raise NotationError(str(error)) from None
    if any(a == b for a, b in pairwise(path)):
        raise NotationError("same")
    return ParsedMove(path, captures)


def outcome(parse: object, text: str, size: int) -> ParsedMove | str:
    assert callable(parse)
    try:
        result = parse(text, size)
    except NotationError:
        return "refused"
    assert isinstance(result, ParsedMove)
    return result


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet="adkxXs01925 -\t\n\u0661\u00a0!", max_size=14),
    st.sampled_from([7, 11, 19]),
)
def test_the_parser_agrees_with_the_old_grammar(text: str, size: int) -> None:
    assert outcome(parse_move_text, text, size) == outcome(old_parse, text, size)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", " ", "-", " - ", "x", " X ", "\t"]),
            st.sampled_from(["a1", "d4", "k11", "s19", "x5", "b"]),
        ),
        min_size=1,
        max_size=5,
    ),
    st.sampled_from(["", " ", "!"]),
)
def test_the_parser_agrees_with_the_old_grammar_on_move_like_text(
    parts: list[tuple[str, str]], tail: str
) -> None:
    text = "".join(sep + square for sep, square in parts) + tail
    assert outcome(parse_move_text, text, 19) == outcome(old_parse, text, 19)
