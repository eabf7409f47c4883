"""Buttons that survive a restart: each custom id carries what its click needs.

``tafl:challenge:<action>:<challenge id>`` and ``tafl:offer:<action>:<offer id>`` are parsed by
DynamicItem templates registered in the bot's ``setup_hook``; the click goes to the bot's
``ButtonHandler`` (the cog), and any error to the one error helper.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from bot.discord.replies import report_error


class ButtonHandler(Protocol):
    """What a click is handed to."""

    async def on_challenge_button(
        self, interaction: discord.Interaction, action: str, challenge_id: int
    ) -> None: ...

    async def on_offer_button(
        self, interaction: discord.Interaction, action: str, offer_id: int
    ) -> None: ...


CHALLENGE_ACTIONS = {
    "accept": ("Accept", discord.ButtonStyle.success),
    "decline": ("Decline", discord.ButtonStyle.danger),
    "cancel": ("Cancel", discord.ButtonStyle.secondary),
}
OFFER_ACTIONS = {
    "accept": ("Accept", discord.ButtonStyle.success),
    "decline": ("Decline", discord.ButtonStyle.danger),
}


def _handler(interaction: discord.Interaction) -> ButtonHandler:
    """The handler of the bot the click came to (its ``buttons`` attribute)."""
    handler: ButtonHandler = getattr(interaction.client, "buttons")  # noqa: B009
    return handler


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tafl:challenge:(?P<action>accept|decline|cancel):(?P<id>[0-9]+)",
):
    """Accept, Decline or Cancel on a challenge."""

    def __init__(self, action: str, challenge_id: int) -> None:
        label, style = CHALLENGE_ACTIONS[action]
        self.action = action
        self.challenge_id = challenge_id
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                custom_id=f"tafl:challenge:{action}:{challenge_id}",
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ChallengeButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await _handler(interaction).on_challenge_button(
                interaction, self.action, self.challenge_id
            )
        except Exception as error:
            await report_error(interaction, error)


class OfferButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tafl:offer:(?P<action>accept|decline):(?P<id>[0-9]+)",
):
    """Accept or Decline on a draw offer or a takeback request."""

    def __init__(self, action: str, offer_id: int) -> None:
        label, style = OFFER_ACTIONS[action]
        self.action = action
        self.offer_id = offer_id
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"tafl:offer:{action}:{offer_id}")
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> OfferButton:
        return cls(match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await _handler(interaction).on_offer_button(interaction, self.action, self.offer_id)
        except Exception as error:
            await report_error(interaction, error)


def challenge_view(challenge_id: int, *, open_to_anyone: bool) -> discord.ui.View:
    """Accept / Decline / Cancel (no Decline when anyone may accept)."""
    view = discord.ui.View(timeout=None)
    for action in CHALLENGE_ACTIONS:
        if action == "decline" and open_to_anyone:
            continue
        view.add_item(ChallengeButton(action, challenge_id))
    return view


def offer_view(offer_id: int) -> discord.ui.View:
    """Accept / Decline for an offer."""
    view = discord.ui.View(timeout=None)
    for action in OFFER_ACTIONS:
        view.add_item(OfferButton(action, offer_id))
    return view


DYNAMIC_ITEMS = (ChallengeButton, OfferButton)
"""Registered with ``Client.add_dynamic_items`` at start-up."""
