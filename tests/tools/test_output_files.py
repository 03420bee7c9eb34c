"""Full-output files are cut at a size limit (the `bashFullOutputMaxBytes` setting) and swept
after a day — the bash tool's `pith-bash-*.log` and the guard's `pith-guard-*.log` alike."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pith.agent import AbortController, ToolResult
from pith.errors import ConfigError
from pith.ext.guard._tools import GuardedTool, GuardSettings
from pith.resources import SettingsValues, load_settings
from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from pith.tools import BashTool
from pith.tools._output_files import (
    DEFAULT_FULL_OUTPUT_MAX_BYTES,
    FULL_OUTPUT_TTL_SECONDS,
    sweep_output_files,
)

_NOTICE = re.compile(r"Full output: (\S+) \(cut at ([^)]+)\)\]")


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp folder full-output files go to, empty."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _run(tool: BashTool | GuardedTool, command: str) -> ToolResult:
    return asyncio.run(tool.execute("c1", {"command": command}, AbortController().signal, None))


def test_a_full_output_file_is_cut_at_its_limit_and_the_notice_says_so(
    tmp_path: Path, temp: Path
) -> None:
    result = _run(BashTool(str(tmp_path), full_output_max_bytes=100_000), "yes | head -c 2000000")
    match = _NOTICE.search(result.text())
    assert match, result.text()
    assert match.group(2) == "97.7KB"
    assert os.path.getsize(match.group(1)) == 100_000
    assert Path(match.group(1)).read_bytes() == b"y\n" * 50_000
    assert result.text().startswith("y\ny\n")  # the tail shown is still the output's end


def test_a_full_output_file_under_its_limit_is_whole(tmp_path: Path, temp: Path) -> None:
    result = _run(BashTool(str(tmp_path), full_output_max_bytes=100_000), "seq 1 15000")
    assert "cut at" not in result.text()
    path = re.search(r"Full output: (\S+)\]", result.text())
    assert path
    assert Path(path.group(1)).read_text() == "".join(f"{n}\n" for n in range(1, 15001))


def test_the_default_limit_is_64_mib() -> None:
    assert DEFAULT_FULL_OUTPUT_MAX_BYTES == 64 * 1024 * 1024
    assert BashTool("/").full_output_max_bytes == DEFAULT_FULL_OUTPUT_MAX_BYTES
    assert SettingsValues().bash_full_output_max_bytes == DEFAULT_FULL_OUTPUT_MAX_BYTES


def test_a_guarded_projection_reads_all_the_output_then_the_file_is_cut(
    tmp_path: Path, temp: Path
) -> None:
    # The views see every byte (here the last line, past the limit); the file is cut after.
    tool = GuardedTool(
        BashTool(str(tmp_path), full_output_max_bytes=100_000), GuardSettings, lambda _: None
    )
    result = _run(tool, "seq 1 200000 | tail -1")
    assert result.text() == "200000"
    details = result.details
    assert isinstance(details, dict)
    assert os.path.getsize(details["fullOutputPath"]) == 100_000


def test_a_guarded_projection_over_the_caps_names_the_cut_file(tmp_path: Path, temp: Path) -> None:
    tool = GuardedTool(
        BashTool(str(tmp_path), full_output_max_bytes=100_000), GuardSettings, lambda _: None
    )
    result = _run(tool, "seq 1 200000 | grep 7")
    match = _NOTICE.search(result.text())
    assert match, result.text()[-300:]
    assert os.path.getsize(match.group(1)) == 100_000
    assert result.text().split("\n\n[")[0].endswith("199997")


def _age(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old))


def test_creating_a_full_output_file_sweeps_old_ones(tmp_path: Path, temp: Path) -> None:
    stale = temp / "pith-bash-0123456789abcdef.log"
    recent = temp / "pith-bash-fedcba9876543210.log"
    other = temp / "someone-else.log"
    for path in (stale, recent, other):
        path.write_text("old output\n")
        _age(path, FULL_OUTPUT_TTL_SECONDS + 60)
    _age(recent, 60)
    result = _run(BashTool(str(tmp_path)), "seq 1 5000")
    assert "Full output:" in result.text()
    assert not stale.exists()
    assert recent.exists()
    assert other.exists()
    assert len(list(temp.glob("pith-bash-*.log"))) == 2  # the recent one and the new one


def test_the_guard_sweeps_its_saved_outputs_the_same_way(temp: Path) -> None:
    stale = temp / "pith-guard-0123456789abcdef.log"
    stale.write_text("old\n")
    _age(stale, FULL_OUTPUT_TTL_SECONDS + 60)
    kept = temp / "pith-guard-fedcba9876543210.log"
    kept.write_text("new\n")
    assert sweep_output_files("pith-guard") == 1
    assert not stale.exists()
    assert kept.exists()


def test_the_limit_is_a_setting(tmp_path: Path) -> None:
    work, agent, temp = tmp_path / "work", tmp_path / "agent", tmp_path / "tmp"
    for folder in (work, agent, temp):
        folder.mkdir()
    (agent / "settings.json").write_text(json.dumps({"bashFullOutputMaxBytes": 100_000}))
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "yes | head -c 300000"}}]},
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(agent, server)
        done = subprocess.run(
            [sys.executable, "-m", "pith", "-p", "--model", "fake/m", "go"],
            cwd=work,
            env=subprocess_env(agent, TMPDIR=str(temp)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        messages = server.requests[1]["body"]["messages"]
    assert done.returncode == 0, done.stderr
    shown = [m for m in messages if m["role"] == "tool"][-1]["content"]
    match = _NOTICE.search(shown)
    assert match, shown[-300:]
    assert match.group(2) == "97.7KB"
    assert os.path.getsize(match.group(1)) == 100_000


def test_a_limit_that_is_not_a_positive_number_is_refused(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text('{\n  "bashFullOutputMaxBytes": "big"\n}\n')
    with pytest.raises(ConfigError, match=r"settings\.json:2: setting 'bashFullOutputMaxBytes'"):
        load_settings(tmp_path)
    (tmp_path / "settings.json").write_text('{"bashFullOutputMaxBytes": 0}')
    with pytest.raises(ConfigError, match="bashFullOutputMaxBytes"):
        load_settings(tmp_path)
