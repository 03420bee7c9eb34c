"""A real `pith` process for the command-line tests: its own working directory and agent dir
under the test's `tmp_path`, no real API keys in its environment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pith.testing import subprocess_env

__all__ = ["run_pith", "write_models"]


def write_models(agent: Path, providers: dict[str, object]) -> None:
    """`agent/models.json` with these `providers`."""
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "models.json").write_text(json.dumps({"providers": providers}))


def run_pith(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`pith --no-session ARGS` in `tmp_path/work`, with agent dir `tmp_path/agent` and `env`
    added to the environment."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (tmp_path / "agent").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pith", "--no-session", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(tmp_path / "agent", **env),
    )
