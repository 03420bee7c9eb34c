"""What a handler's answer does, event by event: blocks, patches, replacements, transforms,
extra messages, per-request context and bodies. Every check looks at a real effect: a file on
disk, the request body the fake server received, or the session file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import msgspec
import pytest

from pith.ai import AssistantMessage, TextContent, UserMessage
from pith.extensions import (
    AgentStartResult,
    Cancel,
    ContextResult,
    CustomMessageSpec,
    ExtensionAPI,
    ExtensionContext,
    InputResult,
    MessageEndResult,
    ToolCallDecision,
    ToolResultPatch,
    TreeResult,
)
from pith.testing import FakeServer
from tests.extensions.harness import (
    RecordingUI,
    body,
    drive,
    drive_outcomes,
    make_runner,
    make_session,
    messages_of,
    run_pith,
    sent_texts,
    session_entries,
    system_prompt_of,
    tool_message_text,
    tool_names_of,
)

WRITE_A = {
    "turns": [
        {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "data"}}]},
        {"text": "done"},
    ]
}
ECHO = {
    "turns": [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "printf original"}}]},
        {"text": "done"},
    ]
}


def tool_results(entries: list[dict[str, object]]) -> list[dict[str, object]]:
    return [m for m in messages_of(entries) if m["role"] == "toolResult"]


# --- tool_call --------------------------------------------------------------------------------


def test_tool_call_block_reason_reaches_the_model_and_the_tool_never_runs(tmp_path: Path) -> None:
    def guard(api: ExtensionAPI) -> None:
        api.on("tool_call", lambda event, ctx: ToolCallDecision(block=True, reason="frozen"))

    script = {
        "turns": [
            WRITE_A["turns"][0],
            {"text": "understood", "expect": ['"content":"frozen"']},
        ]
    }
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("guard", guard)))
        drive(session, "write a.txt")
        assert server.problems() == []
    assert not (tmp_path / "work" / "a.txt").exists()
    [result] = tool_results(session_entries(session))
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "frozen"}]


def test_tool_call_block_as_a_camel_case_dict_blocks_too(tmp_path: Path) -> None:
    def guard(api: ExtensionAPI) -> None:
        api.on("tool_call", lambda event, ctx: {"block": True, "reason": "dict says no"})

    with FakeServer(WRITE_A) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("guard", guard)))
        drive(session, "write a.txt")
        assert tool_message_text(body(server, 1)) == "dict says no"
    assert not (tmp_path / "work" / "a.txt").exists()


def test_tool_call_handler_changing_input_in_place_redirects_the_tool(tmp_path: Path) -> None:
    def redirect(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> None:
            event.input["path"] = "b.txt"  # type: ignore[attr-defined]

        api.on("tool_call", handler)

    with FakeServer(WRITE_A) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("redirect", redirect)))
        drive(session, "write a.txt")
    assert not (tmp_path / "work" / "a.txt").exists()
    assert (tmp_path / "work" / "b.txt").read_text() == "data"


def test_tool_call_first_block_wins_and_later_handlers_are_not_asked(tmp_path: Path) -> None:
    asked: list[str] = []

    def first(api: ExtensionAPI) -> None:
        api.on("tool_call", lambda e, c: asked.append("first") or ToolCallDecision(True, "one"))

    def second(api: ExtensionAPI) -> None:
        api.on("tool_call", lambda e, c: asked.append("second") or ToolCallDecision(True, "two"))

    with FakeServer(WRITE_A) as server:
        runner = make_runner(tmp_path, ("first", first), ("second", second))
        drive(make_session(tmp_path, server, runner), "write a.txt")
        assert tool_message_text(body(server, 1)) == "one"
    assert asked == ["first"]


def test_tool_call_block_with_terminate_ends_the_run_after_the_batch(tmp_path: Path) -> None:
    def stop(api: ExtensionAPI) -> None:
        api.on("tool_call", lambda e, c: ToolCallDecision(True, "stop here", terminate=True))

    script = {"turns": [WRITE_A["turns"][0]]}  # a second request would exhaust the script
    with FakeServer(script) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("stop", stop))), "go")
        assert server.problems() == []
        assert len(server.requests) == 1


GUARD = """
def register(api):
    api.on("tool_call", lambda event, ctx: {"block": True, "reason": "read-only checkout"})
"""


def test_pith_tool_reports_a_blocked_call_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "guard.py").write_text(GUARD)
    arguments = json.dumps({"path": "a.txt", "content": "x"})
    result = run_pith(tmp_path, "tool", "write", arguments, "-e", str(tmp_path / "guard.py"))
    assert result.returncode == 1
    assert result.stdout == "read-only checkout\n"
    assert not (tmp_path / "work" / "a.txt").exists()


# --- tool_result ------------------------------------------------------------------------------


def test_tool_result_patches_chain_across_two_extensions(tmp_path: Path) -> None:
    seen_by_second: list[str] = []

    def first(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> ToolResultPatch:
            text = event.content[0].text  # type: ignore[attr-defined]
            return ToolResultPatch(content=[TextContent(text=f"first({text})")], details={"n": 1})

        api.on("tool_result", handler)

    def second(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> ToolResultPatch:
            text = event.content[0].text  # type: ignore[attr-defined]
            seen_by_second.append(text)
            return ToolResultPatch(content=[TextContent(text=f"second({text})")], is_error=True)

        api.on("tool_result", handler)

    with FakeServer(ECHO) as server:
        runner = make_runner(tmp_path, ("first", first), ("second", second))
        session = make_session(tmp_path, server, runner)
        drive(session, "echo")
        assert tool_message_text(body(server, 1)) == "second(first(original))"
    assert seen_by_second == ["first(original)"]
    [result] = tool_results(session_entries(session))
    assert result["content"] == [{"type": "text", "text": "second(first(original))"}]
    assert result["details"] == {"n": 1}
    assert result["isError"] is True


def test_tool_result_camel_case_is_error_marks_the_result_failed(tmp_path: Path) -> None:
    def fail(api: ExtensionAPI) -> None:
        api.on("tool_result", lambda event, ctx: {"isError": True})

    with FakeServer(ECHO) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("fail", fail)))
        drive(session, "echo")
        assert tool_message_text(body(server, 1)) == "original"
    [result] = tool_results(session_entries(session))
    assert result["isError"] is True


def test_tool_result_dict_content_blocks_reach_the_model(tmp_path: Path) -> None:
    def patch(api: ExtensionAPI) -> None:
        api.on(
            "tool_result",
            lambda event, ctx: {"content": [{"type": "text", "text": "patched"}]},
        )

    with FakeServer(ECHO) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("patch", patch))), "echo")
        assert tool_message_text(body(server, 1)) == "patched"


# --- message_end ------------------------------------------------------------------------------


def redact(message: object) -> MessageEndResult | None:
    if isinstance(message, AssistantMessage) and "123" in message.text():
        text = message.text().replace("123", "[redacted]")
        return MessageEndResult(msgspec.structs.replace(message, content=[TextContent(text=text)]))
    return None


def test_message_end_replacement_of_the_same_role_is_kept_and_sent(tmp_path: Path) -> None:
    def redactor(api: ExtensionAPI) -> None:
        api.on("message_end", lambda event, ctx: redact(event.message))

    script = {"turns": [{"text": "the code is 123"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("redactor", redactor)))
        first, _ = drive(session, "code?", "again")
        assert "the code is [redacted]" in sent_texts(body(server, 1))
        assert "123" not in json.dumps(body(server, 1))
    assert isinstance(first, AssistantMessage)
    assert first.text() == "the code is [redacted]"
    stored = [m for m in messages_of(session_entries(session)) if m["role"] == "assistant"]
    assert stored[0]["content"] == [{"type": "text", "text": "the code is [redacted]"}]


def test_message_end_replacements_chain(tmp_path: Path) -> None:
    def redactor(api: ExtensionAPI) -> None:
        api.on("message_end", lambda event, ctx: redact(event.message))

    def shouter(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> MessageEndResult | None:
            message = event.message  # type: ignore[attr-defined]
            if not isinstance(message, AssistantMessage):
                return None
            loud = [TextContent(text=message.text().upper())]
            return MessageEndResult(msgspec.structs.replace(message, content=loud))

        api.on("message_end", handler)

    with FakeServer({"turns": [{"text": "code 123"}]}) as server:
        runner = make_runner(tmp_path, ("redactor", redactor), ("shouter", shouter))
        [reply] = drive(make_session(tmp_path, server, runner), "code?")
    assert isinstance(reply, AssistantMessage)
    assert reply.text() == "CODE [REDACTED]"


def test_message_end_replacement_with_another_role_is_refused_and_reported(
    tmp_path: Path,
) -> None:
    def swapper(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> MessageEndResult | None:
            if isinstance(event.message, AssistantMessage):  # type: ignore[attr-defined]
                return MessageEndResult(UserMessage(content="not the assistant"))
            return None

        api.on("message_end", handler)

    ui = RecordingUI()
    with FakeServer({"turns": [{"text": "the real reply"}]}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("swapper", swapper)), ui=ui)
        [reply] = drive(session, "hi")
    assert isinstance(reply, AssistantMessage)
    assert reply.text() == "the real reply"
    roles = [m["role"] for m in messages_of(session_entries(session))]
    assert roles == ["user", "assistant"]
    [error] = ui.errors()
    assert "swapper" in error
    assert "message_end" in error
    assert "same role" in error


def test_message_end_camel_case_dict_replacement_is_sent(tmp_path: Path) -> None:
    def rewriter(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> dict[str, object] | None:
            if not isinstance(event.message, UserMessage):  # type: ignore[attr-defined]
                return None
            return {"message": {"role": "user", "content": "rewritten", "timestamp": 1}}

        api.on("message_end", handler)

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("rewriter", rewriter)))
        drive(session, "original")
        assert sent_texts(body(server, 0))[1:] == ["rewritten"]
    [user] = [m for m in messages_of(session_entries(session)) if m["role"] == "user"]
    assert user["content"] == "rewritten"


# --- input ------------------------------------------------------------------------------------


def test_input_transforms_chain_in_load_order(tmp_path: Path) -> None:
    seen_by_second: list[str] = []

    def first(api: ExtensionAPI) -> None:
        api.on("input", lambda event, ctx: InputResult("transform", event.text + " +first"))

    def second(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> dict[str, object]:
            seen_by_second.append(event.text)  # type: ignore[attr-defined]
            return {"action": "transform", "text": event.text + " +second"}  # type: ignore[attr-defined]

        api.on("input", handler)

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        runner = make_runner(tmp_path, ("first", first), ("second", second))
        drive(make_session(tmp_path, server, runner), "hello")
        assert sent_texts(body(server, 0))[1:] == ["hello +first +second"]
    assert seen_by_second == ["hello +first"]


def test_input_handled_sends_nothing_and_stops_later_handlers(tmp_path: Path) -> None:
    later: list[str] = []

    def taker(api: ExtensionAPI) -> None:
        api.on("input", lambda event, ctx: InputResult("handled"))

    def after(api: ExtensionAPI) -> None:
        api.on("input", lambda event, ctx: later.append(event.text))

    with FakeServer({"turns": []}) as server:
        runner = make_runner(tmp_path, ("taker", taker), ("after", after))
        session = make_session(tmp_path, server, runner)
        [outcome] = drive_outcomes(session, "hello")
        assert server.requests == []
    assert outcome.reply is None
    assert outcome.handled is True
    assert later == []


def test_input_continue_sends_the_text_unchanged(tmp_path: Path) -> None:
    def passer(api: ExtensionAPI) -> None:
        api.on("input", lambda event, ctx: InputResult("continue", text="ignored"))

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("passer", passer)))
        [outcome] = drive_outcomes(session, "hello")
        assert sent_texts(body(server, 0))[1:] == ["hello"]
    assert outcome.handled is False


# --- before_agent_start -----------------------------------------------------------------------


def test_before_agent_start_message_is_sent_after_the_prompt(tmp_path: Path) -> None:
    def reminder(api: ExtensionAPI) -> None:
        spec = CustomMessageSpec("reminder", "remember the tests")
        api.on("before_agent_start", lambda event, ctx: AgentStartResult(message=spec))

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("reminder", reminder)))
        drive(session, "hello")
        assert sent_texts(body(server, 0))[1:] == ["hello", "remember the tests"]
    custom = [e for e in session_entries(session) if e["type"] == "custom_message"]
    assert [(e["customType"], e["content"]) for e in custom] == [("reminder", "remember the tests")]


def test_before_agent_start_camel_case_message_dict_is_sent(tmp_path: Path) -> None:
    def reminder(api: ExtensionAPI) -> None:
        message = {"customType": "reminder", "content": [{"type": "text", "text": "from dict"}]}
        api.on("before_agent_start", lambda event, ctx: {"message": message})

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("r", reminder))), "hello")
        assert sent_texts(body(server, 0))[1:] == ["hello", "from dict"]


def test_before_agent_start_system_prompt_replaces_the_request_system_prompt(
    tmp_path: Path,
) -> None:
    seen_by_second: list[str] = []

    def override(api: ExtensionAPI) -> None:
        api.on("before_agent_start", lambda event, ctx: {"systemPrompt": "You are a test."})

    def second(api: ExtensionAPI) -> None:
        api.on(
            "before_agent_start",
            lambda event, ctx: seen_by_second.append(event.system_prompt),
        )

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        runner = make_runner(tmp_path, ("override", override), ("second", second))
        drive(make_session(tmp_path, server, runner), "hello")
        assert system_prompt_of(body(server, 0)) == "You are a test."
    assert seen_by_second == ["You are a test."]


def test_before_agent_start_options_edited_in_place_change_the_tools_sent(
    tmp_path: Path,
) -> None:
    def no_bash(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> None:
            options = event.system_prompt_options  # type: ignore[attr-defined]
            options.tools = [tool for tool in options.tools if tool.name != "bash"]

        api.on("before_agent_start", handler)

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("no_bash", no_bash))), "hi")
        request = body(server, 0)
    assert tool_names_of(request) == ["read", "edit", "write"]
    assert "- bash:" not in system_prompt_of(request)


# --- context ----------------------------------------------------------------------------------


def test_context_new_list_changes_the_request_but_not_the_session(tmp_path: Path) -> None:
    def inject(api: ExtensionAPI) -> None:
        extra = UserMessage(content="injected for this request")
        api.on("context", lambda event, ctx: ContextResult([*event.messages, extra]))

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("inject", inject)))
        drive(session, "hello")
        assert sent_texts(body(server, 0))[1:] == ["hello", "injected for this request"]
    assert "injected" not in session.store.path.read_text()  # type: ignore[union-attr]
    assert all("injected" not in json.dumps(msgspec.to_builtins(m)) for m in session.messages)


def test_context_returning_the_same_list_sends_the_history_unchanged(tmp_path: Path) -> None:
    def same(api: ExtensionAPI) -> None:
        api.on("context", lambda event, ctx: event.messages)

    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}]}) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("same", same))), "a", "b")
        assert sent_texts(body(server, 1))[1:] == ["a", "one", "b"]


def test_context_edits_in_place_never_reach_the_stored_history(tmp_path: Path) -> None:
    def vandal(api: ExtensionAPI) -> None:
        def handler(event: object, ctx: object) -> None:
            for message in event.messages:  # type: ignore[attr-defined]
                if isinstance(message, UserMessage):
                    message.content = "vandalised"

        api.on("context", handler)

    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}]}) as server:
        session = make_session(tmp_path, server, make_runner(tmp_path, ("vandal", vandal)))
        drive(session, "first", "second")
    users = [m["content"] for m in messages_of(session_entries(session)) if m["role"] == "user"]
    assert users == [[{"type": "text", "text": "first"}], [{"type": "text", "text": "second"}]]


def test_context_pi_shaped_dict_messages_are_sent(tmp_path: Path) -> None:
    def inject(api: ExtensionAPI) -> None:
        extra = {"role": "user", "content": "dict message", "timestamp": 1}
        api.on("context", lambda event, ctx: {"messages": [*event.messages, extra]})

    ui = RecordingUI()
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("i", inject)), ui=ui), "hi")
        assert sent_texts(body(server, 0))[1:] == ["hi", "dict message"]
    assert ui.errors() == []


def test_context_handlers_chain_on_the_list_so_far(tmp_path: Path) -> None:
    def add_a(api: ExtensionAPI) -> None:
        api.on("context", lambda e, c: [*e.messages, UserMessage(content="A")])

    def add_b(api: ExtensionAPI) -> None:
        api.on("context", lambda e, c: ContextResult([*e.messages, UserMessage(content="B")]))

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        runner = make_runner(tmp_path, ("add_a", add_a), ("add_b", add_b))
        drive(make_session(tmp_path, server, runner), "hello")
        assert sent_texts(body(server, 0))[1:] == ["hello", "A", "B"]


# --- before_provider_request ------------------------------------------------------------------


def test_before_provider_request_body_replaces_what_is_sent(tmp_path: Path) -> None:
    def rewrite(api: ExtensionAPI) -> None:
        api.on(
            "before_provider_request",
            lambda event, ctx: {**event.payload, "max_completion_tokens": 77, "seed": 5},
        )

    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        drive(make_session(tmp_path, server, make_runner(tmp_path, ("rewrite", rewrite))), "hi")
        request = body(server, 0)
    assert request["max_completion_tokens"] == 77
    assert request["seed"] == 5


def test_before_provider_request_non_dict_is_reported_and_the_body_kept(tmp_path: Path) -> None:
    def wrong(api: ExtensionAPI) -> None:
        api.on("before_provider_request", lambda event, ctx: "not a body")

    ui = RecordingUI()
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        runner = make_runner(tmp_path, ("wrong", wrong))
        [reply] = drive(make_session(tmp_path, server, runner, ui=ui), "hi")
        assert sent_texts(body(server, 0))[1:] == ["hi"]
    assert isinstance(reply, AssistantMessage)
    assert reply.text() == "ok"
    [error] = ui.errors()
    assert "wrong" in error
    assert "before_provider_request" in error


# --- session_before_* (reached through ctx from a command) ------------------------------------


def navigator(outcomes: list[object], answers: dict[str, object]) -> object:
    """An extension with `/go new|fork|tree` and the given answers to session_before_*."""

    def register(api: ExtensionAPI) -> None:
        async def go(args: str, ctx: ExtensionContext) -> None:
            store = ctx.session
            assert store is not None
            first = store.entries[0].id
            if args == "new":
                outcomes.append(await ctx.new_session())
            elif args == "fork":
                outcomes.append(await ctx.fork(first))
            else:
                outcomes.append(await ctx.navigate_tree(first))

        api.register_command("go", go)
        for event_name, answer in answers.items():
            api.on(event_name, lambda event, ctx, answer=answer: answer)

    return register


@pytest.mark.parametrize(
    ("operation", "event_name", "answer"),
    [
        ("new", "session_before_switch", Cancel(cancel=True)),
        ("fork", "session_before_fork", {"cancel": True}),
        ("tree", "session_before_tree", TreeResult(cancel=True)),
    ],
    ids=["switch", "fork", "tree"],
)
def test_session_before_cancel_keeps_the_session_as_it_was(
    tmp_path: Path, operation: str, event_name: str, answer: object
) -> None:
    outcomes: list[object] = []
    shutdowns: list[str] = []

    def watcher(api: ExtensionAPI) -> None:
        api.on("session_shutdown", lambda event, ctx: shutdowns.append(event.reason))

    runner = make_runner(
        tmp_path, ("nav", navigator(outcomes, {event_name: answer})), ("watcher", watcher)
    )
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        session = make_session(tmp_path, server, runner)
        store = session.store

        async def scenario() -> tuple[str | None, str | None]:
            await session.start()
            await session.prompt("hello")
            leaf = store.leaf_id
            await session.prompt(f"/go {operation}")
            after = session.store.leaf_id
            await session.shutdown()
            return leaf, after

        leaf, after = asyncio.run(scenario())
    assert outcomes == [False]
    assert session.store is store
    assert after == leaf
    assert shutdowns == ["quit"]
    assert len(list((tmp_path / "sessions").iterdir())) == 1


def test_session_before_switch_without_a_cancel_lets_the_switch_happen(tmp_path: Path) -> None:
    outcomes: list[object] = []
    runner = make_runner(
        tmp_path, ("nav", navigator(outcomes, {"session_before_switch": Cancel(cancel=False)}))
    )
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        session = make_session(tmp_path, server, runner)
        store = session.store
        drive(session, "hello", "/go new")
    assert outcomes == [True]
    assert session.store is not store
