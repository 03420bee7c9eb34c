"""The guard and MCP tools, end to end: an extension (loaded with `-e`) registers tools named
the way the MCP extension names them (`mcp__<server>__<tool>`), and a scripted model calls
them through `pith -p`. A misspelt name is repaired only within its server's family; argument
aliases are renamed only where the tool's schema names the canonical key and not the alias."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.ext.guard._arguments import Rename, normalize_declared_arguments
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

FAKE_MCP = """
import json

from pith.agent import text_result
from pith.extensions import ToolDefinition

STRING = {"type": "string"}


def tool(name, properties, required=()):
    def execute(call_id, args, signal, on_update, ctx):
        return text_result(name + " " + json.dumps(args, sort_keys=True))

    return ToolDefinition(
        name=name,
        description="A stand-in for an MCP tool.",
        parameters={"type": "object", "properties": properties, "required": list(required)},
        execute=execute,
    )


def register(api):
    api.register_tool(tool("mcp__jira__create_issue", {"title": STRING}))
    api.register_tool(tool("mcp__fs__read_file", {"path": STRING}, required=["path"]))
    api.register_tool(tool("mcp__fs__stat", {"file_path": STRING}))
    api.register_tool(tool("mcp__fs__copy", {"path": STRING, "file_path": STRING}))
    api.register_tool(tool("mcp__fs__move", {"path": STRING}))
    api.register_tool(tool("local_read", {"path": STRING}))
"""


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.fixture
def run(tmp_path: Path) -> Any:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "agent").mkdir()
    extension = tmp_path / "fake_mcp.py"
    extension.write_text(FAKE_MCP)

    def go(*calls: dict[str, Any]) -> tuple[list[str], str, list[dict[str, Any]]]:
        script = {"turns": [*calls, {"text": "done"}]}
        with FakeServer(script) as server:
            configure_agent_dir(tmp_path / "agent", server)
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pith",
                    "-p",
                    "--model",
                    "fake/m",
                    "-e",
                    str(extension),
                    "go",
                ],
                cwd=work,
                env=subprocess_env(tmp_path / "agent"),
                capture_output=True,
                text=True,
                timeout=60,
            )
            messages = server.requests[-1]["body"]["messages"]
        assert result.returncode == 0, result.stderr
        told = [m["content"] for m in messages if m["role"] == "tool"]
        told = [t if isinstance(t, str) else "".join(p["text"] for p in t) for t in told]
        results = []
        for session in (tmp_path / "agent" / "sessions").rglob("*.jsonl"):
            for line in session.read_text().splitlines():
                entry = json.loads(line)
                message = entry.get("message") or {}
                if message.get("role") == "toolResult":
                    results.append(message)
        return told, result.stderr, results

    return go


def test_a_misspelt_mcp_tool_is_repaired_within_its_server(run: Any) -> None:
    told, stderr, _ = run(
        call("mcp__jira__create_isue", title="bug"),
        call("mcp__jora__create_issue", title="bug"),
    )
    assert told[0] == 'mcp__jira__create_issue {"title": "bug"}'
    assert "mcp__jira__create_isue → mcp__jira__create_issue" in stderr
    # Another server's name is never repaired into jira's tool.
    assert told[1].startswith("Tool mcp__jora__create_issue not found. Available tools:")


def test_an_alias_is_renamed_where_the_schema_names_the_canonical_key(run: Any) -> None:
    told, _, results = run(call("mcp__fs__read_file", file_path="notes.txt"))
    # `path` is required: the call ran, so the rename came before the schema check.
    assert told[0] == 'mcp__fs__read_file {"path": "notes.txt"}'
    renames = results[0]["details"]["guard"]["renames"]
    assert renames == [{"source": "file_path", "target": "path", "kind": "renamed"}]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("mcp__fs__stat", {"file_path": "notes.txt"}),  # the schema names the alias
        ("mcp__fs__stat", {"path": "notes.txt"}),  # never the other way round
        ("mcp__fs__copy", {"file_path": "notes.txt"}),  # it names both
        ("mcp__fs__move", {"target": "notes.txt"}),  # `target` may be where a move goes
        ("mcp__jira__create_issue", {"file_path": "notes.txt"}),  # no `path` at all
        ("local_read", {"file_path": "notes.txt"}),  # not an MCP tool: its arguments are its own
    ],
)
def test_other_arguments_are_left_as_sent(run: Any, tool: str, arguments: dict[str, str]) -> None:
    told, _, results = run(call(tool, **arguments))
    assert told[0] == f"{tool} {json.dumps(arguments, sort_keys=True)}"
    assert "guard" not in (results[0].get("details") or {})


# --- the table, without a process ----------------------------------------------------------


def test_declared_aliases_follow_the_schema() -> None:
    declared = {"path", "content"}
    arguments = {"filePath": "a.txt", "text": "hello", "mode": "w"}
    normalized, renames = normalize_declared_arguments(arguments, declared)
    assert normalized == {"path": "a.txt", "content": "hello", "mode": "w"}
    assert [str(r) for r in renames] == ["filePath → path", "text → content"]
    # The canonical key given wins over an alias, as for pith's own tools.
    normalized, renames = normalize_declared_arguments({"path": "a", "file": "b"}, declared)
    assert normalized == {"path": "a"}
    assert renames == (Rename("file", "path", "ignored"),)


@pytest.mark.parametrize(
    ("arguments", "declared"),
    [
        ({"file_path": "a"}, {"file_path"}),
        ({"file_path": "a"}, {"path", "file_path"}),
        ({"data": "x", "code": "y", "body": "z"}, {"content"}),
        ({"target": "a"}, {"path"}),
        ("not an object", {"path"}),
        ({"path": "a"}, {"path"}),
    ],
)
def test_declared_aliases_leave_the_rest(arguments: object, declared: set[str]) -> None:
    normalized, renames = normalize_declared_arguments(arguments, declared)
    assert normalized is arguments
    assert renames == ()
