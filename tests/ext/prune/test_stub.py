"""The mask stub's exact text."""

from __future__ import annotations

from pith.ext.prune import mask_stub
from pith.ext.prune._records import ToolCallRecord
from pith.ext.prune._stub import compact_args


def record(**fields: object) -> ToolCallRecord:
    base: dict[str, object] = {
        "tool_call_id": "call_1",
        "tool_name": "read",
        "args": {"path": "src/app.py"},
        "is_error": False,
        "result_timestamp": 1150,
        "result_bytes": 8294,
        "result_lines": 212,
        "content_hash": "h",
    }
    base.update(fields)
    return ToolCallRecord(**base)  # type: ignore[arg-type]


def test_the_stub_names_tool_arguments_size_status_and_ref() -> None:
    assert mask_stub(record(), "t12") == (
        '[pruned t12: read(path="src/app.py") → 8.1KB, 212 lines, ok. '
        'Recover with context_tree_query(["t12"])]'
    )


def test_an_error_and_a_single_line_are_said_so() -> None:
    stub = mask_stub(
        record(
            tool_name="bash",
            args={"command": "make"},
            is_error=True,
            result_bytes=100,
            result_lines=1,
        ),
        "t1",
    )
    assert stub == (
        '[pruned t1: bash(command="make") → 100B, 1 line, error. '
        'Recover with context_tree_query(["t1"])]'
    )


def test_the_stub_is_the_same_every_time() -> None:
    args = {"path": "a.py", "offset": 10, "limit": 50}
    assert mask_stub(record(args=args), "t3") == mask_stub(record(args=dict(args)), "t3")


def test_long_arguments_are_cut() -> None:
    text = compact_args({"command": "x" * 500})
    assert len(text) <= 200
    assert text.startswith('command="xxx')
    assert text.endswith("…")


def test_a_spilled_record_names_its_file_and_shows_its_preview() -> None:
    stub = mask_stub(
        record(
            spill_path="/s/abc-blobs/call_1_1150.txt",
            spill_bytes=70000,
            result_preview="line 1\nline 2",
            result_bytes=70000,
            result_lines=3000,
        ),
        "t2",
    )
    assert stub == (
        '[pruned t2: read(path="src/app.py") → 68.4KB, 3000 lines, ok; full output in '
        "/s/abc-blobs/call_1_1150.txt (read it with offset/limit). First 13B:\n"
        'line 1\nline 2\nRecover with context_tree_query(["t2"])]'
    )


def test_an_identical_re_read_points_at_the_original() -> None:
    stub = mask_stub(record(), "t4", tool_name="read", args={"path": "./src/app.py"})
    assert stub == (
        '[pruned: read(path="./src/app.py") → 8.1KB, 212 lines, ok; identical to t4. '
        'Recover with context_tree_query(["t4"])]'
    )
