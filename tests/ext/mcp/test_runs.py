"""MCP tools through the real `pith -p`, a real MCP server process (the SDK-built toolbox) and
pith's fake model server: what reaches each request, and what the tools return."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.mcp.helpers import TOOLBOX


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


class Run:
    def __init__(self, tmp_path: Path) -> None:
        self.work = tmp_path / "work"
        self.agent = tmp_path / "agent"
        self.work.mkdir()
        self.agent.mkdir()
        self.env = subprocess_env(self.agent)

    def servers(self, **servers: dict[str, object]) -> None:
        (self.agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))

    def pith(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pith", "-p", "--model", "fake/m", *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
        )


def toolbox(**fields: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(TOOLBOX)], **fields}


def tool_names(request: dict[str, Any]) -> list[str]:
    body = request.get("body", request)
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def tool_result_texts(request: dict[str, Any]) -> list[str]:
    body = request.get("body", request)
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def test_a_direct_tool_is_declared_in_the_first_request_and_its_result_reaches_the_next(
    run: Run,
) -> None:
    run.servers(box=toolbox(exposure="direct"))
    script = {"turns": [call("mcp__box__echo", text="hello there"), {"text": "done"}]}
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("say hello")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "mcp__box__echo" in tool_names(requests[0])
    assert "tool_search" not in tool_names(requests[0])
    assert any("hello there" in text for text in tool_result_texts(requests[1]))


def test_deferred_tools_cost_nothing_until_tool_search_declares_them(run: Run) -> None:
    run.servers(box=toolbox(description="A toolbox of test tools"))
    script = {
        "turns": [
            call("tool_search", query="echo text back"),
            call("mcp__box__echo", text="found you"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("find the echo tool")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    first = tool_names(requests[0])
    assert "tool_search" in first
    assert not [name for name in first if name.startswith("mcp__")]
    assert "mcp__box__echo" in tool_names(requests[1])
    assert "mcp__box__echo" in tool_result_texts(requests[1])[0]
    assert any("found you" in text for text in tool_result_texts(requests[2]))


def test_loaded_tools_stay_declared_when_the_session_continues(run: Run) -> None:
    run.servers(box=toolbox())
    first = {"turns": [call("tool_search", query="echo"), {"text": "loaded"}]}
    with FakeServer(first) as server:
        configure_agent_dir(run.agent, server)
        assert run.pith("load it").returncode == 0
    with FakeServer({"turns": [{"text": "still here"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("-c", "again")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "mcp__box__echo" in tool_names(requests[0])


def test_no_mcp_connects_nothing_and_a_dead_server_is_reported_once(run: Run) -> None:
    run.servers(
        box=toolbox(exposure="direct"),
        dead={
            "command": sys.executable,
            "args": ["-c", "import sys; sys.exit(3)"],
            "exposure": "direct",
        },
    )
    with FakeServer({"turns": [{"text": "ok"}, {"text": "ok"}]}) as server:
        configure_agent_dir(run.agent, server)
        off = run.pith("--no-mcp", "hi")
        on = run.pith("hi")
        requests = server.requests
    assert off.returncode == 0, off.stderr
    assert not [n for n in tool_names(requests[0]) if n.startswith("mcp__")]
    assert on.returncode == 0, on.stderr
    assert "mcp__box__echo" in tool_names(requests[1])
    dead = [line for line in on.stderr.splitlines() if "dead" in line]
    assert len(dead) == 1, on.stderr
    assert "Traceback" not in on.stderr


def test_a_session_without_servers_never_loads_the_mcp_sdk(run: Run) -> None:
    """The SDK costs a noticeable share of a second and ~20 MB, and pith.mcp itself tens of
    milliseconds: with no mcp.json, neither is imported."""
    probe = run.work / "probe.py"
    out = run.work / "modules.txt"
    probe.write_text(
        "import sys\n"
        "def register(api):\n"
        "    def done(event, ctx):\n"
        "        loaded = ['mcp' in sys.modules, 'pith.mcp' in sys.modules]\n"
        f"        open({str(out)!r}, 'w').write(str(loaded))\n"
        "    api.on('agent_end', done)\n"
    )
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("-e", str(probe), "hi")
    assert result.returncode == 0, result.stderr
    assert out.read_text() == "[False, False]"


def test_mcp_without_any_configuration_says_how_to_add_a_server(run: Run) -> None:
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp")
    assert result.returncode == 0, result.stderr
    assert "No MCP servers are configured" in result.stderr + result.stdout


def test_a_tool_a_server_adds_while_running_is_declared_and_callable(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    script = {
        "turns": [
            call("mcp__box__grow"),
            call("mcp__box__echo", text="meanwhile"),
            call("mcp__box__extra"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("grow the toolbox")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "mcp__box__extra" not in tool_names(requests[0])
    # The server announces the new tool during the call; pith lists the tools again in the
    # background, so the declaration is checked one model turn later.
    assert "mcp__box__extra" in tool_names(requests[2])
    assert tool_result_texts(requests[3])[-1].strip() == "extra"
