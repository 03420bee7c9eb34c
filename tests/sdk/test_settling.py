"""`pith.create_session` decides the project's trust and the model the way `pith -p` does: the
same code path, so a program and the command line agree. Real sessions against the fake model
server over HTTP; the fake server also plays a local Ollama (found through
PITH_LOCAL_SERVERS, as the command line's tests do)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import pith
from pith.testing import FakeServer, subprocess_env
from tests.sdk.helpers import place


def tools_of(work: Path, agent: Path, warnings: list[str], **choice: object) -> list[str]:
    async def main() -> list[str]:
        async with await pith.create_session(
            cwd=work,
            agent_dir=agent,
            session="memory",
            on_warning=warnings.append,
            **choice,  # type: ignore[arg-type]
        ) as session:
            return sorted((await session.context()).tool_tokens)

    return asyncio.run(main())


def run_pith(work: Path, agent: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A real `pith` process in `work` with `agent` as its agent dir."""
    return subprocess.run(
        [sys.executable, "-m", "pith", *args],
        cwd=work,
        env=subprocess_env(agent),
        capture_output=True,
        text=True,
        timeout=60,
    )


def project_settings(work: Path, values: dict[str, object]) -> None:
    (work / ".pith").mkdir()
    (work / ".pith" / "settings.json").write_text(json.dumps(values))


def test_an_undecided_project_is_untrusted_unless_the_program_trusts_it(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        where = place(tmp_path, server)
        project_settings(where.work, {"defaultTools": ["find"]})
        warned: list[str] = []
        assert tools_of(where.work, where.agent, warned) != ["find"]
        (notice,) = warned
        assert notice.startswith("this project is not trusted, so pith does not load ")
        assert ".pith/settings.json" in notice
        assert "trust_project=True" in notice
        assert "--approve" not in notice

        trusted: list[str] = []
        assert tools_of(where.work, where.agent, trusted, trust_project=True) == ["find"]
        assert trusted == []
        refused: list[str] = []
        assert tools_of(where.work, where.agent, refused, trust_project=False) != ["find"]


def test_the_decision_pith_trust_saved_is_the_default(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        where = place(tmp_path, server)
        project_settings(where.work, {"defaultTools": ["find"]})
        saved = run_pith(where.work, where.agent, "trust", "--yes")
        assert saved.returncode == 0, saved.stderr
        warned: list[str] = []
        assert tools_of(where.work, where.agent, warned) == ["find"]
        assert warned == []
        # Saying no for this session wins over the saved decision, as --no-approve does.
        assert tools_of(where.work, where.agent, warned, trust_project=False) != ["find"]


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider key in the environment: only what the test configures is there."""
    for key in list(os.environ):
        if key.endswith("_API_KEY"):
            monkeypatch.delenv(key)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.usefixtures("no_keys")
def test_a_local_server_is_used_when_no_model_is_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "work").mkdir()
    agent = tmp_path / "agent"
    agent.mkdir()
    script = {"model": "qwen3:8b", "turns": [{"text": "hello from ollama"}]}
    with FakeServer(script) as server:
        port = server.port
        monkeypatch.setenv("PITH_LOCAL_SERVERS", f"ollama={port}")
        warned: list[str] = []

        async def main() -> tuple[str, str]:
            async with await pith.create_session(
                cwd=tmp_path / "work", agent_dir=agent, session="memory", on_warning=warned.append
            ) as session:
                await session.prompt("hi")
                return session.model.key, session.last_text

        assert asyncio.run(main()) == ("ollama/qwen3:8b", "hello from ollama")
        paths = [request["path"] for request in server.requests]
    assert paths == ["/v1/models", "/v1/chat/completions"]
    (found,) = warned
    assert found.startswith(f"no model configured; found Ollama at http://127.0.0.1:{port}")
    assert "using ollama/qwen3:8b" in found
    assert "Choose with model=" in found


@pytest.mark.usefixtures("no_keys")
def test_without_any_model_the_error_names_the_programs_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "work").mkdir()
    agent = tmp_path / "agent"
    agent.mkdir()
    port = closed_port()
    monkeypatch.setenv("PITH_LOCAL_SERVERS", f"ollama={port}")
    with pytest.raises(pith.InputError) as raised:
        asyncio.run(pith.create_session(cwd=tmp_path / "work", agent_dir=agent))
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"no model configured: no Ollama at http://127.0.0.1:{port} ")
    assert "model= provider/id and api_key=" in message
    assert str(agent / "models.json") in message


@pytest.mark.usefixtures("no_keys")
def test_a_configured_model_asks_no_local_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeServer({"turns": [{"text": "configured"}]}) as server, FakeServer({}) as local:
        where = place(tmp_path, server)
        monkeypatch.setenv("PITH_LOCAL_SERVERS", f"ollama={local.port}")

        async def main() -> str:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory"
            ) as session:
                await session.prompt("hi")
                return session.last_text

        assert asyncio.run(main()) == "configured"
        assert local.requests == []


@pytest.mark.usefixtures("no_keys")
def test_an_unset_key_variable_of_a_server_that_may_go_without_is_a_warning(
    tmp_path: Path,
) -> None:
    with FakeServer({"turns": [{"text": "hello"}]}) as server:
        where = place(tmp_path, server)
        models = json.loads((where.agent / "models.json").read_text())
        models["providers"]["fake"]["apiKey"] = "$FAKE_SERVER_KEY_NOT_SET"
        (where.agent / "models.json").write_text(json.dumps(models))
        warned: list[str] = []

        async def main() -> str:
            async with await pith.create_session(
                cwd=where.work, agent_dir=where.agent, session="memory", on_warning=warned.append
            ) as session:
                await session.prompt("hi")
                return session.last_text

        assert asyncio.run(main()) == "hello"
    assert any(
        "$FAKE_SERVER_KEY_NOT_SET is not set" in line and "go without a key" in line
        for line in warned
    ), warned


def test_json_mode_writes_a_record_for_each_event_the_sdk_streams(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
            {"text": "Two lines."},
        ]
    }
    with FakeServer(script) as first, FakeServer(script) as second:
        (tmp_path / "sdk").mkdir()
        (tmp_path / "cli").mkdir()
        mine = place(tmp_path / "sdk", first)
        theirs = place(tmp_path / "cli", second)

        async def main() -> list[str]:
            async with await pith.create_session(
                cwd=mine.work, agent_dir=mine.agent, session="memory"
            ) as session:
                return [event.type async for event in session.stream("count the lines")]

        streamed = asyncio.run(main())
        shown = run_pith(
            theirs.work, theirs.agent, "--no-session", "--mode", "json", "count the lines"
        )
    assert shown.returncode == 0, shown.stderr
    header, *records = [json.loads(line) for line in shown.stdout.splitlines()]
    assert header["type"] == "session"
    assert [record["type"] for record in records] == streamed
    assert "tool_execution_end" in streamed
