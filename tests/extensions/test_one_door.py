"""pith's own extensions and everyone else's go through the same door: the `context` event's
cheap path (the history's own messages, no copy) is a promise any handler can make, and the
source an extension was loaded from changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pith.ai import AgentMessage, UserMessage
from pith.app import AgentSession
from pith.extensions import (
    ExtensionAPI,
    ExtensionContext,
    ExtensionRunner,
    ExtensionSpec,
    load_extensions,
)
from pith.extensions.events import ContextEvent
from pith.testing import FakeServer
from tests.extensions.harness import Register, drive, make_session, messages_of, session_entries

TWO_TURNS = {"turns": [{"text": "one"}, {"text": "two"}]}


def runner_from(tmp_path: Path, source: str, *extensions: tuple[str, Register]) -> ExtensionRunner:
    """A runner with `extensions` loaded through the real loader, all from `source`."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    runner = ExtensionRunner(str(work), log_path=tmp_path / "extensions.log")
    specs = [
        ExtensionSpec(name, source, f"<{source} {name}>", lambda register=register: register)
        for name, register in extensions
    ]
    asyncio.run(load_extensions(runner, specs))
    return runner


def texts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    assert isinstance(content, list)
    return [part["text"] if isinstance(part, dict) else part.text for part in content]


def user_contents(session: AgentSession) -> list[list[str]]:
    """The user messages' texts in the history pith holds, then in the session file."""
    held = [m.content for m in session.agent.messages if isinstance(m, UserMessage)]
    stored = [m["content"] for m in messages_of(session_entries(session)) if m["role"] == "user"]
    return [texts(content) for content in [*held, *stored]]


def watcher(copy: bool, seen: list[bool], session: list[AgentSession]) -> Register:
    """Records, per request, whether the handler got the history's own message objects."""

    def register(api: ExtensionAPI) -> None:
        def handler(event: ContextEvent, ctx: ExtensionContext) -> None:
            history = session[0].agent.messages
            seen.append(all(a is b for a, b in zip(event.messages, history, strict=True)))

        if copy:
            api.on("context", handler)
        else:
            api.on("context", handler, copy=False)

    return register


def vandal(copy: bool) -> Register:
    def register(api: ExtensionAPI) -> None:
        def handler(event: ContextEvent, ctx: ExtensionContext) -> None:
            for message in event.messages:
                if isinstance(message, UserMessage):
                    message.content = "vandalised"

        if copy:
            api.on("context", handler)
        else:
            api.on("context", handler, copy=False)

    return register


def run_with(tmp_path: Path, runner: ExtensionRunner, session: list[AgentSession]) -> None:
    with FakeServer(TWO_TURNS) as server:
        session.append(make_session(tmp_path, server, runner))
        drive(session[0], "first", "second")


def test_a_third_party_handler_that_promises_no_edits_gets_the_history_uncopied(
    tmp_path: Path,
) -> None:
    seen: list[bool] = []
    session: list[AgentSession] = []
    runner = runner_from(tmp_path, "cli", ("reader", watcher(False, seen, session)))
    run_with(tmp_path, runner, session)
    assert seen == [True, True]


def test_a_third_party_handler_without_the_promise_gets_a_copy(tmp_path: Path) -> None:
    seen: list[bool] = []
    session: list[AgentSession] = []
    runner = runner_from(tmp_path, "package", ("reader", watcher(True, seen, session)))
    run_with(tmp_path, runner, session)
    assert seen == [False, False]


def test_a_builtin_handler_without_the_promise_gets_a_copy_too(tmp_path: Path) -> None:
    session: list[AgentSession] = []
    runner = runner_from(tmp_path, "builtin", ("vandal", vandal(True)))
    run_with(tmp_path, runner, session)
    assert user_contents(session[0]) == [["first"], ["second"], ["first"], ["second"]]


def test_one_handler_without_the_promise_makes_pith_copy_for_every_handler(
    tmp_path: Path,
) -> None:
    seen: list[bool] = []
    session: list[AgentSession] = []
    runner = runner_from(
        tmp_path,
        "builtin",
        ("reader", watcher(False, seen, session)),
        ("other", vandal(True)),
    )
    run_with(tmp_path, runner, session)
    assert seen == [False, False]
    assert user_contents(session[0]) == [["first"], ["second"], ["first"], ["second"]]


def test_with_no_context_handler_the_request_gets_the_history_list_itself(
    tmp_path: Path,
) -> None:
    runner = runner_from(tmp_path, "cli")
    history: list[AgentMessage] = [UserMessage(content="hi")]
    assert asyncio.run(runner.emit(ContextEvent(history))) is history
