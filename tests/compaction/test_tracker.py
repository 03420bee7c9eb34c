"""The incremental context size used by the between-turn check."""

from __future__ import annotations

import pytest

from pith.ai import ToolCall
from pith.compaction import (
    ContextTokenTracker,
    ResolvedCompactionSettings,
    StaleTrackerError,
    estimate_projected_context_tokens,
    estimate_tokens,
)
from pith.session import SessionStore
from tests.compaction.sessions import assistant, result, user


def _store() -> SessionStore:
    return SessionStore.create("/work/demo", None)


def _full(store: SessionStore) -> int:
    return estimate_projected_context_tokens(store.projection(), store.get_branch()).tokens


def test_without_usage_every_appended_message_is_estimated_once() -> None:
    store = _store()
    tracker = ContextTokenTracker.start(store.projection(), store.get_branch())
    assert tracker.tokens == 0
    message = user(400)
    tracker.add_entry(store.append_message(message))
    assert tracker.tokens == estimate_tokens(message) == _full(store)


def test_a_reply_with_usage_becomes_the_base_of_the_figure() -> None:
    store = _store()
    tracker = ContextTokenTracker.start(store.projection(), [])
    tracker.add_entry(store.append_message(user(400)))
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    tracker.add_entry(store.append_message(assistant([call], 40, usage=5000)))
    tool_result = result(call, 2000)
    tracker.add_entry(store.append_message(tool_result))
    assert tracker.tokens == 5010 + estimate_tokens(tool_result) == _full(store)
    estimate = tracker.estimate()
    assert estimate.usage_tokens == 5010
    assert estimate.last_usage_index == 1


def test_a_compaction_makes_the_tracker_stale_until_reset() -> None:
    store = _store()
    tracker = ContextTokenTracker.start(store.projection(), [])
    first = store.append_message(user(400))
    tracker.add_entry(first)
    tracker.add_entry(store.append_message(assistant([], 40, usage=9000)))
    tracker.add_entry(store.append_compaction("summary", first.id, 9000))
    assert tracker.stale
    with pytest.raises(StaleTrackerError):
        _ = tracker.tokens
    tracker.reset(store.projection(), store.get_branch())
    # Usage reported before the compaction is no longer trusted: all estimated.
    assert tracker.estimate().last_usage_index is None
    assert tracker.tokens == _full(store)


def test_a_context_edit_makes_the_tracker_stale() -> None:
    store = _store()
    tracker = ContextTokenTracker.start(store.projection(), [])
    entry = store.append_message(user(400))
    tracker.add_entry(entry)
    tracker.add_entry(store.append_context_edit(entry.id, None))
    assert tracker.stale


def test_moving_the_leaf_makes_the_tracker_stale() -> None:
    store = _store()
    tracker = ContextTokenTracker.start(store.projection(), [])
    first = store.append_message(user(100))
    tracker.add_entry(first)
    tracker.add_entry(store.append_message(assistant([], 40, usage=900)))
    store.branch(first.id)
    tracker.add_entry(store.append_message(user(50)))
    assert tracker.stale


def test_exceeds_applies_the_threshold() -> None:
    store = _store()
    tracker = ContextTokenTracker.start(store.projection(), [])
    tracker.add_entry(store.append_message(assistant([], 40, usage=9000)))
    settings = ResolvedCompactionSettings(reserve_tokens=1000)
    assert tracker.exceeds(10_000, settings) is True
    assert tracker.exceeds(10_100, settings) is False
    assert tracker.exceeds(0, settings) is False
