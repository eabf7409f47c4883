"""The endgame bench's records: each game it plays can be written down and replayed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import endgames
from bench.ai import load_old_ai
from bench.arena import write_record
from bench.endgames import (
    ROOT,
    Pace,
    Start,
    Verdict,
    attackers_points,
    compare,
    play_out,
    read_positions,
    record_name,
    record_seed,
    sign_test,
)
from engine import Game, Side, TaflGame
from engine.ai import _Tafl
from engine.record import game_from_record

LONE_KING = "/3t3/1t5/7/3K3/7/5t1/3t3/"
"""Brandubh: a lone king in the middle, four attackers, the attackers to move."""


def test_a_game_is_written_as_a_record_that_replays_to_where_it_ended(tmp_path: Path) -> None:
    start = Start("brandubh", LONE_KING, "a lone king, move 1")
    result = play_out(start, Pace(0, nodes=300, seed=2), 6, Verdict(False, False), tmp_path)
    (written,) = tmp_path.iterdir()
    assert written.name == "brandubh-a_lone_king_move_1-seed2.txt"
    assert record_seed(written.stem) == 2
    assert record_seed("brandubh-a_lone_king_move_1") is None  # not this bench's record
    text = written.read_text()
    assert "[attackers:ai]" in text and "[defenders:ai]" in text
    replayed = game_from_record(text)
    assert replayed.position() == result.final
    assert len(replayed.history) == result.plies > 0
    assert replayed.start == (LONE_KING, Side.ATTACKERS)


def test_a_position_is_played_under_the_variants_own_rules() -> None:
    """The game starts at the position, but its rules keep the variant's start: the AI's
    evaluation measures the defenders' men against the twelve Copenhagen gives them, as in a
    game played to this position, not against the one man left."""
    one_man = "/3t3t3/2t6t1/6t4/t9t/5K2T2/2t8/4t6/10t/8t2/t1t7t/5t3t1/"
    game = Start("copenhagen", one_man, "one man left").game()
    assert game.position() == one_man and game.turn is Side.ATTACKERS
    assert game.rules == Game("copenhagen").rules
    assert isinstance(game, TaflGame) and _Tafl(game).men_at_start == 12


POSITIONS = ROOT / "bench" / "positions"


@pytest.mark.parametrize("path", sorted(POSITIONS.glob("*.txt")), ids=lambda path: path.name)
def test_every_position_of_the_bench_files_is_a_game_still_to_play(path: Path) -> None:
    """Each line of bench/positions/ starts a game not over as it stands, with legal moves for
    the attackers (``Start.game`` gives them the first move), and no position is there twice."""
    starts = read_positions(path)
    assert starts
    assert len({(start.variant, start.position) for start in starts}) == len(starts)
    for start in starts:
        game = start.game()
        assert game.standing_outcome() is None and game.legal_moves(), start.source


# Brandubh: the king on b3, off the throne, where two attackers take him; c1-c3 takes him against
# a3, c1-d1 takes the man on e1 against f1.
KING_TAKEN_NEXT = "/2t1Tt1/7/tK5/7/7/7/3t3/"


def test_two_runs_are_compared_game_by_game(tmp_path: Path) -> None:
    """The games both runs played (the same position and seed) are counted for each, and those
    whose result changed are listed; a game only one run played is counted apart."""
    before, after = tmp_path / "before", tmp_path / "after"
    for folder, move in ((before, "c1-d1"), (after, "c1-c3")):
        folder.mkdir()
        game = Game.from_position("brandubh", KING_TAKEN_NEXT, Side.ATTACKERS)
        game.play(move)
        write_record(folder, record_name("brandubh", "taken next", 0), game, {})
    lone = Start("brandubh", LONE_KING, "").game()
    write_record(before, record_name("brandubh", "lone king", 0), lone, {})
    (both, only, old, new, points, changed) = compare(before, after)
    assert both == "games both runs played: 1" and only == f"  1 only in {before}"
    assert old == f"{before}: the attackers won 0 (open 1); men lost: attackers 0, defenders 1"
    assert new.startswith(f"{after}: the attackers won 1 (attackers: king_captured 1);")
    assert points == (
        "the attackers' points (won 1, open or drawn 0.5): 0.5 then 1; "
        "games better for them: 1, worse: 0 (sign test: p = 1)"
    )
    assert changed == (
        f"  {KING_TAKEN_NEXT} seed 0: open after 1 plies, then attackers: king_captured after 1"
    )


def test_a_sign_test_tells_a_one_sided_change_from_chance() -> None:
    """Ten games changed, all one way: chance does that (either way) 2 times in 1,024; nine one
    way and one the other, 22 times; an even split, or no change, is what chance does."""
    assert sign_test(10, 0) == sign_test(0, 10) == 2 / 1024
    assert sign_test(9, 1) == 2 * (1 + 10) / 1024
    assert sign_test(5, 5) == sign_test(0, 0) == 1.0
    assert attackers_points("attackers: encircled") == 1.0
    assert attackers_points("drawn: repetition") == attackers_points("open") == 0.5
    assert attackers_points("defenders: king_escaped") == 0.0


@pytest.mark.parametrize("side", [Side.DEFENDERS, Side.ATTACKERS])
def test_the_ai_of_another_commit_plays_every_move_of_its_side(
    side: Side, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--old`` (and ``--old-attacks``): the AI loaded from git moves for its side, and only
    for it; the record says so."""
    old = load_old_ai("HEAD")
    turns: list[Side] = []
    choose_move = old.choose_move

    def noted(game: Game, **kwargs: Any) -> Any:
        turns.append(game.turn)
        return choose_move(game, **kwargs)

    monkeypatch.setattr(old, "choose_move", noted)
    monkeypatch.setattr(endgames, "_old_ai", old)
    monkeypatch.setattr(endgames, "_their_side", side)
    start = Start("brandubh", LONE_KING, "a lone king")
    result = play_out(start, Pace(0, nodes=300), 8, Verdict(False, False), tmp_path)
    assert result.plies > 1
    theirs = (result.plies + (side is Side.ATTACKERS)) // 2  # the attackers move first
    assert turns == [side] * theirs
    (written,) = tmp_path.iterdir()
    assert f"[{side}:old ai]" in written.read_text()
    assert f"[{side.opponent}:ai]" in written.read_text()
