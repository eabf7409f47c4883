"""Games to draw, made with the real engine."""

from __future__ import annotations

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
