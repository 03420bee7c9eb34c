"""Running `pith batch` as a real process against the fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pith.testing import configure_agent_dir, subprocess_env


def write_tasks(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks))
    return path


def agent_env(tmp_path: Path, server: Any, **model_fields: object) -> dict[str, str]:
    agent = configure_agent_dir(tmp_path / "agent", server, **model_fields)
    return subprocess_env(agent)


def batch_command(tasks: Path, out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pith", "batch", str(tasks), "--out", str(out), *args]


def run_batch(
    tasks: Path, out: Path, env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        batch_command(tasks, out, "--model", "fake/m", *args),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or tasks.parent,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def rows(out: Path) -> list[dict[str, Any]]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def rows_by_id(out: Path) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in rows(out)}


def reply(task: str, text: str, **fields: Any) -> dict[str, Any]:
    """A fake-server turn that only `task`'s requests get (its prompt names it)."""
    return {"match": [f"[{task}]"], "text": text, **fields}


def write_call(task: str, path: str, content: str) -> dict[str, Any]:
    return {
        "match": [f"[{task}]"],
        "unless": ["toolCallId", "tool_call_id"],
        "tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}],
    }
