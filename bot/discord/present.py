"""How games look in Discord: players and channels as Discord sees them, embeds and images.

Images are drawn by the bot's worker processes (``bot.compute``): the event loop only waits.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

import discord

import engine
from bot.clocks import DEFAULT_TIME_CONTROL, Stage, format_left
from bot.compute import Compute, Snapshot
from bot.discord.replies import Outgoing, channel_mention
from bot.discord.views import archive_view, challenge_view, offer_view, rematch_view
from bot.errors import ServiceError
from bot.models import (
    AI_PLAYER,
    RANDOM_SIDE,
    Challenge,
    ChallengeStatus,
    Channel,
    GameState,
    GuildSettings,
    MoveResult,
    Offer,
    OfferKind,
    OfferStatus,
    PlayedGame,
    Player,
    PlayerStats,
    Reminder,
    ReminderStyle,
    Report,
    Standing,
    format_duration,
    numbered_moves,
)
from bot.ratings import Rating
from bot.summaries import (
    game_line,
    leaderboard_lines,
    rating_change,
    stats_lines,
    variant_name,
)
from engine import Side
from engine.record import to_opentafl_record
from renderer import THEMES, WOOD, BoardView, caption

log = logging.getLogger(__name__)

PREFIX = "discord:"
BOARD_FILE = "board.png"
REPLAY_FILE = "replay.gif"
COLOUR = discord.Colour(0x8B5A2B)
DESCRIPTION_LIMIT = 4096
THEME_NAMES = {"wood": "Wood", "contrast": "High contrast"}
"""How the renderer's themes are called in Discord (any other by its own name)."""


# -- who and where -------------------------------------------------------------------------------


def player_of(user: discord.abc.User, bot_user_id: int | None) -> Player:
    """The service's player for a Discord user; the bot itself is the AI."""
    if bot_user_id is not None and user.id == bot_user_id:
        return AI_PLAYER
    return Player(f"{PREFIX}{user.id}", user.display_name)


def channel_of(interaction: discord.Interaction) -> Channel:
    """The service's channel for where an interaction happened (a thread is its own channel,
    with its parent's id)."""
    guild = None if interaction.guild_id is None else f"{PREFIX}{interaction.guild_id}"
    parent_id = getattr(interaction.channel, "parent_id", None)
    parent = None if parent_id is None else f"{PREFIX}{parent_id}"
    return Channel(f"{PREFIX}{interaction.channel_id}", guild, parent)


def thread_channel(thread: discord.Thread) -> Channel:
    """The service's channel for a thread."""
    return Channel(
        f"{PREFIX}{thread.id}", f"{PREFIX}{thread.guild.id}", f"{PREFIX}{thread.parent_id}"
    )


def message_ref(channel_id: int, message_id: int) -> str:
    """How the service keeps a Discord message: ``"channel_id:message_id"``."""
    return f"{channel_id}:{message_id}"


def parse_message_ref(ref: str) -> tuple[int, int] | None:
    """(channel id, message id) of a ``message_ref``; None (logged) if it is not one."""
    channel_id, colon, message_id = ref.partition(":")
    if not (colon and channel_id.isdigit() and message_id.isdigit()):
        log.warning("%r is not a Discord message reference (channel_id:message_id)", ref)
        return None
    return int(channel_id), int(message_id)


def discord_id(qualified: str) -> int | None:
    """The snowflake of ``"discord:1234"``; None for ids of other platforms."""
    return int(qualified[len(PREFIX) :]) if qualified.startswith(PREFIX) else None


def mention(player: Player) -> str:
    """A ping for a Discord player, the bold name for anyone else (the AI)."""
    snowflake = discord_id(player.id)
    return f"<@{snowflake}>" if snowflake is not None else f"**{player.name}**"


def side_name(side: Side | str) -> str:
    """``"Attackers"``."""
    return str(side).capitalize()


def _playing(state: GameState, side: Side) -> str:
    """``"Alice (attackers)"``."""
    return f"{state.players[side].name} ({side})"


def posting_permissions(channel: object) -> list[str]:
    """The permissions (discord.py's names) the bot needs to post games in ``channel``."""
    sending = "send_messages_in_threads" if isinstance(channel, discord.Thread) else "send_messages"
    return ["view_channel", sending, "embed_links", "attach_files"]


def permission_names(permissions: list[str]) -> str:
    """``"Send Messages and Attach Files"``: permissions as Discord's settings name them."""
    names = [name.replace("_", " ").title() for name in permissions]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def missing_permission_message(state: GameState, needed: str) -> str:
    """A direct message to a player whose game's channel the bot can't post in."""
    where = f"<#{discord_id(state.channel.id)}>"
    return (
        f"I can't post game #{state.id} ({state.game.rules.name}) in {where}: I need the "
        f"{needed} permissions there. The game is saved; ask a server admin for the "
        f"permissions, and I'll post what is missing as soon as I can."
    )


# -- images --------------------------------------------------------------------------------------


def theme_name(theme: str) -> str:
    """``"High contrast"``: a renderer theme as players see it named."""
    return THEME_NAMES.get(theme, theme.capitalize())


def board_view(game: engine.Game, piece: str | None = None) -> BoardView:
    """The game's board to draw; with ``piece`` (a square), that piece and where it can move.

    ServiceError when ``piece`` is not a square of the board or no piece stands there.
    """
    try:
        return BoardView.from_game(game, moves_of=piece)
    except engine.TaflError as error:
        raise ServiceError(f"can't show the moves of {piece!r}: {error}") from None


async def board_png(
    compute: Compute,
    game: engine.Game | BoardView,
    *,
    viewer: Side | None = None,
    theme: str = WOOD.name,
) -> bytes:
    """The board as a PNG, drawn by a worker from a snapshot taken here; ``viewer`` is the side
    seen at the bottom, ``theme`` one of the renderer's THEMES."""
    view = game if isinstance(game, BoardView) else board_view(game)
    return await compute.board_png(view, viewer, theme)


def _embed(title: str, description: str = "") -> discord.Embed:
    return discord.Embed(title=title, description=description[:DESCRIPTION_LIMIT], colour=COLOUR)


def _with_board(embed: discord.Embed) -> discord.Embed:
    return embed.set_image(url=f"attachment://{BOARD_FILE}")


def _footer(embed: discord.Embed, state: GameState) -> discord.Embed:
    return embed.set_footer(text=f"Game #{state.id} · {state.game.rules.name}")


# -- games ---------------------------------------------------------------------------------------


async def board_message(
    compute: Compute,
    state: GameState,
    title: str,
    *,
    piece: str | None = None,
    viewer: Side | str | None = None,
    theme: str = WOOD.name,
    now: datetime | None = None,
) -> Outgoing:
    """The board, a title and a caption (last move, captures, turn, the clocks at ``now``);
    pings the player to move.

    ``piece`` (a square) marks that piece's legal moves; ``viewer`` is the side seen at the
    bottom (one of the game's); ``theme`` one of the renderer's THEMES. ServiceError for a bad
    option.
    """
    game = state.game
    side = None if viewer is None else _viewing_side(state, viewer)
    if theme not in THEMES:
        raise ServiceError(f"unknown theme {theme!r}; choose {' or '.join(THEME_NAMES)}")
    view = board_view(game, piece)
    to_move = state.player_to_move()
    content = None
    if to_move is not None:
        content = f"{mention(to_move)}, your move ({game.turn})."
    lines = [caption(game)]
    clocks = None if now is None else clock_line(state, now)
    if clocks:
        lines.append(clocks)
    if view.selected is not None:
        lines.append(_moves_line(game, view.selected, view.targets))
    embed = _footer(_with_board(_embed(title, "\n".join(lines))), state)
    png = await board_png(compute, view, viewer=side, theme=theme)
    return Outgoing(content=content, embed=embed, files=((BOARD_FILE, png),))


def clock_line(state: GameState, now: datetime) -> str | None:
    """``"⏱ 3d+12h · Alice: 4d 3h left · Bob: 3d 12h left"`` (the AI has no clock); None
    without a time control."""
    left = state.time_left(now)
    if left is None:
        return None
    parts = [f"⏱ {state.time_control}"]
    for side, player in state.players.items():
        if not player.is_ai:
            running = " (running)" if state.player_to_move() == player else ""
            parts.append(f"{player.name}: {format_left(left[side])} left{running}")
    return " · ".join(parts)


def reminder_text(reminder: Reminder, *, direct: bool = False) -> str:
    """The ping that reminds a player of their move (``direct``: as a direct message, which
    names the game's channel)."""
    state = reminder.state
    left = format_left(reminder.left)
    urgency = "only " if reminder.stage is Stage.LAST else ""
    where = f" in {channel_mention(state.channel.id)}" if direct else ""
    return (
        f"{mention(reminder.player)}, it is your move in game #{state.id} "
        f"({state.game.rules.name}){where}: {urgency}{left} left."
    )


def _viewing_side(state: GameState, viewer: Side | str) -> Side:
    """``viewer`` as a side of the game; ServiceError naming the game's sides."""
    sides = list(state.players)
    side = next((s for s in sides if s == str(viewer).strip().lower()), None)
    if side is None:
        choices = " or ".join(sides)
        raise ServiceError(f"{state.game.rules.name} has no {viewer!s} side; choose {choices}")
    return side


def _moves_line(game: engine.Game, square: int, targets: frozenset[int]) -> str:
    """``"The piece on d1 can move to b1, c1 and d2."``, or why it has no move."""
    name = game.square_name(square)
    if targets:
        names = [game.square_name(target) for target in sorted(targets)]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return f"The piece on {name} can move to {listed}."
    piece = game.piece_at(square)
    if piece is not None and piece.side != game.turn and game.outcome is None:
        return f"The piece on {name} ({piece.side}) has no move now: {game.turn} to move."
    return f"The piece on {name} has no move now."


async def start_message(
    compute: Compute, state: GameState, now: datetime | None = None
) -> Outgoing:
    """The first board of a new game (with the clocks at ``now``)."""
    sides = " vs ".join(_playing(state, side) for side in state.players)
    return await board_message(compute, state, f"{state.game.rules.name}: {sides}", now=now)


async def move_message(
    compute: Compute, result: MoveResult, now: datetime | None = None
) -> Outgoing:
    """The board after a move: the move, what it captured, whose turn it is, the clocks."""
    ply = result.ply
    mover = result.state.players.get(ply.side)
    who = mover.name if mover is not None else side_name(ply.side)
    title = f"{who} ({ply.side}) played {ply.notation}"
    return await board_message(compute, result.state, title, now=now)


async def report_message(
    compute: Compute,
    report: Report,
    state: GameState,
    file_size_limit: int | None = None,
    ratings: list[tuple[Standing, Rating]] | None = None,
) -> Outgoing:
    """The end of a game: result, moves, captures, duration, what it did to the players'
    ``ratings`` (of a rated game), final board, record and replay (left out, with a note, when
    it is larger than ``file_size_limit`` bytes)."""
    embed = _footer(_with_board(_embed(report.headline, report.result)), state)
    embed.add_field(name="Moves", value=report.length)
    captures = "\n".join(f"{side_name(side)}: {n}" for side, n in report.captures.items())
    embed.add_field(name="Captured by", value=captures or "none")
    if report.duration is not None:
        embed.add_field(name="Duration", value=format_duration(report.duration))
    if ratings:
        changes = "\n".join(rating_change(standing, before) for standing, before in ratings)
        embed.add_field(name="Ratings", value=changes, inline=False)
    png, gif = await asyncio.gather(
        board_png(compute, state.game),
        compute.replay_gif(Snapshot.of(state.game), file_size_limit),
    )
    files = [(BOARD_FILE, png), (record_file_name(state.id), report.record.encode())]
    if gif is not None:
        files.append((REPLAY_FILE, gif))
    else:
        embed.add_field(
            name="Replay",
            value="too long to attach here; the record replays it in any OpenTafl viewer",
            inline=False,
        )
    players = " ".join(mention(p) for p in report.players.values() if not p.is_ai)
    return Outgoing(
        content=f"Game over. {players}".strip(),
        embed=embed,
        files=tuple(files),
        view=rematch_view(state.id),
    )


def thread_name(challenge: Challenge, accepter: Player) -> str:
    """``"Brandubh: Alice vs Bob"``: the name of a game's thread (at most 100 characters)."""
    variant_name = engine.resolve_rules(challenge.variant).name
    return f"{variant_name}: {challenge.challenger.name} vs {accepter.name}"[:100]


def started_in_thread_message(state: GameState) -> Outgoing:
    """The note in the parent channel that a game has started in its thread."""
    sides = " vs ".join(_playing(state, side) for side in state.players)
    return Outgoing(
        content=f"Game #{state.id} ({state.game.rules.name}, {sides}) is played in "
        f"{channel_mention(state.channel.id)}."
    )


def ended_in_thread_message(state: GameState, report: Report) -> Outgoing:
    """The note in the parent channel that a thread's game is over, with a Rematch button."""
    return Outgoing(
        content=f"Game #{state.id} ({state.game.rules.name}) in "
        f"{channel_mention(state.channel.id)} is over: {report.result}",
        view=rematch_view(state.id),
    )


def no_thread_message(challenger: Player, why: str) -> Outgoing:
    """Telling the challenger why their game is played in the channel, not in a thread."""
    return Outgoing(
        content=f"{mention(challenger)}, I couldn't start a thread for this game ({why}), "
        "so it is played here in the channel."
    )


_REMINDER_PLACES = {
    ReminderStyle.CHANNEL: "in the game's channel",
    ReminderStyle.DM: "as direct messages",
    ReminderStyle.OFF: "nowhere (no reminders)",
}


def notify_message(style: ReminderStyle) -> Outgoing:
    """The answer to /tafl notify."""
    return Outgoing(content=f"Your turn reminders now come {_REMINDER_PLACES[style]}.")


def settings_message(settings: GuildSettings) -> Outgoing:
    """A server's settings, each with the default it falls back on."""
    variant = (
        "Copenhagen Hnefatafl (default)"
        if settings.variant is None
        else str(engine.resolve_rules(settings.variant).name)
    )
    time_control = (
        f"{DEFAULT_TIME_CONTROL} (default)"
        if settings.time_control is None
        else settings.time_control
    )
    threads = {None: "on where I may start threads (default)", True: "on", False: "off"}
    channels = (
        ", ".join(channel_mention(c) for c in settings.channels)
        if settings.channels
        else "every channel"
    )
    reminders = (
        "in the game's channel (default)"
        if settings.reminders is None
        else _REMINDER_PLACES[settings.reminders]
    )
    lines = [
        f"**Variant:** {variant}",
        f"**Time control:** {time_control}",
        f"**A thread per game:** {threads[settings.threads]}",
        f"**Channels I play in:** {channels}",
        f"**Turn reminders:** {reminders}",
    ]
    embed = _embed("Tafl settings for this server", "\n".join(lines))
    embed.set_footer(text="They apply to new challenges; players choose with /tafl notify")
    return Outgoing(embed=embed)


def record_file_name(game_id: int) -> str:
    """The name of a game's OpenTafl record file."""
    return f"tafl-game-{game_id}.otg"


def history_message(state: GameState) -> Outgoing:
    """The move list so far and the OpenTafl record of the game."""
    lines = numbered_moves(state.game.history) or ["No move yet."]
    text = "\n".join(lines)
    if len(text) > DESCRIPTION_LIMIT - 10:
        text = "…\n" + text[-(DESCRIPTION_LIMIT - 10) :].split("\n", 1)[-1]
    sides = " vs ".join(_playing(state, side) for side in state.players)
    embed = _footer(_embed(f"Moves: {sides}", f"```\n{text}\n```"), state)
    record = to_opentafl_record(state.game).encode()
    return Outgoing(embed=embed, files=((record_file_name(state.id), record),))


# -- challenges and offers -----------------------------------------------------------------------

_CHALLENGE_CLOSED = {
    ChallengeStatus.ACCEPTED: "Accepted: the game has started.",
    ChallengeStatus.DECLINED: "Declined.",
    ChallengeStatus.CANCELLED: "Cancelled by the challenger.",
    ChallengeStatus.EXPIRED: "Expired: nobody accepted in time.",
}


def challenge_message(challenge: Challenge) -> Outgoing:
    """A challenge with its buttons while open; its outcome, without buttons, once closed."""
    variant_name = engine.resolve_rules(challenge.variant).name
    side = "either side" if challenge.side == RANDOM_SIDE else f"the {challenge.side}"
    who = challenge.challenger.name
    target = challenge.opponent.name if challenge.opponent is not None else "anyone"
    kind = "a rated game" if challenge.rated else "an unrated game"
    lines = [f"{who} challenges {target} to {kind} of {variant_name} and wants to play {side}."]
    if challenge.status is ChallengeStatus.OPEN:
        expires = discord.utils.format_dt(challenge.expires_at, "R")
        lines.append(f"Expires {expires}.")
        view = challenge_view(challenge.id, open_to_anyone=challenge.opponent is None)
        content = None if challenge.opponent is None else mention(challenge.opponent)
        embed = _embed("Tafl challenge", "\n".join(lines))
        return Outgoing(content=content, embed=embed, view=view)
    lines.append(_CHALLENGE_CLOSED[challenge.status])
    return Outgoing(embed=_embed("Tafl challenge", "\n".join(lines)))


_OFFER_TEXT = {OfferKind.DRAW: "offers a draw", OfferKind.UNDO: "asks to take back a move"}
_OFFER_CLOSED = {
    OfferStatus.ACCEPTED: "Accepted.",
    OfferStatus.DECLINED: "Declined.",
    OfferStatus.VOID: "No longer valid: the game went on.",
}


def offer_message(offer: Offer) -> Outgoing:
    """A draw offer or takeback request, with buttons while open."""
    text = f"{offer.by.name} {_OFFER_TEXT[offer.kind]}."
    title = "Draw offer" if offer.kind is OfferKind.DRAW else "Takeback request"
    if offer.status is OfferStatus.OPEN:
        embed = _embed(title, f"{text}\n{offer.to.name}, do you accept?")
        return Outgoing(content=mention(offer.to), embed=embed, view=offer_view(offer.id))
    return Outgoing(embed=_embed(title, f"{text}\n{offer.to.name}: {_OFFER_CLOSED[offer.status]}"))


# -- variants ------------------------------------------------------------------------------------


async def rules_message(compute: Compute, variant: str) -> Outgoing:
    """A variant's rules and its start position."""
    rules = engine.VARIANTS[variant]
    game = engine.Game.from_position(variant, rules.start, rules.first)
    embed = _with_board(_embed(f"{rules.name} rules", str(rules.summary)))
    embed.add_field(name="Board", value=f"{rules.size}×{rules.size}")
    embed.add_field(name="First to move", value=side_name(rules.first))
    embed.set_footer(text=f"/tafl challenge variant:{rules.id}")
    return Outgoing(embed=embed, files=((BOARD_FILE, await board_png(compute, game)),))


def variants_message() -> Outgoing:
    """Every variant with its board size and a one-line summary."""
    lines = []
    for variant_id, rules in engine.VARIANTS.items():
        summary = str(rules.summary).split(". ")[0].rstrip(".")
        lines.append(f"**{rules.name}** (`{variant_id}`, {rules.size}×{rules.size}): {summary}.")
    embed = _embed("Tafl variants", "\n".join(lines))
    embed.set_footer(text="/tafl rules <variant> shows one in full")
    return Outgoing(embed=embed)


# -- ratings, stats and the archive ---------------------------------------------------------------

CHART_FILE = "rating.png"


def leaderboard_message(
    variant: str, everywhere: bool, top: list[Standing], mine: tuple[int, Standing] | None
) -> Outgoing:
    """The top of a variant's ratings (here or everywhere), and the caller's place below."""
    where = "all servers" if everywhere else "this server"
    empty = "Nobody has finished a rated game here yet: challenge someone with /tafl challenge."
    lines = leaderboard_lines(top, mine, empty)
    text = "\n".join(lines)
    title = f"{variant_name(variant)} leaderboard ({where})"
    embed = _embed(title, text)
    embed.set_footer(text="W/D/L: wins, draws, losses. A ? marks a provisional rating.")
    return Outgoing(embed=embed)


async def stats_message(compute: Compute, stats: PlayerStats) -> Outgoing:
    """A player's stats, with their rating history as a chart when they have one."""
    embed = _embed(f"Stats of {stats.player.name}", "\n".join(stats_lines(stats)))
    if not stats.history:
        return Outgoing(embed=embed)
    ratings = [p.rating.rating for p in stats.history]
    deviations = [p.rating.deviation for p in stats.history]
    png = await compute.rating_chart(ratings, deviations)
    embed.set_image(url=f"attachment://{CHART_FILE}")
    assert stats.variant is not None  # a history is of one variant
    embed.add_field(name="Chart", value=f"Rating in {variant_name(stats.variant)}, game by game")
    return Outgoing(embed=embed, files=((CHART_FILE, png),))


def games_message(player: Player, games: list[PlayedGame]) -> Outgoing:
    """A player's last finished games, each with a link to its final board when known, and a
    menu that gives any one's record and replay."""
    if not games:
        return Outgoing(embed=_embed(f"Games of {player.name}", "No finished game yet."))
    lines = []
    for game in games:
        link = _message_link(game)
        lines.append(game_line(game) + (f" [final board]({link})" if link else ""))
    options = [
        (game.game_id, f"#{game.game_id} {variant_name(game.variant)} vs {game.opponent.name}",
         f"{game.result.name.lower()}: {game.reason.description}")
        for game in games
    ]  # fmt: skip
    embed = _embed(f"Last games of {player.name}", "\n".join(lines))
    return Outgoing(embed=embed, view=archive_view(options))


def _message_link(game: PlayedGame) -> str | None:
    """The address of the message showing the game's final board; None when unknown."""
    if game.final_message_ref is None:
        return None
    channel_id, _, message_id = game.final_message_ref.partition(":")
    guild = "@me" if game.guild is None else game.guild.removeprefix(PREFIX)
    return f"https://discord.com/channels/{guild}/{channel_id}/{message_id}"
