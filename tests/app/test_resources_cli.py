"""Standing instructions reach every request, only from sources the user trusts."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

SKILL = "---\nname: deploy\ndescription: How to deploy this project.\n---\nRun make deploy.\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / ".pith" / "skills" / "deploy").mkdir(parents=True)
    (work / ".pith" / "skills" / "deploy" / "SKILL.md").write_text(SKILL)
    (work / ".pith" / "SYSTEM.md").write_text("You are the project's own agent.\n")
    (work / "AGENTS.md").write_text("Always run the tests with `make test`.\n")
    return work


def pith(tmp_path: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=cwd or tmp_path / "work",
        env=subprocess_env(tmp_path / "agent", HOME=str(tmp_path / "home")),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def system_prompts(server: FakeServer) -> list[str]:
    prompts = []
    for request in server.requests:
        messages = request["body"]["messages"]
        prompts.append(messages[0]["content"] if messages[0]["role"] == "system" else "")
    return prompts


def test_an_untrusted_project_gives_its_agents_md_but_not_its_skills_or_system_md(
    tmp_path: Path, project: Path
) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "hello")
        (prompt,) = system_prompts(server)
    assert result.returncode == 0, result.stderr
    assert "Always run the tests with `make test`." in prompt
    assert "deploy" not in prompt
    assert "project's own agent" not in prompt
    assert prompt.startswith("You are pith")
    skills, system_md = project / ".pith" / "skills", project / ".pith" / "SYSTEM.md"
    assert result.stderr == (
        f"pith: warning: this project is not trusted, so pith does not load {skills}, "
        f"{system_md}; run `pith trust` to decide, or pass --approve for this run\n"
    )


def test_an_approved_project_gives_its_skills_and_system_md(tmp_path: Path, project: Path) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "--approve", "hello")
        (prompt,) = system_prompts(server)
    assert result.returncode == 0, result.stderr
    assert prompt.startswith("You are the project's own agent.\n")
    assert "<name>deploy</name>" in prompt
    assert "Always run the tests with `make test`." in prompt


def test_a_skill_command_sends_the_skill_body(tmp_path: Path, project: Path) -> None:
    script = {"turns": [{"text": "deploying", "expect": ["Run make deploy.", "to staging"]}]}
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "-a", "/skill:deploy to staging")
        assert server.problems() == []
    assert result.returncode == 0, result.stderr


def test_a_saved_trust_decision_is_used_by_later_runs(tmp_path: Path, project: Path) -> None:
    decided = pith(tmp_path, "trust", "--yes")
    assert decided.returncode == 0, decided.stderr
    assert json.loads((tmp_path / "agent" / "trust.json").read_text()) == {str(project): True}
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, "-p", "--model", "fake/m", "hello")
        (prompt,) = system_prompts(server)
    assert "<name>deploy</name>" in prompt
    status = pith(tmp_path, "trust")
    assert status.stdout.startswith(f"{project}: trusted: saved decision for {project}")


def test_after_trust_no_the_warning_says_it_was_your_choice(tmp_path: Path, project: Path) -> None:
    assert pith(tmp_path, "trust", "--no").returncode == 0
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        result = pith(tmp_path, "-p", "--model", "fake/m", "hello")
    assert result.returncode == 0, result.stderr
    assert "you chose not to trust it (`pith trust --yes` changes that" in result.stderr
    assert "to decide" not in result.stderr


def test_forgetting_a_decision_that_does_not_exist_says_so(tmp_path: Path, project: Path) -> None:
    nothing = pith(tmp_path, "trust", "--forget")
    assert nothing.stdout == f"no saved decision for {project}: nothing to forget\n"
    assert pith(tmp_path, "trust", "--yes").returncode == 0
    forgot = pith(tmp_path, "trust", "--forget")
    assert forgot.stdout == f"forgot the saved decision for {project}\n"
    again = pith(tmp_path, "trust", "--forget")
    assert again.stdout.startswith("no saved decision")


def test_pith_trust_asks_in_a_terminal(tmp_path: Path, project: Path) -> None:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pith", "trust"],
        cwd=project,
        env=subprocess_env(tmp_path / "agent", HOME=str(tmp_path / "home")),
        stdin=follower,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    seen = b""
    while b"Choose" not in seen:
        chunk = os.read(leader, 4096)
        assert chunk, seen
        seen += chunk
    options = seen.decode()
    assert "1. Trust" in options
    assert "Do not trust" in options
    distrust = next(
        line.split(".")[0].strip() for line in options.splitlines() if "Do not trust" in line
    )
    os.write(leader, distrust.encode() + b"\n")
    assert process.wait(timeout=30) == 0
    with contextlib.suppress(OSError):
        while os.read(leader, 4096):
            pass
    os.close(leader)
    assert json.loads((tmp_path / "agent" / "trust.json").read_text()) == {str(project): False}


def test_a_malformed_settings_file_stops_pith_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text('{\n  "retry": {\n    "maxRetries": "three"\n  }\n}\n')
    result = pith(tmp_path, "-p", "hello")
    assert result.returncode == 2
    assert result.stderr == (
        f"pith: {agent / 'settings.json'}:3: setting 'retry.maxRetries': expected `int`, "
        "got `str`\n"
    )


def test_agents_md_is_in_every_request_even_after_a_compaction(
    tmp_path: Path, project: Path
) -> None:
    rule = "Always run the tests with `make test`."
    script = {"turns": [{"text": "one"}, {"text": "two"}, {"text": "three"}]}
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, "-p", "--model", "fake/m", "first")
        pith(tmp_path, "-p", "--model", "fake/m", "-c", "second")
        (session_file,) = (tmp_path / "agent" / "sessions").glob("*/*.jsonl")
        with SessionStore.open(session_file) as store:
            store.append_compaction("The user said first and second.", None, 1234)
        pith(tmp_path, "-p", "--model", "fake/m", "-c", "third")
        prompts = system_prompts(server)
        last_messages = server.requests[-1]["body"]["messages"]
    assert len(prompts) == 3
    assert all(rule in prompt for prompt in prompts)
    assert "The user said first and second." in json.dumps(last_messages)


def test_pith_context_shows_each_section_with_its_source(tmp_path: Path, project: Path) -> None:
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, "-p", "--model", "fake/m", "hello")
    text = pith(tmp_path, "context").stdout
    (line,) = [line for line in text.splitlines() if line.startswith("  project_context ")]
    assert line.endswith(str(project / "AGENTS.md"))
    report = json.loads(pith(tmp_path, "context", "--json", "--approve").stdout)
    sections = {part["name"]: part for part in report["systemPrompt"]["sections"]}
    assert sections["project_context"]["sources"] == [str(project / "AGENTS.md")]
    skill = project / ".pith" / "skills" / "deploy" / "SKILL.md"
    assert sections["skills"]["sources"] == [str(skill)]
    assert sections["preamble"]["sources"] == [str(project / ".pith" / "SYSTEM.md")]
    assert (
        "".join(part["text"] + "\n\n" for part in sections.values()).rstrip("\n")
        == (report["systemPrompt"]["text"])
    )
