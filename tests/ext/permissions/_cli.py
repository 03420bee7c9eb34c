"""The real `pith` command in a temporary project and agent directory, for the permission
tests that go through the CLI (print mode against the fake model server)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Cli", "call"]


def call(name: str, **arguments: object) -> dict[str, Any]:
    """A fake-server turn in which the model calls one tool."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


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

    def settings(self, permission: object) -> None:
        (self.agent / "settings.json").write_text(json.dumps({"permission": permission}))

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pith", *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def prompt(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run("-p", "--model", "fake/m", *args)
