"""The ``tafl`` command and its settings: subcommands, one-line errors, the token kept secret."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bot import config
from bot.cli import main
from bot.models import GameStatus
from bot.service import GameService
from bot.storage import open_store
from engine import Side

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
    *args: str,
    cwd: Path,
    stdin: str = "",
    command: list[str] = TAFL,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``tafl ARGS`` as a new process fed ``stdin``, without the project's settings."""
    environ = {k: v for k, v in os.environ.items() if k not in config.ENV_VARS}
    environ["PYTHONPATH"] = str(ROOT)
    environ.update(env or {})
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
    assert settings.db == Path("tafl.sqlite3")
    assert settings.log_level == "INFO"
    assert settings.move_timeout == timedelta(hours=24)


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
    assert settings.db == Path("/data/env.sqlite3")
    assert settings.log_level == "DEBUG"


def test_the_token_never_shows_in_the_settings_repr() -> None:
    settings = config.Settings.load(environ={"DISCORD_TOKEN": SECRET}, env_file=None)
    assert SECRET not in repr(settings) and SECRET not in str(settings)


def test_a_bad_log_level_is_named_with_the_choices() -> None:
    with pytest.raises(config.ConfigError, match=r"TAFL_LOG_LEVEL='loud'.*DEBUG, INFO"):
        config.Settings.load(environ={"TAFL_LOG_LEVEL": "loud"}, env_file=None)


def test_the_move_timeout_is_a_positive_number_of_hours() -> None:
    settings = config.Settings.load(environ={"TAFL_MOVE_TIMEOUT_HOURS": " 0.25 "}, env_file=None)
    assert settings.move_timeout == timedelta(minutes=15)
    for bad in ("0", "-3", "soon", "nan", "inf"):
        with pytest.raises(config.ConfigError, match=r"TAFL_MOVE_TIMEOUT_HOURS=.*positive"):
            config.Settings.load(environ={"TAFL_MOVE_TIMEOUT_HOURS": bad}, env_file=None)


def test_a_bad_env_file_line_is_located_without_echoing_it(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={SECRET}\n{SECRET}\n")
    with pytest.raises(config.ConfigError, match=r"line 2: expected KEY=value") as caught:
        config.read_env_file(env_file)
    assert SECRET not in str(caught.value)


def test_a_bad_value_from_the_env_file_is_located_by_file_and_line(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("TAFL_DB=games.sqlite3\nTAFL_LOG_LEVEL=loud\n")
    with pytest.raises(config.ConfigError, match=r"\.env, line 2: TAFL_LOG_LEVEL='loud'"):
        config.Settings.load(environ={}, env_file=env_file)
    with pytest.raises(config.ConfigError, match=r"^TAFL_LOG_LEVEL='noisy'"):
        config.Settings.load(environ={"TAFL_LOG_LEVEL": "noisy"}, env_file=env_file)


def test_a_malformed_env_file_breaks_only_the_commands_that_read_settings(
    clean_environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (clean_environment / ".env").write_text(f"DISCORD_TOKEN={SECRET}\nnot a setting\n")
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    assert main(["variants"]) == 0
    assert "copenhagen" in capsys.readouterr().out
    for command in (["bot"], ["play"]):
        assert main(command) == 1
        err = capsys.readouterr().err
        assert err == "tafl: .env, line 2: expected KEY=value\n"
        assert SECRET not in err


def test_a_bug_is_not_taken_for_bad_input_it_shows_its_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import bot.cli

    def broken(args: object) -> int:
        raise ValueError("a bug, not a refusal")

    monkeypatch.setattr(bot.cli, "run_variants", broken)
    with pytest.raises(ValueError, match="a bug"):
        main(["variants"])
    from engine import TaflError

    assert issubclass(config.ConfigError, TaflError)  # what main reports as one line


def test_a_file_that_is_not_text_gets_one_line(
    clean_environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (clean_environment / "game.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert main(["replay", "game.png"]) == 1
    assert capsys.readouterr().err == "tafl: game.png is not UTF-8 text; expected a game record\n"


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

    def fake_run(
        token: str,
        db_path: str,
        *,
        sync: bool,
        guild: int | None,
        move_timeout: timedelta,
        shard_count: int | None,
        shard_ids: tuple[int, ...] | None,
    ) -> None:
        calls.append((token, db_path, sync, guild, move_timeout, shard_count, shard_ids))

    import bot.discord

    monkeypatch.setattr(bot.discord, "run", fake_run, raising=False)
    (clean_environment / ".env").write_text(
        f"DISCORD_TOKEN={SECRET}\nTAFL_DB=games.sqlite3\nTAFL_MOVE_TIMEOUT_HOURS=1.5\n"
    )
    assert main(["bot", "--sync", "--guild", "42"]) == 0
    hours = timedelta(hours=1, minutes=30)
    assert calls == [(SECRET, "games.sqlite3", True, 42, hours, None, None)]
    out, err = capsys.readouterr()
    assert SECRET not in out + err

    with (clean_environment / ".env").open("a") as env:
        env.write("TAFL_SHARD_COUNT=4\nTAFL_SHARD_IDS=3,1\n")
    assert main(["bot"]) == 0
    assert calls.pop() == (SECRET, "games.sqlite3", False, None, hours, 4, (1, 3))
    assert main(["bot", "--shard-count", "2", "--shard-ids", "0"]) == 0  # the options win
    assert calls.pop()[-2:] == (2, (0,))
    assert main(["bot", "--shard-count", "2"]) == 0
    assert calls.pop()[-2:] == (2, None)


@pytest.mark.parametrize(
    ("argv", "environ", "message"),
    [
        (["--shard-ids", "0"], {}, "--shard-ids needs --shard-count"),
        (["--shard-count", "2", "--shard-ids", "0,2"], {}, "shard numbers from 0 to 1"),
        (["--shard-count", "0"], {}, "--shard-count='0' is not a number of shards"),
        ([], {"TAFL_SHARD_COUNT": "two"}, "TAFL_SHARD_COUNT='two' is not a number of shards"),
        ([], {"TAFL_SHARD_COUNT": "2", "TAFL_SHARD_IDS": "1,x"}, "TAFL_SHARD_IDS='1,x' should"),
    ],
)
def test_bad_shard_settings_are_refused_with_what_is_expected(
    argv: list[str],
    environ: dict[str, str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import bot.discord

    monkeypatch.setattr(bot.discord, "run", lambda *a, **k: pytest.fail("ran"), raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", SECRET)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["bot", *argv]) in (1, 2)
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err


def test_bot_guild_without_sync_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", SECRET)
    assert main(["bot", "--guild", "42"]) == 2
    err = capsys.readouterr().err
    assert "--guild goes with --sync" in err and SECRET not in err


# -- tafl health ----------------------------------------------------------------------------------


def test_health_is_one_line_with_status_0_or_1(
    clean_environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.health import heartbeat_path, write_heartbeat
    from bot.models import utc_now

    assert main(["health"]) == 1
    assert capsys.readouterr().err == "tafl: unhealthy: there is no database at tafl.sqlite3\n"
    asyncio.run(create_database(clean_environment / "tafl.sqlite3"))
    write_heartbeat(heartbeat_path("tafl.sqlite3"), utc_now())
    assert main(["health", "--db", "tafl.sqlite3"]) == 0
    assert capsys.readouterr().out.startswith("healthy: database schema ")


async def create_database(path: Path) -> None:
    store = await open_store(path)
    await store.close()


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
    assert err.startswith("tafl: ") and not err.startswith("tafl: tafl")


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    import bot
    import engine
    import renderer

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"tafl {version('tafl-bot')}\n"
    assert engine.__version__ == renderer.__version__ == bot.__version__ == version("tafl-bot")


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


# -- tafl play as a user runs it ------------------------------------------------------------------

ESCAPE_GAME = "d6-c6 e4-e6 d1-e1 d5-g5 f4-f5 d3-g3 b4-b3 d4-g4 d7-f7 g3-f3 d2-g2 g4-g3 e1-e2 g3-g1"
"""A Brandubh game of shared/data/brandubh.csv: the defenders take g4 and g2, the king escapes."""


def lines(*commands: str) -> str:
    return "".join(f"{command}\n" for command in commands)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_play_quit_resume_and_finish_in_a_subprocess(
    clean_environment: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    moves = ESCAPE_GAME.split()
    db = "games.sqlite3" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    first = run_tafl(
        "play", "--variant", "brandubh", "--db", db,
        cwd=clean_environment,
        stdin=lines(*moves[:2], "d1-d9", "d1-e1", "undo", *moves[2:6], "quit"),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "d1-d9: d9 is off the board; squares go from a1 to g7" in out
    assert "took back attackers d1-e1" in out
    assert "3. defenders d3-g3, capturing g4" in out
    assert "Game #1 is saved (6 plies)" in out and f"tafl play --resume --db {db}" in out

    refused = run_tafl("play", "--db", db, cwd=clean_environment, stdin=lines("d6-c6"))
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("tafl: an unfinished game is saved (game #1, Brandubh")

    second = run_tafl(
        "play", "--resume", "--db", db, cwd=clean_environment, stdin=lines(*moves[6:])
    )
    assert second.returncode == 0, second.stderr
    report = second.stdout.split("\n\nBrandubh, game #1\n", 1)[1].splitlines()
    assert report[1:4] == [
        "Player 2 (defenders) won: the king escaped.",
        "7 moves (14 plies).",
        "Captures: attackers 0, defenders 2.",
    ]
    assert report[4].startswith("Duration: ") and report[4].endswith(" s.")
    assert report[5:] == [
        "",
        "1. d6-c6 e4-e6",
        "2. d1-e1 d5-g5",
        "3. f4-f5 d3-g3xg4",
        "4. b4-b3 d4-g4",
        "5. d7-f7 g3-f3",
        "6. d2-g2 g4-g3xg2",
        "7. e1-e2 g3-g1",
        f"Saved as game #1 in {db}.",
    ]

    nothing = run_tafl("play", "--resume", "--db", db, cwd=clean_environment)
    assert nothing.returncode == 1
    assert (
        nothing.stderr
        == "tafl: there is no unfinished game to resume; start one with `tafl play`\n"
    )

    async def saved() -> tuple[GameStatus, list[str], str]:
        store = await open_store(db if kind == "postgresql" else clean_environment / db)
        try:
            state = await GameService(store).get_game(1)
        finally:
            await store.close()
        return state.status, [p.notation for p in state.game.history], state.game.rules.id

    status, notations, variant = asyncio.run(saved())
    assert status is GameStatus.FINISHED and variant == "brandubh"
    expected = list(moves)
    expected[5] += "xg4"
    expected[11] += "xg2"
    assert notations == expected


def test_play_draws_with_letters_when_the_output_cannot_encode_unicode(
    clean_environment: Path,
) -> None:
    done = run_tafl(
        "play", "--variant", "brandubh", cwd=clean_environment, stdin=lines("d6-c6"),
        env={"PYTHONIOENCODING": "ascii"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "4 | t t T K T t t | 4" in done.stdout
    assert (clean_environment / "tafl.sqlite3").exists()


# -- replay and render ----------------------------------------------------------------------------

ESCAPE_CSV = (
    "d6-c6 e4-e6 d1-e1 d5-g5 f4-f5 d3-g3xg4 b4-b3 d4-g4 d7-f7 g3-f3 d2-g2 g4-g3xg2 e1-e2 g3-g1"
    ",0,2,White\n"
)


def report_lines(stdout: str) -> list[str]:
    """The report's lines from its title (which names the game's id when it is stored)."""
    lines = stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if re.fullmatch(r"Brandubh(, game #\d+)?", line))
    return lines[title:]


def test_replay_of_a_csv_line_checks_it_and_prints_the_play_report(clean_environment: Path) -> None:
    (clean_environment / "game.csv").write_text(ESCAPE_CSV)
    done = run_tafl("replay", "game.csv", "--variant", "brandubh", cwd=clean_environment)
    assert done.returncode == 0, done.stderr
    played = run_tafl(
        "play", "--variant", "brandubh", cwd=clean_environment, stdin=lines(*ESCAPE_GAME.split())
    )
    replayed = report_lines(done.stdout)
    assert replayed[:5] == [  # a record has no game number and no times: nothing made up
        "Brandubh",
        "Attackers: Player 1, Defenders: Player 2",
        "Player 2 (defenders) won: the king escaped.",
        "7 moves (14 plies).",
        "Captures: attackers 0, defenders 2.",
    ]
    assert "#0" not in done.stdout and "Duration" not in done.stdout
    title, *story = report_lines(played.stdout)
    assert title == "Brandubh, game #1"
    *played_story, saved = story
    assert saved.startswith("Saved as game #1 in ")
    assert [line for line in played_story if not line.startswith("Duration: ")] == replayed[1:]
    assert "1 │ ▫ · · · · · ♔ │ 1" in done.stdout  # the king on his corner


def test_replay_of_an_opentafl_record(clean_environment: Path) -> None:
    from bot.cli import read_game
    from engine.record import to_opentafl_record

    (clean_environment / "game.csv").write_text(ESCAPE_CSV)
    record = to_opentafl_record(read_game(clean_environment / "game.csv", "brandubh").game)
    (clean_environment / "game.txt").write_text(record)
    done = run_tafl("replay", "game.txt", cwd=clean_environment)
    assert done.returncode == 0, done.stderr
    assert "Player 2 (defenders) won: the king escaped." in done.stdout
    assert "6. d2-g2 g4-g3xg2" in done.stdout
    assert "game #" not in done.stdout and "Duration" not in done.stdout

    piped = run_tafl("replay", "-", cwd=clean_environment, stdin=record)
    assert piped.returncode == 0 and piped.stdout == done.stdout

    (clean_environment / "bad.txt").write_text(record.replace("g3-f3", "g3-g2"))
    bad = run_tafl("replay", "bad.txt", cwd=clean_environment)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr == (
        "tafl: move 6 (attackers: d2-g2): g2 is taken: a piece moves only onto an empty square\n"
    )


def test_replay_says_where_the_rules_end_a_game_before_its_record(
    capsys: pytest.CaptureFixture[str], clean_environment: Path
) -> None:
    shuffle = "g4-g5 e4-e5 g5-g4 e5-e4 " * 2 + "g4-g5"
    (clean_environment / "draw.csv").write_text(f"{shuffle},0,0,Draw\n")
    assert main(["replay", "draw.csv", "--variant", "brandubh"]) == 0
    out = capsys.readouterr().out
    assert "these rules end the game after 8 plies; the record goes on for 1 more" in out
    assert "Draw: the position was repeated three times." in out


def test_replay_of_an_unfinished_game_lists_its_moves(
    capsys: pytest.CaptureFixture[str], clean_environment: Path
) -> None:
    (clean_environment / "open.csv").write_text("b4-b3 c4-c5 d6-c6,0,0,Ongoing\n")
    assert main(["replay", "open.csv", "--variant", "brandubh"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-3:] == [
        "Brandubh: not finished; defenders to move after 3 plies.",
        "1. b4-b3 c4-c5",
        "2. d6-c6",
    ]


@pytest.mark.parametrize(
    ("argv", "files", "message"),
    [
        (["replay", "missing.txt"], {}, "missing.txt: No such file or directory"),
        (["replay", "empty.csv"], {"empty.csv": "\n"}, "empty.csv is empty"),
        (["replay", "two.csv"], {"two.csv": ESCAPE_CSV * 2}, "has 2 lines"),
        (["replay", "game.csv"], {"game.csv": ESCAPE_CSV}, "ply 1 (attackers: d6-c6)"),
        (["replay", "x.csv"], {"x.csv": "d6-c6,0,0,Nobody\n"}, "the result one of"),
        (["play", "--variant", "chess"], {}, "unknown variant 'chess'; choose one of: copenhagen"),
        (["play", "--ai", "kings"], {}, "--ai takes the side the computer plays"),
        (["play", "--level", "hard"], {}, "--level is the computer's: say which side"),
        (["play", "--resume", "--variant", "tablut"], {}, "--resume goes on with the saved"),
        (["play", "--db", "no/such/dir/t.sqlite3"], {}, "no/such/dir is not a folder"),
        (["play", "--db", "x.txt"], {"x.txt": "a\n" * 100}, "x.txt as the game database: file"),
        (["render", "/7/", "-o", "x.png"], {}, "the position has 1 ranks"),
        (["render", "nothing.txt", "-o", "x.png"], {}, "nothing.txt: No such file"),
        (["render", "/no/game.txt", "-o", "x.png"], {}, "/no/game.txt: No such file"),
    ],
)
def test_bad_input_gets_one_line_and_a_non_zero_status(
    argv: list[str],
    files: dict[str, str],
    message: str,
    clean_environment: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, text in files.items():
        (clean_environment / name).write_text(text)
    assert main(argv) != 0
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("tafl: ")
    assert message in err
    assert not (clean_environment / "tafl.sqlite3").exists()
    for name, text in files.items():
        assert (clean_environment / name).read_text() == text


def test_play_refuses_custom_rules_that_cannot_be_played(
    clean_environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--variant", "dim:7 start:/K6/7/7/7/7/7/3t3/"]) != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "tafl: start: the king starts on a1, on a corner, where he has already escaped\n"


def test_render_a_position_and_a_record(
    capsys: pytest.CaptureFixture[str], clean_environment: Path
) -> None:
    from engine import VARIANTS

    start = VARIANTS["brandubh"].start
    assert main(["render", start, "--variant", "brandubh", "-o", "start.png"]) == 0
    (clean_environment / "game.csv").write_text(ESCAPE_CSV)
    assert main(["render", "game.csv", "--variant", "brandubh", "-o", "end.png"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "wrote start.png (Brandubh, after 0 plies)",
        "wrote end.png (Brandubh, after 14 plies)",
    ]
    for name in ("start.png", "end.png"):
        assert (clean_environment / name).read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert (clean_environment / "start.png").read_bytes() != (
        clean_environment / "end.png"
    ).read_bytes()


def test_ctrl_c_at_the_prompt_quits_at_once_and_keeps_the_game(clean_environment: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if k not in config.ENV_VARS}
    environ["PYTHONPATH"] = str(ROOT)
    process = subprocess.Popen(
        [*TAFL, "play", "--variant", "brandubh"],
        cwd=clean_environment,
        env=environ,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("d6-c6\n")
    process.stdin.flush()
    seen = ""
    while not seen.endswith("1. defenders> "):
        char = process.stdout.read(1)
        assert char, f"tafl stopped before its second prompt: {seen[-300:]}"
        seen += char
    process.send_signal(signal.SIGINT)  # the input stays open: only the interrupt can end it
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Game #1 is saved (1 ply)" in out and "Traceback" not in err


# -- tafl db --------------------------------------------------------------------------------------


def tafl_out(capsys: pytest.CaptureFixture[str], *argv: str, status: int = 0) -> str:
    """What ``tafl ARGV`` prints (on stdout if it succeeds, stderr if not), checked to be one
    line, after checking its exit status."""
    assert main(list(argv)) == status
    out, err = capsys.readouterr()
    said = out if status == 0 else err
    assert said.count("\n") == 1 and (err == "" if status == 0 else out == ""), (out, err)
    return said.strip()


async def play_a_game(db: str | Path) -> None:
    from bot.models import Channel, Player
    from engine import Side

    store = await open_store(db)
    try:
        service = GameService(store)
        players = {Side.ATTACKERS: Player("a", "A"), Side.DEFENDERS: Player("b", "B")}
        state = await service.start_game(Channel("here"), players, "brandubh")
        await service.move(state.channel, players[Side.ATTACKERS], "d1-e1")
    finally:
        await store.close()


async def dump_of(db: str | Path) -> dict[str, list[tuple[object, ...]]]:
    store = await open_store(db)
    try:
        async with store.reading() as session:
            return await session.dump()
    finally:
        await store.close()


def test_db_current_and_migrate_on_a_sqlite_file(
    capsys: pytest.CaptureFixture[str], clean_environment: Path
) -> None:
    from bot.storage import MIGRATIONS, newest_migration

    newest = newest_migration(MIGRATIONS / "sqlite")
    said = tafl_out(capsys, "db", "current", status=1)
    assert said == "tafl: there is no database at tafl.sqlite3"
    assert not (clean_environment / "tafl.sqlite3").exists()
    said = tafl_out(capsys, "db", "migrate")
    assert said == f"tafl.sqlite3: schema version migrated from 0 to {newest}"
    assert tafl_out(capsys, "db", "migrate") == f"tafl.sqlite3: schema version already at {newest}"
    said = tafl_out(capsys, "db", "current")
    assert said == f"tafl.sqlite3: schema version {newest} (up to date)"


def test_db_current_and_migrate_on_postgresql(
    capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    from bot.storage import MIGRATIONS, newest_migration

    newest = newest_migration(MIGRATIONS / "postgresql")
    said = tafl_out(capsys, "db", "current", "--db", postgres_url)
    assert said == f"{postgres_url}: schema version 0 (newest {newest}: run `tafl db migrate`)"
    said = tafl_out(capsys, "db", "migrate", "--db", postgres_url)
    assert said.endswith(f"schema version migrated from 0 to {newest}")
    said = tafl_out(capsys, "db", "current", "--db", postgres_url)
    assert said.endswith(f"schema version {newest} (up to date)")


def test_db_copy_moves_a_server_to_postgresql_and_back(
    capsys: pytest.CaptureFixture[str], clean_environment: Path, postgres_url: str
) -> None:
    asyncio.run(play_a_game("tafl.sqlite3"))
    said = tafl_out(capsys, "db", "copy", "tafl.sqlite3", postgres_url)
    assert said == (
        "copied games: 1, game_players: 2, moves: 1, announcements: 1"
        f" from tafl.sqlite3 to {postgres_url}"
    )
    said = tafl_out(capsys, "db", "copy", "tafl.sqlite3", postgres_url, status=1)
    assert said == (
        f"tafl: {postgres_url} already holds games: 1, game_players: 2, moves: 1,"
        " announcements: 1; copy into an empty database, or add --replace to delete what it"
        " holds first"
    )
    assert tafl_out(capsys, "db", "copy", "tafl.sqlite3", postgres_url, "--replace")
    assert tafl_out(capsys, "db", "copy", postgres_url, "back.sqlite3")
    assert asyncio.run(dump_of(Path("back.sqlite3"))) == asyncio.run(dump_of(Path("tafl.sqlite3")))


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["db", "copy", "none.sqlite3", "b.sqlite3"], 1, "there is no database at none.sqlite3"),
        (["db", "copy", "tafl.sqlite3", "tafl.sqlite3"], 2, "SOURCE and TARGET are the same"),
        (["db", "migrate", "--db", "no/such/dir/t.sqlite3"], 1, "no/such/dir is not a folder"),
        (["db", "current", "--db", "not-a-db.txt"], 1, "can't use not-a-db.txt as the game"),
        (["db", "frobnicate"], 2, "invalid choice: 'frobnicate'"),
    ],
)
def test_db_refusals_are_one_line(
    argv: list[str],
    status: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
    clean_environment: Path,
) -> None:
    (clean_environment / "tafl.sqlite3").touch()
    (clean_environment / "not-a-db.txt").write_text("plain text\n" * 100)
    assert message in tafl_out(capsys, *argv, status=status)
    assert (clean_environment / "not-a-db.txt").read_text() == "plain text\n" * 100


def test_an_unreachable_postgresql_is_one_line_with_the_password_hidden(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    url = f"postgresql://tafl:s3cret@/tafl?host={tmp_path}&port=1"
    said = tafl_out(capsys, "db", "current", "--db", url, status=1)
    assert "s3cret" not in said and said.startswith("tafl: ")
    assert "postgresql://tafl:***@/tafl" in said


def test_stats_and_the_ratings_rebuild_read_the_local_database(
    capsys: pytest.CaptureFixture[str], clean_environment: Path
) -> None:
    from bot.ratings import NEW, display, update
    from bot.terminal import play_in_terminal

    def printed(*argv: str) -> str:
        assert main(list(argv)) == 0
        return capsys.readouterr().out

    assert "there is no database at tafl.sqlite3" in tafl_out(capsys, "stats", status=1)
    for _ in range(2):
        report = asyncio.run(
            play_in_terminal(
                "tafl.sqlite3", io.StringIO("resign\n"), io.StringIO(), variant="brandubh",
                ai_side=Side.ATTACKERS, level="easy", ai_time_limit=0.05,
            )
        )  # fmt: skip
        assert report is not None and report.rated
    you = update(update(NEW, [(NEW, 0)]), [(update(NEW, [(NEW, 1)]), 0)])
    shown = printed("stats")
    assert shown.splitlines()[:3] == [
        "You: 2 finished games.",
        f"Rating in Brandubh: {display(you)} (±{you.deviation:.0f}; 2 rated games, W/D/L 0/0/2)",
        "As defenders: 0 won, 0 drawn, 2 lost.",
    ]
    assert "Most played: Brandubh (2 games).\nRecent form (newest first): L L." in shown
    assert shown.count("lost against Tafl AI (easy) as defenders: resignation; 1 ply") == 3
    said = tafl_out(capsys, "ratings", "rebuild")
    assert said == "tafl.sqlite3: ratings rebuilt from 2 rated games"
    assert printed("stats") == shown
    ai = printed("stats", "--player", "ai:tafl:easy", "--variant", "brandubh")
    assert ai.startswith("Tafl AI (easy): 2 finished games.")
    refused = tafl_out(capsys, "stats", "--variant", "chess", status=2)
    assert refused.startswith("tafl: unknown variant 'chess'; choose one of copenhagen")
