"""The ``tafl`` command and its settings: subcommands, one-line errors, the token kept secret."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import config
from bot.cli import main

ROOT = Path(__file__).resolve().parent.parent
SECRET = "NzkzNDU2.secret-token.value"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Each test runs in an empty folder (no .env) with none of the project's variables set."""
    for name in config.ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


TAFL = [sys.executable, "-c", "import sys; from bot.cli import main; sys.exit(main())"]
"""The console script's entry point, run from the source tree."""


def run_tafl(
    *args: str, cwd: Path, stdin: str = "", command: list[str] = TAFL
) -> subprocess.CompletedProcess[str]:
    """``tafl ARGS`` as a new process fed ``stdin``, without the project's settings."""
    environ = {k: v for k, v in os.environ.items() if k not in config.ENV_VARS}
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [*command, *args],
        input=stdin,
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# -- settings -------------------------------------------------------------------------------------


def test_settings_default_to_a_database_in_the_current_folder() -> None:
    settings = config.Settings.load(environ={}, env_file=None)
    assert settings.discord_token is None
    assert settings.db_path == Path("tafl.sqlite3")
    assert settings.log_level == "INFO"


def test_environment_wins_over_the_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "# comment\n"
        f"export DISCORD_TOKEN='{SECRET}'\n"
        "TAFL_DB=from-file.sqlite3  # where games go\n"
        "TAFL_LOG_LEVEL=debug\n"
    )
    settings = config.Settings.load(environ={"TAFL_DB": "/data/env.sqlite3"}, env_file=env_file)
    assert settings.discord_token == SECRET
    assert settings.db_path == Path("/data/env.sqlite3")
    assert settings.log_level == "DEBUG"


def test_the_token_never_shows_in_the_settings_repr() -> None:
    settings = config.Settings.load(environ={"DISCORD_TOKEN": SECRET}, env_file=None)
    assert SECRET not in repr(settings) and SECRET not in str(settings)


def test_a_bad_log_level_is_named_with_the_choices() -> None:
    with pytest.raises(config.ConfigError, match=r"TAFL_LOG_LEVEL='LOUD'.*DEBUG, INFO"):
        config.Settings.load(environ={"TAFL_LOG_LEVEL": "loud"}, env_file=None)


def test_a_bad_env_file_line_is_located_without_echoing_it(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={SECRET}\n{SECRET}\n")
    with pytest.raises(config.ConfigError, match=r"line 2: expected KEY=value") as caught:
        config.read_env_file(env_file)
    assert SECRET not in str(caught.value)


# -- tafl bot -------------------------------------------------------------------------------------


def test_bot_without_a_token_exits_2_with_one_line_saying_how_to_get_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bot"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "DISCORD_TOKEN" in err and "discord.com/developers/applications" in err


def test_bot_hands_the_token_to_the_adapter_and_never_prints_it(
    clean_environment: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[object, ...]] = []

    def fake_run(token: str, db_path: Path, sync: bool, guild: int | None) -> None:
        calls.append((token, db_path, sync, guild))

    import bot.discord

    monkeypatch.setattr(bot.discord, "run", fake_run, raising=False)
    (clean_environment / ".env").write_text(f"DISCORD_TOKEN={SECRET}\nTAFL_DB=games.sqlite3\n")
    assert main(["bot", "--sync", "--guild", "42"]) == 0
    assert calls == [(SECRET, Path("games.sqlite3"), True, 42)]
    out, err = capsys.readouterr()
    assert SECRET not in out + err


def test_bot_guild_without_sync_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", SECRET)
    assert main(["bot", "--guild", "42"]) == 2
    err = capsys.readouterr().err
    assert "--guild goes with --sync" in err and SECRET not in err


# -- usage errors and variants --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "required: COMMAND"),
        (["dance"], "invalid choice: 'dance'"),
        (["play", "--bogus"], "unrecognized arguments: --bogus"),
        (["render", "/11/"], "required: -o/--output"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_variants_lists_every_variant_with_its_size_and_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from engine import VARIANTS

    assert main(["variants"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(VARIANTS)
    for line, (variant_id, rules) in zip(lines, VARIANTS.items(), strict=True):
        assert line.split()[0] == variant_id
        assert f"{rules.size}x{rules.size}" in line and rules.name in line
    assert sum("(default)" in line for line in lines) == 1


def test_the_console_script_runs_as_a_process(clean_environment: Path) -> None:
    done = run_tafl("variants", cwd=clean_environment)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("copenhagen")
    done = run_tafl("bot", cwd=clean_environment)
    assert (
        done.returncode == 2 and "DISCORD_TOKEN" in done.stderr and "Traceback" not in done.stderr
    )


def test_python_dash_m_bot_runs_the_bot_command(clean_environment: Path) -> None:
    done = run_tafl(cwd=clean_environment, command=[sys.executable, "-m", "bot"])
    assert done.returncode == 2
    assert done.stderr.startswith("tafl: no Discord token") and done.stdout == ""
