"""The read-only views RPC commands return: pure functions over messages and entries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pith.ai import AssistantMessage, TextContent, ToolCall
from pith.app.modes.rpc._views import bash_delta, entries_since, last_assistant_text
from pith.session import SessionStore


def reply(text: str, stop: str = "stop") -> AssistantMessage:
    content: list[object] = [TextContent(text=text)] if text else []
    return AssistantMessage(content=content, stop_reason=stop)  # type: ignore[arg-type]


def test_the_last_answer_skips_failed_and_tool_only_replies() -> None:
    calls = AssistantMessage(
        content=[ToolCall(id="c", name="ls", arguments={})], stop_reason="toolUse"
    )
    assert last_assistant_text([reply(" done "), calls, reply("", "aborted")]) == "done"
    assert last_assistant_text([reply("partial", "aborted")]) == "partial"
    assert last_assistant_text([reply("")]) is None
    assert last_assistant_text([]) is None


def test_entries_since_a_cursor() -> None:
    store = SessionStore.create("/w", None)
    a = store.append_session_info("a")
    b = store.append_session_info("b")
    assert entries_since(store.entries, None) == [a, b]
    assert entries_since(store.entries, a.id) == [b]
    assert entries_since(store.entries, b.id) == []
    assert entries_since(store.entries, "zz") is None


def test_a_growing_output_gives_what_was_added() -> None:
    assert bash_delta("one\n", "one\ntwo\n") == "two\n"


def test_a_slid_tail_gives_only_the_new_lines() -> None:
    assert bash_delta("l1\nl2\nl3\n", "l2\nl3\nl4\n") == "l4\n"


def test_output_with_nothing_in_common_is_new_in_full() -> None:
    assert bash_delta("aaa\n", "zzz\n") == "zzz\n"


def lines(alphabet: str) -> st.SearchStrategy[list[str]]:
    return st.lists(st.text(alphabet=alphabet, min_size=1, max_size=4).map(lambda t: t + "\n"))


@given(lines("abc"), st.integers(0, 10), lines("xyz"))
def test_a_sliding_tail_never_loses_new_output(
    shown: list[str], dropped: int, added: list[str]
) -> None:
    previous = "".join(shown)
    current = "".join(shown[dropped:]) + "".join(added)
    delta = bash_delta(previous, current)
    assert current.endswith(delta)
    assert delta.endswith("".join(added))
    if dropped == 0:
        assert delta == "".join(added)
