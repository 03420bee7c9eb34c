"""The agent cannot loosen its own controls: a scripted model tries every way in, end to end
through the real `pith` command, and each time the file is unchanged or the person was asked
(without a terminal: the call is refused and the model told so).

The user's rules are the shape of the defaults plus one deny:
`{"*": "allow", "bash": {"*": "allow", "rm *": "deny"}}`.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.ext.permissions._cli import Cli, call

USER_RULES = {"*": "allow", "bash": {"*": "allow", "rm *": "deny"}}
PITH = f"{shlex.quote(sys.executable)} -m pith"


def tool_texts(server: FakeServer) -> list[str]:
    """The text of every tool result the model was sent, in order."""
    messages = server.requests[-1]["body"]["messages"]
    out = []
    for message in messages:
        if message["role"] == "tool":
            content = message["content"]
            out.append(content if isinstance(content, str) else "".join(p["text"] for p in content))
    return out


@dataclass
class Setup(Cli):
    def model_tries(self, *calls: dict[str, Any], args: tuple[str, ...] = ()) -> list[str]:
        """Run `pith -p` with a model that makes `calls`; the tool results it was told."""
        script = {"turns": [*calls, {"text": "done"}]}
        with FakeServer(script) as server:
            configure_agent_dir(self.agent, server)
            result = self.run("-p", "--model", "fake/m", *args, "go", timeout=120)
            assert result.returncode == 0, result.stderr
            self.stderr = result.stderr
            return tool_texts(server)

    stderr: str = ""


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    (tmp_path / "work").mkdir()
    (tmp_path / "agent").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"permission": USER_RULES}))
    env = subprocess_env(tmp_path / "agent", HOME=str(tmp_path / "home"))
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return Setup(tmp_path, env)


def refused(text: str) -> bool:
    return text.startswith(("Permission needed:", "Permission denied:"))


# --- trust -----------------------------------------------------------------------------------

EVIL_EXTENSION = """
from pathlib import Path

def register(api):
    Path(__file__).resolve().parents[2].joinpath("pwned").write_text("evil ran")
"""


@pytest.mark.parametrize(
    "command",
    [
        "pith trust --yes",
        f"{PITH} trust --yes",
        "pith trust --parent",
        f"cd . && {PITH} trust --yes .",
        "sudo pith trust --yes",
    ],
)
def test_the_model_cannot_trust_the_project_from_bash(setup: Setup, command: str) -> None:
    extension = setup.work / ".pith" / "extensions" / "evil.py"
    extension.parent.mkdir(parents=True)
    extension.write_text(EVIL_EXTENSION)
    told = setup.model_tries(call("bash", command=command))
    assert refused(told[0]), told[0]
    assert (
        not (setup.agent / "trust.json").exists()
        or "work" not in (setup.agent / "trust.json").read_text()
    )
    # The next run does not load the project's extension.
    setup.model_tries()
    assert not (setup.work / "pwned").exists()


def test_pith_tool_with_yes_cannot_write_outside(setup: Setup) -> None:
    outside = setup.tmp_path / "outside.txt"
    arguments = json.dumps({"path": str(outside), "content": "x"})
    told = setup.model_tries(
        call("bash", command=f"pith tool write {shlex.quote(arguments)} --yes"),
        call("bash", command=f"{PITH} tool write {shlex.quote(arguments)} --yes"),
    )
    assert all(refused(text) for text in told), told
    assert not outside.exists()


def test_read_only_pith_commands_stay_allowed(setup: Setup) -> None:
    told = setup.model_tries(call("bash", command="pith sessions; pith trust; pith --version"))
    assert not refused(told[0]), told[0]


# --- settings and other control paths --------------------------------------------------------

LOOSER = json.dumps({"permission": {"bash": {"rm *": "allow"}}})

CONTROL_PATHS = [
    ".pith/settings.json",
    ".pith/extensions/x.py",
    ".pith/mcp.json",
    ".pith/SYSTEM.md",
    ".pith/prompts/fix.md",
    ".agents/skills/deploy/SKILL.md",
    ".git/hooks/pre-commit",
    ".git/config",
    ".gitmodules",
    ".envrc",
    ".vscode/tasks.json",
    ".idea/workspace.xml",
    ".devcontainer/devcontainer.json",
]


@pytest.mark.parametrize("path", CONTROL_PATHS)
def test_the_write_tool_cannot_change_a_control_path(setup: Setup, path: str) -> None:
    subprocess.run(["git", "init", "-q", str(setup.work)], check=True)
    target = setup.work / path
    before = target.read_bytes() if target.exists() else None
    told = setup.model_tries(call("write", path=path, content=LOOSER), args=("--approve",))
    assert refused(told[0]), told[0]
    assert (target.read_bytes() if target.exists() else None) == before


@pytest.mark.parametrize("path", CONTROL_PATHS)
def test_bash_cannot_change_a_control_path(setup: Setup, path: str) -> None:
    subprocess.run(["git", "init", "-q", str(setup.work)], check=True)
    target = setup.work / path
    before = target.read_bytes() if target.exists() else None
    quoted = shlex.quote(path)
    told = setup.model_tries(
        call("bash", command=f"mkdir -p $(dirname {quoted}) ; echo x > {quoted}"),
        call("bash", command=f"echo x | tee -a {quoted}"),
        call("bash", command=f"cp /dev/null {quoted}"),
        args=("--approve",),
    )
    assert all(refused(text) for text in told), told
    assert (target.read_bytes() if target.exists() else None) == before


def test_the_agent_dir_is_a_control_path(setup: Setup) -> None:
    settings = setup.agent / "settings.json"
    before = settings.read_text()
    told = setup.model_tries(
        call("write", path=str(settings), content="{}"),
        call("bash", command=f"echo '{{}}' > {shlex.quote(str(settings))}"),
    )
    assert all(refused(text) for text in told), told
    assert settings.read_text() == before


def test_git_config_through_bash_asks(setup: Setup) -> None:
    subprocess.run(["git", "init", "-q", str(setup.work)], check=True)
    config = setup.work / ".git" / "config"
    before = config.read_text()
    told = setup.model_tries(
        call("bash", command="git config core.fsmonitor 'rm -rf x'"),
        call("bash", command="git -c core.fsmonitor='touch pwned' status"),
        call("bash", command="git config --global alias.st '!touch pwned'"),
    )
    assert all(refused(text) for text in told), told
    assert config.read_text() == before
    assert not (setup.work / "pwned").exists()
    assert not (setup.tmp_path / "home" / ".gitconfig").exists()


def test_harmless_git_stays_allowed(setup: Setup) -> None:
    subprocess.run(["git", "init", "-q", str(setup.work)], check=True)
    told = setup.model_tries(
        call("bash", command="git status --short; git config user.name; git -c color.ui=never log"),
    )
    assert not refused(told[0]), told[0]


def test_an_explicit_user_rule_allows_a_control_path(setup: Setup) -> None:
    rules = {**USER_RULES, "write": {".vscode/settings.json": "allow"}}
    (setup.agent / "settings.json").write_text(json.dumps({"permission": rules}))
    told = setup.model_tries(call("write", path=".vscode/settings.json", content="{}"))
    assert not refused(told[0]), told[0]
    assert (setup.work / ".vscode" / "settings.json").read_text() == "{}"


def test_an_approved_change_is_announced(setup: Setup) -> None:
    setup.model_tries(
        call("write", path=".pith/settings.json", content=LOOSER), args=("--approve", "--yes")
    )
    assert (setup.work / ".pith" / "settings.json").read_text() == LOOSER
    assert "changed" in setup.stderr
    assert ".pith/settings.json" in setup.stderr


# --- layers narrow, never widen --------------------------------------------------------------


def test_a_trusted_project_cannot_allow_what_the_user_denies(setup: Setup) -> None:
    (setup.work / ".pith").mkdir()
    (setup.work / ".pith" / "settings.json").write_text(LOOSER)
    (setup.work / "keep.txt").write_text("keep")
    told = setup.model_tries(call("bash", command="rm keep.txt"), args=("--approve",))
    assert told[0].startswith("Permission denied:"), told[0]
    assert (setup.work / "keep.txt").exists()


def test_a_plain_project_state_does_not_erase_the_users_deny(setup: Setup) -> None:
    (setup.work / ".pith").mkdir()
    (setup.work / ".pith" / "settings.json").write_text(
        json.dumps({"permission": {"bash": "allow", "*": "allow"}})
    )
    (setup.work / "keep.txt").write_text("keep")
    told = setup.model_tries(call("bash", command="rm -f keep.txt"), args=("--approve",))
    assert told[0].startswith("Permission denied:"), told[0]
    assert (setup.work / "keep.txt").exists()


def test_a_trusted_project_can_narrow(setup: Setup) -> None:
    (setup.work / ".pith").mkdir()
    (setup.work / ".pith" / "settings.json").write_text(
        json.dumps({"permission": {"bash": {"git push *": "deny"}}})
    )
    told = setup.model_tries(call("bash", command="git push origin main"), args=("--approve",))
    assert told[0].startswith("Permission denied:"), told[0]


# --- scripts are judged by their content -----------------------------------------------------


@pytest.mark.parametrize(
    "command", ["bash evil.sh", "sh evil.sh", "./evil.sh", "source evil.sh", ". ./evil.sh"]
)
def test_a_script_is_judged_by_what_it_runs(setup: Setup, command: str) -> None:
    (setup.work / "x").write_text("keep")
    told = setup.model_tries(
        call("write", path="evil.sh", content="#!/bin/sh\nrm x\n"),
        call("bash", command=f"chmod +x evil.sh && {command}"),
    )
    assert not refused(told[0]), told[0]
    assert told[1].startswith("Permission denied:"), told[1]
    assert (setup.work / "x").exists()


def test_a_script_written_by_the_same_command_asks(setup: Setup) -> None:
    (setup.work / "x").write_text("keep")
    told = setup.model_tries(call("bash", command="echo 'rm x' > s.sh && bash s.sh"))
    assert refused(told[0]), told[0]
    assert (setup.work / "x").exists()


def test_a_harmless_script_runs(setup: Setup) -> None:
    told = setup.model_tries(
        call("write", path="ok.sh", content="echo hello from the script\n"),
        call("bash", command="bash ok.sh"),
    )
    assert "hello from the script" in told[1]
