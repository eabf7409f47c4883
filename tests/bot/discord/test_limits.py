"""Every message the bot builds fits Discord's limits, however long the texts it is made of."""

from __future__ import annotations

from typing import Any

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.discord.replies import (
    CONTENT_LIMIT,
    EMBED_LIMITS,
    EMBED_TOTAL_LIMIT,
    FIELD_NAME_LIMIT,
    FIELD_VALUE_LIMIT,
    FIELDS_LIMIT,
    Outgoing,
    fit_embed,
)
from engine.errors import shorten

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=7000)


def assert_within_limits(message: Outgoing) -> None:
    """What Discord checks of a message's text."""
    assert message.content is None or len(message.content) <= CONTENT_LIMIT
    if message.embed is None:
        return
    data: dict[str, Any] = dict(message.embed.to_dict())
    assert len(data.get("title", "")) <= EMBED_LIMITS["title"]
    assert len(data.get("description", "")) <= EMBED_LIMITS["description"]
    assert len(data.get("footer", {}).get("text", "")) <= EMBED_LIMITS["footer"]
    fields = data.get("fields", [])
    assert len(fields) <= FIELDS_LIMIT
    for field in fields:
        assert 0 < len(field["name"]) <= FIELD_NAME_LIMIT
        assert 0 < len(field["value"]) <= FIELD_VALUE_LIMIT
    total = (
        len(data.get("title", ""))
        + len(data.get("description", ""))
        + sum(len(f["name"]) + len(f["value"]) for f in fields)
        + len(data.get("footer", {}).get("text", ""))
    )
    assert total <= EMBED_TOTAL_LIMIT


@settings(max_examples=60, deadline=None)
@given(
    content=texts,
    title=texts,
    description=texts,
    footer=texts,
    fields=st.lists(st.tuples(texts, texts), max_size=30),
)
def test_any_message_is_fitted_to_discords_limits(
    content: str, title: str, description: str, footer: str, fields: list[tuple[str, str]]
) -> None:
    embed = discord.Embed(title=title, description=description).set_footer(text=footer)
    for name, value in fields:
        embed.add_field(name=name, value=value)
    message = Outgoing(content=content, embed=embed)
    assert_within_limits(message)
    assert message.content is not None
    if len(content) <= CONTENT_LIMIT:
        assert message.content == content  # what fits is left as it is


def test_what_fits_is_unchanged_and_what_does_not_ends_in_an_ellipsis() -> None:
    embed = discord.Embed(title="Brandubh", description="d" * 5000).add_field(name="n", value="v")
    fitted = fit_embed(embed)
    assert fitted.title == "Brandubh"
    assert fitted.description is not None and len(fitted.description) == 4096
    assert fitted.description.endswith("…")
    assert [(f.name, f.value) for f in fitted.fields] == [("n", "v")]
    assert shorten("d1-d4", 5) == "d1-d4" and shorten("d1-d4!", 5) == "d1-d…"
