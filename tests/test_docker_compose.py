"""docker-compose.yml runs what exists: the image's bot on the PostgreSQL service beside it, with
the settings config reads, healthchecks, and the database in a named volume."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from bot import config
from bot.cli import build_parser
from bot.storage import is_url

ROOT = Path(__file__).resolve().parent.parent
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]


def interpolated(text: str, environ: dict[str, str]) -> str:
    """``text`` with Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?error}`` filled in
    from ``environ``; KeyError for a required variable that is missing."""

    def fill(match: re.Match[str]) -> str:
        name, form, word = match.group(1), match.group(2), match.group(3)
        if environ.get(name):
            return environ[name]
        if form == ":?":
            raise KeyError(f"{name}: {word}")
        return word or ""

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", fill, text)


def bot_environment(environ: dict[str, str]) -> dict[str, str]:
    return {k: interpolated(str(v), environ) for k, v in SERVICES["bot"]["environment"].items()}


def test_the_services_are_the_bot_and_postgresql() -> None:
    assert set(SERVICES) == {"bot", "postgres"}
    assert SERVICES["bot"]["build"] == "."
    assert (ROOT / "Dockerfile").is_file()
    assert SERVICES["postgres"]["image"].startswith("postgres:")


def test_the_bot_starts_once_postgresql_is_healthy_and_both_have_healthchecks() -> None:
    assert SERVICES["bot"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    postgres_check = SERVICES["postgres"]["healthcheck"]["test"]
    assert postgres_check[0] == "CMD" and postgres_check[1] == "pg_isready"
    bot_check = SERVICES["bot"]["healthcheck"]["test"]
    assert bot_check[:2] == ["CMD", "tafl"]
    args = build_parser().parse_args(bot_check[2:])
    assert (args.command, args.action) == ("db", "current")
    for service in SERVICES.values():
        assert service["restart"] == "unless-stopped"


def test_the_database_lives_in_a_named_volume() -> None:
    assert list(COMPOSE["volumes"]) == ["postgres-data"]
    assert SERVICES["postgres"]["volumes"] == ["postgres-data:/var/lib/postgresql/data"]


def test_the_bot_reads_every_variable_it_is_given() -> None:
    assert set(SERVICES["bot"]["environment"]) <= set(config.ENV_VARS)


@pytest.mark.parametrize("environ", [{}, {"TAFL_POSTGRES_PASSWORD": "xK9-long"}])
def test_the_bots_database_url_is_the_postgres_service(environ: dict[str, str]) -> None:
    environ = {"DISCORD_TOKEN": "token", **environ}
    settings = config.Settings.load(environ=bot_environment(environ), env_file=None)
    assert isinstance(settings.db, str) and is_url(settings.db)
    url = urlsplit(settings.db)
    postgres = {
        k: interpolated(str(v), environ) for k, v in SERVICES["postgres"]["environment"].items()
    }
    assert (url.hostname, url.port) == ("postgres", 5432)
    assert (url.username, url.password, url.path) == (
        postgres["POSTGRES_USER"], postgres["POSTGRES_PASSWORD"], f"/{postgres['POSTGRES_DB']}",
    )  # fmt: skip
    assert url.password == environ.get("TAFL_POSTGRES_PASSWORD", "tafl")
    check = SERVICES["postgres"]["healthcheck"]["test"]
    assert f"--username={postgres['POSTGRES_USER']}" in check
    assert f"--dbname={postgres['POSTGRES_DB']}" in check


def test_the_bot_needs_a_token_and_never_has_one_written_in() -> None:
    with pytest.raises(KeyError, match="DISCORD_TOKEN"):
        bot_environment({})
    assert bot_environment({"DISCORD_TOKEN": "t0ken"})["DISCORD_TOKEN"] == "t0ken"


def test_the_readme_shows_how_to_start_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docker compose up -d" in readme and "TAFL_POSTGRES_PASSWORD" in readme
