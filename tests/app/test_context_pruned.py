"""`pith context` lists the pruner's stubs: what each replaced and the tokens saved."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pith.testing import FakeServer, configure_agent_dir, subprocess_env


def source(name: str) -> str:
    return "".join(f"def {name}_{n}(x):\n    return x * {n}  # line {n}\n" for n in range(150))


def pith(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=tmp_path / "work",
        env=subprocess_env(tmp_path / "agent"),
        capture_output=True,
        text=True,
        timeout=60,
    )


def make_session(tmp_path: Path) -> None:
    """Two tasks (strategy mask): the first reads a skill and two big files, the second only
    talks; the first task's reads are masked in the next request."""
    work = tmp_path / "work"
    (work / "skills" / "deploy").mkdir(parents=True)
    (work / "skills" / "deploy" / "SKILL.md").write_text("# Deploy\n" + "run the gate\n" * 100)
    (work / "app.py").write_text(source("app"))
    (work / "lib.py").write_text(source("lib"))
    reads = [
        {"name": "read", "arguments": {"path": path}}
        for path in ("skills/deploy/SKILL.md", "app.py", "lib.py")
    ]
    script = {"turns": [{"tool_calls": reads}, {"text": "read"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        # mask: deterministic stubs, no summarizer requests
        (agent / "settings.json").write_text(json.dumps({"prune": {"strategy": "mask"}}))
        first = pith(tmp_path, "-p", "--model", "fake/m", "read the code")
        second = pith(tmp_path, "-p", "--model", "fake/m", "-c", "thanks")
        assert server.problems() == []
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr


def test_context_lists_each_stub_with_the_call_it_replaced_and_the_tokens_saved(
    tmp_path: Path,
) -> None:
    make_session(tmp_path)
    text = pith(tmp_path, "context")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("pruned:"))
    header, first, second = lines[start : start + 3]
    assert header.startswith("pruned: 2 tool results replaced by stubs, ~")
    assert first.split()[:4] == ["t1", "message", "4", 'read(path="app.py")']
    assert second.split()[:4] == ["t2", "message", "5", 'read(path="lib.py")']
    assert '[read] \'[pruned t1: read(path="app.py")' in text.stdout


def test_context_json_has_the_pruned_results_and_their_sizes(tmp_path: Path) -> None:
    make_session(tmp_path)
    result = pith(tmp_path, "context", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    pruned = report["pruned"]
    refs = [(item["ref"], item["toolName"], item["arguments"]) for item in pruned["results"]]
    assert refs == [("t1", "read", {"path": "app.py"}), ("t2", "read", {"path": "lib.py"})]
    for item in pruned["results"]:
        message = report["messages"][item["message"] - 1]
        assert message["message"]["toolCallId"] == item["toolCallId"]
        assert message["tokens"] == item["tokensAfter"]
        assert item["tokensBefore"] > 1500 > item["tokensAfter"]
    assert pruned["tokensSaved"] == sum(
        item["tokensBefore"] - item["tokensAfter"] for item in pruned["results"]
    )
    # the protected skill read is not among them and reaches the model verbatim
    skill = report["messages"][2]["message"]
    assert skill["role"] == "toolResult"
    assert skill["content"][0]["text"].startswith("# Deploy\nrun the gate")


def test_context_without_stubs_has_no_pruned_section(tmp_path: Path) -> None:
    make_session(tmp_path)
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"prune": {"enabled": False}}))
    text = pith(tmp_path, "context")
    assert text.returncode == 0, text.stderr
    assert "pruned:" not in text.stdout
    report = json.loads(pith(tmp_path, "context", "--json").stdout)
    assert report["pruned"] == {"results": [], "tokensSaved": 0}
