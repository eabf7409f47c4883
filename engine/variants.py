"""The variants by id, and turning a variant name or OpenTafl rules string into rules."""

from __future__ import annotations

from typing import Any

from engine.errors import UnknownVariantError, shorten
from engine.game import VariantRules
from engine.halatafl import HALATAFL, HalataflRules
from engine.opentafl import rules_from_opentafl
from engine.presets import DEFAULT_VARIANT, PRESETS
from engine.rules import Rules

__all__ = ["DEFAULT_VARIANT", "VARIANTS", "resolve_rules"]

VARIANTS: dict[str, VariantRules] = {**PRESETS, HALATAFL.id: HALATAFL}
"""Every preset by id, in the order of RULES.md section 2."""


def resolve_rules(variant: Any) -> VariantRules:
    """Rules for a preset id (any case), an OpenTafl rules string, or a rules record as it is.

    UnknownVariantError for a name that is neither; RulesError for a rules string that can't be
    played.
    """
    if isinstance(variant, Rules | HalataflRules):
        return variant
    if not isinstance(variant, str):
        raise TypeError(f"a variant is a name or a rules string, not {type(variant).__name__}")
    key = variant.strip().lower()
    if key in VARIANTS:
        return VARIANTS[key]
    if ":" in key:
        return rules_from_opentafl(variant)
    choices = ", ".join(VARIANTS)
    raise UnknownVariantError(
        f"unknown variant {shorten(variant.strip())!r}; choose one of: {choices}"
    )
