"""Rules strings, records and squares of up to 6,000 characters: read fast, refused briefly."""

from __future__ import annotations

import contextlib
import timeit
from collections.abc import Callable

import pytest

from engine import Game
from engine.errors import QUOTE_LIMIT
from engine.opentafl import rules_from_opentafl, rules_to_opentafl
from engine.presets import PRESETS
from engine.record import game_from_record, parse_data_line
from engine.types import parse_square

LONG = 6000
START = "/7/7/7/3K3/7/7/t6/"
NORMAL_RULES = rules_to_opentafl(PRESETS["copenhagen"])

HOSTILE_RULES = {
    "junk": "#" * LONG,
    "a long key": "k" * LONG + ":1",
    "a long size": "dim:" + "9" * LONG + f" start:{START}",
    "keys given twice": ("esc:c " * LONG)[:LONG],
    "a long run of empty squares": f"dim:7 start:/{'9' * LONG}/7/7/3K3/7/7/t6/",
    "many counts of empty squares": f"dim:7 start:/{'1' * LONG}/7/7/3K3/7/7/t6/",
    "a long rank of pieces": f"dim:7 start:/{'t' * LONG}/7/7/3K3/7/7/t6/",
    "many ranks": "dim:7 start:" + "/" * LONG,
    "a long corner list": f"dim:7 cor:{'a1,' * (LONG // 3)} start:{START}",
    "a long bad corner": f"dim:7 cor:{'a' * LONG} start:{START}",
    "a long centre": f"dim:7 cen:a{'1' * LONG} start:{START}",
    "a long value": f"dim:7 esc:{'c' * LONG} start:{START}",
    "a long piece list": f"dim:7 corh:{'tT' * (LONG // 2)} start:{START}",
    "many colons": "a:" * (LONG // 2),
}


def best(action: Callable[[], object]) -> float:
    """The fastest of several timings of ``action`` (any ValueError counts as done)."""

    def run() -> None:
        with contextlib.suppress(ValueError):
            action()

    return min(timeit.repeat(run, number=20, repeat=5))


def refusal(action: Callable[[], object]) -> str:
    with pytest.raises(ValueError) as refused:
        action()
    return str(refused.value)


def assert_brief(message: str) -> None:
    assert len(message) < 300, message
    for letter in "k9tac1#:/":
        assert letter * (QUOTE_LIMIT + 1) not in message, message


@pytest.mark.parametrize("text", HOSTILE_RULES.values(), ids=HOSTILE_RULES.keys())
def test_long_rules_strings_are_read_fast_and_refused_briefly(text: str) -> None:
    """Under 20 times the time of reading Copenhagen's rules string."""
    assert best(lambda: rules_from_opentafl(text)) < 20 * best(
        lambda: rules_from_opentafl(NORMAL_RULES)
    )
    if text != HOSTILE_RULES["a long corner list"]:
        assert_brief(refusal(lambda: Game(text)))


RECORD_HEAD = "[rules:copenhagen]\n"
HOSTILE_RECORDS = {
    "an unclosed comment": RECORD_HEAD + "\n1. " + "[" * LONG,
    "a long move": RECORD_HEAD + "\n1. " + "d" * LONG,
    "a long termination": RECORD_HEAD + f"[termination:{'z' * LONG}]\n\n",
    "a long side to move": RECORD_HEAD + f"[position:{PRESETS['copenhagen'].start}]\n"
    f"[turn:{'z' * LONG}]\n\n",
}


@pytest.mark.parametrize("text", HOSTILE_RECORDS.values(), ids=HOSTILE_RECORDS.keys())
def test_long_records_are_read_fast_and_refused_briefly(text: str) -> None:
    """Under 20 times the time of reading a record of two moves."""
    normal = RECORD_HEAD + "\n1. d1-d4 [a comment] e4-e2\n"
    assert best(lambda: game_from_record(text)) < 20 * best(lambda: game_from_record(normal))
    assert_brief(refusal(lambda: game_from_record(text)))


@pytest.mark.parametrize(
    "line",
    ["a" * LONG + ",1,2,Black", "a1-a2x" + "a1" * LONG + ",1,2,Black", "a1-a2,1,2," + "z" * LONG],
)
def test_long_data_lines_are_refused_briefly(line: str) -> None:
    assert_brief(refusal(lambda: parse_data_line(line)))


@pytest.mark.parametrize("text", ["a" + "1" * LONG, "#" * LONG, "a" + "\u0661" * LONG])
def test_long_square_names_are_refused_briefly(text: str) -> None:
    assert_brief(refusal(lambda: parse_square(text, 19)))
