"""Slash commands in print and JSON mode, through the real `pith` command: those that make
sense without a terminal run (their output on stdout), the terminal-only ones and unknown
`/words` are refused with one line and exit code 2 — and none of them reaches the model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

EXTENSION = """
from pith.extensions import ExtensionAPI


def register(api: ExtensionAPI) -> None:
    async def pick(args, ctx):
        choice = await ctx.ui.select("Which one?", ["a", "b"])
        ctx.ui.notify(f"picked {choice}")

    async def shout(args, ctx):
        ctx.ui.notify(args.upper())

    api.register_command("pick", pick, description="choose in a menu", needs_ui=True)
    api.register_command("shout", shout, description="say it louder")
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "shout.py").write_text(EXTENSION)
    return subprocess_env(tmp_path / "agent")


def pith(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", "--model", "fake/m", "-e", "shout.py", *args],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def session_file(tmp_path: Path) -> Path:
    [path] = sorted((tmp_path / "agent" / "sessions").glob("*/*.jsonl"))
    return path


def entries(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in session_file(tmp_path).read_text().splitlines()]


def one_run_then(
    tmp_path: Path, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    """`pith -p "first question"` answered "first answer", then `pith -p -c ARGS`; asserts the
    second run asked the model nothing."""
    with FakeServer({"turns": [{"text": "first answer"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        first = pith(tmp_path, env, "-p", "first question")
        assert first.returncode == 0, first.stderr
        result = pith(tmp_path, env, "-c", *args)
        assert len(server.requests) == 1, "a command reached the model"
        assert server.problems() == []
    assert "Traceback" not in result.stderr
    return result


def refused(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`pith ARGS` in a new session, asserting the model was asked nothing and exit code 2."""
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, env, *args)
        assert server.requests == [], "a command reached the model"
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return result


def test_name_names_the_session(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/name my work")
    assert result.returncode == 0, result.stderr
    infos = [e for e in entries(tmp_path) if e["type"] == "session_info"]
    assert [info["name"] for info in infos] == ["my work"]
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        shown = pith(tmp_path, env, "-c", "-p", "/name")
        assert server.requests == []
    assert shown.stdout == "This session is called 'my work'.\n"


def test_session_prints_the_summary_on_stdout(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/session")
    assert result.returncode == 0, result.stderr
    session_id = entries(tmp_path)[0]["id"]
    assert f"file      {session_file(tmp_path)}\n" in result.stdout
    assert f"id        {session_id}\n" in result.stdout
    assert "messages  1 yours, 1 replies, 0 tool results\n" in result.stdout


def test_context_prints_what_pith_context_shows(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/context")
    assert result.returncode == 0, result.stderr
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        report = subprocess.run(
            [sys.executable, "-m", "pith", "context", "-e", "shout.py"],
            cwd=tmp_path / "work",
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert report.returncode == 0, report.stderr
    assert result.stdout == report.stdout
    assert "first question" in result.stdout


def test_tree_prints_the_tree_as_text(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/tree")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "• you: first question\n◉ pith: first answer\n"


def test_help_lists_the_commands(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/help")
    assert result.returncode == 0, result.stderr
    assert "/session  " in result.stdout
    assert "/shout  " in result.stdout
    assert "say it louder" in result.stdout
    assert "(needs the terminal)" in result.stdout


@pytest.mark.parametrize(
    "command",
    ["/settings", "/resume", "/model", "/thinking", "/copy", "/quit", "/exit", "/pick"],
)
def test_a_terminal_only_command_is_refused_with_one_line(
    tmp_path: Path, env: dict[str, str], command: str
) -> None:
    result = refused(tmp_path, env, "-p", command)
    [line] = result.stderr.splitlines()
    assert line.startswith(f"pith: {command} needs the terminal")


def test_a_refused_command_stops_the_run_before_anything_is_sent(
    tmp_path: Path, env: dict[str, str]
) -> None:
    result = one_run_then(tmp_path, env, "-p", "a question", "/settings")
    assert result.returncode == 2
    assert len([e for e in entries(tmp_path) if e["type"] == "message"]) == 2


def test_an_unknown_command_is_refused_and_says_how_to_send_it(
    tmp_path: Path, env: dict[str, str]
) -> None:
    result = refused(tmp_path, env, "-p", "/frobnicate the widget")
    assert result.stderr == (
        "pith: unknown command /frobnicate; to send it as text, start with a space "
        '(" /frobnicate …"); /help lists the commands\n'
    )


def test_a_leading_space_sends_a_slash_word_as_text(tmp_path: Path, env: dict[str, str]) -> None:
    script = {"turns": [{"text": "sent", "expect": ["/frobnicate the widget"]}]}
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, env, "-p", " /frobnicate the widget")
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert result.stdout == "sent\n"


@pytest.mark.parametrize("text", ["/etc/hosts explain this", "/tmp what lives here?"])
def test_a_path_at_the_start_is_text(tmp_path: Path, env: dict[str, str], text: str) -> None:
    script = {"turns": [{"text": "a path", "expect": [text]}]}
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, env, "-p", text)
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert result.stdout == "a path\n"


def test_an_extension_command_runs_without_the_model(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/shout hello")
    assert result.returncode == 0, result.stderr
    assert "HELLO" in result.stderr


def test_json_mode_writes_a_commands_output_as_a_record(
    tmp_path: Path, env: dict[str, str]
) -> None:
    result = one_run_then(tmp_path, env, "--mode", "json", "/tree")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[0]["type"] == "session"
    assert records[1:] == [
        {
            "type": "command_output",
            "command": "tree",
            "text": "• you: first question\n◉ pith: first answer\n",
        }
    ]


def test_model_and_thinking_with_an_argument_run(tmp_path: Path, env: dict[str, str]) -> None:
    result = one_run_then(tmp_path, env, "-p", "/model fake/m", "/thinking off")
    assert result.returncode == 0, result.stderr
    assert "Model: fake/m" in result.stderr
    assert "Thinking: off" in result.stderr
