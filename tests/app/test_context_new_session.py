"""`pith context` in a folder with no session yet: the request a new session here would send.

With a model (from the settings, or the one a run would pick) it is compared with that model's
window; with no model configured everything else is shown, and the report says how to set one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pith.testing import subprocess_env


def pith(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=tmp_path / "work",
        env=subprocess_env(tmp_path / "agent"),
        capture_output=True,
        text=True,
        timeout=60,
    )


def setup(tmp_path: Path, *, models: bool, default: str | None = None) -> None:
    """An empty project (with an AGENTS.md) and an agent dir with two models, or none."""
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "AGENTS.md").write_text("Run the tests with make test.\n")
    agent = tmp_path / "agent"
    agent.mkdir()
    if models:
        provider = {
            "baseUrl": "http://127.0.0.1:9/v1",  # never called: looking sends nothing
            "api": "openai-completions",
            "apiKey": "k",
            "models": [
                {"id": "small", "contextWindow": 32000},
                {"id": "big", "contextWindow": 64000},
            ],
        }
        (agent / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
    if default is not None:
        (agent / "settings.json").write_text(json.dumps({"defaultModel": default}))


def session_files(tmp_path: Path) -> list[Path]:
    return list((tmp_path / "agent").rglob("*.jsonl"))


def test_with_a_default_model_it_shows_the_first_request(tmp_path: Path) -> None:
    setup(tmp_path, models=True, default="local/big")
    text = pith(tmp_path, "context")
    assert text.returncode == 0, text.stderr
    assert "Next request for local/big (window 64,000 tokens)" in text.stdout
    assert "new session" in text.stdout
    assert "messages (0)" in text.stdout
    assert "project_context" in text.stdout
    assert "tools (4): read, bash, edit, write" in text.stdout
    assert "of the window" in text.stdout

    report = json.loads(pith(tmp_path, "context", "--json").stdout)
    assert report["model"] == "local/big"
    assert report["contextWindow"] == 64000
    assert report["messages"] == []
    assert report["session"] == {"id": None, "path": None, "new": True}
    sections = [part["name"] for part in report["systemPrompt"]["sections"]]
    assert "project_context" in sections
    assert "Run the tests with make test." in report["systemPrompt"]["text"]
    assert [tool["name"] for tool in report["tools"]] == ["read", "bash", "edit", "write"]
    assert report["compaction"]["threshold"] == 64000 - 16384
    assert session_files(tmp_path) == []  # looking never writes


def test_without_settings_it_takes_the_model_a_run_would_take(tmp_path: Path) -> None:
    setup(tmp_path, models=True)
    first = pith(tmp_path, "context", "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["model"] == "local/small"
    chosen = json.loads(pith(tmp_path, "context", "--json", "--model", "local/big").stdout)
    assert chosen["model"] == "local/big"


def test_without_a_model_it_shows_all_but_the_window(tmp_path: Path) -> None:
    setup(tmp_path, models=False)
    text = pith(tmp_path, "context")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == (
        "Next request of a new session here; no model configured, so no window to compare with"
    )
    assert lines[1].startswith("  to set one: pass --model provider/id")
    assert f'"defaultModel" in {tmp_path / "agent" / "settings.json"}' in lines[1]
    assert "project_context" in text.stdout
    assert "tools (4): read, bash, edit, write" in text.stdout
    assert "messages (0)" in text.stdout
    assert "window" not in "\n".join(lines[1:])
    assert text.stderr == ""

    report = json.loads(pith(tmp_path, "context", "--json").stdout)
    assert report["model"] is None
    assert report["contextWindow"] is None
    assert report["messages"] == []
    assert report["compaction"]["threshold"] is None
    assert report["totalTokens"] == report["systemPrompt"]["tokens"] + sum(
        tool["tokens"] for tool in report["tools"]
    )
    assert session_files(tmp_path) == []
