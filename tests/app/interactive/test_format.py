"""How tool calls read in the transcript: titles, collapsed and expanded outputs, edit diffs
and the guard's receipt for slow commands."""

from __future__ import annotations

from pith.app.modes.interactive._format import (
    Painter,
    ToolView,
    guard_receipt,
    tool_block,
    tool_title,
)
from pith.tools._diff import display_diff

PLAIN = Painter(80, color=False)


def plain(renderable: object) -> str:
    return PLAIN.render(renderable).rstrip("\n")  # type: ignore[arg-type]


def test_a_bash_call_reads_as_the_command() -> None:
    assert tool_title("bash", {"command": "ls -la src"}, "/p").plain == "$ ls -la src"


def test_a_multi_line_command_shows_its_first_line_and_an_ellipsis() -> None:
    title = tool_title("bash", {"command": "cd src\nmake all"}, "/p")
    assert title.plain == "$ cd src …"


def test_a_long_command_is_cut_to_the_width() -> None:
    title = tool_title("bash", {"command": "echo " + "x" * 200}, "/p", width=40)
    assert len(title.plain) == 40
    assert title.plain.endswith("…")


def test_a_read_shows_its_path_relative_to_the_project_and_its_line_range() -> None:
    assert tool_title("read", {"path": "/p/src/a.py"}, "/p").plain == "read src/a.py"
    ranged = tool_title("read", {"path": "a.py", "offset": 10, "limit": 31}, "/p")
    assert ranged.plain == "read a.py:10-40"
    assert tool_title("read", {"path": "a.py", "offset": 10}, "/p").plain == "read a.py:10-"
    assert tool_title("read", {"path": "a.py", "limit": 5}, "/p").plain == "read a.py:1-5"
    assert tool_title("read", {"path": "/elsewhere/b"}, "/p").plain == "read /elsewhere/b"


def test_write_grep_and_other_tools_name_what_they_touch() -> None:
    assert tool_title("write", {"path": "a.txt", "content": "1\n2\n"}, "/p").plain == (
        "write a.txt (2 lines)"
    )
    assert tool_title("grep", {"pattern": "def f", "path": "src"}, "/p").plain == (
        'grep "def f" in src'
    )
    assert tool_title("ls", {}, "/p").plain == "ls ."
    assert tool_title("lookup", {"q": 1}, "/p").plain == 'lookup {"q": 1}'


def test_a_long_output_is_collapsed_to_five_lines_with_a_hint() -> None:
    output = "\n".join(f"line {n}" for n in range(1, 21))
    view = ToolView("bash", {"command": "seq"}, output, False)
    assert plain(tool_block(view, "/p", expanded=False)).split("\n") == [
        "● $ seq",
        "  line 1",
        "  line 2",
        "  line 3",
        "  line 4",
        "  line 5",
        "  … 15 more lines (ctrl+o shows the whole output)",
    ]


def test_an_expanded_output_shows_every_line() -> None:
    output = "\n".join(f"line {n}" for n in range(1, 21))
    view = ToolView("bash", {"command": "seq"}, output, False)
    lines = plain(tool_block(view, "/p", expanded=True)).split("\n")
    assert lines[0] == "● $ seq"
    assert lines[1:] == [f"  line {n}" for n in range(1, 21)]


def test_an_error_is_drawn_in_red() -> None:
    view = ToolView("bash", {"command": "false"}, "boom", True)
    block = tool_block(view, "/p", expanded=False)
    assert block.plain == "● $ false\n  boom"
    styles = {str(span.style) for span in block.spans}
    assert "red" in styles
    assert "green" not in styles


def edit_view(old: str, new: str) -> ToolView:
    diff, _ = display_diff(old, new)
    return ToolView("edit", {"path": "/p/a.py"}, "Edited a.py", False, {"diff": diff})


def test_an_edit_shows_its_diff_with_added_lines_green_and_removed_lines_red() -> None:
    block = tool_block(edit_view("a\nb\nc\n", "a\nB\nc\n"), "/p", expanded=False)
    assert plain(block).split("\n") == ["● edit a.py", "   1 a", "  -2 b", "  +2 B", "   3 c"]
    coloured = {block.plain[span.start : span.end]: str(span.style) for span in block.spans}
    assert coloured["-2 b"] == "red"
    assert coloured["+2 B"] == "green"
    assert coloured[" 1 a"] == "dim"


def test_a_long_edit_diff_is_collapsed_until_expanded() -> None:
    old = "".join(f"old {n}\n" for n in range(30))
    new = "".join(f"new {n}\n" for n in range(30))
    collapsed = plain(tool_block(edit_view(old, new), "/p", expanded=False)).split("\n")
    assert len(collapsed) == 1 + 12 + 1
    assert collapsed[-1] == "  … 48 more lines (ctrl+o shows the whole output)"
    expanded = plain(tool_block(edit_view(old, new), "/p", expanded=True)).split("\n")
    assert len(expanded) == 1 + 60


def test_a_write_shows_the_new_content() -> None:
    view = ToolView("write", {"path": "n.txt", "content": "one\ntwo\n"}, "Wrote", False)
    assert plain(tool_block(view, "/p", expanded=False)).split("\n") == [
        "● write n.txt (2 lines)",
        "  + one",
        "  + two",
    ]


def guard_details(command_ms: float, before: int, after: int) -> dict[str, object]:
    return {
        "guard": {
            "version": 1,
            "originalCommand": "npm test | tail -20",
            "cleanedCommand": "npm test",
            "removedPipeline": "tail -20",
            "outcome": "projection-applied",
            "capped": False,
            "timing": {"commandMs": command_ms, "extractorMs": 3.2},
            "fullOutputPath": "/tmp/pith-guard-1.log",
            "projection": {
                "linesBefore": before,
                "linesAfter": after,
                "bytesBefore": before * 40,
                "bytesAfter": after * 40,
            },
        }
    }


def test_a_slow_command_whose_view_changed_its_output_gets_a_receipt() -> None:
    receipt = guard_receipt(guard_details(12_500.0, 800, 20), 10_000)
    assert receipt is not None
    assert receipt.plain == (
        "  guard: ran `npm test` in 12.5 s, then `| tail -20` (3 ms): 800 → 20 lines; "
        "full output in /tmp/pith-guard-1.log"
    )


def test_a_slow_command_whose_output_was_too_long_to_count_still_gets_a_receipt() -> None:
    details = guard_details(12_500.0, 800, 20)
    del details["guard"]["projection"]  # type: ignore[attr-defined]
    receipt = guard_receipt(details, 10_000)
    assert receipt is not None
    assert "the output was too long to count" in receipt.plain


def test_a_fast_command_gets_no_receipt() -> None:
    assert guard_receipt(guard_details(900.0, 800, 20), 10_000) is None


def test_a_slow_command_whose_view_changed_nothing_gets_no_receipt() -> None:
    assert guard_receipt(guard_details(12_500.0, 20, 20), 10_000) is None


def test_results_without_a_guard_record_get_no_receipt() -> None:
    assert guard_receipt(None, 10_000) is None
    assert guard_receipt({"fullOutputPath": "/tmp/x"}, 10_000) is None
    full = guard_details(12_500.0, 800, 20)
    full["guard"]["outcome"] = "full-output"  # type: ignore[index]
    assert guard_receipt(full, 10_000) is None


def test_the_painter_colours_only_when_asked() -> None:
    view = ToolView("bash", {"command": "ls"}, "a", False)
    assert "\x1b[" in Painter(80, color=True).render(tool_block(view, "/p", expanded=False))
    assert "\x1b[" not in PLAIN.render(tool_block(view, "/p", expanded=False))
