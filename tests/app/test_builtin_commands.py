"""pith's own slash commands as a user types them: `/fork`, `/clone`, `/compact`, through the
real `pith` command and through a session."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pith.ai import ModelRegistry
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.app.session import PromptOutcome
from pith.extensions import Extension, ExtensionAPI, ExtensionRunner
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir, subprocess_env


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "work").mkdir()
    return subprocess_env(tmp_path / "agent")


def pith(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pith", "-p", "--model", "fake/m", *args],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def session_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "agent" / "sessions").glob("*/*.jsonl"))


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def user_texts(path: Path) -> list[str]:
    out = []
    for record in lines(path):
        message = record.get("message")
        if isinstance(message, dict) and message.get("role") == "user":
            content = message["content"]
            out.append(content if isinstance(content, str) else content[0]["text"])
    return out


def test_clone_continues_in_a_copy_naming_its_parent(tmp_path: Path, env: dict[str, str]) -> None:
    script = {"turns": [{"text": "one"}, {"text": "two", "expect": ["first", "one"]}]}
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, env, "first")
        [original] = session_files(tmp_path)
        result = pith(tmp_path, env, "-c", "/clone", "second")
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    assert "Cloned into " in result.stderr
    clone = next(path for path in session_files(tmp_path) if path != original)
    assert str(clone) in result.stderr
    assert lines(clone)[0]["parentSession"] == str(original)
    assert user_texts(clone) == ["first", "second"]
    assert user_texts(original) == ["first"]


def test_fork_without_an_id_lists_your_messages(tmp_path: Path, env: dict[str, str]) -> None:
    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, env, "first question")
        pith(tmp_path, env, "-c", "second question\nwith a second line")
        result = pith(tmp_path, env, "-c", "/fork")
    assert result.returncode == 0
    [path] = session_files(tmp_path)
    ids = [
        record["id"]
        for record in lines(path)
        if isinstance(record.get("message"), dict) and record["message"]["role"] == "user"  # type: ignore[index]
    ]
    assert f"{ids[0]}  first question" in result.stderr
    assert f"{ids[1]}  second question\n" in result.stderr
    assert "with a second line" not in result.stderr


def test_fork_starts_a_new_session_before_the_message(tmp_path: Path, env: dict[str, str]) -> None:
    script = {
        "turns": [
            {"text": "one"},
            {"text": "two"},
            {"text": "redo", "expect": ["first"], "unless": ['"second"']},
        ]
    }
    with FakeServer(script) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, env, "first")
        pith(tmp_path, env, "-c", "second")
        [original] = session_files(tmp_path)
        second_id = next(
            record["id"]
            for record in lines(original)
            if isinstance(record.get("message"), dict)
            and record["message"]["content"][0]["text"] == "second"  # type: ignore[index]
        )
        result = pith(tmp_path, env, "-c", f"/fork {second_id}", "another second")
        assert server.problems() == []
    assert result.returncode == 0, result.stderr
    fork = next(path for path in session_files(tmp_path) if path != original)
    assert user_texts(fork) == ["first", "another second"]
    assert result.stdout == "redo\n"


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("/fork nope", "no entry nope in this session"),
        ("/clone now", "/clone takes no arguments"),
    ],
)
def test_a_refused_command_is_a_one_line_error(
    tmp_path: Path, env: dict[str, str], command: str, message: str
) -> None:
    with FakeServer({"turns": [{"text": "one"}]}) as server:
        configure_agent_dir(tmp_path / "agent", server)
        pith(tmp_path, env, "first")
        result = pith(tmp_path, env, "-c", command)
    assert f"pith: error: {message}" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(session_files(tmp_path)) == 1


def test_fork_from_an_assistant_message_is_refused(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "one"}]}) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        registry = ModelRegistry.load(agent)
        work = tmp_path / "work"
        work.mkdir()
        notices: list[str] = []
        runner = ExtensionRunner(str(work))

        def register(api: ExtensionAPI) -> None:
            api.on("session_before_fork", lambda e, ctx: notices.append("asked"))

        register(runner.add(Extension("probe", "cli")))
        session: AgentSession = build_agent_session(
            cwd=str(work),
            store=SessionStore.create(str(work), tmp_path / "sessions"),
            registry=registry,
            model=registry.find("fake/m").model,
            thinking="off",
            options=SessionOptions(),
            extensions=runner,
        )

        async def scenario() -> PromptOutcome:
            await session.prompt("first")
            return await session.prompt(f"/fork {session.store.leaf_id}")

        store = session.store
        outcome = asyncio.run(scenario())
        session.close()
    assert session.store is store
    assert notices == []  # refused before the extensions are asked
    assert outcome.failed
    assert outcome.editor_text is None


def test_compact_then_context_shows_where_it_cut(tmp_path: Path, env: dict[str, str]) -> None:
    from pith.compaction import SUMMARIZER_SYSTEM_PROMPT

    summarizer = SUMMARIZER_SYSTEM_PROMPT[:60]
    script = {
        "turns": [
            {"text": "one " * 100, "unless": [summarizer]},
            {"text": "two " * 100, "unless": [summarizer]},
            {"text": "## Goal\nTwo questions.", "match": [summarizer]},
        ]
    }
    with FakeServer(script) as server:
        agent = configure_agent_dir(tmp_path / "agent", server)
        settings = {"compaction": {"keepRecentTokens": 102}}  # the second turn exactly
        (agent / "settings.json").write_text(json.dumps(settings))
        pith(tmp_path, env, "first question")
        pith(tmp_path, env, "-c", "second question")
        result = pith(tmp_path, env, "-c", "/compact keep the numbers")
        assert server.problems() == []
        assert "Additional focus: keep the numbers" in json.dumps(server.requests[-1]["body"])
    assert result.returncode == 0, result.stderr
    assert "Compacted: " in result.stderr
    report = subprocess.run(
        [sys.executable, "-m", "pith", "context"],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert report.returncode == 0, report.stderr
    assert "compacts above ~111,616 tokens" in report.stdout  # 128000 - 16384
    assert "summary: ## Goal Two questions." in report.stdout
    assert "kept from message 2 on" in report.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "pith", "context", "--json"],
        cwd=tmp_path / "work",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    compaction = json.loads(as_json.stdout)["compaction"]
    assert compaction["count"] == 1
    assert compaction["latest"]["summary"].startswith("## Goal\nTwo questions.")
    assert compaction["latest"]["keptFromMessage"] == 2
    assert compaction["latest"]["tokensBefore"] > 0
