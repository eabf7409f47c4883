"""The game store (SQLite through aiosqlite): every SQL statement of the project lives here."""

from __future__ import annotations

from pathlib import Path


class Store:
    """Games, moves, challenges and offers in one SQLite file (WAL, foreign keys on)."""

    @classmethod
    async def open(cls, path: str | Path) -> Store:
        """Open (or create) the database at ``path`` and apply any pending migrations."""
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError
