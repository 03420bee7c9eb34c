"""The recovery tool's text: by ref, by raw id, reused ids, unknown ids, the read cap."""

from __future__ import annotations

from pith.ext.prune._index import PruneIndex
from pith.ext.prune._query import check_ids, format_query
from pith.ext.prune._records import DedupAlias, IndexEntry, ToolCallRecord
from tests.ext.prune.conftest import Convo, index_turn


def raw_from(convo: Convo) -> dict[str, str]:
    from pith.ai import ToolResultMessage
    from pith.ext.prune._capture import result_text
    from pith.ext.prune._records import occurrence_key

    return {
        occurrence_key(m.tool_call_id, m.timestamp): result_text(m)
        for m in convo.messages
        if isinstance(m, ToolResultMessage)
    }


def test_a_ref_gives_the_raw_output_after_a_header(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("read", {"path": "a.py"}, "exact  bytes\n\n")))
    raw = raw_from(convo)
    text = format_query(index, ["t1"], lambda r: raw[r.key])
    assert text == (
        '## toolRef: t1\nTool: read\nArgs: {\n  "path": "a.py"\n}\nStatus: OK\n\nexact  bytes\n\n'
    )


def test_a_raw_id_reused_twice_gives_both_occurrences(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("bash", {"command": "one"}, "first")))
    convo.calls = 0  # the provider reuses call_1
    index_turn(index, convo.turn(("bash", {"command": "two"}, "second")))
    raw = raw_from(convo)
    text = format_query(index, ["call_1"], lambda r: raw[r.key])
    first, second = text.split("\n\n---\n\n")
    assert first.startswith("## toolRef: call_1@1002 (t1)\nTool: bash")
    assert first.endswith("\n\nfirst")
    assert second.startswith("## toolRef: call_1@1004 (t2)\nTool: bash")
    assert second.endswith("\n\nsecond")


def test_unknown_ids_are_explained(convo: Convo) -> None:
    text = format_query(PruneIndex(), ["t9"], lambda r: None)
    assert text.startswith("## toolRef: t9\n(not found in the pruner's index")


def test_a_missing_raw_falls_back_to_the_preview(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("read", {"path": "a"}, "x")))
    key = index.by_ref["t1"]
    index.records[key].result_preview = "head"
    text = format_query(index, ["t1"], lambda r: None)
    assert text.endswith(
        "\n\nhead\n[The raw output is gone (spill file missing); this is its preview.]"
    )


def test_bodies_are_capped_like_read(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("bash", {"command": "seq"}, "x")))
    body = "\n".join(str(i) for i in range(3000))
    text = format_query(index, ["t1"], lambda r: body)
    assert text.endswith("\n1999\n\n[Output truncated: 2000/3000 lines shown]")


def test_bad_arguments_say_what_is_expected() -> None:
    assert check_ids({"toolCallIds": ["t1", "t2"]}) == ["t1", "t2"]
    message = check_ids({"toolCallIds": "t1"})
    assert isinstance(message, str)
    assert "toolCallIds must be a non-empty list of strings" in message
    assert "'t1'" in message


def test_a_reused_raw_id_lists_its_occurrences_by_time_backfills_included(
    convo: Convo,
) -> None:
    # call_1 first gives a result too small to capture; the provider reuses call_1 later and
    # that one is indexed; `/pruner compact` then backfills the older, uncaptured one.
    early, early_results = convo.turn(("bash", {"command": "one"}, "first"))
    convo.calls = 0
    index = PruneIndex()
    index_turn(index, convo.turn(("bash", {"command": "two"}, "second")))
    backfill = ToolCallRecord(
        tool_call_id="call_1",
        tool_name="bash",
        args={"command": "one"},
        is_error=False,
        result_timestamp=early_results[0].timestamp,
        result_bytes=5,
        result_lines=1,
        content_hash="h",
    )
    index.add_batch(
        IndexEntry(assistant_timestamp=early.timestamp, tool_calls=[backfill], backfilled=True)
    )
    raw = raw_from(convo)
    first, second = format_query(index, ["call_1"], lambda r: raw[r.key]).split("\n\n---\n\n")
    assert first.startswith("## toolRef: call_1@1002 (t2)\n")
    assert first.endswith("\n\nfirst")
    assert second.startswith("## toolRef: call_1@1004 (t1)\n")
    assert second.endswith("\n\nsecond")


def test_a_dedup_alias_takes_its_place_in_time_among_the_occurrences(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("read", {"path": "a"}, "same text")))
    convo.calls = 0
    _, results = convo.turn(("read", {"path": "a"}, "same text"))  # an identical re-read
    convo.calls = 0
    index_turn(index, convo.turn(("read", {"path": "b"}, "other text")))
    record = index.records[index.by_ref["t1"]]
    index.add_alias(
        DedupAlias(
            tool_call_id="call_1",
            result_timestamp=results[0].timestamp,
            tool_name="read",
            args={"path": "a"},
            original_tool_call_id=record.tool_call_id,
            original_result_timestamp=record.result_timestamp,
            content_hash=record.content_hash,
        )
    )
    text = format_query(index, ["call_1"], lambda r: "body")
    labels = [line for line in text.splitlines() if line.startswith("## toolRef:")]
    assert labels == [
        "## toolRef: call_1@1002 (t1)",
        "## toolRef: call_1@1004 (t1)",
        "## toolRef: call_1@1006 (t2)",
    ]
