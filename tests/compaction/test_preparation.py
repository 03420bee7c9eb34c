"""What a compaction would summarize and keep; why there is nothing to compact."""

from __future__ import annotations

from pith.ai import ToolCall
from pith.compaction import (
    ALREADY_COMPACTED,
    NOTHING_TO_COMPACT,
    CompactionPreparation,
    NoCompaction,
    ResolvedCompactionSettings,
    prepare_compaction,
)
from pith.session import SessionStore
from tests.compaction.sessions import assistant, result, user

KEEP_LITTLE = ResolvedCompactionSettings(keep_recent_tokens=10)


def _store() -> SessionStore:
    return SessionStore.create("/work/demo", None)


def test_an_empty_path_has_nothing_to_compact() -> None:
    prep = prepare_compaction([], KEEP_LITTLE)
    assert prep == NoCompaction(reason="nothing_to_compact")
    assert isinstance(prep, NoCompaction)
    assert prep.message == NOTHING_TO_COMPACT


def test_a_path_ending_with_a_compaction_is_already_compacted() -> None:
    store = _store()
    first = store.append_message(user(400))
    store.append_message(assistant([], 400))
    store.append_compaction("summary", first.id, 100)
    prep = prepare_compaction(store.get_branch(), KEEP_LITTLE)
    assert isinstance(prep, NoCompaction)
    assert prep.message == ALREADY_COMPACTED


def test_a_single_turn_kept_whole_has_nothing_to_compact() -> None:
    store = _store()
    store.append_message(user(40))
    store.append_message(assistant([], 40))
    prep = prepare_compaction(store.get_branch(), ResolvedCompactionSettings())
    assert prep == NoCompaction(reason="nothing_to_compact")


def test_the_older_turns_are_summarized_and_the_files_tracked() -> None:
    store = _store()
    store.append_message(user(400))
    call = ToolCall(id="c1", name="edit", arguments={"path": "src/a.py", "edits": []})
    store.append_message(assistant([call], 40))
    store.append_message(result(call, 400))
    store.append_message(assistant([], 400))
    second = store.append_message(user(400))
    store.append_message(assistant([], 400))
    prep = prepare_compaction(
        store.get_branch(), ResolvedCompactionSettings(keep_recent_tokens=150)
    )
    assert isinstance(prep, CompactionPreparation)
    assert prep.first_kept_entry_id == second.id
    assert len(prep.messages_to_summarize) == 4
    assert prep.turn_prefix_messages == []
    assert not prep.is_split_turn
    assert prep.file_ops.edited == {"src/a.py"}


def test_a_long_turn_is_split_and_its_start_summarized_apart() -> None:
    store = _store()
    prompt = store.append_message(user(100))
    for index in range(6):
        call = ToolCall(id=f"c{index}", name="read", arguments={"path": f"f{index}"})
        store.append_message(assistant([call], 40))
        store.append_message(result(call, 800))
    prep = prepare_compaction(
        store.get_branch(), ResolvedCompactionSettings(keep_recent_tokens=300)
    )
    assert isinstance(prep, CompactionPreparation)
    assert prep.is_split_turn
    assert prep.messages_to_summarize == []
    assert prep.turn_prefix_messages[0] is prompt.message
    assert prep.file_ops.read


def test_a_second_compaction_updates_the_first_summary() -> None:
    store = _store()
    for _ in range(3):
        store.append_message(user(400))
        store.append_message(assistant([], 400))
    kept = store.get_branch()[-2]
    store.append_compaction(
        "FIRST", kept.id, 100, details={"readFiles": ["r.py"], "modifiedFiles": ["m.py"]}
    )
    for _ in range(3):
        store.append_message(user(400))
        store.append_message(assistant([], 400))
    prep = prepare_compaction(
        store.get_branch(), ResolvedCompactionSettings(keep_recent_tokens=150)
    )
    assert isinstance(prep, CompactionPreparation)
    assert prep.previous_summary == "FIRST"
    # The entries the first compaction kept are summarized again.
    assert prep.messages_to_summarize[0] is kept.message  # type: ignore[union-attr]
    assert prep.file_ops.read == {"r.py"}
    assert prep.file_ops.edited == {"m.py"}


def test_details_of_an_extension_compaction_do_not_seed_the_files() -> None:
    store = _store()
    for _ in range(2):
        store.append_message(user(400))
        store.append_message(assistant([], 400))
    store.append_compaction("EXT", None, 100, details={"readFiles": ["r.py"]}, from_hook=True)
    for _ in range(3):
        store.append_message(user(400))
        store.append_message(assistant([], 400))
    prep = prepare_compaction(
        store.get_branch(), ResolvedCompactionSettings(keep_recent_tokens=150)
    )
    assert isinstance(prep, CompactionPreparation)
    assert prep.file_ops.read == set()


def test_a_hidden_failed_attempt_at_the_end_is_not_kept_alone() -> None:
    """Pi 1.6's recovery case: after hiding a failed reply, the cut moves past the prompt
    that led to it: the prompt becomes the summarized first part of a split turn."""
    store = _store()
    for _ in range(3):
        store.append_message(user(400))
        store.append_message(assistant([], 400))
    prompt = store.append_message(user(400))
    failed = store.append_message(assistant([], 10, stop="error"))
    store.append_context_edit(failed.id, None)
    prep = prepare_compaction(store.get_branch(), ResolvedCompactionSettings(keep_recent_tokens=50))
    assert isinstance(prep, CompactionPreparation)
    assert prep.first_kept_entry_id == failed.id
    assert prep.is_split_turn
    assert prep.turn_prefix_messages == [prompt.message]
