"""Halatafl (placeholder: being written)."""

from dataclasses import dataclass

from engine.game import Game
from engine.types import Side


@dataclass(frozen=True)
class HalataflRules:
    id: str = "halatafl"
    name: str = "Halatafl"
    summary: str = ""
    size: int = 7
    start: str = ""
    first: Side = Side.WHITE


HALATAFL = HalataflRules()


class HalataflGame(Game):  # type: ignore[misc]
    rules_type = HalataflRules
