"""Try the bot by hand: the real bot against the Discord emulator, driven from a prompt.

    python -m tests.fake_discord.serve [--db PATH]

Each line is a user's name and what they do; a name is made a member of the server on first use:

    alice /tafl challenge opponent=@bob variant=brandubh
    bob click Accept
    alice /tafl move move=d2-c2
    bob /tafl board piece=d3
    carol /tafl challenge opponent=@bot      (@bot: the bot itself, to play its AI)

``quit`` (or end of input) stops. After each line, every message that appeared or changed in the
channel is printed: who sees it, its text, embed, buttons and attached files. An option value
``@name`` is that user; any other value is passed as text.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.discord import create_bot
from tests.fake_discord import FakeDiscord, Message, User

QUIET_FOR = 0.4
"""Seconds without a new message after which a line's answers are taken as complete."""
MENTION = re.compile(r"<@(\d+)>")
LONGEST_WAIT = 15.0
"""Seconds a line waits at most for its answers (the AI may think for a few seconds)."""


def describe(message: Message, name_of: Callable[[int], str]) -> str:
    """A message as lines of text: who sees it, content, embed, buttons, files."""
    seen_by = "everyone" if message.visible_to is None else f"only {name_of(message.visible_to)}"
    lines = [f"--- {message.author.name} (seen by {seen_by})"]
    if message.content:
        lines.append(MENTION.sub(lambda m: "@" + name_of(int(m[1])), message.content))
    for embed in message.embeds:
        lines += [text for text in (embed.get("title"), embed.get("description")) if text]
        lines += [f"{f['name']}: {f['value']}" for f in embed.get("fields", [])]
    if message.buttons:
        lines.append("buttons: " + ", ".join(f"[{b.get('label')}]" for b in message.buttons))
    lines += [f"file: {attachment.filename}" for attachment in message.files]
    return "\n".join(lines)


class Session:
    """The emulator, its users, and the messages already shown."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.shown: dict[int, int] = {}
        """Message id -> the number of edits already shown."""

    def user(self, name: str) -> User:
        try:
            return self.fake.user(name)
        except KeyError:
            return self.fake.add_user(name)

    def name_of(self, user_id: int) -> str:
        try:
            return self.fake.user(user_id).name
        except KeyError:
            return str(user_id)

    def value(self, text: str) -> Any:
        """An option value: ``@name`` is that user (``@bot`` the bot itself), ``true`` and
        ``false`` are booleans, else the text."""
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        if not text.startswith("@"):
            return text
        name = text.removeprefix("@")
        return self.fake.bot_user if name == "bot" else self.user(name)

    async def run(self, line: str) -> None:
        """Do what one line says."""
        name, _, rest = line.strip().partition(" ")
        user = self.user(name)
        if rest.startswith("/"):
            words = shlex.split(rest[1:])
            path = [w for w in words if "=" not in w]
            options = dict(w.split("=", 1) for w in words if "=" in w)
            await user.slash(" ".join(path), options={k: self.value(v) for k, v in options.items()})
        elif rest.startswith("click "):
            label = rest.removeprefix("click ").strip()
            message = next(
                (
                    m
                    for m in reversed(self.fake.channel.all_messages)
                    if m.visible_for(user.id) and any(b.get("label") == label for b in m.buttons)
                ),
                None,
            )
            if message is None:
                raise ValueError(f"no message {name} sees has a button {label!r}")
            await user.click(message, label)
        else:
            raise ValueError("write: NAME /tafl COMMAND key=value ..., or NAME click LABEL")

    async def print_new(self) -> None:
        """Print what changed in the channel once it has been quiet for a moment."""
        waited, quiet = 0.0, 0.0
        last = self.fingerprint()
        while quiet < QUIET_FOR and waited < LONGEST_WAIT:
            await asyncio.sleep(0.1)
            waited += 0.1
            now = self.fingerprint()
            quiet = quiet + 0.1 if now == last else 0.0
            last = now
        for message in self.fake.channel.all_messages:
            if self.shown.get(message.id) != message.edits and not message.loading:
                self.shown[message.id] = message.edits
                print(describe(message, self.name_of))

    def fingerprint(self) -> tuple[tuple[int, int, bool], ...]:
        return tuple((m.id, m.edits, m.loading) for m in self.fake.channel.all_messages)


async def serve(db_path: Path) -> None:
    async with FakeDiscord() as fake:
        bot = create_bot(db_path, sync=True, guild_ready_timeout=0.05)
        async with fake.running(bot):
            session = Session(fake)
            print(f"The bot is connected; games go to {db_path}. Type a line, or quit.")
            while True:
                try:
                    line = await asyncio.to_thread(input, "> ")
                except EOFError:
                    break
                if line.strip() in ("quit", "exit"):
                    break
                if not line.strip():
                    continue
                try:
                    await session.run(line)
                except Exception as error:  # a mistyped line: say so and go on
                    print(f"! {type(error).__name__}: {error}")
                await session.print_new()
            for violation in fake.violations:
                print(f"! the bot broke a Discord rule: {violation}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fake_discord.serve")
    parser.add_argument("--db", type=Path, help="the game database (default: a temporary one)")
    args = parser.parse_args()
    if args.db is not None:
        asyncio.run(serve(args.db))
        return
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(serve(Path(folder) / "tafl.sqlite3"))


if __name__ == "__main__":
    main()
