"""The two totals truncation reports for a whole text: its newlines and its UTF-8 size.

Both are one pass over the string. The compiled helper `_textscan_c` (built at install when a C
compiler is there, see hatch_build.py) does the pass in vectorized C; without it, `scan_python`
gives the same figures from CPython's own C-speed string methods. Sizes count a lone surrogate
as three bytes, as the `surrogatepass` encoding and Pi's `Buffer.byteLength` do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

__all__ = ["IMPLEMENTATION", "scan", "scan_python", "utf8_len"]

_CHUNK = 1 << 20
# Deleting every byte but newlines and the bytes 0x80-0xFF leaves a short string that holds
# both totals of a Latin-1 text: its newlines, and one byte per character UTF-8 spends two on.
_KEEP = bytes([0x0A, *range(0x80, 0x100)])
_DROP = bytes(value for value in range(0x100) if value not in _KEEP)


def _utf8_len_python(text: str) -> int:
    if text.isascii():
        return len(text)
    total = 0
    for start in range(0, len(text), _CHUNK):
        piece = text[start : start + _CHUNK]
        try:
            total += len(piece.encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate: counted as its three bytes
            total += len(piece.encode("utf-8", "surrogatepass"))
    return total


def scan_python(text: str) -> tuple[int, int]:
    """`(newlines, utf8_bytes)` of `text`, in pure Python."""
    if text.isascii():
        return text.count("\n"), len(text)
    newlines = 0
    size = len(text)
    for start in range(0, len(text), _CHUNK):
        piece = text[start : start + _CHUNK]
        try:
            latin1 = piece.encode("latin-1")  # a plain copy when the string is one byte wide
        except UnicodeEncodeError:
            newlines += piece.count("\n")
            size += _utf8_len_python(piece) - len(piece)
            continue
        kept = latin1.translate(None, _DROP)
        piece_newlines = kept.count(b"\n")
        newlines += piece_newlines
        size += len(kept) - piece_newlines
    return newlines, size


def _load_native() -> Callable[[str], tuple[int, int]] | None:
    try:
        from pith.tools._textscan_c import scan as native
    except ImportError:
        return None
    return native


_native = _load_native()
IMPLEMENTATION: Literal["native", "python"] = "native" if _native else "python"
scan: Callable[[str], tuple[int, int]] = _native or scan_python
"""`(newlines, utf8_bytes)` of `text`: the compiled helper when built, else `scan_python`."""


def utf8_len(text: str) -> int:
    """UTF-8 size of `text` in bytes, without holding an encoded copy of all of it."""
    if text.isascii():
        return len(text)
    if _native is not None:
        return _native(text)[1]
    return _utf8_len_python(text)
