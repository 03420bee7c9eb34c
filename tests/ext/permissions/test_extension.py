"""The permission system on real model-issued calls: the fake model server asks for tools,
pith decides, and what the model is told is checked in the next request."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pith.ai import ModelRegistry
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.ext.permissions import register
from pith.extensions import ExtensionRunner, ExtensionSpec, NoticeLevel, load_extensions
from pith.json_input import parse_json
from pith.resources import load_settings
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.ext.permissions._cli import Cli, call


def tool_text(server: FakeServer, n: int) -> str:
    """The text of the last tool result in the `n`-th request."""
    messages = server.requests[n]["body"]["messages"]
    found = [m for m in messages if m["role"] == "tool"]
    content = found[-1]["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def tool_names(server: FakeServer, n: int) -> list[str]:
    return [tool["function"]["name"] for tool in server.requests[n]["body"].get("tools") or []]


# --- print mode, through the real `pith` command ----------------------------------------------


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    (tmp_path / "work").mkdir()
    (tmp_path / "agent").mkdir()
    return Cli(tmp_path, subprocess_env(tmp_path / "agent"))


def test_an_outside_read_is_refused_without_a_terminal_and_says_how(cli: Cli) -> None:
    outside = cli.tmp_path / "outside.txt"
    outside.write_text("secret plans\n")
    script = {"turns": [call("read", path=str(outside)), {"text": "ok"}]}
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        result = cli.prompt("read it")
        told = tool_text(server, 1)
    assert result.returncode == 0, result.stderr
    assert "secret plans" not in told
    assert told.startswith("Permission needed: ask: the path")
    assert "outside the working directory" in told
    assert "--yes" in told
    assert '"external_directory": {' in told
    notices = [line for line in result.stderr.splitlines() if "refused" in line]
    assert len(notices) == 1, result.stderr
    assert str(outside) in notices[0]
    assert "--yes" in notices[0]


def test_a_deny_in_print_mode_is_told_on_stderr_with_its_rule(cli: Cli) -> None:
    cli.settings({"bash": {"rm *": "deny"}})
    script = {"turns": [call("bash", command="rm -rf build"), {"text": "ok"}]}
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        result = cli.prompt("go")
    notices = [line for line in result.stderr.splitlines() if "refused" in line]
    assert len(notices) == 1, result.stderr
    assert 'bash["rm *"]=deny' in notices[0]
    assert str(cli.agent / "settings.json") in notices[0]


def test_the_suggested_snippet_is_valid_json_with_each_surface_once(cli: Cli) -> None:
    first, second = cli.tmp_path / "one", cli.tmp_path / "two"
    for folder in (first, second):
        folder.mkdir()
        (folder / "x.txt").write_text("x\n")
    command = f"cat {first / 'x.txt'} {second / 'x.txt'}"
    script = {"turns": [call("bash", command=command), {"text": "ok"}]}
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        result = cli.prompt("read both")
        told = tool_text(server, 1)
    assert result.returncode == 0, result.stderr
    snippet = told.split("add ", 1)[1].split(" to the permission section", 1)[0]
    suggested = parse_json("{" + snippet + "}", "the hint", fix="", unique_keys=True)
    assert isinstance(suggested, dict)
    assert list(suggested) == ["external_directory"]
    assert suggested["external_directory"] == {
        f"{first}/*": "allow",
        f"{second}/*": "allow",
    }


def test_yes_answers_questions_but_never_a_deny(cli: Cli) -> None:
    outside = cli.tmp_path / "outside.txt"
    outside.write_text("secret plans\n")
    cli.settings({"bash": {"rm *": "deny"}})
    script = {
        "turns": [
            call("read", path=str(outside)),
            call("bash", command="rm -rf build"),
            {"text": "ok"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        result = cli.prompt("--yes", "go")
        read, removed = tool_text(server, 1), tool_text(server, 2)
    assert result.returncode == 0, result.stderr
    assert "secret plans" in read
    assert removed.startswith("Permission denied: deny: the bash command 'rm -rf build'")
    assert 'bash["rm *"]=deny' in removed


def test_a_tool_denied_outright_is_not_offered(cli: Cli) -> None:
    cli.settings({"write": "deny", "edit": {"*": "allow", "*.lock": "deny"}})
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(cli.agent, server)
        cli.prompt("hi")
        names = tool_names(server, 0)
        system = server.requests[0]["body"]["messages"][0]["content"]
    assert "write" not in names
    assert "edit" in names  # restricted by path only: still offered
    assert "- write:" not in system


def test_a_broken_section_refuses_every_call_and_says_where(cli: Cli) -> None:
    (cli.agent / "settings.json").write_text('{\n  "permission": {"bash": "sometimes"}\n}\n')
    script = {"turns": [call("bash", command="echo hi"), {"text": "ok"}]}
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        result = cli.prompt("hi")
        told = tool_text(server, 1)
    assert 'settings.json:2: permission["bash"]' in result.stderr
    assert "every tool call is refused" in result.stderr
    assert told.startswith("Permission configuration error:")
    assert "hi\n" not in told


def test_the_same_call_three_times_is_stopped(cli: Cli) -> None:
    loop = call("bash", command="echo again")
    script = {"turns": [loop, loop, loop, {"text": "ok"}]}
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        cli.prompt("hi")
        answers = [tool_text(server, n) for n in (1, 2, 3)]
    assert answers[0].strip() == "again"
    assert answers[1].strip() == "again"
    assert "3 times in a row" in answers[2]


def test_every_decision_is_logged_privately_with_secrets_masked(cli: Cli) -> None:
    script = {
        "turns": [
            call("bash", command="echo hi", api_key="sk-very-secret"),
            {"text": "ok"},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(cli.agent, server)
        cli.prompt("hi")
    log = cli.agent / "logs" / "permissions.jsonl"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    [record] = [json.loads(line) for line in log.read_text().splitlines()]
    assert record["tool"] == "bash"
    assert record["decision"] == "allow"
    assert record["input"]["api_key"] == "********"
    assert "sk-very-secret" not in log.read_text()


# --- pith permissions check / show --------------------------------------------------------------


def test_check_names_the_gate_and_the_rule(cli: Cli) -> None:
    (cli.work / ".env").write_text("X=1")
    cli.settings({"read": {"*.env": {"action": "deny", "reason": "secrets stay secret"}}})
    result = cli.run(
        "permissions", "check", "--tool", "bash", "--args", '{"command": "cat .env"}', "--json"
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["decision"] == "deny"
    assert payload["gate"] == "bash_path"
    assert payload["rule"] == {
        "surface": "read",
        "pattern": "*.env",
        "state": "deny",
        "origin": str(cli.agent / "settings.json"),
    }
    assert payload["reason"] == "secrets stay secret"
    text = cli.run("permissions", "check", "--tool", "read", "--args", '{"path": ".env"}')
    assert text.stdout.startswith("deny: the path '.env'") or text.stdout.startswith("deny:")
    assert "secrets stay secret" in text.stdout


def test_check_refuses_bad_input_in_one_line(cli: Cli) -> None:
    result = cli.run("permissions", "check", "--tool", "bash", "--args", "{nope")
    assert result.returncode == 2
    assert result.stderr.startswith("pith: --args is not valid JSON")
    (cli.agent / "settings.json").write_text('{"permission": {"read": ["x"]}}')
    broken = cli.run("permissions", "check", "--tool", "read", "--args", "{}")
    assert broken.returncode == 2
    assert 'permission["read"]' in broken.stderr
    assert "Traceback" not in broken.stderr + result.stderr


def test_show_lists_rules_with_their_files(cli: Cli) -> None:
    cli.settings({"bash": {"git *": "allow", "git push *": "ask"}})
    result = cli.run("permissions", "show")
    lines = result.stdout.splitlines()
    assert '*["*"]=allow (default)' in lines
    assert f'bash["git push *"]=ask ({cli.agent / "settings.json"})' in lines


# --- asking, in-process with a UI that answers ----------------------------------------------------


@dataclass
class AnsweringUI:
    """Answers each question with the next of `answers` (matched by prefix)."""

    answers: list[str]
    reasons: list[str] = field(default_factory=list)
    questions: list[tuple[str, list[str]]] = field(default_factory=list)
    notices: list[tuple[str, str]] = field(default_factory=list)

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        self.notices.append((level, message))

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return False

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        self.questions.append((title, list(options)))
        wanted = self.answers.pop(0)
        return next(option for option in options if option.startswith(wanted))

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        return self.reasons.pop(0) if self.reasons else None


def asking_session(tmp_path: Path, server: FakeServer, ui: AnsweringUI) -> AgentSession:
    agent = configure_agent_dir(tmp_path / "agent", server)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    runner = ExtensionRunner(str(work), agent_dir=agent)
    spec = ExtensionSpec("permissions", "builtin", "<permissions>", lambda: register)
    asyncio.run(load_extensions(runner, [spec]))
    registry = ModelRegistry.load(agent)
    return build_agent_session(
        cwd=str(work),
        store=SessionStore.create(str(work), tmp_path / "sessions"),
        registry=registry,
        model=registry.find("fake/m").model,
        thinking="off",
        options=SessionOptions(),
        extensions=runner,
        mode="interactive",
        ui=ui,
        settings=load_settings(agent),
    )


def run_prompts(session: AgentSession, *prompts: str) -> None:
    async def scenario() -> None:
        await session.start()
        try:
            for text in prompts:
                await session.prompt(text)
        finally:
            await session.shutdown()

    asyncio.run(scenario())


def test_allowing_for_the_session_covers_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.txt").write_text("alpha\n")
    (outside / "b.txt").write_text("beta\n")
    script = {
        "turns": [
            call("read", path=str(outside / "a.txt")),
            call("read", path=str(outside / "b.txt")),
            {"text": "ok"},
        ]
    }
    ui = AnsweringUI(["Allow for this session"])
    with FakeServer(script) as server:
        session = asking_session(tmp_path, server, ui)
        run_prompts(session, "read both")
        first, second = tool_text(server, 1), tool_text(server, 2)
    assert "alpha" in first
    assert "beta" in second
    [(title, options)] = ui.questions  # asked once
    assert str(outside / "a.txt") in title
    assert f"Allow for this session: external_directory {outside}/*" in options


def test_deny_with_a_reason_tells_the_model(tmp_path: Path) -> None:
    script = {"turns": [call("read", path="/etc/hostname"), {"text": "ok"}]}
    ui = AnsweringUI(["Deny, and tell"], reasons=["use the config in the repo instead"])
    with FakeServer(script) as server:
        session = asking_session(tmp_path, server, ui)
        run_prompts(session, "go")
        told = tool_text(server, 1)
    assert told.startswith("Permission denied by the user")
    assert told.endswith("Reason: use the config in the repo instead")


def test_always_allow_writes_the_rule_to_the_user_settings(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.txt").write_text("alpha\n")
    script = {"turns": [call("read", path=str(outside / "a.txt")), {"text": "ok"}]}
    ui = AnsweringUI(["Always allow everywhere"])
    with FakeServer(script) as server:
        session = asking_session(tmp_path, server, ui)
        (tmp_path / "agent" / "settings.json").write_text('{"theme": "dark"}')
        run_prompts(session, "go")
    saved = json.loads((tmp_path / "agent" / "settings.json").read_text())
    assert saved == {
        "theme": "dark",
        "permission": {"external_directory": {f"{outside}/*": "allow"}},
    }


def test_permissions_command_shows_rules_and_toggles_yes(tmp_path: Path) -> None:
    ui = AnsweringUI([])
    with FakeServer({"turns": []}) as server:
        session = asking_session(tmp_path, server, ui)
        run_prompts(session, "/permissions", "/permissions yes")
    shown = ui.notices[0][1]
    assert shown.startswith("[permissions] Permission rules")
    assert 'external_directory["*"]=ask (default)' in shown
    assert "--yes: off" in shown
    assert ui.notices[1][1] == "[permissions] --yes is on"


def test_reading_a_skill_under_the_agent_dir_is_not_an_outside_access(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    skill = agent / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploys.\n---\nSteps.\n")
    script = {"turns": [call("read", path=str(skill / "SKILL.md")), {"text": "ok"}]}
    with FakeServer(script) as server:
        session = asking_session(tmp_path, server, AnsweringUI([]))
        run_prompts(session, "deploy")
        told = tool_text(server, 1)
    assert "Steps." in told


def test_check_warns_about_a_tool_name_close_to_a_built_in(cli: Cli) -> None:
    result = cli.run("permissions", "check", "--tool", "bsh", "--args", "{}")
    assert result.returncode == 0
    assert "'bsh' is not a built-in tool; did you mean 'bash'?" in result.stderr
    quiet = cli.run("permissions", "check", "--tool", "mcp_search", "--args", "{}")
    assert quiet.stderr == ""


def test_an_allow_that_does_not_reach_is_not_reported_as_the_reason(cli: Cli) -> None:
    cli.settings({"*": "allow", "bash": {"*": "allow", "git *": "ask"}})
    args = json.dumps({"command": "timeout 5 ls"})
    result = cli.run("permissions", "check", "--tool", "bash", "--args", args)
    first = result.stdout.splitlines()[0]
    assert first.startswith("ask: the bash command 'timeout 5 ls'")
    assert 'by the rule bash["*"]=allow' not in first
    assert 'the rule bash["*"]=allow' in first
    assert "is not enough here" in first
