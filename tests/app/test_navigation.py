"""New, resumed and forked sessions and tree navigation, with the extensions' say in each."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

from pith.ai import ModelRegistry
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.extensions import Extension, ExtensionAPI, ExtensionRunner
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir


def make_session(
    tmp_path: Path, server: FakeServer, register: Callable[[ExtensionAPI], None] | None = None
) -> AgentSession:
    registry = ModelRegistry.load(configure_agent_dir(tmp_path / "agent", server))
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    runner = ExtensionRunner(str(work))
    if register is not None:
        register(runner.add(Extension("probe", "cli")))
    return build_agent_session(
        cwd=str(work),
        store=SessionStore.create(str(work), tmp_path / "sessions"),
        registry=registry,
        model=registry.find("fake/m").model,
        thinking="off",
        options=SessionOptions(),
        extensions=runner,
    )


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def texts(session: AgentSession) -> list[str]:
    out = []
    for message in session.agent.messages:
        content = getattr(message, "content", "")
        if isinstance(content, list):
            out.extend(block.text for block in content if hasattr(block, "text"))
        elif isinstance(content, str):
            out.append(content)
    return out


TWO_TURNS = {"turns": [{"text": "one"}, {"text": "two"}]}


def test_new_session_starts_empty_in_a_new_file_and_tells_extensions(tmp_path: Path) -> None:
    seen: list[tuple[str, object]] = []

    def register(api: ExtensionAPI) -> None:
        api.on("session_shutdown", lambda e, ctx: seen.append((e.type, e.reason)))
        api.on("session_start", lambda e, ctx: seen.append((e.type, e.reason)))

    with FakeServer(TWO_TURNS) as server:
        session = make_session(tmp_path, server, register)

        async def scenario() -> None:
            await session.prompt("first")
            old = session.store.path
            assert await session.new_session()
            assert session.agent.messages == []
            await session.prompt("second")
            assert session.store.path != old

        run(scenario())
        session.close()
    assert seen == [("session_shutdown", "new"), ("session_start", "new")]
    files = sorted((tmp_path / "sessions").glob("*.jsonl"))
    assert len(files) == 2


def test_an_extension_can_cancel_a_switch(tmp_path: Path) -> None:
    def register(api: ExtensionAPI) -> None:
        api.on("session_before_switch", lambda e, ctx: {"cancel": True})

    with FakeServer({"turns": [{"text": "one"}]}) as server:
        session = make_session(tmp_path, server, register)

        async def scenario() -> None:
            await session.prompt("first")
            assert not await session.new_session()

        run(scenario())
        session.close()
    assert texts(session) == ["first", "one"]


def test_switch_session_resumes_another_file(tmp_path: Path) -> None:
    with FakeServer(TWO_TURNS) as server:
        session = make_session(tmp_path, server)

        async def scenario() -> None:
            await session.prompt("in the first")
            first = session.store.path
            assert first is not None
            await session.new_session()
            await session.prompt("in the second")
            assert await session.switch_session(first)

        run(scenario())
        session.close()
    assert texts(session) == ["in the first", "one"]


def test_fork_before_a_prompt_keeps_what_came_before_it(tmp_path: Path) -> None:
    forks: list[tuple[str, str]] = []

    def register(api: ExtensionAPI) -> None:
        api.on("session_before_fork", lambda e, ctx: forks.append((e.entry_id, e.position)))

    with FakeServer(TWO_TURNS) as server:
        session = make_session(tmp_path, server, register)

        async def scenario() -> None:
            await session.prompt("first")
            await session.prompt("second")
            second = next(
                e.id
                for e in session.store.entries
                if getattr(getattr(e, "message", None), "role", "") == "user"
                and texts_of(e) == ["second"]
            )
            old = session.store.path
            outcome = await session.fork(second)
            assert outcome.selected_text == "second"
            assert session.store.header.parent_session == str(old)
            assert forks == [(second, "before")]

        run(scenario())
        session.close()
    assert texts(session) == ["first", "one"]


def texts_of(entry: object) -> list[str]:
    message = getattr(entry, "message", None)
    content = getattr(message, "content", [])
    return [block.text for block in content if hasattr(block, "text")]


def test_navigating_back_with_an_extension_summary_records_it(tmp_path: Path) -> None:
    def register(api: ExtensionAPI) -> None:
        api.on("session_before_tree", lambda e, ctx: {"summary": "Tried a second idea."})

    trees: list[object] = []
    with FakeServer(TWO_TURNS) as server:
        session = make_session(tmp_path, server, register)
        session.extensions.on(
            session.extensions.extensions[0],
            "session_tree",
            lambda e, ctx: trees.append(e.summary_entry),
        )

        async def scenario() -> None:
            await session.prompt("first")
            first_reply = session.store.leaf_id
            await session.prompt("second")
            outcome = await session.navigate_tree(first_reply, summarize=True)
            assert not outcome.cancelled

        run(scenario())
        session.close()
    roles = [m.role for m in session.agent.messages]
    assert roles == ["user", "assistant", "branchSummary"]
    assert getattr(trees[0], "summary", None) == "Tried a second idea."


def test_navigating_to_an_unknown_entry_is_a_clear_error(tmp_path: Path) -> None:
    with FakeServer({"turns": []}) as server:
        session = make_session(tmp_path, server)
        with pytest.raises(Exception, match="no entry nope in this session"):
            run(session.navigate_tree("nope"))
        session.close()
