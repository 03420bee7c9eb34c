"""`/mcp` through the real `pith -p`: the server list (failed first, with the error and the
stderr tail), one server's tools, reconnecting, and enabling or disabling a server in the file
that defines it (or in a trusted project's file with `--project`)."""

from __future__ import annotations

import json
import sys

from pith.testing import FakeServer, configure_agent_dir
from tests.ext.mcp.test_runs import Run, call, run, tool_names, toolbox

__all__ = ["run"]

DEAD = {
    "command": sys.executable,
    "args": ["-c", "import sys; sys.stderr.write('no TOKEN set\\n'); sys.exit(3)"],
}


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def test_the_list_puts_failed_servers_first_with_their_error_and_stderr(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"), dead=DEAD, off=toolbox(enabled=False))
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp")
    assert result.returncode == 0, result.stderr
    lines = result.stderr[result.stderr.index("[mcp] dead") :].splitlines()
    assert lines[0].startswith("[mcp] dead  failed")
    assert "exit code 3" in lines[1]
    assert "no TOKEN set" in result.stderr
    box = next(line for line in lines if line.startswith("box"))
    assert "connected  17 tools  direct" in box
    assert str(run.agent / "mcp.json") in box
    off = next(line for line in lines if line.startswith("off"))
    assert off.startswith("off  disabled")
    assert lines.index(box) < lines.index(off)


def test_tools_shows_each_tools_effective_exposure(run: Run) -> None:
    run.servers(box=toolbox(toolExposure={"echo": "direct", "crash": "hidden"}))
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp tools box")
    assert result.returncode == 0, result.stderr
    assert "mcp__box__echo  direct" in result.stderr
    assert "mcp__box__crash  hidden" in result.stderr
    assert "mcp__box__big  deferred" in result.stderr


def test_disable_saves_the_file_and_takes_the_tools_away_at_once(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp disable box", "hello")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "MCP server 'box' disabled" in result.stderr
    entry = json.loads((run.agent / "mcp.json").read_text())["mcpServers"]["box"]
    assert entry["enabled"] is False
    assert not [name for name in tool_names(requests[0]) if name.startswith("mcp__")]


def test_enable_connects_the_server_and_declares_its_direct_tools(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct", enabled=False))
    script = {"turns": [call("mcp__box__echo", text="back"), {"text": "ok"}]}
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp enable box", "echo")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "enabled" not in json.loads((run.agent / "mcp.json").read_text())["mcpServers"]["box"]
    assert "mcp__box__echo" in tool_names(requests[0])


def test_project_needs_trust_and_then_writes_an_override(run: Run) -> None:
    run.servers(box=toolbox())
    (run.work / ".pith").mkdir()
    (run.work / ".pith" / "mcp.json").write_text('{"mcpServers": {}}')
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(run.agent, server)
        untrusted = run.pith("/mcp disable box --project")
        trusted = run.pith("--approve", "/mcp disable box --project")
    assert "trust it first" in untrusted.stderr
    override = json.loads((run.work / ".pith" / "mcp.json").read_text())
    assert override["mcpServers"]["box"] == {"enabled": False}, trusted.stderr
    assert "enabled" not in json.loads((run.agent / "mcp.json").read_text())["mcpServers"]["box"]


def test_reconnect_and_bad_usage(run: Run) -> None:
    run.servers(box=toolbox())
    with FakeServer({"turns": []}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("/mcp reconnect box", "/mcp reconnect nobody", "/mcp frobnicate")
    assert "MCP server 'box' reconnected (17 tools)" in result.stderr
    assert "No MCP server is named 'nobody' (configured: box)" in result.stderr
    assert "usage: /mcp" in result.stderr
    assert "Traceback" not in result.stderr
