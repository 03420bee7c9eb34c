"""What a summary of the branch being left covers."""

from __future__ import annotations

from pith.ai import BranchSummaryMessage, CompactionSummaryMessage, ToolCall, ToolResultMessage
from pith.compaction import (
    branch_token_budget,
    collect_entries_for_branch_summary,
    estimate_tokens,
    prepare_branch_entries,
)
from pith.session import SessionStore
from tests.compaction.sessions import assistant, result, text, user


def _store() -> SessionStore:
    return SessionStore.create("/work/demo", None)


def test_without_an_old_leaf_there_is_nothing_to_collect() -> None:
    store = _store()
    entry = store.append_message(user())
    got = collect_entries_for_branch_summary(store.by_id, None, entry.id)
    assert got.entries == []
    assert got.common_ancestor_id is None


def test_the_entries_after_the_common_ancestor_are_collected_oldest_first() -> None:
    store = _store()
    root = store.append_message(user())
    store.append_message(assistant([]))
    fork = store.append_message(user())
    a1 = store.append_message(assistant([]))
    a2 = store.append_message(user())
    store.branch(fork.id)
    b1 = store.append_message(assistant([]))
    got = collect_entries_for_branch_summary(store.by_id, a2.id, b1.id)
    assert [e.id for e in got.entries] == [a1.id, a2.id]
    assert got.common_ancestor_id == fork.id
    # Going back to an ancestor: everything after it on the old branch.
    back = collect_entries_for_branch_summary(store.by_id, a2.id, root.id)
    assert back.common_ancestor_id == root.id
    assert back.entries[-1].id == a2.id


def test_branches_from_different_roots_share_no_ancestor() -> None:
    store = _store()
    one = store.append_message(user())
    store.reset_leaf()
    two = store.append_message(user())
    got = collect_entries_for_branch_summary(store.by_id, one.id, two.id)
    assert got.common_ancestor_id is None
    assert [e.id for e in got.entries] == [one.id]


def test_tool_results_are_left_out_but_their_calls_count_for_the_files() -> None:
    store = _store()
    store.append_message(user())
    call = ToolCall(id="c1", name="write", arguments={"path": "out.txt", "content": "x"})
    store.append_message(assistant([call]))
    store.append_message(result(call))
    got = prepare_branch_entries(store.get_branch())
    assert not any(isinstance(m, ToolResultMessage) for m in got.messages)
    assert got.file_ops.written == {"out.txt"}


def test_the_newest_messages_are_kept_within_the_budget() -> None:
    store = _store()
    messages = [user(400) for _ in range(5)]
    for message in messages:
        store.append_message(message)
    budget = estimate_tokens(messages[0]) * 2
    got = prepare_branch_entries(store.get_branch(), budget)
    assert got.messages == messages[-2:]
    assert got.total_tokens == budget


def test_a_summary_that_does_not_fit_is_still_taken_under_ninety_percent() -> None:
    store = _store()
    store.append_compaction(text(4000), None, 100)
    store.append_message(user(400))
    entries = store.get_branch()
    small = estimate_tokens(entries[-1].message)  # type: ignore[union-attr]
    got = prepare_branch_entries(entries, small * 3)
    assert isinstance(got.messages[0], CompactionSummaryMessage)
    assert got.total_tokens > small * 3


def test_an_empty_branch_summary_is_still_a_message_here() -> None:
    store = _store()
    first = store.append_message(user())
    store.branch_with_summary(first.id, "")
    got = prepare_branch_entries(store.get_branch())
    assert isinstance(got.messages[-1], BranchSummaryMessage)


def test_the_budget_is_the_window_minus_the_reserve() -> None:
    assert branch_token_budget(200_000, 16_384) == 183_616
    assert branch_token_budget(None, 16_384) == 128_000 - 16_384
    assert branch_token_budget(0, 1000) == 127_000
