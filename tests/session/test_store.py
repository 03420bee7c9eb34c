"""The session tree: lazy files, branches, labels, names, summaries, edits, forks."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from pith.ai import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.session import SessionStore


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def reply(text: str) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)], provider="p", model="m")


def header() -> dict[str, object]:
    return {"type": "session", "version": 3, "id": "abc", "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": "/w"}  # fmt: skip


def entry(id: str, parent: str | None, second: int, **fields: object) -> dict[str, object]:
    """A message entry line (override `type` for others), timed `second`s into 2026."""
    return {"type": "message", "id": id, "parentId": parent,
            "timestamp": f"2026-01-01T00:00:{second:02d}.000Z", **fields}  # fmt: skip


def write_lines(path: Path, lines: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def texts(store: SessionStore) -> list[str]:
    out = []
    for message in store.projection().messages:
        content = getattr(message, "content", None)
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list) and content and isinstance(content[0], TextContent):
            out.append(content[0].text)
        elif isinstance(message, CompactionSummaryMessage | BranchSummaryMessage):
            out.append(f"<{message.role}:{message.summary}>")
    return out


def test_the_file_appears_with_the_first_conversation_message(tmp_path: Path) -> None:
    store = SessionStore.create("/work", tmp_path)
    store.append_model_change("p", "m")
    store.append_thinking_level_change("high")
    assert not store.persisted
    assert list(tmp_path.glob("*.jsonl")) == []
    store.append_message(user("hi"))
    assert store.persisted
    assert store.path is not None
    lines = [json.loads(line) for line in store.path.read_text().splitlines()]
    assert [line["type"] for line in lines] == [
        "session",
        "model_change",
        "thinking_level_change",
        "message",
    ]
    assert lines[0]["version"] == 3
    assert lines[0]["cwd"] == "/work"
    assert store.path.name.endswith(f"_{store.id}.jsonl")
    store.close()


def test_reload_puts_the_leaf_on_the_last_line(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        first = store.append_message(user("one"))
        store.append_message(reply("1"))
        store.branch(first.id)
        store.append_message(reply("alternative"))
        path = store.path
    assert path is not None
    with SessionStore.open(path) as again:
        assert texts(again) == ["one", "alternative"]
        assert again.projection().model == ("p", "m")


def test_branching_keeps_the_old_branch_and_the_tree_shows_both(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        root = store.append_message(user("start"))
        store.append_message(reply("a"))
        store.branch(root.id)
        store.append_message(reply("b"))
        roots = store.tree()
        assert len(roots) == 1
        assert [child.entry.message.text() for child in roots[0].children] == ["a", "b"]  # type: ignore[union-attr]
        assert texts(store) == ["start", "b"]


def test_reset_leaf_starts_a_new_root(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        store.append_message(user("first"))
        store.reset_leaf()
        assert store.projection().messages == []
        store.append_message(user("again"))
        assert texts(store) == ["again"]
        assert len(store.tree()) == 2


def test_labels_and_names(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        entry = store.append_message(user("x"))
        store.append_label(entry.id, "checkpoint")
        assert store.label(entry.id) == "checkpoint"
        store.append_label(entry.id, None)
        assert store.label(entry.id) is None
        store.append_session_info("my\nsession ")
        assert store.name == "my session"
        store.append_session_info("")
        assert store.name is None


def test_branch_with_summary_brings_the_summary_into_context(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        root = store.append_message(user("task"))
        store.append_message(reply("tried X"))
        summary = store.branch_with_summary(root.id, "X did not work")
        assert summary.from_id != "root"
        assert texts(store) == ["task", "<branchSummary:X did not work>"]


def test_compaction_keeps_the_tail_and_summarizes_the_rest(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        store.append_message(user("old 1"))
        store.append_message(reply("old 2"))
        kept = store.append_message(user("kept 3"))
        store.append_message(reply("kept 4"))
        store.append_compaction("earlier work", kept.id, 1234)
        store.append_message(user("new 5"))
        assert texts(store) == ["<compactionSummary:earlier work>", "kept 3", "kept 4", "new 5"]


def test_context_edit_hides_or_replaces_on_this_branch_only(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        ask = store.append_message(user("question"))
        bad = store.append_message(reply("noise"))
        store.append_context_edit(bad.id, None)
        store.append_message(user("next"))
        assert texts(store) == ["question", "next"]
        store.append_context_edit(ask.id, "rephrased question")
        assert texts(store) == ["rephrased question", "next"]
        store.branch(bad.id)  # another branch does not see the edits
        assert texts(store) == ["question", "noise"]


def test_bash_executions_are_messages_and_excluded_ones_stay_out(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        store.append_message(user("hi"))
        store.append_message(BashExecutionMessage(command="ls", output="a\n", exit_code=0))
        assert [m.role for m in store.projection().messages] == ["user", "bashExecution"]


def test_summaries_cannot_be_appended_as_plain_messages(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store, pytest.raises(ValueError, match="summaries"):
        store.append_message(CompactionSummaryMessage(summary="s", tokens_before=1))


def test_fork_copies_the_path_re_emits_labels_and_points_back(tmp_path: Path) -> None:
    with SessionStore.create("/w", tmp_path) as store:
        first = store.append_message(user("one"))
        store.append_label(first.id, "start")
        call = ToolCall(id="c1", name="read", arguments={"path": "a"})
        store.append_message(AssistantMessage(content=[call], provider="p", model="m"))
        store.append_message(ToolResultMessage(tool_call_id="c1", tool_name="read", content=[]))
        store.branch(first.id)
        store.append_message(reply("other branch"))
        fork = store.fork()
        assert fork.path is not None
        assert fork.path != store.path
        assert fork.header.parent_session == str(store.path)
        assert texts(fork) == ["one", "other branch"]
        assert fork.label(first.id) == "start"
        lines = [json.loads(line) for line in fork.path.read_text().splitlines()]
        assert lines[-1]["type"] == "label"
        fork.close()


def test_unknown_entries_and_fields_survive(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        header(),
        entry("a1", None, 1, message={"role": "user", "content": "hi", "timestamp": 1,
                                     "mood": "curious"}, tag=7),
        {**entry("b2", "a1", 2), "type": "future_thing", "x": [1]},
    ]  # fmt: skip
    write_lines(path, lines)
    with SessionStore.open(path) as store:
        store.append_message(reply("ok"))
    written = [json.loads(line) for line in path.read_text().splitlines()]
    assert written[:3] == lines
    assert written[3]["parentId"] == "b2"


def test_a_message_without_its_own_time_takes_its_entrys(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_lines(path, [header(), entry("a1", None, 7, message={"role": "user", "content": "hi"})])
    with SessionStore.open(path) as store:
        (message,) = store.projection().messages
    assert message.timestamp == 1767225607000  # 2026-01-01T00:00:07Z, not the time it was read


def test_unreadable_parts_of_a_message_stay_in_the_file_and_out_of_the_context(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    future = {"role": "futureRole", "content": "from a newer Pi", "timestamp": 1}
    audio = {"role": "user", "timestamp": 2, "content": [
        {"type": "text", "text": "listen:"}, {"type": "audio", "data": "AAAA"}]}  # fmt: skip
    cited = {"role": "assistant", "provider": "anthropic", "model": "claude-x", "timestamp": 3,
             "content": [{"type": "text", "text": "ok"},
                         {"type": "citation", "url": "u"}]}  # fmt: skip
    lines = [header(), entry("a1", None, 1, message=future), entry("a2", "a1", 2, message=audio),
             entry("a3", "a2", 3, message=cited)]  # fmt: skip
    write_lines(path, lines)
    original = path.read_bytes()
    with SessionStore.open(path) as store:
        projection = store.projection()
        warnings = store.warnings
    assert [type(m).__name__ for m in projection.messages] == ["UserMessage", "AssistantMessage"]
    assert texts_of(projection.messages) == ["listen:", "ok"]
    assert projection.model == ("anthropic", "claude-x")
    assert path.read_bytes() == original
    assert warnings == [
        f"{path}:2: a message with role 'futureRole' pith cannot read is left out of the model "
        "context (the line is kept as it is)",
        f"{path}:3: content of type 'audio' is left out of the model context (the line is kept "
        "as it is)",
        f"{path}:4: content of type 'citation' is left out of the model context (the line is "
        "kept as it is)",
    ]


def texts_of(messages: list[object]) -> list[str]:
    return [
        block.text
        for message in messages
        for block in getattr(message, "content", [])
        if isinstance(block, TextContent)
    ]


def test_a_compaction_keeps_the_system_state_it_cuts_away(tmp_path: Path) -> None:
    system = {"role": "system", "content": "Be brief.", "timestamp": 1,
              "sections": {"rules": "no emojis", "tone": "dry"},
              "toolsAdded": [{"name": "read"}, {"name": "bash"}]}  # fmt: skip
    later = {"role": "system", "content": "", "timestamp": 2, "sections": {"tone": None},
             "toolsRemoved": [{"name": "bash"}]}  # fmt: skip
    path = tmp_path / "s.jsonl"
    write_lines(path, [header(), entry("s1", None, 1, message=system),
                       entry("u1", "s1", 2, message={"role": "user", "content": "hi"}),
                       entry("s2", "u1", 3, message=later)])  # fmt: skip
    with SessionStore.open(path) as store:
        store.append_message(reply("hello"))
        compaction = store.append_compaction("Said hello.", None, 100)
        messages = store.projection().messages
    assert compaction.system_message is not msgspec.UNSET
    snapshot = msgspec.to_builtins(compaction.system_message)
    assert snapshot == {
        "role": "system",
        "content": "Be brief.",
        "sections": {"rules": "no emojis"},
        "toolsAdded": [{"name": "read"}],
        "timestamp": snapshot["timestamp"],
    }
    assert [m.role for m in messages] == ["system", "compactionSummary"]
    written = json.loads(path.read_text().splitlines()[-1])
    assert written["systemMessage"]["sections"] == {"rules": "no emojis"}
