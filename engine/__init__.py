"""Tafl rules, notation, records and AI: pure Python, no dependencies."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tafl-bot")  # engine, renderer and bot ship together
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

from engine.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    NotationError,
    PositionError,
    RecordError,
    Refusal,
    RulesError,
    TaflError,
    UnknownVariantError,
)
from engine.game import Game, VariantRules
from engine.halatafl import HalataflGame, HalataflRules
from engine.playable import new_game, playable_problem
from engine.rules import Escape, KingStrength, Repetition, Rules, ThroneStop
from engine.tafl import TaflGame
from engine.types import Move, Outcome, Piece, Ply, Reason, Side, Square, square_name
from engine.variants import DEFAULT_VARIANT, VARIANTS, resolve_rules

__all__ = [
    "DEFAULT_VARIANT",
    "VARIANTS",
    "AmbiguousMoveError",
    "Escape",
    "Game",
    "HalataflGame",
    "HalataflRules",
    "IllegalMoveError",
    "KingStrength",
    "Move",
    "NotationError",
    "Outcome",
    "Piece",
    "Ply",
    "PositionError",
    "Reason",
    "RecordError",
    "Refusal",
    "Repetition",
    "Rules",
    "RulesError",
    "Side",
    "Square",
    "TaflError",
    "TaflGame",
    "ThroneStop",
    "UnknownVariantError",
    "VariantRules",
    "__version__",
    "new_game",
    "playable_problem",
    "resolve_rules",
    "square_name",
]
