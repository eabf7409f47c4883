"""Discord's rules and limits the emulator enforces, each written once.

Every check raises `DiscordError`, which the server turns into the JSON error reply Discord would
send (and records as a violation).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

JSON = dict[str, Any]

# Interactions.
RESPONSE_DEADLINE = 3.0  # seconds to send the first response
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token accepts follow-ups and edits
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024  # bytes per file, sent as attachment_size_limit

# Message flags.
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15
SETTABLE_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2

# Message limits.
CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_TEXT_MAX = {"title": 256, "description": 4096}
EMBED_FIELDS_MAX = 25
EMBED_FIELD_MAX = {"name": 256, "value": 1024}
FILES_MAX = 10
ACTION_ROWS_MAX = 5
ROW_BUTTONS_MAX = 5
CUSTOM_ID_MAX = 100
BUTTON_LABEL_MAX = 80
SELECT_OPTIONS_MAX = 25
COMPONENTS_V2_MAX = 40
TEXT_DISPLAY_TOTAL_MAX = 4000
LINK_BUTTON_STYLE = 5
PREMIUM_BUTTON_STYLE = 6
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
V2_TOP_LEVEL_TYPES = frozenset({1, 9, 10, 12, 13, 14, 17})

# Autocomplete and application commands.
CHOICES_MAX = 25
CHOICE_TEXT_MAX = 100
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
DESCRIPTION_MAX = 100
OPTIONS_MAX = 25
SUBCOMMAND = 1
SUBCOMMAND_GROUP = 2
CHAT_INPUT = 1

# Which initial response types fit which interaction type.
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE = 4, 5, 6
UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = 7, 8, 9
ALLOWED_RESPONSES: Mapping[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL}),
    MESSAGE_COMPONENT: frozenset(
        {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE, MODAL}
    ),
    AUTOCOMPLETE: frozenset({AUTOCOMPLETE_RESULT}),
    MODAL_SUBMIT: frozenset(
        {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE}
    ),
}


class DiscordError(Exception):
    """An error reply Discord would send: HTTP status, JSON error code, message, failing field."""

    def __init__(self, status: int, code: int, message: str, field: str = "", detail: str = ""):
        super().__init__(f"{status} {code} {message}" + (f" ({field}: {detail})" if field else ""))
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.detail = detail

    def body(self) -> JSON:
        """The JSON body of the error reply, in the shape discord.py flattens into its message."""
        body: JSON = {"message": self.message, "code": self.code}
        if self.field:
            body["errors"] = {
                self.field: {"_errors": [{"code": "INVALID", "message": self.detail}]}
            }
        return body


def invalid_form(field: str, detail: str) -> DiscordError:
    """Discord's generic 400 for a body that breaks a limit."""
    return DiscordError(400, 50035, "Invalid Form Body", field, detail)


UNAUTHORIZED = (401, 0, "401: Unauthorized")
NOT_FOUND = (404, 0, "404: Not Found")
UNKNOWN_APPLICATION = (404, 10002, "Unknown Application")
UNKNOWN_GUILD = (404, 10004, "Unknown Guild")
UNKNOWN_CHANNEL = (404, 10003, "Unknown Channel")
UNKNOWN_MESSAGE = (404, 10008, "Unknown Message")
UNKNOWN_USER = (404, 10013, "Unknown User")
UNKNOWN_MEMBER = (404, 10007, "Unknown Member")
UNKNOWN_WEBHOOK = (404, 10015, "Unknown Webhook")
UNKNOWN_COMMAND = (404, 10063, "Unknown application command")
UNKNOWN_INTERACTION = (404, 10062, "Unknown interaction")
ALREADY_ACKNOWLEDGED = (400, 40060, "Interaction has already been acknowledged")
NOT_AUTHOR = (403, 50005, "Cannot edit a message authored by another user")
EMPTY_MESSAGE = (400, 50006, "Cannot send an empty message")
INVALID_WEBHOOK_TOKEN = (401, 50027, "Invalid Webhook Token")
TOO_LARGE = (413, 40005, "Request entity too large")
OLD_MESSAGE_EDITS = (
    400,
    30046,
    "Maximum number of edits to messages older than 1 hour reached. Try again later",
)
THREAD_EXISTS = (400, 160004, "A thread has already been created for this message")
OLD_MESSAGE_AGE = 3600.0  # seconds after which Discord refuses (rate-limits) edits of a message


def error(kind: tuple[int, int, str], detail: str = "") -> DiscordError:
    """One of the named error replies above, with an explanation for the violation log."""
    status, code, message = kind
    return DiscordError(status, code, message, detail=detail)


def _text_length(value: Any, field: str, maximum: int) -> int:
    if value is None:
        return 0
    if not isinstance(value, str):
        raise invalid_form(field, f"must be a string, not {type(value).__name__}")
    if len(value) > maximum:
        raise invalid_form(field, f"must be {maximum} or fewer in length (got {len(value)})")
    return len(value)


def check_embeds(embeds: Any) -> None:
    """Embed count and text limits, including the 6000-character total."""
    if not isinstance(embeds, list):
        raise invalid_form("embeds", "must be a list")
    if len(embeds) > EMBEDS_MAX:
        raise invalid_form("embeds", f"must be {EMBEDS_MAX} or fewer in length")
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            raise invalid_form(f"embeds.{i}", "must be an object")
        for key, maximum in EMBED_TEXT_MAX.items():
            total += _text_length(embed.get(key), f"embeds.{i}.{key}", maximum)
        total += _text_length((embed.get("footer") or {}).get("text"), f"embeds.{i}.footer", 2048)
        total += _text_length((embed.get("author") or {}).get("name"), f"embeds.{i}.author", 256)
        fields = embed.get("fields") or []
        if len(fields) > EMBED_FIELDS_MAX:
            raise invalid_form(f"embeds.{i}.fields", f"must be {EMBED_FIELDS_MAX} or fewer")
        for j, embed_field in enumerate(fields):
            for key, maximum in EMBED_FIELD_MAX.items():
                text = embed_field.get(key)
                where = f"embeds.{i}.fields.{j}.{key}"
                if not text:
                    raise invalid_form(where, "must not be empty")
                total += _text_length(text, where, maximum)
    if total > EMBED_TOTAL_MAX:
        raise invalid_form("embeds", f"text must total {EMBED_TOTAL_MAX} or fewer characters")


def walk_components(components: list[JSON]) -> Iterator[JSON]:
    """Every component in a message, depth first (rows, containers, sections, accessories)."""
    for component in components:
        yield component
        yield from walk_components(component.get("components") or [])
        accessory = component.get("accessory")
        if accessory:
            yield accessory
        inner = component.get("component")
        if inner:
            yield inner


def _check_button(button: JSON, where: str) -> None:
    style = button.get("style")
    if style == LINK_BUTTON_STYLE:
        if not button.get("url") or "custom_id" in button:
            raise invalid_form(where, "a link button needs a url and no custom_id")
    elif style == PREMIUM_BUTTON_STYLE:
        if not button.get("sku_id"):
            raise invalid_form(where, "a premium button needs a sku_id")
    elif not button.get("custom_id"):
        raise invalid_form(where, "a button needs a custom_id")
    elif style not in (1, 2, 3, 4):
        raise invalid_form(f"{where}.style", f"unknown button style {style!r}")
    if style != PREMIUM_BUTTON_STYLE and not (button.get("label") or button.get("emoji")):
        raise invalid_form(where, "a button needs a label or an emoji")
    _text_length(button.get("label"), f"{where}.label", BUTTON_LABEL_MAX)


def _check_select(select: JSON, where: str) -> None:
    options = select.get("options")
    if select.get("type") == 3 and not (isinstance(options, list) and 1 <= len(options) <= 25):
        raise invalid_form(f"{where}.options", f"must hold 1 to {SELECT_OPTIONS_MAX} options")
    low, high = select.get("min_values", 1), select.get("max_values", 1)
    if not 0 <= low <= high <= SELECT_OPTIONS_MAX:
        raise invalid_form(where, "needs 0 <= min_values <= max_values <= 25")


def _check_action_row(row: JSON, where: str) -> None:
    children = row.get("components") or []
    selects = [c for c in children if c.get("type") in SELECT_TYPES]
    buttons = [c for c in children if c.get("type") == 2]
    if not children or len(selects) + len(buttons) != len(children):
        raise invalid_form(where, "an action row holds 1 to 5 buttons or one select menu")
    if selects and len(children) != 1:
        raise invalid_form(where, "a select menu must be alone in its action row")
    if len(buttons) > ROW_BUTTONS_MAX:
        raise invalid_form(where, f"an action row holds at most {ROW_BUTTONS_MAX} buttons")


def check_components(components: Any, flags: int) -> None:
    """Layout and id rules for message components, classic rows or components v2."""
    if not isinstance(components, list):
        raise invalid_form("components", "must be a list")
    v2 = bool(flags & FLAG_COMPONENTS_V2)
    if v2:
        if any(c.get("type") not in V2_TOP_LEVEL_TYPES for c in components):
            raise invalid_form("components", "unknown top-level component type")
        if sum(1 for _ in walk_components(components)) > COMPONENTS_V2_MAX:
            raise invalid_form("components", f"must hold {COMPONENTS_V2_MAX} or fewer in total")
        texts = [c.get("content") or "" for c in walk_components(components) if c.get("type") == 10]
        if sum(map(len, texts)) > TEXT_DISPLAY_TOTAL_MAX:
            raise invalid_form("components", "text displays must total 4000 or fewer characters")
    else:
        if len(components) > ACTION_ROWS_MAX:
            raise invalid_form("components", f"must hold {ACTION_ROWS_MAX} or fewer action rows")
        if any(c.get("type") != 1 for c in components):
            raise invalid_form("components", "top-level components must be action rows (type 1)")
    seen: set[str] = set()
    for i, component in enumerate(walk_components(components)):
        where = f"components.{i}"
        kind = component.get("type")
        if kind == 1:
            _check_action_row(component, where)
        elif kind == 2:
            _check_button(component, where)
        elif kind in SELECT_TYPES:
            _check_select(component, where)
        custom_id = component.get("custom_id")
        if custom_id is not None:
            _text_length(custom_id, f"{where}.custom_id", CUSTOM_ID_MAX)
            if custom_id in seen:
                raise invalid_form(f"{where}.custom_id", f"duplicate custom_id {custom_id!r}")
            seen.add(custom_id)


def check_message(message: JSON, file_sizes: list[int]) -> None:
    """A message as it will be stored (after an edit is merged): limits and non-emptiness.

    `file_sizes` are the sizes of the files uploaded with this request.
    """
    flags = message.get("flags") or 0
    content = message.get("content") or ""
    _text_length(content, "content", CONTENT_MAX)
    check_embeds(message.get("embeds") or [])
    check_components(message.get("components") or [], flags)
    if flags & FLAG_COMPONENTS_V2 and (content or message.get("embeds")):
        raise invalid_form("content", "a components v2 message cannot have content or embeds")
    attachments = message.get("attachments") or []
    if len(attachments) > FILES_MAX:
        raise invalid_form("attachments", f"must be {FILES_MAX} or fewer files")
    if any(size > ATTACHMENT_SIZE_LIMIT for size in file_sizes):
        raise error(TOO_LARGE, f"a file is larger than {ATTACHMENT_SIZE_LIMIT} bytes")
    if not (content or message.get("embeds") or attachments or message.get("components")):
        raise error(EMPTY_MESSAGE, "no content, embeds, files or components")


def check_choices(data: JSON) -> None:
    """An autocomplete answer: at most 25 choices, names and string values 1 to 100 long."""
    choices = data.get("choices")
    if not isinstance(choices, list):
        raise invalid_form("data.choices", "must be a list")
    if len(choices) > CHOICES_MAX:
        raise invalid_form("data.choices", f"must be {CHOICES_MAX} or fewer in length")
    for i, choice in enumerate(choices):
        name, value = choice.get("name"), choice.get("value")
        if not isinstance(name, str) or not 1 <= len(name) <= CHOICE_TEXT_MAX:
            raise invalid_form(f"data.choices.{i}.name", "must be 1 to 100 characters")
        if isinstance(value, str) and not 1 <= len(value) <= CHOICE_TEXT_MAX:
            raise invalid_form(f"data.choices.{i}.value", "must be 1 to 100 characters")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise invalid_form(f"data.choices.{i}.value", "must be a string or a number")


def _check_named(item: JSON, where: str, chat_input: bool) -> None:
    name = item.get("name")
    if not isinstance(name, str) or not COMMAND_NAME.match(name):
        raise invalid_form(f"{where}.name", f"{name!r} is not a valid name (1-32 word characters)")
    if chat_input and name != name.lower():
        raise invalid_form(f"{where}.name", f"{name!r} must be lower case")
    if chat_input:
        description = item.get("description")
        if not isinstance(description, str) or not 1 <= len(description) <= DESCRIPTION_MAX:
            raise invalid_form(f"{where}.description", "must be 1 to 100 characters")


def _check_options(options: list[JSON], where: str, depth: int) -> None:
    if len(options) > OPTIONS_MAX:
        raise invalid_form(where, f"must hold {OPTIONS_MAX} or fewer options")
    names = [o.get("name") for o in options]
    if len(set(names)) != len(names):
        raise invalid_form(where, "option names must be unique")
    nested = [o for o in options if o.get("type") in (SUBCOMMAND, SUBCOMMAND_GROUP)]
    if nested and len(nested) != len(options):
        raise invalid_form(where, "cannot mix subcommands with other options")
    seen_optional = False
    for i, option in enumerate(options):
        here = f"{where}.{i}"
        _check_named(option, here, chat_input=True)
        kind = option.get("type")
        if kind == SUBCOMMAND_GROUP and depth > 0:
            raise invalid_form(here, "a subcommand group can only sit at the top level")
        if kind in (SUBCOMMAND, SUBCOMMAND_GROUP):
            inner = option.get("options") or []
            if kind == SUBCOMMAND_GROUP and any(o.get("type") != SUBCOMMAND for o in inner):
                raise invalid_form(here, "a subcommand group holds only subcommands")
            _check_options(inner, f"{here}.options", depth + 1)
            continue
        if option.get("required"):
            if seen_optional:
                raise invalid_form(here, "required options must come before optional ones")
        else:
            seen_optional = True
        choices = option.get("choices") or []
        if len(choices) > CHOICES_MAX:
            raise invalid_form(f"{here}.choices", f"must be {CHOICES_MAX} or fewer")
        if choices and option.get("autocomplete"):
            raise invalid_form(here, "an option cannot have both choices and autocomplete")


def check_command(command: JSON, where: str = "0") -> None:
    """One application command as the bot syncs it."""
    kind = command.get("type", CHAT_INPUT)
    _check_named(command, where, chat_input=kind == CHAT_INPUT)
    _check_options(command.get("options") or [], f"{where}.options", depth=0)
