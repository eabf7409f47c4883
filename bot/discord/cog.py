"""The /tafl commands and the buttons' clicks: parse, call the game service, present, reply."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

import engine
from bot.clocks import MAX_TEXT as MAX_TIME_CONTROL_TEXT
from bot.discord import present
from bot.discord.replies import (
    ChannelPost,
    Outgoing,
    Poster,
    Reply,
    channel_mention,
    original,
    report_error,
)
from bot.discord.suggest import MoveSuggestions
from bot.errors import (
    ChallengeClosed,
    GameEnded,
    NoGameHere,
    NoPermission,
    NotYourTurn,
    OfferClosed,
    ServiceError,
)
from bot.models import (
    AI_PLAYER,
    GLOBAL_SCOPE,
    RANDOM_SIDE,
    Announcement,
    AnnouncementKind,
    Challenge,
    Channel,
    GameState,
    MoveResult,
    Offer,
    OfferKind,
    OfferStatus,
    Player,
    ReminderStyle,
    Report,
    ai_player,
    build_report,
    utc_now,
)
from engine.ai import DEFAULT_LEVEL, LEVELS
from engine.notation import MAX_MOVE_TEXT
from renderer import THEMES, WOOD

if TYPE_CHECKING:
    from bot.compute import Compute
    from bot.discord.client import TaflBot
    from bot.service import GameService

log = logging.getLogger(__name__)

MAX_RULES_LENGTH = 1000
"""The longest custom rules string /tafl challenge takes (Alea Evangelii's is under 400)."""
MAX_SQUARE_TEXT = 10
"""The longest square /tafl board takes (``s19`` on the largest board, with room to spare)."""
AUTOCOMPLETE_TIMEOUT = 2.0
"""Seconds autocomplete waits for the service before offering nothing."""

VARIANT_CHOICES = [
    app_commands.Choice(name=f"{rules.name} ({rules.size}×{rules.size})", value=variant_id)
    for variant_id, rules in engine.VARIANTS.items()
]
SIDE_CHOICES = [
    app_commands.Choice(name=name, value=value)
    for name, value in (
        ("Attackers", engine.Side.ATTACKERS.value),
        ("Defenders", engine.Side.DEFENDERS.value),
        ("White (Halatafl)", engine.Side.WHITE.value),
        ("Black (Halatafl)", engine.Side.BLACK.value),
        ("Random", RANDOM_SIDE),
    )
]
VIEW_CHOICES = [
    app_commands.Choice(name=name, value=value)
    for name, value in (
        ("Attackers' side", engine.Side.ATTACKERS.value),
        ("Defenders' side", engine.Side.DEFENDERS.value),
        ("White's side (Halatafl)", engine.Side.WHITE.value),
        ("Black's side (Halatafl)", engine.Side.BLACK.value),
    )
]
REMINDER_CHOICES = [
    app_commands.Choice(name=name, value=style.value)
    for name, style in (
        ("In the game's channel", ReminderStyle.CHANNEL),
        ("As a direct message", ReminderStyle.DM),
        ("Off", ReminderStyle.OFF),
    )
]
MAX_CHANNELS_TEXT = 1000
"""The longest list of channels /tafl settings takes."""
EVERY_CHANNEL = "all"
LEVEL_CHOICES = [app_commands.Choice(name=f"{name.capitalize()}", value=name) for name in LEVELS]
SCOPE_CHOICES = [
    app_commands.Choice(name="This server", value="server"),
    app_commands.Choice(name="All servers", value=GLOBAL_SCOPE),
]
THEME_CHOICES = [
    app_commands.Choice(name=present.theme_name(theme), value=theme) for theme in THEMES
]


class TaflCog(commands.GroupCog, group_name="tafl", group_description="Play tafl (hnefatafl)"):
    """The /tafl command group."""

    def __init__(self, bot: TaflBot) -> None:
        self.bot = bot
        self.suggestions = MoveSuggestions()
        super().__init__()

    @property
    def service(self) -> GameService:
        return self.bot.service

    @property
    def compute(self) -> Compute:
        return self.bot.compute

    def player(self, user: discord.abc.User) -> Player:
        bot_user = self.bot.user
        return present.player_of(user, None if bot_user is None else bot_user.id)

    # -- commands ---------------------------------------------------------------------------------

    @app_commands.command(description="Challenge someone, anyone, or me (the AI) to a game")
    @app_commands.describe(
        opponent="Who you challenge (me to play the AI; nobody: anyone may accept)",
        variant="Which tafl game (default: the server's, else Copenhagen)",
        side="The side you want to play (default random)",
        rules="A custom variant as an OpenTafl rules string (dim:9 esc:e ... start:/.../)",
        time="Time: 3d (per move), 5d+12h (a clock and an increment), 10m+5s (live), or none "
        "(default 3d+12h)",
        thread="Play in a thread of its own (default: the server's setting, else yes)",
        level=f"How strongly I play when you challenge me (default {DEFAULT_LEVEL.name})",
        rated="Whether the game counts for ratings (default: yes on a preset variant; custom "
        "rules never do)",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, side=SIDE_CHOICES, level=LEVEL_CHOICES)
    async def challenge(
        self,
        interaction: discord.Interaction,
        opponent: discord.User | None = None,
        variant: str | None = None,
        side: str = RANDOM_SIDE,
        rules: app_commands.Range[str, 1, MAX_RULES_LENGTH] | None = None,
        time: app_commands.Range[str, 1, MAX_TIME_CONTROL_TEXT] | None = None,
        thread: bool | None = None,
        level: str = DEFAULT_LEVEL.name,
        rated: bool | None = None,
    ) -> None:
        if rules is not None:
            variant = rules
        reply = Reply.of(interaction)
        me = self.player(interaction.user)
        channel = present.channel_of(interaction)
        rival = None if opponent is None else self.player(opponent)
        if opponent is not None and opponent.bot and rival != AI_PLAYER:
            raise ServiceError(f"{opponent.display_name} is a bot; challenge me to play my AI")
        if rival == AI_PLAYER and self.compute.ai_busy:
            raise ServiceError(
                f"I am thinking for {self.compute.ai_demand} games at once; challenge me again "
                "in a few minutes (the games under way go on)"
            )
        if rival == AI_PLAYER:
            rival = ai_player(level)
        elif level != DEFAULT_LEVEL.name:
            raise ServiceError("a level is for games against me: challenge me to use it")
        threads_possible = isinstance(interaction.channel, discord.TextChannel)
        against_ai = rival is not None and rival.is_ai
        try:
            challenge = await self.service.challenge(
                channel, me, rival, variant, side, time_control=time, rated=rated,
                thread=False if against_ai or not threads_possible else thread,
                threads_allowed=interaction.app_permissions.create_public_threads,
            )  # fmt: skip
        except engine.RulesError as error:
            raise ServiceError(f"those rules can't be played: {error}") from error
        if rival is not None and rival.is_ai:
            state = await self.service.accept(challenge.id, rival)
            await reply.send(await present.start_message(self.compute, state, self.bot.clock()))
            await self.play_ai(reply, state)
            return
        message_id = await reply.send(present.challenge_message(challenge))
        if message_id is not None and interaction.channel_id is not None:
            await self.bot.remember_challenge(challenge.id, interaction.channel_id, message_id)

    @app_commands.command(description="Show or change my settings for this server")
    @app_commands.describe(
        variant="The variant challenges play unless they say otherwise",
        time="The time control challenges play under unless they say otherwise (e.g. 3d+12h)",
        threads="Whether each game gets a thread of its own unless its challenge says otherwise",
        channels="The channels I play in, as #mentions; all: every channel",
        reminders="Where turn reminders go for players who have not chosen (/tafl notify)",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, reminders=REMINDER_CHOICES)
    async def settings(
        self,
        interaction: discord.Interaction,
        variant: str | None = None,
        time: app_commands.Range[str, 1, MAX_TIME_CONTROL_TEXT] | None = None,
        threads: bool | None = None,
        channels: app_commands.Range[str, 1, MAX_CHANNELS_TEXT] | None = None,
        reminders: str | None = None,
    ) -> None:
        reply = Reply.of(interaction)
        guild = present.channel_of(interaction).guild
        if guild is None or interaction.guild is None:
            raise ServiceError("settings belong to a server; use this command in one")
        if not interaction.permissions.manage_guild:
            raise NoPermission
        chosen = None if channels is None else self.channels_named(interaction.guild, channels)
        if (variant, time, threads, chosen, reminders) == (None, None, None, None, None):
            settings = await self.service.settings(guild)
        else:
            settings = await self.service.change_settings(
                guild, variant=variant, time_control=time, threads=threads, channels=chosen,
                reminders=reminders,
            )  # fmt: skip
        await reply.send(present.settings_message(settings), ephemeral=True)

    @staticmethod
    def channels_named(guild: discord.Guild, text: str) -> tuple[str, ...]:
        """The channels of ``text`` (``#mentions`` or ids; ``all``: none, i.e. every channel),
        as service ids; ServiceError for anything else, or a channel of another server."""
        if text.strip().lower() == EVERY_CHANNEL:
            return ()
        words = text.replace(",", " ").split()
        chosen = []
        for word in words:
            digits = word.removeprefix("<#").removesuffix(">")
            if not digits.isdigit():
                raise ServiceError(
                    f"{word!r} is not a channel; mention the channels (#tafl #games), "
                    f"or write {EVERY_CHANNEL}"
                )
            if guild.get_channel(int(digits)) is None:
                raise ServiceError(f"<#{digits}> is not a channel of this server")
            chosen.append(f"{present.PREFIX}{digits}")
        return tuple(chosen)

    @app_commands.command(description="Where your turn reminders go: the channel, a DM, or off")
    @app_commands.describe(where="Where your reminders go from now on")
    @app_commands.choices(where=REMINDER_CHOICES)
    async def notify(self, interaction: discord.Interaction, where: str) -> None:
        reply = Reply.of(interaction)
        style = await self.service.set_reminders(self.player(interaction.user), where)
        await reply.send(present.notify_message(style), ephemeral=True)

    @app_commands.command(description="Play a move, e.g. d1-d4 (or just the target square)")
    @app_commands.describe(move="From-to squares like d1-d4; pick from the suggestions")
    async def move(
        self,
        interaction: discord.Interaction,
        move: app_commands.Range[str, 1, MAX_MOVE_TEXT],
    ) -> None:
        reply = Reply.of(interaction)
        player = self.player(interaction.user)
        result = await self.service.move(present.channel_of(interaction), player, move)
        await self.announce_move(reply, result)

    @move.autocomplete("move")
    async def move_suggestions(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        player = self.player(interaction.user)
        channel = present.channel_of(interaction)
        try:
            state = await asyncio.wait_for(
                self.service.game_to_move(channel, player), AUTOCOMPLETE_TIMEOUT
            )
        except TimeoutError:
            log.warning("move suggestions for %s took too long; offered none", channel.id)
            return []
        moves = [] if state is None else self.suggestions.of(state, current)
        return [app_commands.Choice(name=m, value=m) for m in moves]

    @app_commands.command(description="Show the board of this channel's game")
    @app_commands.describe(
        piece="A square, e.g. e7: marks where the piece on it can move",
        view="The side seen at the bottom of the board (default: the attackers' or white's)",
        theme="The board's colours (default wood)",
    )
    @app_commands.choices(view=VIEW_CHOICES, theme=THEME_CHOICES)
    async def board(
        self,
        interaction: discord.Interaction,
        piece: app_commands.Range[str, 1, MAX_SQUARE_TEXT] | None = None,
        view: str | None = None,
        theme: str = WOOD.name,
    ) -> None:
        reply = Reply.of(interaction)
        state = await self.current_game(interaction)
        last = state.game.history[-1] if state.game.history else None
        title = f"After {last.notation}" if last is not None else "Start position"
        message = await present.board_message(
            self.compute, state, title, piece=piece, viewer=view, theme=theme, now=self.bot.clock()
        )
        await reply.send(message)

    @app_commands.command(description="Give up this channel's game")
    async def resign(self, interaction: discord.Interaction) -> None:
        reply = Reply.of(interaction)
        channel = present.channel_of(interaction)
        report = await self.service.resign(channel, self.player(interaction.user))
        await self.announce_end(reply, report)

    @app_commands.command(description="Win a game whose opponent has not moved for too long")
    async def claim(self, interaction: discord.Interaction) -> None:
        reply = Reply.of(interaction)
        channel = present.channel_of(interaction)
        report = await self.service.claim_timeout(channel, self.player(interaction.user))
        await self.announce_end(reply, report)

    @app_commands.command(description="Offer your opponent a draw")
    async def draw(self, interaction: discord.Interaction) -> None:
        await self.make_offer(interaction, OfferKind.DRAW)

    @app_commands.command(description="Ask your opponent to let you take back your last move")
    async def undo(self, interaction: discord.Interaction) -> None:
        await self.make_offer(interaction, OfferKind.UNDO)

    @app_commands.command(description="The moves of this channel's game and its OpenTafl record")
    async def history(self, interaction: discord.Interaction) -> None:
        reply = Reply.of(interaction)
        await reply.send(present.history_message(await self.current_game(interaction)))

    @app_commands.command(description="The rules of a variant and its start position")
    @app_commands.describe(variant="Which tafl game (default Copenhagen)")
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def rules(
        self, interaction: discord.Interaction, variant: str = engine.DEFAULT_VARIANT
    ) -> None:
        reply = Reply.of(interaction)
        if variant not in engine.VARIANTS:
            raise ServiceError(f"unknown variant {variant!r}; see /tafl variants")
        await reply.send(await present.rules_message(self.compute, variant))

    @app_commands.command(description="The best rated players of a variant, here or everywhere")
    @app_commands.describe(
        variant="Which tafl game (default Copenhagen)",
        scope="This server's ratings or everyone's (default: this server; all in a DM)",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, scope=SCOPE_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction,
        variant: str = engine.DEFAULT_VARIANT,
        scope: str | None = None,
    ) -> None:
        reply = Reply.of(interaction)
        where = self.scope_of(interaction, scope)
        me = self.player(interaction.user)
        top, mine = await self.service.leaderboard(variant, where, me)
        await reply.send(present.leaderboard_message(variant, where == GLOBAL_SCOPE, top, mine))

    @app_commands.command(description="A player's ratings, results and rating history")
    @app_commands.describe(
        player="Whose (default: yours; me for my AI at medium level)",
        variant="One variant only (default: all)",
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def stats(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        variant: str | None = None,
    ) -> None:
        reply = Reply.of(interaction)
        who = self.player(player or interaction.user)
        stats = await self.service.stats(who, variant)
        await reply.send(await present.stats_message(self.compute, stats))

    @app_commands.command(description="A player's last finished games, with records and replays")
    @app_commands.describe(
        player="Whose (default: yours)", variant="One variant only (default: all)"
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def games(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        variant: str | None = None,
    ) -> None:
        reply = Reply.of(interaction)
        who = self.player(player or interaction.user)
        played = await self.service.played_games(who, variant)
        await reply.send(present.games_message(who, played))

    @app_commands.command(description="The tafl games I can play")
    async def variants(self, interaction: discord.Interaction) -> None:
        await Reply.of(interaction).send(present.variants_message())

    # -- buttons ----------------------------------------------------------------------------------

    async def on_challenge_button(
        self, interaction: discord.Interaction, action: str, challenge_id: int
    ) -> None:
        """Accept, decline or cancel a challenge; a closed one shows how it closed."""
        reply = Reply.of(interaction)
        player = self.player(interaction.user)
        try:
            if action == "accept":
                challenge = await self.service.check_accept(challenge_id, player)
                await self.start_challenged_game(reply, challenge, player, clicked=True)
                return
            if action == "decline":
                await self.service.decline(challenge_id, player)
            else:
                await self.service.cancel(challenge_id, player)
        except ChallengeClosed:
            if reply.can_update:  # an old message is left: the refusal says it all
                await self.show_challenge(reply, challenge_id)
            raise
        await self.show_challenge(reply, challenge_id)

    async def start_challenged_game(
        self, reply: Reply, challenge: Challenge, accepter: Player, *, clicked: bool
    ) -> GameState:
        """Accept ``challenge`` for ``accepter`` and start its game, in a thread started from
        the challenge's message when it asks for one (in its channel when Discord refuses,
        telling the challenger why). ``clicked``: the reply's message is the challenge's."""
        clicked_on = reply.interaction.message if clicked else None
        shown_at = (
            None
            if clicked_on is None or reply.interaction.channel_id is None
            else (reply.interaction.channel_id, clicked_on.id)
        )
        thread, why_not = await self.open_thread(challenge, accepter, shown_at)
        channel = None if thread is None else present.thread_channel(thread)
        try:
            state = await self.service.accept(challenge.id, accepter, channel)
        except Exception:
            if thread is not None:  # someone came first: the thread holds nothing
                await self.archive(thread.id)
            raise
        if clicked:
            await self.show_challenge(reply, challenge.id)
        else:
            await self.bot.show_challenge_message(await self.service.get_challenge(challenge.id))
        home = self.poster_in(reply, state.home)
        if why_not is not None:
            await home.send(present.no_thread_message(challenge.challenger, why_not))
        start = await present.start_message(self.compute, state, self.bot.clock())
        poster = self.poster_in(reply, state.channel)
        await poster.send(start)
        if thread is not None:
            await home.send(present.started_in_thread_message(state))
        if not reply.interaction.response.is_done():
            await reply.send(present.started_in_thread_message(state), ephemeral=True)
        await self.play_ai(poster, state)
        return state

    def poster_in(self, reply: Reply, channel: Channel) -> Poster:
        """Where to post in ``channel``: the interaction's answer when it happened there, else
        the channel itself."""
        if f"{present.PREFIX}{reply.interaction.channel_id}" == channel.id:
            return reply
        channel_id = present.discord_id(channel.id)
        assert channel_id is not None  # a Discord game is in a Discord channel
        return ChannelPost(self.bot.get_partial_messageable(channel_id))

    async def open_thread(
        self, challenge: Challenge, accepter: Player, shown_at: tuple[int, int] | None = None
    ) -> tuple[discord.Thread | None, str | None]:
        """A public thread started from the challenge's message (``shown_at``: channel and
        message ids, when known here; else as stored; else in the challenge's channel) when
        the challenge asks for one; else None, and why not when one was asked for (Discord
        refused)."""
        if not challenge.thread:
            return None, None
        where = shown_at
        if where is None and challenge.message_ref is not None:
            where = present.parse_message_ref(challenge.message_ref)
        channel_id = present.discord_id(challenge.channel.id) if where is None else where[0]
        if channel_id is None:
            return None, None
        starter = None if where is None else discord.Object(where[1])
        try:
            channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
            if not isinstance(channel, discord.TextChannel):
                return None, None
            name = present.thread_name(challenge, accepter)
            if starter is None:  # the challenge's message is not known (yet): a thread of its own
                thread = await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread
                )
            else:
                thread = await channel.create_thread(name=name, message=starter)
        except discord.Forbidden:
            log.warning("no permission to start a thread in channel %s", channel_id)
            return None, "I need the Create Public Threads permission here"
        except discord.HTTPException as error:
            log.warning("could not start a thread in channel %s: %s", channel_id, error)
            return None, f"Discord refused: {error.text or error.status}"
        return thread, None

    async def show_challenge(self, reply: Reply, challenge_id: int) -> None:
        """Replace the challenge message by the challenge as it now stands."""
        challenge = await self.service.get_challenge(challenge_id)
        await reply.update(present.challenge_message(challenge))

    async def on_offer_button(
        self, interaction: discord.Interaction, action: str, offer_id: int
    ) -> None:
        """Accept or decline a draw offer or a takeback request."""
        reply = Reply.of(interaction)
        player = self.player(interaction.user)
        try:
            offer, state, report = await self.service.answer_offer(
                offer_id, player, accept=action == "accept"
            )
        except OfferClosed:
            if reply.can_update:
                await reply.update(present.offer_message(await self.service.get_offer(offer_id)))
            raise
        await reply.update(present.offer_message(offer))
        await self.after_offer(reply, offer, state, report)

    async def on_rematch_button(
        self, interaction: discord.Interaction, action: str, game_id: int
    ) -> None:
        """Ask for a rematch of a finished game, or accept the one the opponent asked for."""
        reply = Reply.of(interaction)
        player = self.player(interaction.user)
        challenge = await self.service.rematch(game_id, player)
        if challenge.challenger.id != player.id:  # the opponent asked first: this accepts
            await self.start_challenged_game(reply, challenge, player, clicked=False)
            return
        if challenge.opponent is not None and challenge.opponent.is_ai:  # at its level
            await self.start_challenged_game(reply, challenge, challenge.opponent, clicked=False)
            return
        home = self.poster_in(reply, challenge.channel)
        message_id = await home.send(present.challenge_message(challenge))
        channel_id = present.discord_id(challenge.channel.id)
        if message_id is not None and channel_id is not None:
            await self.bot.remember_challenge(challenge.id, channel_id, message_id)
        if not reply.interaction.response.is_done():
            where = channel_mention(challenge.channel.id)
            text = (
                f"I asked {challenge.opponent.name if challenge.opponent else 'anyone'} "
                f"for a rematch in {where}."
            )
            await reply.send(Outgoing(content=text), ephemeral=True)

    async def on_archive_pick(self, interaction: discord.Interaction, game_id: int) -> None:
        """The record and replay of a game picked in the archive's menu, for the picker."""
        reply = Reply.of(interaction)
        report = await self.service.report(game_id)
        state = await self.service.get_game(game_id)
        message = await present.report_message(self.compute, report, state, reply.filesize_limit)
        await reply.send(message, ephemeral=True)

    # -- shared steps -----------------------------------------------------------------------------

    def scope_of(self, interaction: discord.Interaction, scope: str | None) -> str:
        """The ratings' scope a command asks for: global, or this server's guild (None: the
        server's, global outside a server)."""
        guild = present.channel_of(interaction).guild
        if scope == GLOBAL_SCOPE or (scope is None and guild is None):
            return GLOBAL_SCOPE
        if guild is None:
            raise ServiceError("there is no server here: ask for scope: All servers")
        return guild

    async def current_game(self, interaction: discord.Interaction) -> GameState:
        state = await self.service.current_game(present.channel_of(interaction))
        if state is None:
            raise NoGameHere()
        return state

    async def make_offer(self, interaction: discord.Interaction, kind: OfferKind) -> None:
        """Post a draw offer or takeback request; the AI answers its own at once."""
        reply = Reply.of(interaction)
        channel = present.channel_of(interaction)
        offer = await self.service.offer(channel, self.player(interaction.user), kind)
        if not offer.to.is_ai:
            await reply.send(present.offer_message(offer))
            return
        offer, state, report = await self.service.answer_as_ai(offer)
        await reply.send(present.offer_message(offer))
        await self.after_offer(reply, offer, state, report)

    async def after_offer(
        self, reply: Reply, offer: Offer, state: GameState, report: Report | None
    ) -> None:
        """The report after an agreed draw; the board after an allowed takeback."""
        if report is not None:
            await self.announce_end(reply, report, state)
        elif offer.kind is OfferKind.UNDO and offer.status is OfferStatus.ACCEPTED:
            await reply.send(
                await present.board_message(
                    self.compute, state, "Move taken back", now=self.bot.clock()
                )
            )

    async def announce_move(self, poster: Poster, result: MoveResult) -> None:
        """The board after a move; then the end of the game, or the AI's answer."""
        await self.publish(
            poster,
            Announcement(result.state.id, AnnouncementKind.MOVE, result.number, utc_now()),
            result.state,
            await present.move_message(self.compute, result, self.bot.clock()),
        )
        if result.report is not None:
            await self.announce_end(poster, result.report, result.state)
        else:
            await self.play_ai(poster, result.state)

    async def play_ai(self, poster: Poster, state: GameState) -> None:
        """Let the AI move while it is its turn (it thinks in a worker process)."""
        mover = state.player_to_move()
        if mover is None or not mover.is_ai:
            return
        try:
            result = await self.service.ai_move(state.channel)
        except NotYourTurn:  # another interaction let the AI move first
            log.debug("the AI already moved in %s", state.channel.id)
            return
        await self.announce_move(poster, result)

    async def answer_error(self, interaction: discord.Interaction, error: BaseException) -> None:
        """Answer a command's or a click's ``error``; where the game ended instead
        (``GameEnded``: time ran out, or it was found void), show its channel the end too."""
        await report_error(interaction, error)
        ended = original(error)
        if isinstance(ended, GameEnded):
            await self.announce_end(Reply.of(interaction), ended.report)

    async def announce_end(
        self, poster: Poster, report: Report, state: GameState | None = None
    ) -> None:
        """Log the game's report and post it with the final board, record and replay."""
        log.info("game #%s ended\n%s", report.game_id, report.text())
        if state is None:
            assert report.game_id is not None  # the service reports stored games
            state = await self.service.get_game(report.game_id)
        ratings = await self.service.rating_changes(state.id) if report.rated else None
        message = await present.report_message(
            self.compute, report, state, poster.filesize_limit, ratings
        )
        announcement = Announcement(state.id, AnnouncementKind.END, len(report.plies), utc_now())
        if await self.publish(poster, announcement, state, message):
            await self.close_thread(state, report)

    async def close_thread(self, state: GameState, report: Report) -> None:
        """After a thread game's report: the end announced in the parent channel (with a
        Rematch button), and the thread archived."""
        if state.parent is None:
            return
        parent_id = present.discord_id(state.parent.id)
        thread_id = present.discord_id(state.channel.id)
        if parent_id is None or thread_id is None:
            return
        try:
            await ChannelPost(self.bot.get_partial_messageable(parent_id)).send(
                present.ended_in_thread_message(state, report)
            )
        except discord.HTTPException:
            log.warning("could not announce the end of game #%s in %s", state.id, parent_id)
        await self.archive(thread_id)

    async def archive(self, thread_id: int) -> None:
        """Archive a thread (logged when Discord refuses)."""
        try:
            await self.bot.http.edit_channel(thread_id, archived=True)
        except discord.HTTPException as error:
            log.warning("could not archive the thread %s: %s", thread_id, error)

    # -- the outbox -------------------------------------------------------------------------------

    async def publish(
        self, poster: Poster, announcement: Announcement, state: GameState, message: Outgoing
    ) -> bool:
        """Post what the game's channel must be shown and mark it shown; a refused post stays
        pending, to be posted by a later sweep. True if it was posted."""
        try:
            message_id = await poster.send(message)
        except discord.HTTPException as error:
            await self.post_refused(announcement, state, error)
            return False
        channel_id = present.discord_id(state.channel.id)
        ref = None
        if message_id is not None and channel_id is not None:
            ref = present.message_ref(channel_id, message_id)
        await self.service.announced(announcement.game_id, announcement.kind, announcement.ply, ref)
        return True

    async def post_pending(self, settled: timedelta = timedelta(0)) -> int:
        """Post, in the games' channels, what was stored but not shown (a crash came between,
        or Discord refused the post), made ``settled`` ago or more; returns how many posted."""
        posted = 0
        for announcement, state in await self.service.pending_announcements(
            present.PREFIX, settled
        ):
            channel_id = present.discord_id(state.channel.id)
            assert channel_id is not None  # only Discord's channels were asked for
            poster = ChannelPost(self.bot.get_partial_messageable(channel_id))
            if announcement.kind is AnnouncementKind.MOVE:
                ply = state.game.history[announcement.ply - 1]
                result = MoveResult(state, ply, None, announcement.ply)
                message = await present.move_message(self.compute, result, self.bot.clock())
            else:
                report = build_report(state)
                ratings = await self.service.rating_changes(state.id) if report.rated else None
                message = await present.report_message(
                    self.compute, report, state, poster.filesize_limit, ratings
                )
            shown = await self.publish(poster, announcement, state, message)
            if shown and announcement.kind is AnnouncementKind.END:
                await self.close_thread(state, build_report(state))
            posted += shown
        return posted

    async def post_refused(
        self, announcement: Announcement, state: GameState, error: discord.HTTPException
    ) -> None:
        """A post Discord refused: try again later; when the bot lacks a permission, log which
        and tell the game's players in a direct message (on the first refusal only)."""
        retry_at = await self.service.announcement_failed(announcement)
        channel_id = present.discord_id(state.channel.id)
        if error.status != 403:
            log.warning(
                "could not post game #%s's %s in channel %s (%s); trying again at %s",
                state.id, announcement.kind, channel_id, error, retry_at,
            )  # fmt: skip
            return
        needed = present.permission_names(self.missing_permissions(channel_id))
        log.error(
            "no permission to post game #%s in channel %s: it needs %s (Discord %s: %s);"
            " trying again at %s",
            state.id, channel_id, needed, error.code, error.text, retry_at,
        )  # fmt: skip
        if announcement.attempts == 0:
            await self.tell_players(state, present.missing_permission_message(state, needed))

    def missing_permissions(self, channel_id: int | None) -> list[str]:
        """The permissions the bot lacks to post games in the channel, as far as it knows (all
        it needs, when it does not know the channel)."""
        channel = None if channel_id is None else self.bot.get_channel(channel_id)
        needed = present.posting_permissions(channel)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return needed
        granted = channel.permissions_for(channel.guild.me)
        return [name for name in needed if not getattr(granted, name)] or needed

    async def tell_players(self, state: GameState, text: str) -> None:
        """A direct message to each person playing ``state``."""
        for player in state.players.values():
            user_id = present.discord_id(player.id)
            if user_id is None:
                continue
            try:
                user = await self.bot.fetch_user(user_id)
                await user.send(**Outgoing(content=text).send_kwargs())
            except discord.HTTPException:
                log.warning("could not send a direct message to %s", player.id)

    async def end_timed_out_games(self) -> int:
        """End the games whose player to move ran out of time, and post their reports."""
        ended = 0
        for state, report in await self.service.time_out_games():
            channel_id = present.discord_id(state.channel.id)
            if channel_id is not None:
                poster = ChannelPost(self.bot.get_partial_messageable(channel_id))
                await self.announce_end(poster, report, state)
                ended += 1
        return ended

    async def send_reminders(self) -> int:
        """Ping each player whose time to move is half used, or nearly up (once each), where
        they chose (/tafl notify), else where their server chose, else in the game's channel. A
        direct message Discord refuses is dropped (logged)."""
        sent = 0
        for reminder in await self.service.due_reminders():
            channel_id = present.discord_id(reminder.state.channel.id)
            user_id = present.discord_id(reminder.player.id)
            if channel_id is None or user_id is None:
                continue
            style = await self.service.reminders_for(reminder.player, reminder.state.channel.guild)
            if style is ReminderStyle.OFF:
                continue
            try:
                if style is ReminderStyle.DM:
                    user = self.bot.get_user(user_id) or await self.bot.fetch_user(user_id)
                    text = present.reminder_text(reminder, direct=True)
                    await user.send(**Outgoing(content=text).send_kwargs())
                else:
                    channel = self.bot.get_partial_messageable(channel_id)
                    text = present.reminder_text(reminder)
                    await ChannelPost(channel).send(Outgoing(content=text))
                sent += 1
            except discord.HTTPException as error:
                log.warning("could not remind %s (%s): %s", reminder.player.id, style, error)
        return sent

    async def resume_ai_games(self, idle: timedelta = timedelta(0)) -> int:
        """Play the AI's turn in every game that has waited for it for ``idle`` or longer (a
        restart came between a player's move and the AI's answer, or a search failed), posting
        in the game's channel; returns how many."""
        played = 0
        for state in await self.service.games_awaiting_ai(idle):
            channel_id = present.discord_id(state.channel.id)
            if channel_id is None:
                continue  # a game of another adapter
            try:
                await self.play_ai(ChannelPost(self.bot.get_partial_messageable(channel_id)), state)
                played += 1
            except Exception:
                log.exception("could not play the AI's turn in game #%s", state.id)
        return played
