"""Properties of the compaction policy on arbitrary session paths (hypothesis)."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pith.ai import (
    AssistantMessage,
    CompactionSummaryMessage,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    js_number,
    js_stringify,
)
from pith.compaction import (
    CompactionPreparation,
    ContextTokenTracker,
    NoCompaction,
    ResolvedCompactionSettings,
    estimate_projected_context_tokens,
    estimate_tokens,
    find_cut_point,
    plan_summary_requests,
    prepare_compaction,
    project_path,
    serialize_conversation,
    truncate_for_summary,
)
from pith.session import CompactionEntry, MessageEntry, SessionEntry, entry_messages, project
from pith.tools._truncate import utf16_len
from tests.compaction.sessions import Op, build, ops, path_of

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
keeps = st.integers(min_value=0, max_value=12_000)


def _is_tool_result(entry: SessionEntry) -> bool:
    return isinstance(entry, MessageEntry) and isinstance(entry.message, ToolResultMessage)


def _is_cut_point(entry: SessionEntry) -> bool:
    """A user-side message or a reply: what a kept part may start with."""
    if isinstance(entry, CompactionEntry):
        return False
    return any(not isinstance(m, ToolResultMessage | SystemMessage) for m in entry_messages(entry))


def _call_index(path: list[SessionEntry]) -> dict[str, int]:
    """Tool call id -> index of the assistant entry that made it."""
    found: dict[str, int] = {}
    for index, entry in enumerate(path):
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            for block in entry.message.content:
                if isinstance(block, ToolCall):
                    found[block.id] = index
    return found


@SETTINGS
@given(ops, keeps)
def test_the_cut_never_separates_a_tool_call_from_its_result(op_list: list[Op], keep: int) -> None:
    _, path = path_of(op_list)
    cut = find_cut_point(path, 0, len(path), keep)
    calls = _call_index(path)
    for index in range(cut.first_kept_entry_index, len(path)):
        entry = path[index]
        if _is_tool_result(entry):
            assert isinstance(entry, MessageEntry)
            assert isinstance(entry.message, ToolResultMessage)
            call_at = calls[entry.message.tool_call_id]
            assert call_at >= cut.first_kept_entry_index


def _tokens(path: list[SessionEntry], start: int) -> int:
    return sum(estimate_tokens(m) for e in path[start:] for m in entry_messages(e))


@SETTINGS
@given(ops, keeps)
def test_kept_tokens_reach_keep_recent_unless_everything_is_kept(
    op_list: list[Op], keep: int
) -> None:
    """Counting the entries just before the kept part that cannot start it (Pi cuts at the
    first cut point at or after the entry that reached the budget, so tool results go with
    their summarized call, system messages with the history), the kept part holds at least
    `keep_recent_tokens`, unless everything is kept."""
    _, path = path_of(op_list)
    cut = find_cut_point(path, 0, len(path), keep)
    back = cut.first_kept_entry_index
    while back > 0 and not _is_cut_point(path[back - 1]):
        back -= 1
    cut_points = [i for i, e in enumerate(path) if _is_cut_point(e)]
    everything = not cut_points or cut.first_kept_entry_index <= cut_points[0]
    assert _tokens(path, back) >= keep or everything


@SETTINGS
@given(ops, keeps)
def test_a_split_turn_names_the_turn_start_before_the_cut(op_list: list[Op], keep: int) -> None:
    _, path = path_of(op_list)
    cut = find_cut_point(path, 0, len(path), keep)
    if cut.is_split_turn:
        assert 0 <= cut.turn_start_index < cut.first_kept_entry_index
        kinds = {type(m).__name__ for m in entry_messages(path[cut.turn_start_index])}
        assert kinds & {
            "UserMessage",
            "BashExecutionMessage",
            "CustomMessage",
            "BranchSummaryMessage",
        }
    else:
        assert cut.turn_start_index == -1 or not cut.is_split_turn


@SETTINGS
@given(ops, keeps)
def test_preparation_partitions_the_messages_after_the_last_compaction(
    op_list: list[Op], keep: int
) -> None:
    _, path = path_of(op_list)
    prep = prepare_compaction(path, ResolvedCompactionSettings(keep_recent_tokens=keep))
    if isinstance(prep, NoCompaction):
        return
    projection = project_path(path)
    ids = [item.entry.id for item in projection.entries]
    first_kept = ids.index(prep.first_kept_entry_id)
    start = 1 if projection.compaction is not None else 0
    before = [
        m
        for item in projection.entries[start:first_kept]
        if item.entry.__class__.__name__ != "CompactionEntry"
        for m in item.messages
        if m.__class__.__name__ != "SystemMessage"
    ]
    assert prep.messages_to_summarize + prep.turn_prefix_messages == before
    # No tool result is summarized without its call, nor kept without it.
    summarized = {
        b.id
        for m in before
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolCall)
    }
    for item in projection.entries[first_kept:]:
        for message in item.messages:
            if isinstance(message, ToolResultMessage):
                assert message.tool_call_id not in summarized


@SETTINGS
@given(ops, keeps)
def test_preparation_is_a_no_op_on_an_already_compacted_path(op_list: list[Op], keep: int) -> None:
    store, path = path_of(op_list)
    settings_ = ResolvedCompactionSettings(keep_recent_tokens=keep)
    prep = prepare_compaction(path, settings_)
    if isinstance(prep, CompactionPreparation):
        store.append_compaction("summary", prep.first_kept_entry_id, prep.tokens_before)
        again = prepare_compaction(store.get_branch(), settings_)
        assert again == NoCompaction(reason="already_compacted")
        # What stays in context: the summary, then the kept entries.
        messages = store.projection().messages
        first = next(m for m in messages if m.__class__.__name__ != "SystemMessage")
        assert isinstance(first, CompactionSummaryMessage)


@SETTINGS
@given(ops, st.lists(st.sampled_from(range(40)), max_size=6))
def test_the_tracker_equals_a_full_estimate_after_every_append(
    op_list: list[Op], extra_indices: list[int]
) -> None:
    store = build([])
    tracker = ContextTokenTracker.start(store.projection(), [])
    full = build(op_list)
    for entry in full.entries:
        store.append(entry)
        tracker.add_entry(entry)
        if tracker.stale:
            tracker.reset(store.projection(), store.get_branch())
        expected = estimate_projected_context_tokens(store.projection(), store.get_branch())
        assert tracker.estimate() == expected
    del extra_indices


@SETTINGS
@given(
    st.lists(st.sampled_from(list(range(0, 40))), min_size=1, max_size=30),
    st.integers(min_value=200, max_value=6000),
)
def test_chunks_keep_tool_results_with_their_call_and_fit_the_budget(
    sizes: list[int], window: int
) -> None:
    store = build([])
    op_list: list[Op] = []
    from tests.compaction.sessions import Turn

    for size in sizes:
        op_list.append(Turn(size * 20, ((size * 30, size * 5),), size * 10, 0))
    store = build(op_list)
    messages = [m for e in store.get_branch() for m in entry_messages(e)]
    plan = plan_summary_requests(messages, context_window=window, output_reserve_tokens=window // 4)
    flat = [m for step in plan.history for m in step.messages]
    assert flat == messages
    for step in plan.history:
        assert not isinstance(step.messages[0], ToolResultMessage)
        if not step.oversized:
            assert plan.input_budget_tokens is not None
            if plan.chunked and step is not plan.history[0]:
                continue  # later steps are planned with an allowance for the summary
            assert step.estimated_input_tokens <= plan.input_budget_tokens


@given(st.text(max_size=3000), st.integers(min_value=0, max_value=2500))
def test_summary_truncation_never_splits_a_character(value: str, limit: int) -> None:
    cut = truncate_for_summary(value, limit)
    if utf16_len(value) <= limit:
        assert cut == value
    else:
        head, _, note = cut.rpartition("\n\n[... ")
        assert value.startswith(head)
        assert utf16_len(head) <= limit
        assert note == f"{utf16_len(value) - limit} more characters truncated]"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet="ab_", max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values)
def test_js_stringify_equals_json_dumps_without_floats_or_index_keys(value: object) -> None:
    assert js_stringify(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_reads_back_as_the_same_number(value: float) -> None:
    text = js_number(value)
    assert float(text) == value or (value == 0 and text == "0")
    assert "e" not in text or abs(value) >= 1e21 or abs(value) < 1e-6


@given(st.lists(st.text(max_size=200), max_size=8))
def test_serialized_user_messages_are_paragraphs(texts: list[str]) -> None:
    from pith.ai import UserMessage

    messages = [UserMessage(content=t) for t in texts]
    out = serialize_conversation(messages)
    expected = "\n\n".join(f"[User]: {t}" for t in texts if t)
    assert out == expected
    assert math.isfinite(len(out))


def test_project_of_an_empty_path_is_empty() -> None:
    assert project([], None, {}).messages == []


@SETTINGS
@given(ops)
def test_the_policy_reads_the_same_context_as_the_session_projection(op_list: list[Op]) -> None:
    """prepare_compaction reads the path through its own lean view (speed); it must select the
    same entries and messages as `pith.session.project`."""
    from pith.compaction._context import path_context

    store, path = path_of(op_list)
    projection = store.projection()
    context = path_context(path)
    assert [e.id for e in context.entries] == [item.entry.id for item in projection.entries]
    assert [list(m) for m in context.messages] == [item.messages for item in projection.entries]


@SETTINGS
@given(ops, keeps)
def test_projected_cut_point_is_the_one_preparation_uses(op_list: list[Op], keep: int) -> None:
    from pith.compaction import find_projected_cut_point
    from pith.compaction._context import path_context
    from pith.compaction._cut_point import cut_context

    store, path = path_of(op_list)
    entries = store.projection().entries
    start = 1 if entries and entries[0].entry.__class__.__name__ == "CompactionEntry" else 0
    assert find_projected_cut_point(entries, start, len(entries), keep) == cut_context(
        path_context(path), start, len(entries), keep
    )
