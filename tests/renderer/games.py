"""Games to draw, made with the real engine."""

from __future__ import annotations

import random

import engine


def new_game(variant: str) -> engine.Game:
    """``engine.Game(variant)``: the base class dispatches to the variant's kind of game."""
    return engine.Game(variant)


def played(variant: str, *moves: str) -> engine.Game:
    """A game of ``variant`` after ``moves`` (move text, as a player types it)."""
    game = new_game(variant)
    for move in moves:
        game.play(move)
    return game


def unending_game(variant: str, plies: int, seed: int = 1) -> engine.Game:
    """A game of ``plies`` seeded random legal moves, none of which ends it."""
    rng = random.Random(seed)
    game = new_game(variant)
    while len(game.history) < plies:
        moves = game.legal_moves()
        rng.shuffle(moves)
        for move in moves:
            game.push(move)
            if game.outcome is None:
                break
            game.undo()
        else:
            raise AssertionError(f"every move ends this {variant} game: take another seed")
    return game


HALATAFL_CHAIN_START = "/1WWWWW1/WWW1WWW/WWWWWWW/WWWWBBB/BBBBBBB/BBBBBBB/1BBBBB1/"
"""Halatafl with White's d2 jumped over d3 into the centre, Black to move."""


def halatafl_chain() -> engine.Game:
    """Halatafl just after Black's chain d6-f4-d2, which jumps e5 (its own) and takes e3."""
    game = engine.Game.from_position("halatafl", HALATAFL_CHAIN_START, "black")
    for move in ("f4-d2", "c1-e3", "d6-f4-d2"):
        game.play(move)
    return game
