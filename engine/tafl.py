"""Hnefatafl-family games on bitboards (placeholder: being written)."""

from engine.game import Game
from engine.rules import Rules


class TaflGame(Game):  # type: ignore[misc]
    rules_type = Rules
