"""Buttons that survive a restart: each custom id carries what its click needs.

``tafl:challenge:<action>:<challenge id>``, ``tafl:offer:<action>:<offer id>`` and
``tafl:game:rematch:<game id>`` are parsed by
one DynamicItem template registered in the bot's ``setup_hook``; the click goes to the bot's
``ButtonHandler`` (the cog), and any error to the one error helper. The game archive's menu
(``tafl:archive``) is a DynamicItem too: its options carry the game ids.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord


class ButtonHandler(Protocol):
    """What a click is handed to."""

    async def on_challenge_button(
        self, interaction: discord.Interaction, action: str, challenge_id: int
    ) -> None: ...

    async def on_offer_button(
        self, interaction: discord.Interaction, action: str, offer_id: int
    ) -> None: ...

    async def on_rematch_button(
        self, interaction: discord.Interaction, action: str, game_id: int
    ) -> None: ...
    async def on_archive_pick(self, interaction: discord.Interaction, game_id: int) -> None: ...
    async def answer_error(self, interaction: discord.Interaction, error: BaseException) -> None:
        """Answer the click's error (``report_error``, and what follows from it)."""


CHALLENGE_ACTIONS = {
    "accept": ("Accept", discord.ButtonStyle.success),
    "decline": ("Decline", discord.ButtonStyle.danger),
    "cancel": ("Cancel", discord.ButtonStyle.secondary),
}
OFFER_ACTIONS = {
    "accept": ("Accept", discord.ButtonStyle.success),
    "decline": ("Decline", discord.ButtonStyle.danger),
}
REMATCH_ACTIONS = {"rematch": ("Rematch", discord.ButtonStyle.primary)}
ACTIONS = {"challenge": CHALLENGE_ACTIONS, "offer": OFFER_ACTIONS, "game": REMATCH_ACTIONS}
"""The buttons of each kind of message, by action: label and style."""


def _handler(interaction: discord.Interaction) -> ButtonHandler:
    """The handler of the bot the click came to (its ``buttons`` attribute)."""
    handler: ButtonHandler = getattr(interaction.client, "buttons")  # noqa: B009
    return handler


class TaflButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"tafl:(?P<kind>challenge|offer|game)"
    r":(?P<action>accept|decline|cancel|rematch):(?P<id>[0-9]+)",
):
    """A button on a challenge (Accept, Decline, Cancel), an offer (Accept, Decline) or a
    finished game's report (Rematch)."""

    def __init__(self, kind: str, action: str, target_id: int) -> None:
        if action not in ACTIONS[kind]:
            raise ValueError(f"a {kind} has no {action} button")
        label, style = ACTIONS[kind][action]
        self.kind = kind
        self.action = action
        self.target_id = target_id
        custom_id = f"tafl:{kind}:{action}:{target_id}"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> TaflButton:
        return cls(match["kind"], match["action"], int(match["id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        from bot.discord.client import admit

        if not await admit(interaction):
            return
        handler = _handler(interaction)
        on_click: Callable[[discord.Interaction, str, int], Awaitable[None]]
        if self.kind == "challenge":
            on_click = handler.on_challenge_button
        elif self.kind == "offer":
            on_click = handler.on_offer_button
        else:
            on_click = handler.on_rematch_button
        try:
            await on_click(interaction, self.action, self.target_id)
        except Exception as error:
            await _handler(interaction).answer_error(interaction, error)


def challenge_view(challenge_id: int, *, open_to_anyone: bool) -> discord.ui.View:
    """Accept / Decline / Cancel (no Decline when anyone may accept)."""
    view = discord.ui.View(timeout=None)
    for action in CHALLENGE_ACTIONS:
        if action == "decline" and open_to_anyone:
            continue
        view.add_item(TaflButton("challenge", action, challenge_id))
    return view


def offer_view(offer_id: int) -> discord.ui.View:
    """Accept / Decline for an offer."""
    view = discord.ui.View(timeout=None)
    for action in OFFER_ACTIONS:
        view.add_item(TaflButton("offer", action, offer_id))
    return view


def rematch_view(game_id: int) -> discord.ui.View:
    """Rematch, on a finished game's report."""
    view = discord.ui.View(timeout=None)
    view.add_item(TaflButton("game", "rematch", game_id))
    return view


ARCHIVE_ID = "tafl:archive"
ARCHIVE_PLACEHOLDER = "Record and replay of a game"


class ArchiveMenu(discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]], template=ARCHIVE_ID):
    """The menu under /tafl games: picking a game answers with its record and replay."""

    def __init__(self, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=ARCHIVE_ID,
                placeholder=ARCHIVE_PLACEHOLDER,
                options=options or [discord.SelectOption(label="-")],
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ArchiveMenu:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        from bot.discord.client import admit

        if not await admit(interaction):
            return
        try:
            await _handler(interaction).on_archive_pick(interaction, int(self.item.values[0]))
        except Exception as error:
            await _handler(interaction).answer_error(interaction, error)


def archive_view(games: list[tuple[int, str, str]]) -> discord.ui.View:
    """The archive's menu: one option per game (id, label, description)."""
    view = discord.ui.View(timeout=None)
    options = [
        discord.SelectOption(label=label[:100], value=str(game_id), description=about[:100])
        for game_id, label, about in games
    ]
    view.add_item(ArchiveMenu(options))
    return view


DYNAMIC_ITEMS = (TaflButton, ArchiveMenu)
"""Registered with ``Client.add_dynamic_items`` at start-up."""
