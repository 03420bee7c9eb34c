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
from pith.tools._textscan import scan as _scan
from pith.tools._textscan import utf8_len

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


def _totals(content: str) -> tuple[int, int]:
    """`(total_lines, total_bytes)` as Pi counts them, from one scan of `content`."""
    newlines, size = _scan(content)
    if not content:
        return 0, size
    return newlines + (0 if content.endswith("\n") else 1), size


def _nth_newline(data: bytes, count: int, *, from_end: bool) -> int:
    """Index of the `count`-th newline of `data` (from its end when `from_end`); it exists."""
    if from_end:
        return len(data.rsplit(b"\n", count)[0])
    return len(data) - len(data.split(b"\n", count)[-1]) - 1


def truncate_head(
    content: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> TruncationResult:
    """Keep whole lines from the start. A first line over `max_bytes` gives empty content."""
    total_lines, total_bytes = _totals(content)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    # Kept lines are at most max_bytes bytes, so at most max_bytes characters, and the newline
    # that ends them is within the first max_bytes + 1 characters and bytes.
    reach = max(max_bytes + 1, 0)
    window = content[:reach]
    encoded = window.encode("utf-8", "surrogatepass")
    prefix = encoded[:reach]  # the first max_bytes + 1 bytes (or all there are)
    if prefix.find(b"\n") == -1 and len(prefix) > max_bytes:
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
    # Each newline within the first max_bytes + 1 bytes ends a line that fits; so does the
    # end of an unterminated last line when everything fits.
    fitting = prefix.count(b"\n")
    if total_lines and total_bytes <= max_bytes and not content.endswith("\n"):
        fitting += 1
    kept = max(0, min(fitting, max_lines, total_lines))
    if kept == 0:
        kept_bytes, kept_end = 0, 0
    elif kept == total_lines and not content.endswith("\n"):
        kept_bytes, kept_end = total_bytes, len(content)
    else:
        kept_bytes = _nth_newline(prefix, kept, from_end=False)
        kept_end = kept_bytes if window.isascii() else _char_count(encoded[:kept_bytes])
    truncated_by: Literal["lines", "bytes"] = "lines"
    if fitting < max_lines and fitting < total_lines:
        truncated_by = "bytes"
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
    total_lines, total_bytes = _totals(content)
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, total_lines, total_bytes, max_lines, max_bytes)

    # The lines are those of `body`: the content without its final newline.
    end = len(content) - 1 if content.endswith("\n") else len(content)
    body_bytes = total_bytes - (len(content) - end)
    # Kept lines are within the last max_bytes characters, so within the last max_bytes + 1
    # bytes with the newline before them.
    reach = max(max_bytes + 1, 0)
    window = content[max(end - reach, 0) : end]
    encoded = window.encode("utf-8", "surrogatepass")
    suffix = encoded[max(len(encoded) - reach, 0) :]  # the last max_bytes + 1 bytes of body
    fitting = suffix.count(b"\n") + (1 if total_lines and body_bytes <= max_bytes else 0)
    kept = max(0, min(fitting, max_lines))
    last_line_partial = kept == 0 and max_lines > 0
    if last_line_partial:
        partial = _utf8_suffix(suffix, max_bytes)
        kept = 1
        kept_bytes = len(partial)
        kept_text = partial.decode("utf-8", "surrogatepass")
    elif kept == 0:
        kept_bytes, kept_text = 0, ""
    elif kept == total_lines:
        kept_bytes, kept_text = body_bytes, content[:end]
    else:
        start = _nth_newline(suffix, kept, from_end=True) + 1
        kept_bytes = len(suffix) - start
        chars = kept_bytes if window.isascii() else _char_count(suffix[start:])
        kept_text = content[end - chars : end]
    truncated_by: Literal["lines", "bytes"] = "lines"
    if fitting < max_lines and fitting < total_lines:
        truncated_by = "bytes"
    if kept >= max_lines and kept_bytes <= max_bytes:
        truncated_by = "lines"
    return TruncationResult(
        content=kept_text,
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


def _char_count(encoded: bytes) -> int:
    """Characters in `encoded`, whole UTF-8 (`surrogatepass`): every byte but continuations."""
    return len(encoded.decode("utf-8", "surrogatepass"))


def _utf8_suffix(encoded: bytes, max_bytes: int) -> bytes:
    """The last `max_bytes` bytes of `encoded`, moved forward to a character start."""
    cut = max(0, len(encoded) - max(max_bytes, 0))
    while cut < len(encoded) and (encoded[cut] & 0xC0) == 0x80:
        cut += 1
    return encoded[cut:]


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
