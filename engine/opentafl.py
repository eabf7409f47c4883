"""OpenTafl rules strings (placeholder: being written)."""

from engine.rules import Rules


def rules_from_opentafl(text: str) -> Rules:
    raise NotImplementedError


def rules_to_opentafl(rules: Rules) -> str:
    raise NotImplementedError
