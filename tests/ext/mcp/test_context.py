"""`pith context` with MCP servers: it waits for them, and shows each MCP tool's definition
cost by server, the deferred ones with what they would cost once loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.ai import ToolSpec
from pith.compaction import estimate_tool_tokens
from tests.ext.mcp.test_runs import Run, toolbox


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def context(run: Run, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", "context", *args],
        cwd=run.work,
        env=run.env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_context_shows_mcp_tools_by_server_with_deferred_costs(run: Run) -> None:
    run.servers(
        box=toolbox(exposure="direct", toolExposure={"echo": "deferred", "big": "hidden"}),
        two=toolbox(),
    )
    (run.agent / "settings.json").write_text(json.dumps({"permission": {"mcp__two__echo": "deny"}}))
    result = context(run, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    declared = {tool["name"]: tool for tool in report["tools"]}
    groups = {group["server"]: group for group in report["mcpTools"]}
    assert list(groups) == ["box", "two"]
    box = {line["name"]: line for line in groups["box"]["tools"]}
    assert box["mcp__box__picture"]["declared"] is True
    assert box["mcp__box__picture"]["tokens"] == declared["mcp__box__picture"]["tokens"]
    assert box["mcp__box__echo"]["declared"] is False
    assert "mcp__box__echo" not in declared
    assert "mcp__box__big" not in box  # hidden: never registered
    two = {line["name"]: line for line in groups["two"]["tools"]}
    assert not any(line["declared"] for line in two.values())
    assert "mcp__two__echo" not in two  # denied outright: not even deferred
    # The cost a deferred tool would have is the estimate of its definition.
    expected = estimate_tool_tokens(ToolSpec(**_definition(report, "mcp__box__picture")))
    assert box["mcp__box__picture"]["tokens"] == expected
    assert groups["box"]["declaredTokens"] == sum(
        line["tokens"] for line in box.values() if line["declared"]
    )
    assert groups["two"]["deferredTokens"] > 0
    assert "tool_search" in declared

    text = context(run)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert any(line.startswith("mcp tools (by server") for line in lines)
    assert any(line.strip().startswith("tool_search") for line in lines)
    header = next(line for line in lines if line.startswith("  box: "))
    assert " declared ~" in header
    assert " deferred (~" in header
    echo = next(line for line in lines if line.strip().startswith("mcp__box__echo"))
    assert "deferred (~" in echo
    assert "if loaded" in echo


def _definition(report: dict[str, Any], name: str) -> dict[str, Any]:
    tool = next(tool for tool in report["tools"] if tool["name"] == name)
    return {
        "name": tool["name"],
        "description": tool["description"],
        "parameters": tool["parameters"],
    }


def test_context_without_mcp_servers_has_no_mcp_part(run: Run) -> None:
    result = context(run, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["mcpTools"] == []
    assert "mcp tools" not in context(run).stdout
