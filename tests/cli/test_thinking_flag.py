"""`--thinking` on a model that does not reason: one warning, not silence. Real pith processes
against the fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env


def run_pith(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pith", "--no-session", "-p", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(tmp_path / "agent"),
    )


@pytest.mark.parametrize(
    "args", [["--thinking", "high", "--model", "fake/m"], ["--model", "fake/m:high"]]
)
def test_a_thinking_level_for_a_model_without_reasoning_is_warned_about(
    tmp_path: Path, args: list[str]
) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = run_pith(tmp_path, *args, "hi")
        body = server.requests[0]["body"]
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pith: warning: thinking level high ignored: fake/m ")
    assert '"reasoning": true' in lines[0]
    assert isinstance(body, dict)
    assert "reasoning_effort" not in body


def test_no_warning_for_a_reasoning_model_or_level_off(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "ok"}, {"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server, reasoning=True)
        thinking = run_pith(tmp_path, "--thinking", "high", "--model", "fake/m", "hi")
        configure_agent_dir(tmp_path / "agent", server)
        off = run_pith(tmp_path, "--thinking", "off", "--model", "fake/m", "hi")
        body = server.requests[0]["body"]
    assert thinking.returncode == 0, thinking.stderr
    assert thinking.stderr == ""
    assert isinstance(body, dict)
    assert body["reasoning_effort"] == "high"
    assert off.returncode == 0, off.stderr
    assert off.stderr == ""


def test_a_default_thinking_level_in_settings_is_not_warned_about(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        (agent / "settings.json").write_text(json.dumps({"defaultThinkingLevel": "high"}))
        result = run_pith(tmp_path, "--model", "fake/m", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
