"""The `mcp_resources` tool and `@server:uri` attachments through the real `pith -p`, the
toolbox server (which offers resources) and pith's fake model server."""

from __future__ import annotations

import json
import sys

from pith.testing import FakeServer, configure_agent_dir
from tests.ext.mcp.test_runs import Run, call, run, tool_names, tool_result_texts, toolbox

__all__ = ["run"]

NO_RESOURCES = {
    "command": sys.executable,
    "args": [
        "-c",
        "from mcp.server.mcpserver import MCPServer\n"
        "s = MCPServer('plain')\n"
        "@s.tool(description='Say hi.')\n"
        "def hi() -> str:\n    return 'hi'\n"
        "s.run()\n",
    ],
    "exposure": "direct",
}


def test_a_direct_server_with_resources_declares_the_tool_and_reads_through_it(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    script = {
        "turns": [
            call("mcp_resources", action="list", server="box"),
            call("mcp_resources", action="read", server="box", uri="memo://notes"),
            call("mcp_resources", action="templates", server="box"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("read the notes")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "mcp_resources" in tool_names(requests[0])
    listing = json.loads(tool_result_texts(requests[1])[-1])
    uris = [resource["uri"] for resource in listing["resources"]]
    assert "memo://notes" in uris
    assert "the notes" in tool_result_texts(requests[2])[-1]
    templates = json.loads(tool_result_texts(requests[3])[-1])["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["memo://items/{item}"]


def test_a_deferred_server_makes_the_tool_a_search_candidate(run: Run) -> None:
    run.servers(box=toolbox())
    script = {
        "turns": [
            call("tool_search", query="read resources of a server"),
            call("mcp_resources", action="read", server="box", uri="memo://items/7"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("read item 7")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "mcp_resources" not in tool_names(requests[0])
    assert "mcp_resources" in tool_result_texts(requests[1])[0]
    assert "mcp_resources" in tool_names(requests[1])
    assert "item 7" in tool_result_texts(requests[2])[-1]


def test_servers_without_resources_never_get_the_tool(run: Run) -> None:
    run.servers(plain=NO_RESOURCES)
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("hi")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    names = tool_names(requests[0])
    assert "mcp__plain__hi" in names
    assert "mcp_resources" not in names


def test_reading_an_unknown_resource_is_an_error_result(run: Run) -> None:
    run.servers(box=toolbox(exposure="direct"))
    script = {
        "turns": [
            call("mcp_resources", action="read", server="box", uri="memo://nothing"),
            call("mcp_resources", action="read", server="box"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("read it")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "box" in tool_result_texts(requests[1])[-1]
    assert "needs `server` and `uri`" in tool_result_texts(requests[2])[-1]


def test_an_at_word_attaches_the_resource_to_the_message(run: Run) -> None:
    run.servers(box=toolbox())
    with FakeServer({"turns": [{"text": "seen"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("summarize @box:memo://notes, and mail @bob:tomorrow")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    body = requests[0].get("body", requests[0])
    text = body["messages"][-1]["content"]
    text = text if isinstance(text, str) else text[0]["text"]
    assert text.startswith("summarize @box:memo://notes, and mail @bob:tomorrow")
    assert '<resource server="box" uri="memo://notes">' in text
    assert "the notes" in text
    assert "bob" not in text.split("<resource", 1)[1]


def test_an_at_word_for_a_missing_resource_is_reported_and_the_text_goes_on(run: Run) -> None:
    run.servers(box=toolbox())
    with FakeServer({"turns": [{"text": "seen"}]}) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("look at @box:memo://missing")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert "@box:memo://missing not attached" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(requests) == 1
