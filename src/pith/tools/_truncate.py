"""Output truncation: the first line of context defense (Pi's caps; docs/tools.md).

Two independent caps, whichever is hit first: a number of lines and a number of UTF-8 bytes.
`truncate_head` keeps whole lines from the start (file reads); `truncate_tail` keeps whole lines
from the end (command output) and, when the last line alone is over the byte cap, the end of that
line cut at a character boundary. Results equal Pi's `truncateHead` / `truncateTail` for the same
input.

The work is bounded by the caps, not by the input: lines are located with `str.find` / `rfind`
and only lines that can still fit are encoded, so the tail of a 1 GB string costs O(cap) extra
memory.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Literal, NamedTuple

from pith.ai import WireStruct

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "LineTruncation",
    "TruncationResult",
    "count_lines",
    "format_size",
    "slice_head",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "utf8_len",
]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
"""Characters per grep line, counted in UTF-16 code units as Pi does."""

_ENCODE_CHUNK = 1 << 20


class TruncationResult(WireStruct):
    """What a truncation kept and what it saw; serialized into tool `details` as Pi does."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: int
    max_bytes: int


class LineTruncation(NamedTuple):
    text: str
    was_truncated: bool


def utf8_len(text: str) -> int:
    """UTF-8 size of `text` in bytes, without holding an encoded copy of all of it."""
    if text.isascii():
        return len(text)
    if len(text) <= _ENCODE_CHUNK:
        return len(text.encode("utf-8", "surrogatepass"))
    return sum(
        len(text[start : start + _ENCODE_CHUNK].encode("utf-8", "surrogatepass"))
        for start in range(0, len(text), _ENCODE_CHUNK)
    )


def count_lines(text: str) -> int:
    """Lines as Pi counts them: split on `\\n`, a trailing `\\n` adds no line, `""` has none."""
    if not text:
        return 0
    lines = text.count("\n") + 1
    return lines - 1 if text.endswith("\n") else lines


def format_size(size: int) -> str:
    """`512B`, `50.0KB`, `1.5MB`: one decimal, rounded half up like JavaScript's `toFixed`."""
    if size < 1024:
        return f"{size}B"
    if size < 1024 * 1024:
        return f"{_to_fixed_1(size / 1024)}KB"
    return f"{_to_fixed_1(size / (1024 * 1024))}MB"


def _to_fixed_1(value: float) -> str:
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _bytes_if_fits(text: str, start: int, end: int, room: int) -> int | None:
    """UTF-8 size of `text[start:end]`, or None when it is certainly over `room` bytes."""
    if end - start > room:
        return None  # every character is at least one byte
    return utf8_len(text[start:end])


def _untruncated(
    content: str, lines: int, size: int, max_lines: int, max_bytes: int
) -> TruncationResult:
    return TruncationResult(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=lines,
        total_bytes=size,
        output_lines=lines,
        output_bytes=size,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start. A first line over `max_bytes` gives empty content."""
    total_bytes = utf8_len(content)
    total_lines = count_lines(content)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    first_end = content.find("\n")
    if first_end == -1:
        first_end = len(content)
    first_bytes = _bytes_if_fits(content, 0, first_end, max_bytes)
    if first_bytes is None or first_bytes > max_bytes:
        return TruncationResult(
            content="",
            truncated=True,
            truncated_by="bytes",
            total_lines=total_lines,
            total_bytes=total_bytes,
            output_lines=0,
            output_bytes=0,
            last_line_partial=False,
            first_line_exceeds_limit=True,
            max_lines=max_lines,
            max_bytes=max_bytes,
        )

    truncated_by: Literal["lines", "bytes"] = "lines"
    kept = 0
    kept_bytes = 0
    kept_end = 0
    start = 0
    while kept < total_lines and kept < max_lines:
        end = content.find("\n", start)
        if end == -1:
            end = len(content)
        separator = 1 if kept > 0 else 0
        size = _bytes_if_fits(content, start, end, max_bytes - kept_bytes - separator)
        if size is None or kept_bytes + separator + size > max_bytes:
            truncated_by = "bytes"
            break
        kept += 1
        kept_bytes += separator + size
        kept_end = end
        start = end + 1
    if kept >= max_lines and kept_bytes <= max_bytes:
        truncated_by = "lines"
    return TruncationResult(
        content=content[:kept_end],
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=kept,
        output_bytes=kept_bytes,
        last_line_partial=False,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_tail(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the end; a last line over `max_bytes` keeps its final bytes."""
    total_bytes = utf8_len(content)
    total_lines = count_lines(content)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    truncated_by: Literal["lines", "bytes"] = "lines"
    last_line_partial = False
    kept = 0
    kept_bytes = 0
    end = len(content) - 1 if content.endswith("\n") else len(content)
    kept_start = end
    kept_end = end
    partial = ""
    while kept < total_lines and kept < max_lines:
        start = content.rfind("\n", 0, end) + 1
        separator = 1 if kept > 0 else 0
        size = _bytes_if_fits(content, start, end, max_bytes - kept_bytes - separator)
        if size is None or kept_bytes + separator + size > max_bytes:
            truncated_by = "bytes"
            if kept == 0:
                partial = _utf8_suffix(content, start, end, max_bytes)
                kept = 1
                kept_bytes = utf8_len(partial)
                last_line_partial = True
            break
        kept += 1
        kept_bytes += separator + size
        kept_start = start
        end = start - 1
    if kept >= max_lines and kept_bytes <= max_bytes:
        truncated_by = "lines"
    return TruncationResult(
        content=partial if last_line_partial else content[kept_start:kept_end],
        truncated=True,
        truncated_by=truncated_by,
        total_lines=total_lines,
        total_bytes=total_bytes,
        output_lines=kept,
        output_bytes=kept_bytes,
        last_line_partial=last_line_partial,
        first_line_exceeds_limit=False,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def _utf8_suffix(text: str, start: int, end: int, max_bytes: int) -> str:
    """The last `max_bytes` bytes of `text[start:end]`, moved forward to a character start."""
    # The last max_bytes characters hold at least max_bytes bytes.
    encoded = text[max(start, end - max_bytes) : end].encode("utf-8", "surrogatepass")
    cut = max(0, len(encoded) - max_bytes)
    while cut < len(encoded) and (encoded[cut] & 0xC0) == 0x80:
        cut += 1
    return encoded[cut:].decode("utf-8", "surrogatepass")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, JavaScript's `string.length`."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def slice_head(text: str, max_units: int) -> str:
    """At most the first `max_units` UTF-16 code units of `text`, never half a surrogate pair."""
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > max_units:
            return text[:index]
    return text


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> LineTruncation:
    """Cut a line to `max_chars` UTF-16 units and mark it with `... [truncated]`."""
    if len(line) <= max_chars // 2 or utf16_len(line) <= max_chars:
        return LineTruncation(line, False)
    return LineTruncation(f"{slice_head(line, max_chars)}... [truncated]", True)
