"""Compaction in a running session: when it happens, what the summarizer reads, what is kept,
and what happens when it cannot be done."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pith.ai import ModelRegistry
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.app.session._events import CompactionEnd, CompactionStart
from pith.compaction import SUMMARIZER_SYSTEM_PROMPT, estimate_tokens
from pith.extensions import Extension, ExtensionAPI, ExtensionRunner
from pith.resources import ContextFile, Resources, load_settings
from pith.session import CompactionEntry, SessionStore
from pith.testing import FakeServer, configure_agent_dir

SUMMARY_REQUEST = SUMMARIZER_SYSTEM_PROMPT[:60]
"""Every summarizer request carries this system prompt; turns for the main conversation say
`unless` it, summary turns `match` it."""
PREFIX_REQUEST = "# Conversation"
"""Only the request for the first part of a split turn has this."""


def session_for(
    tmp_path: Path,
    server: FakeServer,
    *,
    window: int = 4000,
    compaction: dict[str, Any] | None = None,
    register: Any = None,
    resources: Resources | None = None,
    api: str = "openai-completions",
) -> AgentSession:
    agent = configure_agent_dir(
        tmp_path / "agent", server, api=api, contextWindow=window, maxTokens=1000
    )
    settings = {
        "compaction": {"reserveTokens": 1000, "keepRecentTokens": 200, **(compaction or {})}
    }
    (agent / "settings.json").write_text(json.dumps(settings))
    registry = ModelRegistry.load(agent)
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
        settings=load_settings(agent),
        resources=resources,
    )


FILLER = " lorem" * 200
"""About 300 estimated tokens: enough for each reply to be worth keeping or summarizing."""


def turn(text: str, tokens: int = 100, *, filler: bool = True, **extra: Any) -> dict[str, Any]:
    """A main-conversation turn reporting `tokens` of context (its text is `text` plus
    filler, so replies weigh something in the estimates)."""
    return {
        "text": text + (FILLER if filler else ""),
        "usage": {"input": tokens, "output": 10},
        "unless": [SUMMARY_REQUEST],
        **extra,
    }


def summary(text: str, **extra: Any) -> list[dict[str, Any]]:
    """The replies to one compaction: the history summary, then the split turn's first part
    (the last reply kept cuts its turn in two)."""
    return [
        {"text": text, "match": [SUMMARY_REQUEST], "unless": [PREFIX_REQUEST], **extra},
        {"text": "## Original Request\nthe turn so far", "match": [PREFIX_REQUEST]},
    ]


def script(*turns: dict[str, Any] | list[dict[str, Any]]) -> dict[str, Any]:
    flat: list[dict[str, Any]] = []
    for item in turns:
        flat.extend(item if isinstance(item, list) else [item])
    return {"turns": flat}


def compactions(session: AgentSession) -> list[CompactionEntry]:
    return [e for e in session.store.entries if isinstance(e, CompactionEntry)]


def events_of(session: AgentSession) -> list[object]:
    seen: list[object] = []
    session.subscribe(
        lambda event: (
            seen.append(event) if isinstance(event, CompactionStart | CompactionEnd) else None
        )
    )
    return seen


def summary_requests(server: FakeServer) -> list[str]:
    """The user texts of the history summary requests."""
    texts = []
    for request in server.requests:
        messages = request["body"]["messages"]
        content = messages[-1]["content"]
        text = content if isinstance(content, str) else content[0]["text"]
        if SUMMARY_REQUEST in messages[0]["content"] and not text.startswith(PREFIX_REQUEST):
            texts.append(text)
    return texts


def test_a_run_past_the_threshold_compacts_and_the_next_request_carries_the_summary(
    tmp_path: Path,
) -> None:
    turns = script(
        turn("first answer", tokens=200),
        turn("second answer", tokens=3500),  # past 4000 - 1000
        summary("## Goal\nThe user asked twice."),
        turn("third answer", tokens=300, expect=["The user asked twice."]),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server)
        seen = events_of(session)

        async def scenario() -> None:
            await session.prompt("remember: always use tabs")
            await session.prompt("second question")
            await session.prompt("third question")

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
        assert server.unused_turns() == []
        last = json.dumps(server.requests[-1]["body"])
    (entry,) = compactions(session)
    assert entry.summary.startswith("## Goal\nThe user asked twice.")
    assert [type(e).__name__ for e in seen] == ["CompactionStart", "CompactionEnd"]
    assert "remember: always use tabs" in summary_requests(server)[0]
    assert "remember: always use tabs" not in last  # summarized away
    assert "third question" in last


def test_an_anthropic_summary_request_sends_no_cache_breakpoints(tmp_path: Path) -> None:
    # The transcript is summarized once: a cache write (1.25x the input price) would be
    # paid for a prefix no later request reads. The conversation keeps its breakpoints.
    turns = script(
        turn("first answer", tokens=200),
        turn("second answer", tokens=3500),
        summary("## Goal\nThe user asked twice."),
        turn("third answer", tokens=300),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server, api="anthropic-messages")

        async def scenario() -> None:
            for text in ("first question", "second question", "third question"):
                await session.prompt(text)

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
        bodies = [json.dumps(request["body"]) for request in server.requests]
    summaries = [body for body in bodies if SUMMARY_REQUEST in body]
    conversation = [body for body in bodies if SUMMARY_REQUEST not in body]
    assert len(summaries) == 2  # the history and the split turn's first part
    assert all('"cache_control"' not in body for body in summaries)
    assert all('"cache_control"' in body for body in conversation)


def test_the_size_after_a_compaction_is_estimated_without_the_usage_it_replaced(
    tmp_path: Path,
) -> None:
    turns = script(
        turn("first answer", tokens=200),
        turn("second answer", tokens=3500),  # kept, but its usage measured the old context
        summary("## Goal\nThe user asked twice."),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server)
        seen = events_of(session)

        async def scenario() -> None:
            await session.prompt("first question")
            await session.prompt("second question")

        asyncio.run(scenario())
        session.close()
        assert server.unused_turns() == []
    end = seen[-1]
    assert isinstance(end, CompactionEnd)
    assert end.result is not None
    assert end.result.tokens_before == 3510
    estimate = sum(estimate_tokens(message) for message in session.agent.messages)
    assert end.result.estimated_tokens_after == estimate < end.result.tokens_before


def test_a_long_single_turn_compacts_between_turns(tmp_path: Path) -> None:
    call = {"name": "bash", "arguments": {"command": "echo hi"}}
    turns = script(
        turn("early", tokens=200),
        {
            "text": "let me look" + FILLER,
            "tool_calls": [call],
            "usage": {"input": 3600, "output": 10},
            "unless": [SUMMARY_REQUEST],
        },
        summary("## Goal\nSummary between turns."),
        turn("done", tokens=500, expect=["Summary between turns."]),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server)

        async def scenario() -> None:
            await session.prompt("first")
            await session.prompt("run a long task")

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
        assert server.unused_turns() == []
    assert len(compactions(session)) == 1


def test_a_rule_from_the_first_turn_reaches_both_compactions(tmp_path: Path) -> None:
    rule = "never touch the migrations folder"
    turns = script(
        turn("ok", tokens=100),
        turn("second", tokens=3500),
        summary(f"## Constraints & Preferences\n- {rule}"),
        turn("third", tokens=3500),
        summary(f"## Constraints & Preferences\n- {rule} (kept)"),
        turn("fourth", tokens=300),
    )
    rules = Resources(context_files=[ContextFile("/project/AGENTS.md", "Use tabs.\n")])
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server, resources=rules)

        async def scenario() -> None:
            for text in (rule, "second question", "third question", "fourth question"):
                await session.prompt(text)

        asyncio.run(scenario())
        session.close()
        assert server.unused_turns() == []
        first, second = summary_requests(server)
        systems = [r["body"]["messages"][0]["content"] for r in server.requests]
    assert rule in first
    assert rule in second  # through the previous summary
    assert len(compactions(session)) == 2
    assert all("Use tabs." in system for system in systems if SUMMARY_REQUEST not in system)


def test_a_summary_cut_by_the_output_limit_leaves_the_session_unchanged(tmp_path: Path) -> None:
    turns = script(
        turn("ok", tokens=100),
        turn("big", tokens=3500),
        summary("## Goal\nhalf a sum", stop="length")[0],
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server)
        seen = events_of(session)

        async def scenario() -> None:
            await session.prompt("one")
            await session.prompt("two")

        asyncio.run(scenario())
        session.close()
    assert compactions(session) == []
    start, end = seen
    assert isinstance(start, CompactionStart)
    assert isinstance(end, CompactionEnd)
    assert end.result is None
    assert end.error_message is not None
    assert end.error_message.startswith("Summarization failed")


def test_an_overflow_compacts_and_retries_once(tmp_path: Path) -> None:
    turns = script(
        turn("ok", tokens=100),
        turn("two", tokens=200),
        {"fault": {"overflow": True}, "unless": [SUMMARY_REQUEST]},
        summary("## Goal\nRecovered."),
        turn("answer after compacting", tokens=300, filler=False, expect=["Recovered."]),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server)

        async def scenario() -> Any:
            await session.prompt("one")
            await session.prompt("two")
            return (await session.prompt("three")).reply

        reply = asyncio.run(scenario())
        session.close()
        assert server.unused_turns() == []
    assert reply is not None
    assert reply.text() == "answer after compacting"
    assert len(compactions(session)) == 1


def test_a_second_overflow_is_a_clear_error(tmp_path: Path) -> None:
    turns = script(
        turn("ok", tokens=100),
        turn("two", tokens=200),
        {"fault": {"overflow": True}, "unless": [SUMMARY_REQUEST]},
        summary("## Goal\nRecovered."),
        {"fault": {"overflow": True}, "unless": [SUMMARY_REQUEST]},
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server)
        seen = events_of(session)

        async def scenario() -> Any:
            await session.prompt("one")
            await session.prompt("two")
            return (await session.prompt("three")).reply

        reply = asyncio.run(scenario())
        session.close()
        assert server.unused_turns() == []
    assert reply is not None
    assert reply.stop_reason == "error"
    final = seen[-1]
    assert isinstance(final, CompactionEnd)
    assert final.error_message is not None
    assert final.error_message.startswith("Context overflow recovery failed")


def test_compacting_a_tiny_session_is_a_no_op_with_a_message(tmp_path: Path) -> None:
    notices: list[str] = []
    with FakeServer({"turns": [turn("hi", filler=False)]}) as server:
        session = session_for(tmp_path, server)
        session.ui.notify = lambda message, level="info": notices.append(message)  # type: ignore[method-assign]

        async def scenario() -> None:
            await session.prompt("hello")
            await session.prompt("/compact")

        asyncio.run(scenario())
        session.close()
    assert compactions(session) == []
    assert notices == ["Nothing to compact: the session is too small."]


def test_an_extension_can_write_the_summary_itself(tmp_path: Path) -> None:
    def register(api: ExtensionAPI) -> None:
        def own(event: Any, ctx: Any) -> dict[str, Any]:
            prep = event.preparation
            return {
                "compaction": {
                    "summary": "Mine.",
                    "firstKeptEntryId": prep.first_kept_entry_id,
                    "tokensBefore": prep.tokens_before,
                }
            }

        api.on("session_before_compact", own)

    turns = script(turn("ok", 100), turn("big", 3500), turn("after", 100, expect=["Mine."]))
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server, register=register)

        async def scenario() -> None:
            for text in ("one", "two", "three"):
                await session.prompt(text)

        asyncio.run(scenario())
        session.close()
        assert summary_requests(server) == []
        assert server.unused_turns() == []
    (entry,) = compactions(session)
    assert (entry.summary, entry.from_hook) == ("Mine.", True)


def test_an_extension_command_compacts_with_ctx_compact(tmp_path: Path) -> None:
    results: list[object] = []

    def register(api: ExtensionAPI) -> None:
        async def squash(args: str, ctx: Any) -> None:
            results.append(await ctx.compact(args or None))

        api.register_command("squash", squash)

    turns = script(
        turn("first answer", tokens=200),
        turn("second answer", tokens=300),
        summary("## Goal\nSquashed.", expect=["Additional focus: the tests"]),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server, register=register)

        async def scenario() -> None:
            await session.prompt("first question")
            await session.prompt("second question")
            await session.prompt("/squash the tests")

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
    (entry,) = compactions(session)
    assert results == [entry]


def test_ctx_compact_during_a_run_stops_it_and_compacts_afterwards(tmp_path: Path) -> None:
    armed: list[bool] = []
    asked: list[object] = []

    def register(api: ExtensionAPI) -> None:
        async def on_turn_end(event: Any, ctx: Any) -> None:
            if armed and not asked:
                asked.append(await ctx.compact())

        api.on("turn_end", on_turn_end)

    call = {"name": "bash", "arguments": {"command": "echo hi"}}
    turns = script(
        turn("first answer", tokens=200),
        {
            "text": "working" + FILLER,
            "tool_calls": [call],
            "usage": {"input": 300, "output": 10},
            "unless": [SUMMARY_REQUEST],
        },
        summary("## Goal\nStopped and squashed."),
    )
    with FakeServer(turns) as server:
        session = session_for(tmp_path, server, register=register)

        async def scenario() -> None:
            await session.prompt("first question")
            armed.append(True)
            await session.prompt("a long task")

        asyncio.run(scenario())
        session.close()
        assert server.problems() == []
        assert server.unused_turns() == []
    assert asked == [None]
    (entry,) = compactions(session)
    assert entry.summary.startswith("## Goal\nStopped and squashed.")
