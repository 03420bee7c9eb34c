"""`/tree` rows: branches indented, the current point marked ◉, labels shown."""

from __future__ import annotations

from pith.ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pith.app.session._tree_rows import tree_rows
from pith.session import SessionStore


def store() -> SessionStore:
    return SessionStore.create("/work", None)


def say(store: SessionStore, text: str) -> str:
    return store.append_message(AssistantMessage(content=[TextContent(text=text)])).id


def ask(store: SessionStore, text: str) -> str:
    return store.append_message(UserMessage(content=text)).id


def test_a_branch_point_indents_its_children_and_marks_the_leaf() -> None:
    s = store()
    first = ask(s, "first question")
    say(s, "first answer")
    s.branch(first)
    say(s, "another answer")
    assert [row.text for row in tree_rows(s)] == [
        "• you: first question",
        "  ○ pith: first answer",
        "  ◉ pith: another answer",
    ]
    assert [row.is_leaf for row in tree_rows(s)] == [False, False, True]
    assert [row.on_branch for row in tree_rows(s)] == [True, False, True]


def test_a_straight_conversation_is_not_indented() -> None:
    s = store()
    ask(s, "one")
    say(s, "two")
    ask(s, "three")
    assert [row.text for row in tree_rows(s)] == ["• you: one", "• pith: two", "◉ you: three"]


def test_the_leaf_is_marked_on_the_call_when_the_leaf_entry_is_a_tool_result() -> None:
    s = store()
    ask(s, "list files")
    call = ToolCall(id="c1", name="bash", arguments={"command": "ls"})
    s.append_message(AssistantMessage(content=[call]))
    leaf = s.append_message(
        ToolResultMessage(tool_call_id="c1", tool_name="bash", content=[TextContent(text="a")])
    )
    assert s.leaf_id == leaf.id
    rows = tree_rows(s)
    assert [row.text for row in rows] == ["• you: list files", "◉ pith → bash"]
    assert all(row.entry_id != leaf.id for row in rows)


def test_labels_are_shown_after_the_row() -> None:
    s = store()
    first = ask(s, "start here")
    say(s, "ok")
    s.append_label(first, "checkpoint")
    assert tree_rows(s)[0].text == "• you: start here [checkpoint]"


def test_long_messages_are_cut_to_one_line() -> None:
    s = store()
    ask(s, "word\nacross lines " + "x" * 200)
    (row,) = tree_rows(s)
    assert "\n" not in row.text
    assert row.text.startswith("◉ you: word across lines x")
    assert row.text.endswith("…")
    assert len(row.text) == len("◉ you: ") + 90
