"""The user's own commands (`!cmd`, `!!cmd`): recorded in the session, in a safe place."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pith.agent import ToolExecutionStart
from pith.ai import ModelRegistry
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir


def new_session(tmp_path: Path, server: FakeServer) -> AgentSession:
    registry = ModelRegistry.load(configure_agent_dir(tmp_path / "agent", server))
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    store = SessionStore.create(str(work), tmp_path / "sessions")
    return build_agent_session(
        cwd=str(work),
        store=store,
        registry=registry,
        model=registry.find("fake/m").model,
        thinking="off",
        options=SessionOptions(),
    )


def recorded(session: AgentSession) -> list[str]:
    """The session file's messages as role names (bash ones with their command)."""
    assert session.store.path is not None
    roles = []
    for line in session.store.path.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] == "message":
            message = entry["message"]
            suffix = f":{message['command']}" if message["role"] == "bashExecution" else ""
            roles.append(message["role"] + suffix)
    return roles


def test_a_command_run_while_a_tool_works_is_recorded_after_the_run(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 0.3; echo tool"}}]},
            {"text": "done"},
            {"text": "seen", "expect": ["echo mine", "mine"]},
        ]
    }
    with FakeServer(script) as server:
        session = new_session(tmp_path, server)

        async def scenario() -> None:
            tool_started = asyncio.Event()
            session.subscribe(
                lambda event: tool_started.set() if isinstance(event, ToolExecutionStart) else None
            )
            run = asyncio.create_task(session.prompt("run the tool"))
            await tool_started.wait()
            mine = await session.run_user_bash("echo mine")
            assert mine.output == "mine\n"
            assert session.agent.is_running  # it finished while the tool still ran
            await run
            await session.prompt("and now?")

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
    assert recorded(session) == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "bashExecution:echo mine",
        "user",
        "assistant",
    ]


def test_a_command_kept_out_of_context_is_recorded_but_never_sent(tmp_path: Path) -> None:
    script = {"turns": [{"text": "ok", "unless": ["secret-output"]}]}
    with FakeServer(script) as server:
        session = new_session(tmp_path, server)

        async def scenario() -> None:
            await session.run_user_bash("echo secret-output", exclude_from_context=True)
            await session.prompt("hello")

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
        assert server.unused_turns() == []
    assert recorded(session) == ["bashExecution:echo secret-output", "user", "assistant"]
