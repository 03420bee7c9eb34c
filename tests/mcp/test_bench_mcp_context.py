"""bench/mcp_context.py runs end to end (quick: no npm servers, one API) through `pith -p` and
reports its figures in the documented shape; the figures themselves are the benchmark's
business."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_prints_the_table_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "mcp_context.py"), "--quick", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("mcp_context: servers=5 tools=")
    assert "problems=0" in lines[-1], done.stderr
    assert any(line.startswith("git ") and "live: mcp-server-git" in line for line in lines)
    assert any(line.startswith("time ") and "live: mcp-server-time" in line for line in lines)
    figures = json.loads(out.read_text())
    assert len(figures["servers"]) == 5
    assert figures["tools"] == sum(server["tools"] for server in figures["servers"])
    modes = {(run["api"], run["mode"]) for run in figures["runs"]}
    assert modes == {("openai-completions", "direct"), ("openai-completions", "deferred")}
    for run in figures["runs"]:
        assert run["requests"] > 0
        assert run["first_request_tool_tokens"] > 0
        assert run["total_tokens"] >= run["first_request_tokens"]
        assert run["problems"] == []
        assert run["search_misses"] == []
        assert (run["searches"] > 0) == (run["mode"] == "deferred")
    direct, deferred = sorted(figures["runs"], key=lambda run: run["mode"] != "direct")
    assert deferred["requests"] == direct["requests"] + deferred["searches"]
    for api, ratios in figures["apis"].items():
        assert set(ratios) == {
            "first_request_tool_tokens_ratio",
            "task_tokens_ratio",
            "extra_requests",
        }, api
