"""Line diffs and unified patches whose text equals Pi's edit tool output.

Pi computes `details.diff`, `details.patch` and `details.firstChangedLine` of its `edit` tool with
the `diff` npm package (jsdiff 8). Reproducing those strings byte for byte needs more than "a
correct diff": among equally short edit scripts, jsdiff's Myers search settles ties in a specific
way (it prefers deleting when the delete and insert frontiers reach equally far in the old text),
and its hunk builder and formatter have their own rules for context, overlapping hunks, empty
sides and files without a final newline. This module reimplements those rules in plain Python.

Everything here is pure: strings in, strings out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeAlias

__all__ = [
    "EditDiff",
    "LineChange",
    "Replacement",
    "diff_lines",
    "display_diff",
    "edit_diff",
    "unified_patch",
]

# A token is one line with its terminator; "\r\n" ends in "\n", so CRLF lines stay whole and a
# lone "\r" is ordinary line content, as in jsdiff's line tokenizer.
_LINE_TOKEN = re.compile(r"[^\n]*\n|[^\n]+")
_NO_NEWLINE_MARKER = "\\ No newline at end of file"
# Unchanged lines diffed on each side of an edit; far more than the context shown, so a change
# aligns inside its window as it would in the whole file.
_WINDOW_MARGIN_LINES = 32


@dataclass(frozen=True)
class LineChange:
    """One run of lines that are kept, added or removed (a jsdiff change object)."""

    value: str
    count: int
    added: bool
    removed: bool


class Replacement(Protocol):
    """A matched edit: `match_length` characters at `match_index` of the base become `new_text`."""

    @property
    def match_index(self) -> int: ...

    @property
    def match_length(self) -> int: ...

    @property
    def new_text(self) -> str: ...


@dataclass(frozen=True)
class EditDiff:
    """What the edit tool reports: display diff, unified patch, first changed line (1-based)."""

    diff: str
    patch: str
    first_changed_line: int | None


# --- Myers line diff -------------------------------------------------------------------------


# An edit script is a linked list of runs, newest first: (length, kind, previous run). Plain
# tuples because the search below creates one per step and must stay fast on long files.
_KEPT, _ADDED, _REMOVED = 0, 1, 2
_Script: TypeAlias = "tuple[int, int, _Script | None]"


def _shortest_script(old: list[str], new: list[str]) -> _Script | None:
    """Shortest edit script from `old` to `new`, chosen among ties exactly as jsdiff does.

    The frontier holds, per diagonal k = x - y, the furthest point reached as (x, script), where
    x and y count the old and new tokens consumed minus one. A step to diagonal k comes from a
    deletion on k - 1 or an insertion on k + 1; the insertion wins only when it is further along
    in the old text (or the deletion is impossible). Every step then follows equal tokens.
    """
    n_old, n_new = len(old), len(new)
    x = y = -1
    while x + 1 < n_old and y + 1 < n_new and old[x + 1] == new[y + 1]:
        x += 1
        y += 1
    script: _Script | None = (x + 1, _KEPT, None) if x >= 0 else None
    if x + 1 >= n_old and y + 1 >= n_new:
        return script
    shift = n_old + n_new + 2  # index of diagonal 0
    frontier: list[tuple[int, _Script | None] | None] = [None] * (2 * shift + 1)
    frontier[shift] = (x, script)
    # Once a path reaches the last old (new) token, diagonals above (below) it are useless.
    lowest, highest = -shift, shift
    for cost in range(1, n_old + n_new + 1):
        k = max(lowest, -cost)
        while k <= highest and k <= cost:
            at = k + shift
            down, right = frontier[at - 1], frontier[at + 1]
            if down is not None:
                frontier[at - 1] = None
            if (
                right is not None
                and 0 <= right[0] - k < n_new
                and (down is None or down[0] + 1 >= n_old or down[0] < right[0])
            ):
                x, tail = right
                kind = _ADDED
            elif down is not None and down[0] + 1 < n_old:
                x, tail = down[0] + 1, down[1]
                kind = _REMOVED
            else:
                frontier[at] = None
                k += 2
                continue
            if tail is not None and tail[1] == kind:
                script = (tail[0] + 1, kind, tail[2])
            else:
                script = (1, kind, tail)
            y = x - k
            start = x
            while x + 1 < n_old and y + 1 < n_new and old[x + 1] == new[y + 1]:
                x += 1
                y += 1
            if x > start:
                script = (x - start, _KEPT, script)
            if x + 1 >= n_old and y + 1 >= n_new:
                return script
            frontier[at] = (x, script)
            if x + 1 >= n_old:
                highest = min(highest, k - 1)
            if y + 1 >= n_new:
                lowest = max(lowest, k + 1)
            k += 2
    raise AssertionError("no edit script found")  # unreachable: cost n_old + n_new always works


def diff_lines(old: str, new: str) -> list[LineChange]:
    """Line-by-line changes turning `old` into `new`, equal to jsdiff's `diffLines(old, new)`.

    Lines keep their terminators ("\\n" or "\\r\\n"); kept runs take their text from `new`.
    """
    old_lines = _LINE_TOKEN.findall(old)
    new_lines = _LINE_TOKEN.findall(new)
    runs: list[tuple[int, int]] = []
    node = _shortest_script(old_lines, new_lines)
    while node is not None:
        runs.append((node[0], node[1]))
        node = node[2]
    changes: list[LineChange] = []
    old_at = new_at = 0
    for count, kind in reversed(runs):
        if kind == _REMOVED:
            text = "".join(old_lines[old_at : old_at + count])
            old_at += count
        else:
            text = "".join(new_lines[new_at : new_at + count])
            new_at += count
            if kind == _KEPT:
                old_at += count
        changes.append(LineChange(text, count, kind == _ADDED, kind == _REMOVED))
    return changes


# --- display diff ----------------------------------------------------------------------------


def _display_lines(value: str) -> list[str]:
    lines = value.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _format_display(
    changes: Sequence[LineChange], old_line: int, new_line: int, width: int, context: int
) -> tuple[list[str], int | None]:
    """Pi's numbered display lines for `changes`, numbering from the given 1-based lines."""
    out: list[str] = []
    first_changed: int | None = None
    after_change = False
    for index, change in enumerate(changes):
        lines = _display_lines(change.value)
        n = len(lines)
        if change.added:
            out.extend(f"+{new_line + i:>{width}} {line}" for i, line in enumerate(lines))
        elif change.removed:
            out.extend(f"-{old_line + i:>{width}} {line}" for i, line in enumerate(lines))
        if change.added or change.removed:
            if first_changed is None:
                first_changed = new_line
            new_line += n if change.added else 0
            old_line += n if change.removed else 0
            after_change = True
            continue
        following = changes[index + 1] if index + 1 < len(changes) else None
        before_change = following is not None and (following.added or following.removed)
        # Kept lines: `head` after a change and `tail` before the next, "..." for the rest.
        if after_change and before_change and n <= 2 * context:
            head, tail = n, 0
        else:
            head = min(context, n) if after_change else 0
            tail = min(context, n - head) if before_change else 0
        out.extend(f" {old_line + i:>{width}} {lines[i]}" for i in range(head))
        if head + tail < n and (after_change or before_change):
            out.append(_skip_marker(width))
        out.extend(f" {old_line + i:>{width}} {lines[i]}" for i in range(n - tail, n))
        old_line += n
        new_line += n
        after_change = False
    return out, first_changed


def _skip_marker(width: int) -> str:
    return " " + " " * width + " ..."


def _line_number_width(old: str, new: str) -> int:
    # Pi counts lines as `split("\n").length`: one more than the line feeds.
    return len(str(max(old.count("\n"), new.count("\n")) + 1))


def display_diff(old: str, new: str, context_lines: int = 4) -> tuple[str, int | None]:
    """Pi's `generateDiffString`: the numbered display diff and the first changed new line.

    Changed lines read `+NN text` / `-NN text`; up to `context_lines` unchanged lines around each
    change read ` NN text`, and longer unchanged stretches collapse into ` ...`. The line number
    is `None` when nothing changed.
    """
    width = _line_number_width(old, new)
    lines, first = _format_display(diff_lines(old, new), 1, 1, width, context_lines)
    return "\n".join(lines), first


# --- unified patch ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hunk:
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: list[str]


def _hunks(
    changes: Sequence[LineChange], context: int, old_line: int = 1, new_line: int = 1
) -> list[_Hunk]:
    """jsdiff's `structuredPatch` hunks, numbering from the given 1-based lines.

    Hunk lines are prefixed, lose their "\\n", and a line that had none is followed by the
    no-newline marker.
    """
    hunks: list[_Hunk] = []
    body: list[str] = []
    open_hunk = False
    old_start = new_start = 0
    previous: list[str] = []
    last = len(changes) - 1
    # A final empty kept run closes whatever hunk is still open.
    for index, change in enumerate([*changes, LineChange("", 0, False, False)]):
        lines = _LINE_TOKEN.findall(change.value)
        if change.added or change.removed:
            if not open_hunk:
                open_hunk = True
                lead = previous[max(0, len(previous) - context) :] if context > 0 else []
                body = [" " + line for line in lead]
                old_start, new_start = old_line - len(lead), new_line - len(lead)
            sign = "+" if change.added else "-"
            body.extend(sign + line for line in lines)
            if change.added:
                new_line += len(lines)
            else:
                old_line += len(lines)
            continue
        if open_hunk:
            if len(lines) <= 2 * context and index < last:
                body.extend(" " + line for line in lines)
            else:
                trail = lines[:context] if context > 0 else []
                body.extend(" " + line for line in trail)
                hunks.append(
                    _Hunk(
                        old_start,
                        old_line - old_start + len(trail),
                        new_start,
                        new_line - new_start + len(trail),
                        _terminate(body),
                    )
                )
                open_hunk = False
        old_line += len(lines)
        new_line += len(lines)
        previous = lines
    return hunks


def _terminate(body: list[str]) -> list[str]:
    out: list[str] = []
    for line in body:
        if line.endswith("\n"):
            out.append(line[:-1])
        else:
            out.extend((line, _NO_NEWLINE_MARKER))
    return out


def _format_patch(path: str, hunks: Sequence[_Hunk]) -> str:
    out = [f"--- {path}", f"+++ {path}"]
    for hunk in hunks:
        # Unified diff convention: an empty side names the line before the hunk.
        old_start = hunk.old_start - 1 if hunk.old_lines == 0 else hunk.old_start
        new_start = hunk.new_start - 1 if hunk.new_lines == 0 else hunk.new_start
        out.append(f"@@ -{old_start},{hunk.old_lines} +{new_start},{hunk.new_lines} @@")
        out.extend(hunk.lines)
    return "\n".join(out) + "\n"


def unified_patch(path: str, old: str, new: str, context_lines: int = 4) -> str:
    """Pi's `generateUnifiedPatch`: a unified diff with `--- path` / `+++ path` headers only."""
    return _format_patch(path, _hunks(diff_lines(old, new), context_lines))


# --- windowed edit diff ----------------------------------------------------------------------


@dataclass
class _Window:
    old_start: int
    old_end: int
    old_line: int  # 0-based line of old_start in the base
    new_start: int
    new_end: int
    new_line: int


def _line_start(text: str, offset: int) -> int:
    return 0 if offset == 0 else text.rfind("\n", 0, offset) + 1


def _windows(base: str, replacements: Sequence[Replacement]) -> list[_Window]:
    """Whole-line spans around each replacement plus margin lines, merged where they touch."""
    windows: list[_Window] = []
    offset_delta = line_delta = 0
    cursor_offset = cursor_line = 0
    for rep in replacements:
        match_end = rep.match_index + rep.match_length
        start = _line_start(base, rep.match_index)
        for _ in range(_WINDOW_MARGIN_LINES):
            if start <= 0:
                break
            start = _line_start(base, start - 1)
        end = match_end
        for step in range(_WINDOW_MARGIN_LINES + 1):
            if end >= len(base):
                break
            # The first step finishes the line holding the match's last character.
            feed = base.find("\n", max(match_end - 1, rep.match_index) if step == 0 else end)
            end = len(base) if feed == -1 else feed + 1
        rep_offset_delta = len(rep.new_text) - rep.match_length
        rep_line_delta = rep.new_text.count("\n") - base.count("\n", rep.match_index, match_end)
        if windows and start <= windows[-1].old_end:
            prev = windows[-1]
            prev.old_end = max(prev.old_end, end)
            prev.new_end = prev.old_end + offset_delta + rep_offset_delta
        else:
            cursor_line += base.count("\n", cursor_offset, start)
            cursor_offset = start
            new_end = end + offset_delta + rep_offset_delta
            new_line = cursor_line + line_delta
            windows.append(
                _Window(start, end, cursor_line, start + offset_delta, new_end, new_line)
            )
        offset_delta += rep_offset_delta
        line_delta += rep_line_delta
    return windows


def edit_diff(
    path: str,
    base: str,
    new: str,
    replacements: Sequence[Replacement],
    context_lines: int = 4,
) -> EditDiff:
    """Pi's `generateEditDiff`: display diff and patch computed only around the replacements.

    `replacements` are sorted by `match_index` and disjoint, and `new` is `base` with them
    applied. Each replacement is diffed within a window of 32 unchanged lines on each side, so
    the cost follows the size of the edit, not of the file; the result equals the whole-file
    `display_diff` / `unified_patch` except where runs of repeated lines align differently.
    """
    width = _line_number_width(base, new)
    skip = _skip_marker(width)
    lines: list[str] = []
    hunks: list[_Hunk] = []
    first_changed: int | None = None
    for window in _windows(base, replacements):
        changes = diff_lines(
            base[window.old_start : window.old_end], new[window.new_start : window.new_end]
        )
        shown, first = _format_display(
            changes, window.old_line + 1, window.new_line + 1, width, context_lines
        )
        if first_changed is None:
            first_changed = first
        # A stretch between two windows is marked skipped by both; show one marker.
        if lines and shown and lines[-1] == skip and shown[0] == skip:
            shown = shown[1:]
        lines.extend(shown)
        hunks += _hunks(changes, context_lines, window.old_line + 1, window.new_line + 1)
    return EditDiff("\n".join(lines), _format_patch(path, hunks), first_changed)
