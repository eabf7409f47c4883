"""The Dockerfile runs what exists: the console script, the settings config reads, the files."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from bot import config
from bot.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    result = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


def values(name: str) -> list[str]:
    return [rest for word, rest in instructions() if word == name]


def env_vars() -> dict[str, str]:
    found: dict[str, str] = {}
    for rest in values("ENV"):
        for pair in shlex.split(rest):
            key, _, value = pair.partition("=")
            found[key] = value
    return found


def test_base_image_is_python_311_slim() -> None:
    assert values("FROM") == ["python:3.11-slim"]


def test_cmd_runs_the_tafl_console_script_bot_command() -> None:
    (cmd,) = values("CMD")
    program, command = json.loads(cmd)
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[program] == "bot.cli:main"
    assert build_parser().parse_args([command]).command == "bot"


def test_runs_as_a_non_root_user_created_in_the_image() -> None:
    (user,) = values("USER")
    assert user not in {"root", "0"}
    assert any("useradd" in run and user in run.split() for run in values("RUN"))


def test_database_lives_in_the_data_volume() -> None:
    assert json.loads(values("VOLUME")[0]) == ["/data"]
    assert env_vars()[config.DB_VAR] == "/data/tafl.sqlite3"
    run = " ".join(values("RUN"))
    assert "chown" in run and "/data" in run


def test_every_variable_it_sets_for_the_project_is_read_by_config() -> None:
    ours = {key for key in env_vars() if key.startswith(("TAFL_", "DISCORD_"))}
    assert ours, "the image sets no project setting"
    assert ours <= set(config.ENV_VARS)
    loaded = config.Settings.load(environ=env_vars(), env_file=None)
    assert str(loaded.db) == "/data/tafl.sqlite3"
    assert loaded.log_level == env_vars()[config.LOG_LEVEL_VAR]


def test_copies_only_files_that_exist_and_installs_them() -> None:
    for rest in values("COPY"):
        *sources, _target = rest.split()
        for source in sources:
            assert (ROOT / source).exists(), source
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    copied = {Path(rest.split()[0]).name for rest in values("COPY")}
    for pattern in packages["packages"]["find"]["include"]:
        assert pattern.rstrip("*") in copied


def test_the_healthcheck_runs_tafl_health() -> None:
    (check,) = values("HEALTHCHECK")
    options, _, command = check.partition("CMD ")
    assert "--interval=" in options
    program, subcommand = json.loads(command)
    assert program == "tafl"
    assert build_parser().parse_args([subcommand]).command == "health"


def test_every_dependency_is_pinned_by_the_constraints_the_install_uses() -> None:
    from packaging.requirements import Requirement

    assert any(
        "PIP_CONSTRAINT=/src/constraints.txt pip install /src" in run for run in values("RUN")
    )
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = dict(line.split("==") for line in lines if line.strip() and not line.startswith("#"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [Requirement(r) for r in project["project"]["dependencies"]]
    wanted += [Requirement(r) for r in project["build-system"]["requires"]]
    for requirement in wanted:
        pinned = {k.lower(): v for k, v in pins.items()}.get(requirement.name.lower())
        assert pinned is not None, f"{requirement.name} is not pinned"
        assert requirement.specifier.contains(pinned), f"{requirement.name}=={pinned}"


def test_dockerignore_keeps_secrets_and_databases_out() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    for entry in (".env", "*.sqlite3", ".git", ".venv"):
        assert entry in ignored


def test_the_image_command_without_a_token_explains_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(config.TOKEN_VAR, raising=False)
    (cmd,) = values("CMD")
    assert main(json.loads(cmd)[1:]) == 2
    err = capsys.readouterr().err
    assert config.TOKEN_VAR in err and len(err.strip().splitlines()) == 1


def test_the_bot_runs_as_pid_1_and_gets_sigterm_to_stop_gracefully() -> None:
    (command,) = values("CMD")
    assert json.loads(command) == ["tafl", "bot"]  # exec form: no shell in between
    assert values("STOPSIGNAL") == ["SIGTERM"]
