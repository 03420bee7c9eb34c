"""Moving in the session tree with a summary of the branch left behind (docs/compaction.md):
where the leaf lands, what the summarizer reads, what is recorded, and what the extensions
may change."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pith.ai import ModelRegistry, UserMessage
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.app.session import TreeNavigation
from pith.compaction import BRANCH_SUMMARY_PREAMBLE, NO_BRANCH_CONTENT, SUMMARIZER_SYSTEM_PROMPT
from pith.errors import InputError
from pith.extensions import Extension, ExtensionAPI, ExtensionRunner
from pith.extensions.events import SessionBeforeTree, SessionTree
from pith.resources import load_settings
from pith.session import BranchSummaryEntry, LabelEntry, MessageEntry, SessionStore
from pith.testing import FakeServer, configure_agent_dir

SUMMARY_REQUEST = SUMMARIZER_SYSTEM_PROMPT[:60]


def make_session(
    tmp_path: Path,
    server: FakeServer,
    register: Callable[[ExtensionAPI], None] | None = None,
    settings: dict[str, Any] | None = None,
) -> AgentSession:
    agent = configure_agent_dir(tmp_path / "agent", server)
    if settings is not None:
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
    )


def chat(text: str) -> dict[str, Any]:
    return {"text": text, "unless": [SUMMARY_REQUEST]}


def user_entry(session: AgentSession, text: str) -> MessageEntry:
    for entry in session.store.entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            content = entry.message.content
            if (content if isinstance(content, str) else content[0].text) == text:  # type: ignore[union-attr]
                return entry
    raise AssertionError(f"no user message {text!r}")


def roles(session: AgentSession) -> list[str]:
    return [message.role for message in session.agent.messages]


def summarizer_bodies(server: FakeServer) -> list[str]:
    return [
        json.dumps(request["body"])
        for request in server.requests
        if SUMMARY_REQUEST[:40] in json.dumps(request["body"])
    ]


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


BRANCH = [
    chat("one"),
    {
        "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
        "unless": [SUMMARY_REQUEST],
    },
    chat("read it"),
]
"""`first` → one; `explore` → a read of notes.txt → read it."""


def two_branches(session: AgentSession) -> tuple[str, str]:
    """Run `first` then `explore`; the first reply's id and the old leaf."""

    async def scenario() -> tuple[str, str]:
        await session.prompt("first")
        first_reply = session.store.leaf_id
        await session.prompt("explore notes.txt")
        assert first_reply is not None
        assert session.store.leaf_id is not None
        return first_reply, session.store.leaf_id

    return asyncio.run(scenario())


def test_choosing_a_user_message_reopens_it_for_editing(tmp_path: Path) -> None:
    with FakeServer({"turns": [chat("one"), chat("two")]}) as server:
        session = make_session(tmp_path, server)

        async def scenario() -> TreeNavigation:
            await session.prompt("first")
            await session.prompt("second question")
            return await session.navigate_tree(user_entry(session, "second question").id)

        outcome = asyncio.run(scenario())
        session.close()
    assert outcome == TreeNavigation(editor_text="second question")
    assert roles(session) == ["user", "assistant"]
    assert session.store.leaf_id == user_entry(session, "second question").parent_id


def test_choosing_the_first_user_message_empties_the_context(tmp_path: Path) -> None:
    with FakeServer({"turns": [chat("one")]}) as server:
        session = make_session(tmp_path, server)

        async def scenario() -> TreeNavigation:
            await session.prompt("first")
            return await session.navigate_tree(user_entry(session, "first").id)

        outcome = asyncio.run(scenario())
        session.close()
    assert outcome.editor_text == "first"
    # the model and thinking level entries before the message stay; no message does
    assert roles(session) == []


def test_moving_to_the_current_leaf_does_nothing(tmp_path: Path) -> None:
    events: list[str] = []

    def register(api: ExtensionAPI) -> None:
        api.on("session_before_tree", lambda e, ctx: events.append(e.type))
        api.on("session_tree", lambda e, ctx: events.append(e.type))

    with FakeServer({"turns": [chat("one")]}) as server:
        session = make_session(tmp_path, server, register)

        async def scenario() -> TreeNavigation:
            await session.prompt("first")
            return await session.navigate_tree(session.store.leaf_id, summarize=True)

        entries = len(session.store.entries)
        outcome = asyncio.run(scenario())
        session.close()
    assert outcome == TreeNavigation()
    assert events == []
    assert len(session.store.entries) == entries + 2  # only the prompt's own entries


def test_a_summary_of_the_branch_left_is_attached_where_the_move_lands(tmp_path: Path) -> None:
    trees: list[SessionTree] = []

    def register(api: ExtensionAPI) -> None:
        api.on("session_tree", lambda e, ctx: trees.append(e))

    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the notes\n")
    script = {
        "turns": [
            *BRANCH,
            {
                "text": "## Goal\nlook at the notes",
                "match": [SUMMARY_REQUEST],
                "usage": {"input": 321, "output": 12},
            },
        ]
    }
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, register)
        first_reply, old_leaf = two_branches(session)
        outcome = asyncio.run(
            session.navigate_tree(first_reply, summarize=True, label="notes idea")
        )
        session.close()
        [body] = summarizer_bodies(server)
    entry = outcome.summary_entry
    assert isinstance(entry, BranchSummaryEntry)
    assert entry.parent_id == first_reply
    assert entry.from_id == old_leaf
    assert entry.summary.startswith(BRANCH_SUMMARY_PREAMBLE)
    assert "## Goal\nlook at the notes" in entry.summary
    assert "<read-files>\nnotes.txt\n</read-files>" in entry.summary
    assert entry.details == {"readFiles": ["notes.txt"], "modifiedFiles": []}
    assert entry.usage is not None
    assert entry.usage.input == 321
    assert entry.from_hook is False
    # the summarizer read the branch left (not the shared part, not the tool output)
    assert "[User]: explore notes.txt" in body
    assert "[User]: first" not in body
    assert "the notes" not in body
    assert 'read(path=\\"notes.txt\\")' in body
    # the model's history now ends with the summary, which is labelled
    assert roles(session) == ["user", "assistant", "branchSummary"]
    labels = [e for e in session.store.entries if isinstance(e, LabelEntry)]
    assert [(label.target_id, label.label) for label in labels] == [(entry.id, "notes idea")]
    assert len(trees) == 1
    # the label entry follows the summary, as in Pi, so it is the new leaf
    assert (trees[0].new_leaf_id, trees[0].old_leaf_id) == (labels[0].id, old_leaf)
    assert trees[0].summary_entry is entry
    assert trees[0].from_extension is False


def test_the_summary_survives_a_restart(tmp_path: Path) -> None:
    script = {"turns": [*BRANCH, {"text": "short summary", "match": [SUMMARY_REQUEST]}]}
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("x\n")
    with FakeServer(script) as server:
        session = make_session(tmp_path, server)
        first_reply, _ = two_branches(session)
        asyncio.run(session.navigate_tree(first_reply, summarize=True))
        path = session.store.path
        session.close()
    assert path is not None
    reopened = SessionStore.open(path)
    try:
        messages = reopened.projection().messages
        assert [m.role for m in messages] == ["user", "assistant", "branchSummary"]
        assert "short summary" in messages[-1].summary  # type: ignore[union-attr]
    finally:
        reopened.close()


@pytest.mark.parametrize(
    ("replace", "expected", "absent"),
    [
        (False, ["Additional focus: only the file names"], []),
        (True, ["</conversation>\\n\\nonly the file names"], ["Additional focus"]),
    ],
    ids=["focus", "replace"],
)
def test_instructions_focus_or_replace_the_branch_prompt(
    tmp_path: Path, replace: bool, expected: list[str], absent: list[str]
) -> None:
    script = {"turns": [*BRANCH, {"text": "s", "match": [SUMMARY_REQUEST]}]}
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("x\n")
    with FakeServer(script) as server:
        session = make_session(tmp_path, server)
        first_reply, _ = two_branches(session)
        asyncio.run(
            session.navigate_tree(
                first_reply,
                summarize=True,
                instructions="only the file names",
                replace_instructions=replace,
            )
        )
        session.close()
        [body] = summarizer_bodies(server)
    for text in expected:
        assert text in body
    for text in absent:
        assert text not in body


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ({"stop": "length", "text": "half a summ"}, "the reply reached its output limit"),
        ({"fault": {"status": 400, "message": "bad request"}}, "Branch summarization failed"),
        (
            {"tool_calls": [{"name": "read", "arguments": {"path": "x"}}]},
            "Branch summarization attempted to call a tool",
        ),
    ],
    ids=["length", "error", "tool-call"],
)
def test_a_failed_summary_moves_nothing_and_says_why(
    tmp_path: Path, reply: dict[str, Any], message: str
) -> None:
    script = {"turns": [*BRANCH, {**reply, "match": [SUMMARY_REQUEST]}]}
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("x\n")
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, settings={"retry": {"enabled": False}})
        first_reply, old_leaf = two_branches(session)
        entries = len(session.store.entries)
        with pytest.raises(InputError, match=message):
            asyncio.run(session.navigate_tree(first_reply, summarize=True))
        session.close()
    assert session.store.leaf_id == old_leaf
    assert len(session.store.entries) == entries
    assert not session.summarizing


def test_an_aborted_summary_cancels_the_move(tmp_path: Path) -> None:
    script = {
        "turns": [
            *BRANCH,
            {"text": "slow", "match": [SUMMARY_REQUEST], "fault": {"firstByteDelay": 5}},
        ]
    }
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("x\n")
    with FakeServer(script) as server:
        session = make_session(tmp_path, server)
        first_reply, old_leaf = two_branches(session)

        async def scenario() -> TreeNavigation:
            move = asyncio.create_task(session.navigate_tree(first_reply, summarize=True))
            await until(lambda: session.summarizing)
            await asyncio.sleep(0.1)
            session.abort()
            return await asyncio.wait_for(move, 3)

        outcome = asyncio.run(scenario())
        session.close()
    assert outcome == TreeNavigation(cancelled=True, aborted=True)
    assert session.store.leaf_id == old_leaf


def test_a_branch_with_nothing_to_summarize_records_that(tmp_path: Path) -> None:
    with FakeServer({"turns": [chat("one")]}) as server:
        session = make_session(tmp_path, server)

        async def scenario() -> TreeNavigation:
            await session.prompt("first")
            reply = session.store.leaf_id
            session.store.append_label(reply or "", "mark")  # the branch left: one label entry
            return await session.navigate_tree(reply, summarize=True)

        outcome = asyncio.run(scenario())
        session.close()
        assert len(server.requests) == 1  # no summarizer request
    assert outcome.summary_entry is not None
    assert outcome.summary_entry.summary == NO_BRANCH_CONTENT


def test_extensions_see_the_preparation_and_may_override_it(tmp_path: Path) -> None:
    seen: list[SessionBeforeTree] = []

    def register(api: ExtensionAPI) -> None:
        def before(event: SessionBeforeTree, ctx: object) -> dict[str, Any]:
            seen.append(event)
            return {"customInstructions": "from the extension", "label": "ext label"}

        api.on("session_before_tree", before)

    script = {"turns": [*BRANCH, {"text": "s", "match": [SUMMARY_REQUEST]}]}
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("x\n")
    with FakeServer(script) as server:
        session = make_session(tmp_path, server, register)
        first_reply, old_leaf = two_branches(session)
        outcome = asyncio.run(
            session.navigate_tree(first_reply, summarize=True, instructions="mine", label="x")
        )
        session.close()
        [body] = summarizer_bodies(server)
    [event] = seen
    preparation = event.preparation
    assert preparation is not None
    assert (preparation.target_id, preparation.old_leaf_id) == (first_reply, old_leaf)
    assert preparation.common_ancestor_id == first_reply
    assert preparation.user_wants_summary is True
    assert (preparation.custom_instructions, preparation.label) == ("mine", "x")
    kinds = [
        getattr(getattr(e, "message", None), "role", type(e).__name__)
        for e in preparation.entries_to_summarize
    ]
    assert kinds == ["user", "assistant", "toolResult", "assistant"]
    assert "Additional focus: from the extension" in body
    labels = [e for e in session.store.entries if isinstance(e, LabelEntry)]
    assert outcome.summary_entry is not None
    assert [(x.target_id, x.label) for x in labels] == [(outcome.summary_entry.id, "ext label")]


def test_an_extension_summary_is_used_only_when_one_was_asked_for(tmp_path: Path) -> None:
    def register(api: ExtensionAPI) -> None:
        api.on(
            "session_before_tree",
            lambda e, ctx: {"summary": {"summary": "mine", "details": {"k": 1}}},
        )

    with FakeServer({"turns": [chat("one"), chat("two")]}) as server:
        session = make_session(tmp_path, server, register)

        async def scenario() -> tuple[TreeNavigation, TreeNavigation]:
            await session.prompt("first")
            reply = session.store.leaf_id
            await session.prompt("second")
            second = session.store.leaf_id
            plain = await session.navigate_tree(reply)
            back = await session.navigate_tree(second)
            assert back.summary_entry is None
            return plain, await session.navigate_tree(reply, summarize=True)

        plain, summarized = asyncio.run(scenario())
        session.close()
    assert plain.summary_entry is None
    entry = summarized.summary_entry
    assert entry is not None
    assert (entry.summary, entry.details, entry.from_hook) == ("mine", {"k": 1}, True)


def test_navigation_is_refused_while_the_agent_works(tmp_path: Path) -> None:
    script = {"turns": [{"text": "slow", "fault": {"firstByteDelay": 2}}]}
    with FakeServer(script) as server:
        session = make_session(tmp_path, server)

        async def scenario() -> None:
            run = asyncio.create_task(session.prompt("first"))
            await until(lambda: session.agent.is_running)
            with pytest.raises(InputError, match="while the agent is working"):
                await session.navigate_tree(None)
            session.abort()
            await run

        asyncio.run(scenario())
        session.close()
