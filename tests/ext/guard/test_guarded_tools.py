"""The guard on real tool calls: `pith tool` as a user runs it, and a model's calls through the
fake server — the views re-applied to the full output, exit statuses as bash reports them,
arguments repaired, misspelled tool names renamed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from pith.tools import BACKGROUND_NOTE
from tests.background import stop_loop


@dataclass
class Cli:
    tmp_path: Path
    env: dict[str, str]

    @property
    def work(self) -> Path:
        return self.tmp_path / "work"

    @property
    def agent(self) -> Path:
        return self.tmp_path / "agent"

    def settings(self, guard: dict[str, object]) -> None:
        (self.agent / "settings.json").write_text(json.dumps({"guard": guard}))

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pith", *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    def bash(self, command: str) -> dict[str, Any]:
        result = self.run("tool", "bash", json.dumps({"command": command}), "--json")
        assert "Traceback" not in result.stderr, result.stderr
        payload = json.loads(result.stdout)
        payload["stderr"] = result.stderr
        return payload


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    (tmp_path / "work").mkdir()
    (tmp_path / "agent").mkdir()
    return Cli(tmp_path, subprocess_env(tmp_path / "agent"))


def text(payload: dict[str, Any]) -> str:
    return "".join(block["text"] for block in payload["content"])


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("seq 1 5 | head -n2", "1\n2"),
        ("seq 1 5 | tail -n2", "4\n5"),
        ("yes | head -5", "y\ny\ny\ny\ny"),
        ("seq 1 20 | sort -rn | head -3", "20\n19\n18"),
        ("printf 'é\\nü\\nß\\n' | tail -n 1", "ß"),
        ("echo start && seq 1 10 | tail -2", "start\n9\n10"),
    ],
)
def test_views_give_what_bash_gives(cli: Cli, command: str, expected: str) -> None:
    # trailing whitespace is trimmed from a projection (docs/guard.md)
    assert text(cli.bash(command)).rstrip("\n") == expected


def test_the_projection_comes_from_the_full_output(cli: Cli) -> None:
    payload = cli.bash("seq 1 100000 | tail -3")
    assert text(payload) == "99998\n99999\n100000"
    guard = payload["details"]["guard"]
    assert guard["outcome"] == "projection-applied"
    assert guard["originalCommand"] == "seq 1 100000 | tail -3"
    assert guard["cleanedCommand"] == "seq 1 100000"
    assert guard["removedPipeline"] == "tail -3"
    assert Path(payload["details"]["fullOutputPath"]).read_text().count("\n") == 100000


def test_a_view_that_matches_nothing_exits_like_bash(cli: Cli) -> None:
    payload = cli.bash("printf 'a\\n' | grep nomatch")
    assert text(payload) == "(no output)\n\nCommand exited with code 1"
    assert payload["isError"] is True


def test_a_failing_command_whose_view_succeeds_exits_zero(cli: Cli) -> None:
    payload = cli.bash("(seq 1 3; exit 4) | tail -1")
    assert text(payload) == "3"
    assert payload["isError"] is False


def test_a_short_circuited_prefix_skips_the_view(cli: Cli) -> None:
    payload = cli.bash("cd missing-folder && echo hi && seq 1 3 | tail -1")
    assert "missing-folder" in text(payload)
    assert text(payload).endswith("Command exited with code 1")
    assert payload["details"]["guard"]["outcome"] == "full-output"


def test_a_redirected_view_still_writes_its_file(cli: Cli) -> None:
    payload = cli.bash("seq 1 5 | head -2 > out.txt")
    assert text(payload) == "(no output)"
    assert (cli.work / "out.txt").read_text() == "1\n2\n"


def test_status_readers_are_left_alone(cli: Cli) -> None:
    payload = cli.bash("printf 'a\\n' | grep nomatch; echo \"R=$?\"")
    assert text(payload) == "R=1\n"
    assert "guard" not in (payload["details"] or {})


def test_a_slow_command_keeps_its_full_output_and_says_where(cli: Cli) -> None:
    cli.settings({"fastThresholdMs": 0})
    payload = cli.bash("seq 1 50 | tail -2")
    shown = text(payload)
    assert shown.startswith("49\n50\n\n[This command took")
    path = payload["details"]["fullOutputPath"]
    assert Path(path).name.startswith("pith-guard-")
    assert Path(path).read_text().splitlines()[0] == "1"
    assert path in shown
    assert "instead of running the command again" in shown
    assert "applied the view to its full output" in payload["stderr"]


def test_the_guard_can_be_turned_off(cli: Cli) -> None:
    cli.settings({"enabled": False})
    payload = cli.bash("seq 1 5 | head -n2")
    assert text(payload) == "1\n2\n"
    assert "guard" not in (payload["details"] or {})


def test_a_bad_guard_setting_is_a_warning(cli: Cli) -> None:
    cli.settings({"fastThresholdMs": "soon"})
    payload = cli.bash("seq 1 3 | head -1")
    assert text(payload) == "1"
    assert 'settings "guard.fastThresholdMs" must be a whole number' in payload["stderr"]


def test_argument_aliases_are_repaired_and_reported(cli: Cli) -> None:
    (cli.work / "notes.txt").write_text("one\ntwo\n")
    result = cli.run("tool", "read", '{"file_path": "notes.txt", "limit": "1"}', "--json")
    payload = json.loads(result.stdout)
    assert text(payload).startswith("one\n")
    renames = payload["details"]["guard"]["renames"]
    assert {"source": "file_path", "target": "path", "kind": "renamed"} in renames


def test_a_misspelled_tool_name_is_repaired(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the notes\n")
    env = subprocess_env(tmp_path / "agent")
    script = {
        "turns": [
            {"tool_calls": [{"name": "raed", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": "codemod", "arguments": {}}]},
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = subprocess.run(
            [sys.executable, "-m", "pith", "-p", "--model", "fake/m", "go"],
            cwd=tmp_path / "work",
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        second = server.requests[1]["body"]["messages"]
        third = server.requests[2]["body"]["messages"]
    assert result.returncode == 0, result.stderr
    assert "raed → read" in result.stderr
    assert [m for m in second if m["role"] == "tool"][-1]["content"].startswith("the notes")
    unknown = [m for m in third if m["role"] == "tool"][-1]["content"]
    assert unknown.startswith("Tool codemod not found. Available tools: read, bash, edit, write")


def test_a_view_over_output_a_background_writer_holds_open_is_still_applied(cli: Cli) -> None:
    # Real bash would wait for the loop forever; the view is applied to the output so far.
    pid = cli.work / "loop.pid"
    script = cli.work / "start.sh"
    script.write_text(
        "#!/bin/bash\n"
        f"(while true; do echo tick; sleep 0.05; done) & echo $! > {pid}\n"
        "echo started\n"
    )
    script.chmod(0o755)
    try:
        payload = cli.bash(f"{script} | grep -c started")
    finally:
        stop_loop(pid)
    assert text(payload) == f"1\n\n{BACKGROUND_NOTE}"
    assert payload["details"]["guard"]["outcome"] == "projection-applied"


@pytest.mark.parametrize(
    "command",
    [
        "(while true; do echo tick; sleep 0.05; done) & echo $! > {pid}; seq 3 | tail -1",
        "seq 3 | tail -1 &",
    ],
)
def test_a_backgrounded_statement_is_never_stripped(cli: Cli, command: str) -> None:
    try:
        payload = cli.bash(command.format(pid=cli.work / "loop.pid"))
    finally:
        stop_loop(cli.work / "loop.pid")
    assert "guard" not in (payload["details"] or {})
    assert "3\n" in text(payload)
