"""Every row of one store copied into another, ids and times kept: SQLite to PostgreSQL and back."""

from __future__ import annotations

from typing import Any

from bot.storage.base import Session, Store

TABLES = (
    "games",
    "game_players",
    "moves",
    "challenges",
    "offers",
    "announcements",
    "reminders",
    "interactions",
    "guild_settings",
    "player_settings",
    "ratings",
    "rating_history",
)
"""Every table of the project, each after the tables it refers to."""


class TargetNotEmpty(ValueError):
    """The target of a copy already holds rows (``counts``: by table) and was not to be replaced."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        super().__init__(f"the target already holds {describe_counts(counts)}")


async def copy_store(source: Store, target: Store, *, replace: bool = False) -> dict[str, int]:
    """Copy every row of ``source`` into ``target`` in one transaction; the rows copied, by
    table. TargetNotEmpty if ``target`` holds rows, unless ``replace`` (they are deleted first).
    Both stores must be at the same schema version (open both with their migrations)."""
    source_version, target_version = await source.schema_version(), await target.schema_version()
    if source_version != target_version:
        raise ValueError(
            f"the source is at schema version {source_version} and the target at"
            f" {target_version}; migrate both first"
        )
    rows: dict[str, list[dict[str, Any]]] = {}
    async with source.reading() as session:
        await _check_tables(session)
        for table in TABLES:
            rows[table] = await session.table_rows(table)
    async with target.transaction() as session:
        await _check_tables(session)
        held = {table: await session.row_count(table) for table in TABLES}
        if any(held.values()) and not replace:
            raise TargetNotEmpty({table: count for table, count in held.items() if count})
        for table in reversed(TABLES):
            await session.delete_rows(table)
        for table in TABLES:
            await session.insert_rows(table, rows[table])
            await session.after_copy(table)
    return {table: len(rows[table]) for table in TABLES}


def describe_counts(counts: dict[str, int]) -> str:
    """``{"games": 3, "moves": 0}`` as "games: 3" (the tables with rows only)."""
    said = [f"{table}: {count}" for table, count in counts.items() if count]
    return ", ".join(said) or "no rows"


async def _check_tables(session: Session) -> None:
    found = await session.table_names()
    if sorted(found) != sorted(TABLES):
        raise ValueError(
            f"the database has the tables {', '.join(found)}; a copy knows {', '.join(TABLES)}"
        )
