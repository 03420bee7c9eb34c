"""The agent directory's key files (`auth.json`, `mcp-auth.json`): reading them asks even when a
broad rule allows reads, and so does a read that takes the agent directory's contents; only a
rule of the user's naming the file lets a read through."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.ext.permissions import PermissionLayer, Ruleset, Situation, build_rules, decide
from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.ext.permissions._cli import Cli, call

HOME = "/home/ann"


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "auth.json").write_text("{}")
    (folder / "mcp-auth.json").write_text("{}")
    (folder / "settings.json").write_text("{}")
    (tmp_path / "work").mkdir()
    return folder


def decision(agent: Path, section: object, tool: str, **arguments: object) -> tuple[str, str]:
    rules = Ruleset(build_rules([PermissionLayer("settings.json", section)]), HOME)
    cwd = str(agent.parent / "work")
    situation = Situation(cwd, HOME, (str(agent),), {}, str(agent))
    found = decide(rules, tool, arguments, situation)
    return found.state, found.finding.gate if found.finding else ""


BROAD = {"*": "allow", "external_directory": "allow", "read": "allow", "bash": "allow"}


@pytest.mark.parametrize("name", ["auth.json", "mcp-auth.json"])
def test_reading_a_key_file_asks_under_broad_allows(agent: Path, name: str) -> None:
    path = str(agent / name)
    assert decision(agent, BROAD, "read", path=path) == ("ask", "control")
    assert decision(agent, BROAD, "grep", pattern="sk", path=path) == ("ask", "control")
    assert decision(agent, BROAD, "bash", command=f"cat {path}") == ("ask", "control")
    assert decision(agent, BROAD, "bash", command=f"cp {path} ./copy") == ("ask", "control")
    assert decision(agent, BROAD, "bash", command=f"cat < {path}") == ("ask", "control")


@pytest.mark.parametrize(
    "command",
    [
        "cat {agent}/*.json",
        "grep -r sk- {agent}",
        "tar czf out.tgz {agent}",
        "cd {agent} && cat auth.json",
    ],
)
def test_reading_the_agent_dirs_contents_asks(agent: Path, command: str) -> None:
    text = command.format(agent=agent)
    assert decision(agent, BROAD, "bash", command=text) == ("ask", "control")


def test_grep_of_the_agent_dir_asks(agent: Path) -> None:
    assert decision(agent, BROAD, "grep", pattern="sk", path=str(agent)) == ("ask", "control")


def test_a_link_to_a_key_file_asks(agent: Path) -> None:
    link = agent.parent / "work" / "innocent.txt"
    link.symlink_to(agent / "auth.json")
    assert decision(agent, BROAD, "read", path="innocent.txt") == ("ask", "control")


def test_other_files_of_the_agent_dir_and_listings_stay_allowed(agent: Path) -> None:
    assert decision(agent, {}, "read", path=str(agent / "settings.json"))[0] == "allow"
    assert decision(agent, {}, "ls", path=str(agent))[0] == "allow"
    assert decision(agent, {}, "find", pattern="*.json", path=str(agent))[0] == "allow"


def test_a_rule_naming_the_file_allows_reading_it_a_wildcard_does_not(agent: Path) -> None:
    path = str(agent / "auth.json")
    named = {"read": {path: "allow"}}
    assert decision(agent, named, "read", path=path)[0] == "allow"
    assert decision(agent, named, "bash", command=f"cat {path}")[0] == "allow"
    folder = {"read": {f"{agent}/*": "allow"}, "external_directory": "allow"}
    assert decision(agent, folder, "read", path=path) == ("ask", "control")


def test_a_deny_stays_a_deny(agent: Path) -> None:
    path = str(agent / "auth.json")
    assert decision(agent, {"read": {path: "deny"}}, "read", path=path)[0] == "deny"


def test_writing_a_key_file_asks_even_under_write_allow(agent: Path) -> None:
    path = str(agent / "auth.json")
    loose = {"*": "allow", "write": "allow", "edit": "allow", "external_directory": "allow"}
    assert decision(agent, loose, "write", path=path, content="{}") == ("ask", "control")
    edit = {"path": path, "edits": [{"oldText": "{}", "newText": "{ }"}]}
    assert decision(agent, loose, "edit", **edit) == ("ask", "control")
    assert decision(agent, loose, "bash", command=f"echo x > {path}") == ("ask", "control")


@pytest.mark.parametrize(
    "command",
    ["echo k | pith auth login openai", "pith auth logout openai", "python -m pith auth list"],
)
def test_pith_auth_from_bash_asks(agent: Path, command: str) -> None:
    rules = Ruleset(build_rules([PermissionLayer("settings.json", BROAD)]), HOME)
    situation = Situation(str(agent.parent / "work"), HOME, (str(agent),), {}, str(agent))
    found = decide(rules, "bash", {"command": command}, situation)
    assert found.state == "ask"
    assert found.finding is not None
    assert "`pith auth`, which saves and removes the API keys pith sends" in str(found.finding.note)


# --- end to end: a scripted model tries to read and change the saved key ----------------------

KEY = "zq-Saved-K3y-5d1e77"


def test_the_model_cannot_read_or_change_the_saved_key_without_asking(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    agent = tmp_path / "agent"
    env = subprocess_env(agent, HOME=str(tmp_path))
    cli = Cli(tmp_path, env)
    auth = agent / "auth.json"
    loose = {
        "*": "allow",
        "read": "allow",
        "write": "allow",
        "edit": "allow",
        "bash": "allow",
        "external_directory": "allow",
    }
    script = {
        "turns": [
            call("read", path=str(auth)),
            call("bash", command=f"cat {auth}"),
            call("bash", command=f"grep -r zq {agent}"),
            call("write", path=str(auth), content="{}"),
            call("edit", path=str(auth), edits=[{"oldText": "api_key", "newText": "x"}]),
            {"text": "done"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(agent, server)
        (agent / "settings.json").write_text(json.dumps({"permission": loose}))
        login = subprocess.run(
            [sys.executable, "-m", "pith", "auth", "login", "openai"],
            input=KEY,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=cli.work,
        )
        assert login.returncode == 0, login.stderr
        before = auth.read_bytes()
        result = cli.prompt("--no-session", "go")
        sent = json.dumps(server.requests)
    assert result.returncode == 0, result.stderr
    assert auth.read_bytes() == before
    assert KEY[3:12] not in sent
    assert KEY[3:12] not in result.stdout + result.stderr
    refusals = [line for line in result.stderr.splitlines() if "refused (no one to ask)" in line]
    assert len(refusals) == 5, result.stderr
    assert all("always asked" in line or "a broad rule does not" in line for line in refusals)
