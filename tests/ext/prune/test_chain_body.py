"""What a compressed chain says: the deterministic body, summary bullets, the fusion input."""

from __future__ import annotations

from pith.ext.prune.chains._body import (
    ChainCall,
    deterministic_body,
    format_duration,
    join_summaries,
    serialize_range,
    summary_bullets,
)
from pith.ext.prune.summaries._jobs import finish_summary


def test_the_deterministic_body_counts_tools_span_first_last_and_refs() -> None:
    calls = [
        ChainCall("t3", "read", {"path": "src/app.py"}),
        ChainCall("t4", "bash", {"command": "pytest -q"}, is_error=True),
        ChainCall("t5", "read", {"path": "src/lib.py", "offset": 10}),
    ]
    assert deterministic_body(calls, 192_400) == (
        "3 tool calls over 3m 12s, 1 failed: bash ×1, read ×2\n"
        'first: t3 read({"path":"src/app.py"})\n'
        'last: t5 read({"offset":10,"path":"src/lib.py"})\n'
        'refs: t3, t4, t5 (context_tree_query(["t3", ...]) returns any in full)'
    )


def test_long_arguments_are_cut_at_200_characters_plus_dots() -> None:
    body = deterministic_body([ChainCall("t1", "write", {"content": "x" * 500})], None)
    first = body.splitlines()[1]
    args = first[len("first: t1 write(") : -1]
    assert args.endswith("...")
    assert len(args) == 203
    assert body.startswith("1 tool call: write ×1\n")
    assert "last:" not in body


def test_durations_read_naturally() -> None:
    assert format_duration(400) == "<1s"
    assert format_duration(45_000) == "45s"
    assert format_duration(7_500_000) == "2h 5m"


def test_summary_bullets_drop_the_header_and_the_refs_footer() -> None:
    text = finish_summary("- t1: app.py defines f\n- t2: lib.py too", ["t1", "t2"])
    assert text is not None
    assert summary_bullets(text) == "- t1: app.py defines f\n- t2: lib.py too"
    assert summary_bullets("- plain") == "- plain"
    assert join_summaries([text, "- t3: x"]) == "- t1: app.py defines f\n- t2: lib.py too\n- t3: x"


def test_the_fusion_input_holds_the_request_and_the_notes() -> None:
    assert serialize_range("fix it", ["- t1: a", "- t2: b"]) == (
        "<user-request>\nfix it\n</user-request>\n\n"
        "<sub-task-summaries>\n- t1: a\n\n---\n\n- t2: b\n</sub-task-summaries>"
    )
