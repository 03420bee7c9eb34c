"""The `pith` command as a user runs it: a real subprocess, no tracebacks, clear exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith import __version__
from pith.testing import subprocess_env


def pith(
    *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_version() -> None:
    result = pith("--version")
    assert result.returncode == 0
    assert result.stdout == f"pith {__version__}\n"


def test_help_lists_the_tool_command() -> None:
    result = pith("--help")
    assert result.returncode == 0
    assert "tool" in result.stdout


def test_tool_read_prints_the_model_facing_text(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    result = pith("tool", "read", '{"path": "notes.txt", "limit": 2}', cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == "one\ntwo\n\n[2 more lines in file. Use offset=3 to continue.]\n"


def test_tool_json_output_has_content_details_and_error_flag(tmp_path: Path) -> None:
    result = pith("tool", "bash", '{"command": "exit 7"}', "--json", "--cwd", str(tmp_path))
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert payload == {
        "content": [{"type": "text", "text": "(no output)\n\nCommand exited with code 7"}],
        "details": None,
        "isError": True,
    }


def test_tool_arguments_from_stdin(tmp_path: Path) -> None:
    result = pith("tool", "write", "-", cwd=tmp_path, stdin='{"path": "x.txt", "content": "hey"}')
    assert result.returncode == 0
    assert (tmp_path / "x.txt").read_text() == "hey"


def test_bad_json_is_a_one_line_error_with_exit_2(tmp_path: Path) -> None:
    result = pith("tool", "read", "{path: x}", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("pith: tool arguments are not valid JSON")
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_tool_lists_the_available_ones(tmp_path: Path) -> None:
    result = pith("tool", "delete", "{}", cwd=tmp_path)
    assert result.returncode == 2
    assert (
        "unknown tool 'delete'; available tools: read, bash, edit, write, grep, find, ls"
        in result.stderr
    )


def test_wrong_argument_type_is_reported_to_the_caller_like_a_model_would_see_it(
    tmp_path: Path,
) -> None:
    result = pith("tool", "read", '{"path": "a.txt", "limit": "ten"}', cwd=tmp_path)
    assert result.returncode == 1
    assert (
        'Validation failed for tool "read":\n  - limit: expected number, got string'
        in result.stdout
    )


def test_a_request_without_any_model_says_how_to_configure_one(tmp_path: Path) -> None:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY") and key != "PITH_AGENT_DIR"
    }
    env["PITH_AGENT_DIR"] = str(tmp_path / "agent")
    env["PITH_LOCAL_SERVERS"] = ""  # a local Ollama on this machine must not change the answer
    result = pith("-p", "hello", env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("pith: no model configured")
    assert "docs/providers.md" in result.stderr


def test_tool_arguments_nested_too_deep_are_one_line(tmp_path: Path) -> None:
    result = pith("tool", "read", '{"path": ' + "[" * 100_000, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(
        "pith: tool arguments are refused: nested more than 100 levels deep (line 1, column"
    )
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read", {"path": "a\0b"}),
        ("write", {"path": "a\0b", "content": "x"}),
        ("ls", {"path": "a\0b"}),
        ("bash", {"command": "echo a\0b"}),
        ("grep", {"pattern": "a\0b"}),
    ],
)
def test_a_nul_byte_in_a_path_or_command_is_one_clear_error(
    tmp_path: Path, tool: str, arguments: dict[str, str]
) -> None:
    result = pith("tool", tool, json.dumps(arguments), cwd=tmp_path)
    assert result.returncode == 1
    assert "contains a NUL byte" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "ValueError" not in result.stdout + result.stderr
    assert not (tmp_path / "a").exists()


def test_a_working_directory_removed_under_pith_is_one_clear_line(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd "{gone}" && rmdir "{gone}" && exec "{sys.executable}" -m pith -p hello'
    result = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(tmp_path / "agent"),
    )
    assert result.returncode == 2
    assert result.stderr == (
        "pith: the current folder no longer exists (it was removed or renamed after the shell "
        "entered it); cd to an existing folder and run pith again\n"
    )


def test_help_names_the_options_newcomers_look_for(tmp_path: Path) -> None:
    result = pith("--help", cwd=tmp_path)
    for option in ("--session-id", "-nt, --no-tools", "--options", "--yes", "-e, --extension"):
        assert option in result.stdout, option


@pytest.mark.parametrize(
    "argv", [["--options"], ["-p", "--options"], ["--model", "x/y", "--options"]]
)
def test_options_works_wherever_it_stands(tmp_path: Path, argv: list[str]) -> None:
    result = pith(*argv, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--session-dir" in result.stdout


@pytest.mark.parametrize("argv", [["--help", "-e", "EXT"], ["-e", "EXT", "--help"]])
def test_help_with_an_extension_shows_its_flags(tmp_path: Path, argv: list[str]) -> None:
    extension = tmp_path / "shout.py"
    extension.write_text(
        'def register(api):\n    api.register_flag("shout", description="speak loudly")\n'
    )
    result = pith(*[str(extension) if a == "EXT" else a for a in argv], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "--shout" in result.stdout
    assert "speak loudly" in result.stdout
