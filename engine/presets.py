"""The hnefatafl-family presets of RULES.md section 2 (placeholder: being written)."""

from engine.rules import Rules

PRESETS: dict[str, Rules] = {}
