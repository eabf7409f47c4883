"""Stats, leaderboards and the game archive as plain lines: the terminal prints them, and the
Discord messages are made of them."""

from __future__ import annotations

from bot.models import PlayedGame, PlayerStats, Result, Standing, counted
from bot.ratings import Rating
from engine import VARIANTS


def variant_name(variant: str) -> str:
    """A preset's name (``"Brandubh"``); the id itself for anything else."""
    rules = VARIANTS.get(variant)
    return variant if rules is None else str(rules.name)


def standing_line(place: int, standing: Standing) -> str:
    """``"3. Alice: 1623 (12 games, 7/2/3)"``."""
    return (
        f"{place}. {standing.player.name}: {standing.shown}"
        f" ({counted(standing.games, 'game')}, W/D/L {standing.record})"
    )


def leaderboard_lines(
    top: list[Standing], mine: tuple[int, Standing] | None, empty: str
) -> list[str]:
    """The leaderboard, one line a player, and the caller's place after a gap when outside it;
    ``empty`` when nobody is rated yet."""
    if not top:
        return [empty]
    lines = [standing_line(place, s) for place, s in enumerate(top, start=1)]
    if mine is not None:
        lines += ["...", standing_line(*mine)]
    return lines


def stats_lines(stats: PlayerStats) -> list[str]:
    """Ratings, results by side, longest game, most played variant and recent form."""
    if not stats.games:
        return [f"{stats.player.name} has no finished game yet."]
    lines = [f"{stats.player.name}: {counted(stats.games, 'finished game')}."]
    for s in stats.standings:
        lines.append(
            f"Rating in {variant_name(s.variant)}: {s.shown}"
            f" (±{s.rating.deviation:.0f}; {counted(s.games, 'rated game')}, W/D/L {s.record})"
        )
    if not stats.standings:
        lines.append("No rated game yet.")
    for side, counts in sorted(stats.by_side.items()):
        wins, draws, losses = (counts[r] for r in Result)
        lines.append(f"As {side}: {wins} won, {draws} drawn, {losses} lost.")
    if stats.longest is not None:
        lines.append(f"Longest game: {game_line(stats.longest)}")
    if stats.most_played is not None:
        variant, count = stats.most_played
        lines.append(f"Most played: {variant_name(variant)} ({counted(count, 'game')}).")
    lines.append(f"Recent form (newest first): {' '.join(stats.recent)}.")
    return lines


def game_line(game: PlayedGame) -> str:
    """``"#12 Brandubh, won against Bob as defenders: the king escaped; 31 plies, 2025-03-01"``."""
    verb = {Result.WIN: "won", Result.DRAW: "drew", Result.LOSS: "lost"}[game.result]
    return (
        f"#{game.game_id} {variant_name(game.variant)}, {verb} against {game.opponent.name}"
        f" as {game.side}: {game.reason.description}; {counted(game.plies, 'ply', 'plies')},"
        f" {game.finished_at.date().isoformat()}{'' if game.rated else ' (unrated)'}"
    )


def rating_change(standing: Standing, before: Rating) -> str:
    """``"Alice 1662? (+162)"``: the rating after a game and what the game changed."""
    change = round(standing.rating.rating) - round(before.rating)
    return f"{standing.player.name} {standing.shown} ({change:+d})"
