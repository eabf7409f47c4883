"""The benches' independent-engine protocol (bench/arena.py's ``Engine``), spoken to our own AI
behind it (bench/own_engine.py): boards agree move after move, refusals are answered, and the
endgame bench gives the engine the side it is told to play."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import bench.endgames as endgames
from bench.arena import Engine
from bench.endgames import Pace, Start, play_out
from bench.own_engine import StandIn
from engine import Game, Side

OWN_ENGINE = Path(endgames.__file__).with_name("own_engine.py")
LONE_KING = "/3t3/1t5/7/3K3/7/5t1/3t3/"
"""Brandubh: a lone king in the middle, four attackers, the attackers to move."""


def command(*options: str) -> str:
    return shlex.join([sys.executable, str(OWN_ENGINE), "--depth", "1", *options])


@pytest.fixture
def engine() -> Iterator[Engine]:
    started = Engine(command())
    yield started
    started.close()


def test_the_engine_plays_legal_moves_on_the_same_board(engine: Engine) -> None:
    game = Game("brandubh")
    for _ in range(8):
        if game.outcome is not None:
            break
        move = engine.move(game, 0.05)
        assert move in game.legal_moves()
        game.push(move)
    assert len(game.history) >= 4


def test_refused_input_gets_an_error_line_and_changes_nothing() -> None:
    stand_in = StandIn(depth=1, log=None)
    assert stand_in.answer("position").startswith("error no rules")
    assert stand_in.answer("rules brandubh") == "ok"
    start = stand_in.answer("position")
    assert stand_in.answer("moves d1-d4").startswith("error")
    assert stand_in.answer("think soon").startswith("error")
    assert stand_in.answer("resign").startswith("error unknown command 'resign'")
    assert stand_in.answer("position") == start


@pytest.mark.parametrize("side", [Side.ATTACKERS, Side.DEFENDERS])
def test_the_endgame_bench_gives_the_engine_the_side_it_is_told(
    side: Side, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "thinks"
    engine = Engine(command("--log", str(log)))
    monkeypatch.setattr(endgames, "_engine", engine)
    monkeypatch.setattr(endgames, "_their_side", side)
    start = Start("brandubh", LONE_KING, "a lone king").as_engine_plays()
    verdict = endgames.Verdict(lost=False, held=False)
    try:
        result = play_out(start, Pace(0.05), 6, verdict)
    finally:
        engine.close()
    assert result.reason != endgames.FAILED, result.final
    thinks = log.read_text().split()
    assert thinks, "the engine was never asked to move"
    assert set(thinks) == {str(side)}
    ours = (result.plies + (side is Side.DEFENDERS)) // 2
    assert len(thinks) == result.plies - ours
