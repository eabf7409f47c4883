"""A local Discord emulator for end-to-end tests of the bot with the real discord.py client.

See README.md in this folder for the API.
"""

from tests.fake_discord.driver import (
    Choice,
    DriverError,
    FakeDiscord,
    InteractionFailed,
    Reply,
    User,
)
from tests.fake_discord.rules import DiscordError
from tests.fake_discord.state import (
    Attachment,
    Channel,
    Guild,
    Message,
    NotAnswered,
    Role,
    Violation,
)
from tests.fake_discord.world import Upload

__all__ = [
    "Attachment",
    "Channel",
    "Choice",
    "DiscordError",
    "DriverError",
    "FakeDiscord",
    "Guild",
    "InteractionFailed",
    "Message",
    "NotAnswered",
    "Reply",
    "Role",
    "Upload",
    "User",
    "Violation",
]
