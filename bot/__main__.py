"""``python -m bot`` runs the Discord bot, like ``tafl bot`` (same options)."""

import sys

from bot.cli import main

sys.exit(main(["bot", *sys.argv[1:]]))
