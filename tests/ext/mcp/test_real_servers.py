"""pith -p with real MCP servers nobody here wrote, installed from the registries: PyPI's
`mcp-server-git` and `mcp-server-time` (the dev extras) and npm's
`@modelcontextprotocol/server-everything` (installed by `scripts/test` under `.venv/npm`). A
scripted fake model calls their tools; each test is one pith run that makes several calls, so
the suite stays quick."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env

ROOT = Path(__file__).resolve().parents[3]
NPM_PREFIX = ROOT / ".venv" / "npm"
EVERYTHING = NPM_PREFIX / "node_modules" / ".bin" / "mcp-server-everything"
RUN_TIMEOUT = 300
"""A hang guard, never a measure: a run starts real servers (node, two Pythons)."""


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(repo: Path) -> None:
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "tester@example.com")
    git(repo, "config", "user.name", "Tester")
    (repo / "notes.txt").write_text("first line\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-m", "Add the notes file")
    (repo / "notes.txt").write_text("first line\nsecond line\n")
    (repo / "draft.md").write_text("# draft\n")


class Run:
    """A work folder (a git repository), an agent folder and `pith -p` in between."""

    def __init__(self, tmp_path: Path) -> None:
        self.work = tmp_path / "work"
        self.agent = tmp_path / "agent"
        self.agent.mkdir()
        make_repo(self.work)
        self.env = subprocess_env(self.agent)

    def configure(
        self, servers: dict[str, dict[str, object]], permission: dict[str, object] | None = None
    ) -> None:
        (self.agent / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
        if permission is not None:
            (self.agent / "settings.json").write_text(json.dumps({"permission": permission}))

    def pith(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pith", "-p", "--model", "fake/m", *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
        )


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def bodies(server: FakeServer) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests if str(r["path"]).endswith("/chat/completions")]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m.get("role") == "tool"]


def last_result(body: dict[str, Any]) -> str:
    return tool_results(body)[-1]


def image_urls(body: dict[str, Any]) -> list[str]:
    urls = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            urls += [part["image_url"]["url"] for part in content if part["type"] == "image_url"]
    return urls


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def git_servers(repo: Path, **fields: object) -> dict[str, dict[str, object]]:
    return {
        "git": {
            "command": sys.executable,
            "args": ["-m", "mcp_server_git", "--repository", str(repo)],
            **fields,
        },
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"], **fields},
    }


def test_git_and_time_through_tool_search_and_a_denied_commit_does_not_run(run: Run) -> None:
    run.configure(
        git_servers(run.work, description="Read and change git repositories"),
        permission={"mcp": {"git:git_commit": "deny"}},
    )
    head = git(run.work, "rev-parse", "HEAD")
    repo = str(run.work)
    script = {
        "turns": [
            call("tool_search", query="git status log diff"),
            call("mcp__git__git_status", repo_path=repo),
            call("mcp__git__git_log", repo_path=repo, max_count=5),
            call("mcp__git__git_diff_unstaged", repo_path=repo),
            call("tool_search", query="current time in a timezone"),
            call("mcp__time__get_current_time", timezone="UTC"),
            call("tool_search", query="git:git_commit"),
            call("mcp__git__git_commit", repo_path=repo, message="Sneak a commit in"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("what changed here, and what time is it?")
        sent = bodies(server)
        unused = server.unused_turns()
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert unused == []
    assert len(sent) == 9
    # Deferred by default: the first request declares no MCP tool, only the search.
    assert "tool_search" in tool_names(sent[0])
    assert not [name for name in tool_names(sent[0]) if name.startswith("mcp__")]
    assert "mcp__git__git_status" in tool_names(sent[1])
    # git_status's answer (the real server's words) reaches the next request.
    status = last_result(sent[2])
    assert "notes.txt" in status
    assert "draft.md" in status
    log = last_result(sent[3])
    assert "Add the notes file" in log
    assert "+second line" in last_result(sent[4])
    assert "mcp__time__get_current_time" in tool_names(sent[5])
    now = json.loads(last_result(sent[6]))
    assert now["timezone"] == "UTC"
    assert now["datetime"][:2] == "20"
    # The commit was refused by the permission rule (or, where a denied tool is never declared,
    # it is unknown): the model is told, and the repository has no new commit.
    refused = last_result(sent[8])
    declared = "mcp__git__git_commit" in tool_names(sent[7])
    expected = "Permission denied" if declared else "Tool mcp__git__git_commit not found"
    assert refused.startswith(expected), refused
    assert "Sneak a commit in" not in git(run.work, "log", "--format=%s")
    assert git(run.work, "rev-parse", "HEAD") == head


def everything(**fields: object) -> dict[str, dict[str, object]]:
    if not EVERYTHING.exists():
        pytest.fail(
            f"@modelcontextprotocol/server-everything is not installed in {NPM_PREFIX}: "
            "run scripts/test, which installs it (it needs node and npm), or "
            f"npm install --prefix {NPM_PREFIX} @modelcontextprotocol/server-everything"
        )
    return {"everything": {"command": str(EVERYTHING), "args": ["stdio"], **fields}}


def test_everything_text_images_resources_structured_content_and_progress(run: Run) -> None:
    run.configure(everything(exposure="direct"))
    script = {
        "turns": [
            call("mcp__everything__echo", message="hello from the fake model"),
            call("mcp__everything__get_tiny_image"),
            call("mcp__everything__trigger_long_running_operation", duration=1, steps=3),
            call("mcp__everything__get_resource_reference", resourceType="Text", resourceId=2),
            call("mcp__everything__get_resource_links", count=1),
            call("mcp__everything__get_structured_content", location="New York"),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server, input=["text", "image"])
        result = run.pith("--mode", "json", "try the tools")
        sent = bodies(server)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert len(sent) == 7
    declared = tool_names(sent[0])
    assert {"mcp__everything__echo", "mcp__everything__get_tiny_image"} <= set(declared)
    assert "tool_search" not in declared
    assert "hello from the fake model" in last_result(sent[1])
    # The image is sent to the model as an image, not as text.
    assert any(url.startswith("data:image/png;base64,iVBOR") for url in image_urls(sent[2]))
    assert "iVBOR" not in "".join(tool_results(sent[2]))
    assert "Long running operation completed" in last_result(sent[3])
    updates = [
        e
        for e in events(result.stdout)
        if e.get("type") == "tool_execution_update"
        and e.get("toolName") == "mcp__everything__trigger_long_running_operation"
    ]
    assert [u["partialResult"]["content"][0]["text"] for u in updates][-1] == (
        "everything: working (3/3)"
    )
    # An embedded text resource: its URI, then its text.
    embedded = last_result(sent[4])
    assert "[resource demo://resource/dynamic/text/2]" in embedded
    assert "Resource 2: This is a plaintext resource" in embedded
    # A resource link names where it leads and how to read it.
    link = last_result(sent[5])
    assert "demo://resource/dynamic/" in link
    assert "mcp_resources" in link
    assert json.loads(last_result(sent[6])).keys() == {"temperature", "conditions", "humidity"}


def test_mcp_resources_reads_a_resource_of_everything(run: Run) -> None:
    run.configure(everything(exposure="direct"))
    uri = "demo://resource/dynamic/text/2"
    script = {
        "turns": [
            call("mcp_resources", action="read", server="everything", uri=uri),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(run.agent, server)
        result = run.pith("read the second text resource")
        sent = bodies(server)
    assert result.returncode == 0, result.stderr
    assert "mcp_resources" in tool_names(sent[0])
    assert "Resource 2: This is a plaintext resource" in last_result(sent[1])
