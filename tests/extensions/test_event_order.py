"""The order in which an extension sees the events of a whole session, over real HTTP."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pith.extensions import EVENT_NAMES, ExtensionAPI
from pith.testing import FakeServer
from tests.extensions.harness import make_runner, make_session

# Events a prompt with one tool call cannot reach: they belong to switching, forking,
# compacting, tree navigation, trust, resource discovery and model changes.
NOT_IN_A_RUN = {
    "session_before_switch",
    "session_before_fork",
    "session_before_compact",
    "session_compact",
    "session_before_tree",
    "session_tree",
    "resources_discover",
    "project_trust",
    "model_select",
}


def record_everything(seen: list[str]) -> object:
    def register(api: ExtensionAPI) -> None:
        for name in sorted(EVENT_NAMES):

            def handler(event: object, ctx: object, name: str = name) -> None:
                role = getattr(getattr(event, "message", None), "role", None)
                if name in ("message_start", "message_end"):
                    seen.append(f"{name}:{role}")
                else:
                    seen.append(name)

            api.on(name, handler)

    return register


def collapse(names: list[str], repeated: str) -> list[str]:
    """`names` with each run of `repeated` kept as one (streaming sends a varying number)."""
    out: list[str] = []
    for name in names:
        if not (out and out[-1] == name == repeated):
            out.append(name)
    return out


def run_session(tmp_path: Path, script: dict[str, object], seen: list[str]) -> FakeServer:
    runner = make_runner(tmp_path, ("recorder", record_everything(seen)))
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, runner)

        async def scenario() -> None:
            await session.start()
            await session.prompt("write the file")
            await session.shutdown()

        asyncio.run(scenario())
        assert server.problems() == []
        assert server.unused_turns() == []
    return server


def test_a_run_with_a_tool_call_delivers_every_event_in_order(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "x"}}]},
            {"text": "done"},
        ]
    }
    seen: list[str] = []
    run_session(tmp_path, script, seen)
    assert collapse(seen, "message_update") == [
        "session_start",
        "input",
        "before_agent_start",
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        # first request
        "context",
        "before_provider_request",
        "message_start:assistant",
        "message_update",
        "message_end:assistant",
        # the tool call: the execution starts before extensions may block it (as in Pi)
        "tool_execution_start",
        "tool_call",
        "tool_result",
        "tool_execution_end",
        "message_start:toolResult",
        "message_end:toolResult",
        "turn_end",
        # second request
        "turn_start",
        "context",
        "before_provider_request",
        "message_start:assistant",
        "message_update",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "session_shutdown",
    ]
    assert (tmp_path / "work" / "a.txt").read_text() == "x"


def test_every_event_a_run_can_reach_is_delivered(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
            {"text": "done"},
        ]
    }
    seen: list[str] = []
    run_session(tmp_path, script, seen)
    delivered = {name.split(":")[0] for name in seen}
    assert delivered == EVENT_NAMES - NOT_IN_A_RUN


SLOW_ECHO = "echo a; sleep 0.05; echo b"  # output after a pause: bash sends a final update


def test_tool_execution_updates_all_arrive_before_tool_result(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"tool_calls": [{"name": "bash", "arguments": {"command": SLOW_ECHO}}]},
            {"text": "done"},
        ]
    }
    seen: list[str] = []
    run_session(tmp_path, script, seen)
    start = seen.index("tool_execution_start")
    end = seen.index("tool_execution_end")
    during = collapse(seen[start : end + 1], "tool_execution_update")
    assert during == [
        "tool_execution_start",
        "tool_call",
        "tool_execution_update",
        "tool_result",
        "tool_execution_end",
    ]
