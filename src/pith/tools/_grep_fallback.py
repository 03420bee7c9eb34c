"""Pure-Python stand-in for the `rg --json` search that `grep` runs: the same events.

Files come from the walker in `_walk` (with the `--glob` overrides grep passes). Like ripgrep,
a file found by walking is given up on at the first NUL byte, but only when its read buffer
reaches it, so matches in earlier buffers are reported; a file named explicitly is searched as
text. A UTF-8 byte-order mark is dropped and UTF-16 (with a mark) is transcoded. The pattern
is Rust regex syntax, translated to Python's `re`, matched against each line without its `\\n`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pith.agent import ToolError
from pith.glob import GlobError
from pith.tools._grep_search import GrepEvent, rg_arguments
from pith.tools._rust_regex import PatternError, translate
from pith.tools._walk import walk

__all__ = ["search"]

_CAPACITY = 64 * 1024  # ripgrep's initial line buffer
_BLOCK = 1 << 20


def search(
    pattern: str,
    search_path: str,
    is_directory: bool,
    *,
    ignore_case: bool,
    literal: bool,
    glob: str | None,
    context: int,
    warnings: list[str] | None = None,
) -> Iterator[GrepEvent]:
    """The match and context events `rg` would print for `rg_arguments(...)`, in its order.

    Paths that cannot be read are skipped, as ripgrep skips them, and named in `warnings`.
    Raises `ToolError` at once for a pattern or glob ripgrep would reject."""
    matcher = _compile_pattern(pattern, ignore_case=ignore_case, literal=literal)
    note = warnings.append if warnings is not None else None
    if not is_directory:
        return _search_file(search_path, search_path, matcher, context, explicit=True, note=note)
    arguments = rg_arguments(
        pattern, ".", ignore_case=ignore_case, literal=literal, glob=glob, context=context
    )
    options = arguments[: arguments.index("--")]
    globs = [options[i + 1] for i, option in enumerate(options) if option == "--glob"]
    try:
        files = walk(search_path, require_git=True, globs=globs, on_error=note)
    except GlobError as error:
        raise ToolError(f"Invalid glob: {error}") from None
    return _search_tree(search_path, files, matcher, context, note)


def _compile_pattern(pattern: str, *, ignore_case: bool, literal: bool) -> _Matcher:
    """`pattern` (Rust regex syntax, or a literal) as Python regexes for a line and a file."""
    try:
        if "\n" in pattern:
            raise PatternError('the literal "\\n" is not allowed in a regex')
        flags = re.IGNORECASE if ignore_case else 0
        if literal:
            escaped = re.compile(re.escape(pattern), flags)
            return _Matcher(escaped, escaped)
        line = re.compile(translate(pattern, ignore_case), flags)
        return _Matcher(line, re.compile(translate(pattern, ignore_case, whole_text=True), flags))
    except (PatternError, re.error, OverflowError, RecursionError) as error:
        raise ToolError(f"Invalid regex {pattern!r}: {error}") from None


@dataclass(frozen=True)
class _Matcher:
    line: re.Pattern[str]  # for one line without its `\n`
    text: re.Pattern[str]  # for a whole file: it matches if any line does (a quick first test)

    def matches(self, line: bytes) -> bool:
        # Invalid UTF-8 bytes become lone surrogates, which translated classes never match.
        text = line.removesuffix(b"\n").decode("utf-8", "surrogateescape")
        return self.line.search(text) is not None


def _search_tree(
    root: str,
    files: Iterator[str],
    matcher: _Matcher,
    context: int,
    note: Callable[[str], None] | None,
) -> Iterator[GrepEvent]:
    for relative in files:
        shown = ("./" + relative).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        path = f"{root}/{relative}"
        yield from _search_file(path, shown, matcher, context, explicit=False, note=note)


def _search_file(
    path: str,
    shown: str,
    matcher: _Matcher,
    context: int,
    *,
    explicit: bool,
    note: Callable[[str], None] | None = None,
) -> Iterator[GrepEvent]:
    try:
        data = _read(path, stop_at_nul=not explicit)
    except OSError as error:
        if note is not None:  # ripgrep reports an unreadable file on stderr and goes on
            note(f"{shown}: {error.strerror or error}")
        return
    stream, has_bom = _decoded(data)
    if explicit and has_bom:
        stream = stream.replace(b"\0", b"\n")  # ripgrep's reader turns NULs into line ends
    if matcher.text.search(stream.decode("utf-8", "surrogateescape")) is None:
        return
    lines = _split_lines(stream)
    nul = -1 if explicit else stream.find(b"\0")
    if nul >= 0:
        ends = list(itertools.accumulate(map(len, lines)))
        before_nul = bisect.bisect_right(ends, nul)
        matched = [i for i in range(before_nul) if matcher.matches(lines[i])] if context else []
        searched = _quit_offset(stream, not has_bom, context, ends, matched)
        lines = lines[: bisect.bisect_right(ends, searched)]
    flags = [matcher.matches(line) for line in lines]
    yield from _events(lines, flags, context, shown)


def _read(path: str, *, stop_at_nul: bool) -> bytes:
    """The file's bytes; a walked file is read only up to its first NUL (nothing after counts)."""
    blocks: list[bytes] = []
    with open(path, "rb") as file:
        while block := file.read(_BLOCK):
            blocks.append(block)
            utf16 = blocks[0].startswith((b"\xff\xfe", b"\xfe\xff"))
            if stop_at_nul and not utf16 and b"\0" in block:
                break
    return b"".join(blocks)


def _decoded(data: bytes) -> tuple[bytes, bool]:
    """The bytes ripgrep searches, and whether the file started with a byte-order mark."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:], True
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            # The decoder drops a second mark too, as ripgrep's does.
            return data[2:].decode(codec, "replace").removeprefix("\ufeff").encode(), True
    return data, False


def _split_lines(stream: bytes) -> list[bytes]:
    """Lines with their `\\n`; a last line without one is kept as it is."""
    pieces = stream.split(b"\n")
    lines = [piece + b"\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _events(lines: list[bytes], flags: list[bool], context: int, shown: str) -> Iterator[GrepEvent]:
    """Each match with up to `context` lines around it; overlapping windows merge."""
    emitted = -1
    for index, is_match in enumerate(flags):
        if not is_match or index + context <= emitted:
            continue
        last = min(index + context, len(lines) - 1)
        for number in range(max(index - context, emitted + 1), last + 1):
            text = lines[number].decode("utf-8", "replace")
            yield GrepEvent(flags[number], shown, number + 1, text)
        emitted = last


def _quit_offset(
    stream: bytes, peeked: bool, context: int, ends: list[int], matched: list[int]
) -> int:
    """How far ripgrep searches a walked file before its reads reach the first NUL.

    ripgrep's buffer starts at 64 KiB and triples when one line does not fit; the first read
    returns the 3 bytes peeked for a byte-order mark. Each read must reach a line end before the
    lines are searched, and a read that contains a NUL ends the file unsearched. What stays in
    the buffer between reads (a partial line, plus lines kept for context) shrinks the next read.
    """
    capacity, offset, kept, searched = _CAPACITY, 0, 0, 0
    first = peeked
    while True:
        end = kept
        while True:
            if end == capacity:
                capacity *= 3
            size = min(3, capacity - end) if first else capacity - end
            first = False
            chunk = stream[offset : offset + size]
            if not chunk:
                return len(stream)
            if b"\0" in chunk:
                return searched
            offset, end = offset + len(chunk), end + len(chunk)
            if b"\n" in chunk:
                break
        start = offset - end
        previous, searched = searched, stream.rfind(b"\n", 0, offset) + 1
        consumed = searched
        if context:
            visited = _last_visited(ends, matched, context, previous, searched)
            consumed = max(_preceding(stream, start, searched, context), visited or start)
        kept = offset - consumed


def _preceding(stream: bytes, start: int, end: int, count: int) -> int:
    """Where the line `count` lines before the buffer's last line starts (ripgrep's rule)."""
    position = end
    if position > start and stream[position - 1] == 0x0A:
        position -= 1
    while True:
        found = stream.rfind(b"\n", start, position)
        if found < 0:
            return start
        if count == 0:
            return found + 1
        if found == start:
            return start
        count -= 1
        position = found


def _last_visited(ends: list[int], matched: list[int], context: int, old: int, new: int) -> int:
    """End of the last line printed while searching the bytes between `old` and `new`."""
    first_line = bisect.bisect_right(ends, old)
    last_line = bisect.bisect_left(ends, new)
    before = bisect.bisect_right(matched, last_line)
    if before == 0:
        return 0
    shown = min(matched[before - 1] + context, last_line)
    return ends[shown] if shown >= first_line else 0
