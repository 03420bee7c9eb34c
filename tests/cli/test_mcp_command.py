"""`pith mcp add|remove|list` as a user runs them: a real `pith` subprocess with its own agent
folder and home; the files it writes are the ones Pi 1.6 writes for the same commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import subprocess_env

PI_FILES = Path(__file__).parents[1] / "mcp" / "pi_files"


class Env:
    def __init__(self, root: Path) -> None:
        self.agent = root / "agent"
        self.project = root / "project"
        self.project.mkdir()
        self.env = subprocess_env(self.agent, HOME=str(root))
        self.env.pop("DOCS_TOKEN", None)

    @property
    def user_file(self) -> Path:
        return self.agent / "mcp.json"

    @property
    def project_file(self) -> Path:
        return self.project / ".pith" / "mcp.json"

    def pith(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pith", *args],
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=60,
            env={**self.env, **extra},
        )


@pytest.fixture
def env(tmp_path: Path) -> Env:
    return Env(tmp_path)


def one_line_error(result: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert result.returncode == code, result
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr


def test_help(env: Env) -> None:
    assert "mcp" in env.pith("--help").stdout
    top = env.pith("mcp", "--help")
    assert top.returncode == 0
    for command in ("add", "remove", "list"):
        assert command in top.stdout
        sub = env.pith("mcp", command, "--help")
        assert sub.returncode == 0
        assert f"usage: pith mcp {command}" in sub.stdout
    assert "--bearer-token-env-var" in env.pith("mcp", "add", "--help").stdout


def test_add_writes_what_pi_writes(env: Env) -> None:
    result = env.pith(
        "mcp", "add", "fs", "--env", "A=1", "--cwd", "sub", "--description", "files",
        "--exposure", "direct", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        f"Added user MCP server 'fs' in {env.user_file}.\nCheck it with: pith mcp list\n"
    )
    assert env.user_file.read_text() == (PI_FILES / "add_stdio.json").read_text()
    result = env.pith(
        "mcp", "add", "docs", "--url", "https://example.com/mcp", "--header", "X-A=b",
        "--bearer-token-env-var", "DOCS_TOKEN",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert env.user_file.read_text() == (PI_FILES / "add_http.json").read_text()
    replaced = env.pith("mcp", "add", "fs", "uvx", "other-mcp", "--port", "3")
    assert replaced.stdout.startswith(f"Replaced user MCP server 'fs' in {env.user_file}.")
    assert env.user_file.read_text() == (PI_FILES / "replace_stdio.json").read_text()
    removed = env.pith("mcp", "remove", "docs")
    assert removed.stdout == f"Removed user MCP server 'docs' from {env.user_file}.\n"
    assert env.user_file.read_text() == (PI_FILES / "remove_http.json").read_text()


def test_add_oauth_options_and_timeout(env: Env) -> None:
    env.user_file.parent.mkdir(parents=True)
    env.user_file.write_text((PI_FILES / "tabs_after_add.json").read_text())
    result = env.pith(
        "mcp", "add", "o", "--url", "https://x.test/mcp", "--oauth-client-id", "cid",
        "--oauth-client-secret", "${S}", "--oauth-callback-port", "8765",
        "--oauth-client-name", "Claude Code", "--oauth-client-registration", "dcr",
        "--exposure", "hidden",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert env.user_file.read_text() == (PI_FILES / "tabs_after_oauth.json").read_text()
    env.pith("mcp", "add", "t", "--timeout", "30", "--timeout", "2.5", "--", "x")
    assert json.loads(env.user_file.read_text())["mcpServers"]["t"] == {
        "command": "x",
        "timeout": 2.5,
    }


def test_local_add_in_an_untrusted_project_says_when_it_is_read(env: Env) -> None:
    result = env.pith("mcp", "add", "-l", "loc", "--", "uvx", "tools-mcp")
    assert result.returncode == 0, result.stderr
    assert "is read only once it is (pith trust)" in result.stdout
    assert json.loads(env.project_file.read_text()) == {
        "mcpServers": {"loc": {"command": "uvx", "args": ["tools-mcp"]}}
    }
    listed = env.pith("mcp", "list")
    assert listed.returncode == 0
    assert not listed.stdout.startswith("loc:")
    assert f"{env.project_file} is not read: the project is not trusted" in listed.stdout
    approved = env.pith("mcp", "list", "-a", "--json")
    assert [row["name"] for row in json.loads(approved.stdout)["servers"]] == ["loc"]


def test_list_in_a_trusted_project(env: Env) -> None:
    env.pith("mcp", "add", "gh", "--url", "https://api.example.com/mcp", "--exposure", "direct")
    env.project_file.parent.mkdir(parents=True)
    env.project_file.write_text(
        json.dumps(
            {"mcpServers": {"gh": {"enabled": False}, "p": {"command": "srv", "args": ["-v"]}}}
        )
    )
    assert env.pith("trust", "--yes").returncode == 0
    result = env.pith("mcp", "list")
    assert result.returncode == 1, result.stdout  # `srv` is no program: it cannot connect
    lines = result.stdout.splitlines()
    assert lines[:7] == [
        "gh: disabled (direct, user)",
        "  http: https://api.example.com/mcp",
        f"  from {env.user_file}",
        f"  project override: {env.project_file}",
        "p: failed (deferred, project)",
        "  stdio: srv -v",
        f"  from {env.project_file}",
    ]
    assert lines[7].startswith("  error: MCP server 'p' failed")
    payload = json.loads(env.pith("mcp", "list", "--json").stdout)
    assert payload["errors"] == []
    assert payload["servers"][0] == {
        "name": "gh",
        "scope": "user",
        "source": str(env.user_file),
        "transport": "http",
        "target": "https://api.example.com/mcp",
        "enabled": False,
        "exposure": "direct",
        "override": str(env.project_file),
        "state": "disabled",
        "tool_count": 0,
        "error": None,
        "stderr_tail": "",
        "tool_exposure": [],
    }


def test_list_reports_every_problem_and_exits_1(env: Env) -> None:
    env.user_file.parent.mkdir(parents=True)
    env.user_file.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "ok": {"command": "x"},
                    "sse": {"type": "sse", "url": "http://x/sse"},
                    "tok": {"url": "http://x/mcp", "headers": {"A": "${DOCS_TOKEN}"}},
                }
            }
        )
    )
    result = env.pith("mcp", "list")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "ok: failed (deferred, user)"
    errors = [line for line in lines if line.startswith("config error: ")]
    assert len(errors) == 2
    assert "often /mcp instead of /sse" in errors[0]
    assert "DOCS_TOKEN" in errors[1]
    with_token = env.pith("mcp", "list", "--json", DOCS_TOKEN="t")
    assert with_token.returncode == 1
    assert len(json.loads(with_token.stdout)["errors"]) == 1


def test_list_with_nothing_configured(env: Env) -> None:
    result = env.pith("mcp", "list")
    assert result.returncode == 0
    assert result.stdout.startswith("No MCP servers configured.")


def test_a_file_that_is_not_json_is_not_overwritten(env: Env) -> None:
    env.user_file.parent.mkdir(parents=True)
    env.user_file.write_text('{"mcpServers": {')
    error = one_line_error(env.pith("mcp", "add", "x", "--", "cmd"))
    assert f"{env.user_file} cannot be changed: line 1" in error
    assert env.user_file.read_text() == '{"mcpServers": {'
    listed = env.pith("mcp", "list")
    assert listed.returncode == 1
    assert "not valid JSON" in listed.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["add", "bad name", "--", "x"], "letters, digits"),
        (["add", "a__b", "--", "x"], "'__'"),
        (["add", "x", "--url", "ftp://x"], "http or https URL"),
        (["add", "x", "--header", "A=b", "--", "cmd"], "--header is for HTTP servers"),
        (["add", "x", "--url", "http://x", "--env", "A=b"], "--env and --cwd are for stdio"),
        (["add", "x", "--url", "http://x", "--header", "nope"], "--header wants KEY=VALUE"),
        (["add", "x", "--url", "http://x", "--bearer-token-env-var", "A B"], "a variable name"),
        (["add", "x"], "needs either --url URL or -- COMMAND"),
        (["add", "x", "--url", "http://x", "--", "cmd"], "needs either --url URL or -- COMMAND"),
        (["add", "x", "--timeout", "0", "--", "cmd"], "timeout"),
        (["remove", "nothere"], "no user MCP server 'nothere'"),
    ],
)
def test_bad_commands_are_one_line_with_exit_2(env: Env, args: list[str], words: str) -> None:
    assert words in one_line_error(env.pith("mcp", *args))
    assert not env.user_file.exists()


def test_remove_points_to_the_file_that_has_the_server(env: Env) -> None:
    env.pith("mcp", "add", "-l", "loc", "--", "x")
    error = one_line_error(env.pith("mcp", "remove", "loc"))
    assert f"It is in {env.project_file}; add --local." in error
    env.pith("mcp", "add", "glob", "--", "x")
    error = one_line_error(env.pith("mcp", "remove", "-l", "glob"))
    assert f"It is in {env.user_file}; omit --local." in error


def test_the_command_after_the_name_keeps_its_own_options(env: Env) -> None:
    result = env.pith("mcp", "add", "--exposure", "hidden", "srv", "node", "--inspect", "-l", "x")
    assert result.returncode == 0, result.stderr
    assert json.loads(env.user_file.read_text())["mcpServers"]["srv"] == {
        "command": "node",
        "args": ["--inspect", "-l", "x"],
        "exposure": "hidden",
    }


def test_a_server_added_by_pith_is_listed_with_its_expanded_home(env: Env) -> None:
    env.pith("mcp", "add", "h", "--", "~/bin/srv", "~/data")
    result = env.pith("mcp", "list")
    home = env.env["HOME"]
    assert f"  stdio: {home}/bin/srv {home}/data" in result.stdout.splitlines()
    assert os.path.isdir(home)


def _servers(env: Env, **servers: dict[str, object]) -> None:
    env.user_file.parent.mkdir(parents=True, exist_ok=True)
    env.user_file.write_text(json.dumps({"mcpServers": servers}))


TOOLBOX = Path(__file__).parents[1] / "mcp" / "servers" / "toolbox.py"


def test_list_connects_and_shows_each_servers_state_and_tools(env: Env) -> None:
    _servers(
        env,
        box={
            "command": sys.executable,
            "args": [str(TOOLBOX)],
            "exposure": "direct",
            "toolExposure": {"echo": "deferred", "big": "hidden"},
        },
        time={"command": sys.executable, "args": ["-m", "mcp_server_time"]},
    )
    result = env.pith("mcp", "list")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    box = next(line for line in lines if line.startswith("box: "))
    assert box.startswith("box: connected, ")
    assert box.endswith(" tools (direct, user)")
    assert "  tool echo: deferred" in lines
    assert "  tool big: hidden" in lines
    assert "time: connected, 2 tools (deferred, user)" in lines
    payload = json.loads(env.pith("mcp", "list", "--json").stdout)
    rows = {row["name"]: row for row in payload["servers"]}
    assert rows["box"]["state"] == "connected"
    assert rows["box"]["tool_count"] > 5
    assert rows["box"]["tool_exposure"] == [
        {"tool": "echo", "exposure": "deferred"},
        {"tool": "big", "exposure": "hidden"},
    ]
    assert rows["time"]["tool_count"] == 2
    assert rows["time"]["tool_exposure"] == []
    assert rows["time"]["error"] is None


def test_list_exits_1_and_shows_the_error_and_stderr_of_a_dead_server(env: Env) -> None:
    _servers(
        env,
        box={"command": sys.executable, "args": [str(TOOLBOX)]},
        dead={"command": sys.executable, "args": [str(TOOLBOX), "--mode", "exit"]},
        off={"command": "nothing-here", "enabled": False},
    )
    result = env.pith("mcp", "list")
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("box: connected, ") for line in lines)
    assert "dead: failed (deferred, user)" in lines
    assert "off: disabled (deferred, user)" in lines
    error = next(line for line in lines if line.startswith("  error: MCP server 'dead'"))
    assert "at start" in error
    assert "  stderr:" in lines
    payload = json.loads(env.pith("mcp", "list", "--json").stdout)
    dead = next(row for row in payload["servers"] if row["name"] == "dead")
    assert dead["state"] == "failed"
    assert dead["tool_count"] == 0
    assert "MCP server 'dead' exited at start" in dead["error"]
    assert "missing TOKEN" in dead["stderr_tail"]
