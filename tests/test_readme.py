"""The README says what exists: its first commands are CI's, and its tables match the code."""

from __future__ import annotations

import re
import shlex
from itertools import takewhile
from pathlib import Path

import discord
import pytest

from bot import config
from bot.cli import build_parser
from engine import DEFAULT_VARIANT, VARIANTS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def code_lines() -> list[str]:
    """Every line inside the README's fenced code blocks, in order."""
    blocks = re.findall(r"^ *```[a-z]*\n(.*?)^ *```", README, flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def table(heading: str) -> list[list[str]]:
    """The cells of the first table under ``heading``, its header rows dropped."""
    lines = README.split(f"\n{heading}\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = list(takewhile(lambda line: line.startswith("|"), lines[start:]))
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def test_the_readme_starts_with_the_two_commands() -> None:
    play, test = code_lines()[:2]
    assert README.startswith("# tafl\n\n```sh\n" + play + "\n" + test + "\n```\n")
    assert play.split(" && ")[-2:] == ["pip install -e .", "tafl play"]
    assert test.split(" && ")[-2:] == ["pip install -e '.[test]'", "python -m pytest -q"]


def test_ci_runs_the_readme_test_command_step_by_step_and_lints_first() -> None:
    steps = code_lines()[1].split(" && ")
    ci_lines = [line.strip() for line in CI.splitlines() if line.strip()]
    positions = [ci_lines.index(step) for step in steps]
    assert positions == sorted(positions)
    assert "set -euo pipefail" in ci_lines
    for check in ("ruff check .", "mypy"):
        assert positions[-2] < ci_lines.index(check) < positions[-1]


def test_every_tafl_command_line_in_the_readme_parses() -> None:
    parser = build_parser()
    commands = set()
    for line in code_lines():
        words = shlex.split(line, comments=True)
        while words and "=" in words[0]:
            words.pop(0)  # VAR=value before the command
        if words[:1] != ["tafl"]:
            continue
        words = [w.replace("YOUR_SERVER_ID", "123") for w in words]
        commands.add(parser.parse_args(words[1:]).command)
    assert commands == {
        "play", "bot", "render", "replay", "variants", "health", "db", "stats", "ratings"
    }  # fmt: skip


def test_the_variants_table_is_engine_variants() -> None:
    rows = table("## Variants")
    assert len(rows) == len(VARIANTS)
    for (id_cell, name, board, summary), (variant_id, rules) in zip(
        rows, VARIANTS.items(), strict=True
    ):
        default = " (default)" if variant_id == DEFAULT_VARIANT else ""
        assert id_cell == f"`{variant_id}`{default}"
        assert (name, board, summary) == (rules.name, f"{rules.size}x{rules.size}", rules.summary)


def test_no_name_or_summary_players_see_mentions_a_seed() -> None:
    for rules in VARIANTS.values():
        assert "seed" not in f"{rules.name} {rules.summary}".lower(), rules.id


def test_the_invite_url_asks_for_the_scopes_and_permissions_it_lists() -> None:
    (url,) = [line for line in code_lines() if "oauth2/authorize" in line]
    query = dict(part.split("=", 1) for part in url.split("?", 1)[1].split("&"))
    assert query["scope"].split("+") == ["bot", "applications.commands"]
    listed = discord.Permissions(
        view_channel=True,
        send_messages=True,
        send_messages_in_threads=True,
        embed_links=True,
        attach_files=True,
        read_message_history=True,
        create_public_threads=True,
        manage_threads=True,
    )
    assert int(query["permissions"]) == listed.value
    assert f"permissions ({listed.value}) are View Channel, Send Messages, Send Messages in " in (
        " ".join(README.split())
    )


def test_the_slash_command_table_is_the_bots_commands() -> None:
    from bot.discord.cog import TaflCog

    documented = [re.match(r"`/tafl (\w+)", row[0]) for row in table("### Slash commands")]
    names = [match.group(1) for match in documented if match]
    assert names == [command.name for command in TaflCog.__cog_app_commands__]


def test_the_configuration_table_is_what_config_reads() -> None:
    names = [row[0].strip("`") for row in table("## Configuration")]
    assert names == list(config.ENV_VARS)
    assert f"`./{config.DEFAULT_DB}`" in README and f"`{config.DEFAULT_LOG_LEVEL}`" in README


@pytest.mark.parametrize(
    "path", ["engine", "renderer", "bot", "bot/discord", "tests", "bench", "docs"]
)
def test_the_layout_table_names_folders_that_exist(path: str) -> None:
    assert (ROOT / path).is_dir()
    assert f"`{path.split('/')[-1]}/`" in README


def test_the_documents_it_links_exist() -> None:
    links = re.findall(r"\]\(((?!https?:)[^)#]+)", README)
    assert "docs/rules.md" in links and "docs/architecture.md" in links
    for link in links:
        assert (ROOT / link).is_file(), link
    assert "shared/" not in README  # beside the repository, not in the package


def test_the_bench_scripts_it_names_exist() -> None:
    scripts = [line.split()[1] for line in code_lines() if line.startswith("python bench/")]
    assert scripts
    for script in scripts:
        assert (ROOT / script).is_file(), script
