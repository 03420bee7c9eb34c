"""Which MCP tools reach the model when `--tools` or the permission rules say so, through the
real `pith -p`, the toolbox MCP server and the fake model: a tool kept out is absent from
every request, including after `tool_search`, and a call to it finds nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir
from tests.ext.mcp.test_runs import Run, call, tool_names, tool_result_texts, toolbox


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def mcp_names(request: dict[str, object], server: str = "") -> list[str]:
    prefix = f"mcp__{server}__" if server else "mcp__"
    return [name for name in tool_names(request) if name.startswith(prefix)]


def requests_of(run: Run, script: dict[str, object], *args: str) -> list[dict[str, object]]:
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith(*args)
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return requests


def test_tools_without_an_mcp_entry_keep_every_mcp_tool(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    requests = requests_of(run, {"turns": [{"text": "ok"}]}, "--tools", "read", "hi")
    names = tool_names(requests[0])
    assert "read" in names
    assert "bash" not in names
    assert "mcp__box__echo" in names


def test_an_mcp_pattern_keeps_only_the_tools_it_matches(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"), two=toolbox(exposure="direct"))
    requests = requests_of(run, {"turns": [{"text": "ok"}]}, "--tools", "read,mcp__box__*", "hi")
    names = tool_names(requests[0])
    assert "read" in names
    assert "bash" not in names
    assert "mcp__box__echo" in names
    assert mcp_names(requests[0], "two") == []


def test_an_exact_mcp_name_keeps_that_tool_alone(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    requests = requests_of(run, {"turns": [{"text": "ok"}]}, "--tools", "mcp__box__echo", "hi")
    assert tool_names(requests[0]) == ["mcp__box__echo"]


def test_a_minus_mcp_entry_removes_the_tools_it_matches(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    requests = requests_of(run, {"turns": [{"text": "ok"}]}, "--tools=-mcp__box__e*,-bash", "hi")
    names = tool_names(requests[0])
    assert "read" in names
    assert "bash" not in names
    assert "mcp__box__echo" not in names
    assert "mcp__box__big" in names


def test_no_tools_declares_no_mcp_tool(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    requests = requests_of(run, {"turns": [{"text": "ok"}]}, "--no-tools", "hi")
    assert mcp_names(requests[0]) == []


def test_tool_search_does_not_load_what_tools_left_out(run: Run) -> None:
    run.servers(box=toolbox(), two=toolbox())
    script = {"turns": [call("tool_search", query="echo text back"), {"text": "done"}]}
    requests = requests_of(run, script, "--tools", "read,mcp__box__*", "find")
    assert "mcp__box__echo" in tool_names(requests[1])
    assert mcp_names(requests[1], "two") == []
    assert "mcp__two__" not in tool_result_texts(requests[1])[0]


def permissions(run: Run, rules: dict[str, object]) -> None:
    (run.agent / "settings.json").write_text(json.dumps({"permission": rules}))


def test_a_tool_denied_outright_is_never_declared(run: Run) -> None:
    """The server connects after start-up and its tools are activated as they arrive: the
    denied one stays out of every request, and calling it anyway finds nothing."""
    run.servers(box=toolbox(exposure="direct"))
    permissions(run, {"mcp__box__echo": "deny"})
    turns = [call("mcp__box__echo", text="sneaky"), call("mcp__box__big", size=3)]
    script = {"turns": [*turns, {"text": "ok"}]}
    requests = requests_of(run, script, "hi")
    assert len(requests) == 3
    for request in requests:
        assert "mcp__box__echo" not in tool_names(request)
        assert "mcp__box__big" in tool_names(request)
    assert "not found" in tool_result_texts(requests[1])[0]
    assert "abc" in tool_result_texts(requests[2])[-1]


def test_tool_search_does_not_offer_a_denied_server(run: Run) -> None:
    run.servers(box=toolbox(), two=toolbox())
    permissions(run, {"mcp": {"box": "deny"}})
    script = {
        "turns": [
            call("tool_search", query="echo text back"),
            call("tool_search", query="return a text block of characters"),
            {"text": "done"},
        ]
    }
    requests = requests_of(run, script, "find")
    for request in requests:
        assert mcp_names(request, "box") == []
    assert "mcp__two__echo" in tool_names(requests[1])
    for text in tool_result_texts(requests[2]):
        assert "mcp__box__" not in text
