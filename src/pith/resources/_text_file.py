"""Reading an instruction file (AGENTS.md, SYSTEM.md, ...) as text, the way Pi does: decoded as
UTF-8, a leading byte-order mark removed, everything else (CRLF, trailing newlines) kept."""

from __future__ import annotations

from pathlib import Path

from pith.resources._types import Diagnostic

__all__ = ["decode_text", "read_text_file"]

_BOM = "\ufeff"


def decode_text(raw: bytes) -> tuple[str, bool]:
    """The text of `raw` without a leading BOM, and whether it was valid UTF-8.

    Invalid bytes become U+FFFD, as Node's decoder makes them: the model sees the same text as
    under Pi, and the caller reports the file."""
    try:
        text = raw.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        valid = False
    if text.startswith(_BOM):
        text = text[1:]
    return text, valid


def read_text_file(path: str) -> tuple[str, Diagnostic | None]:
    """The file's text (see `decode_text`), with a warning when it is not valid UTF-8.

    Raises `OSError` when the file cannot be read."""
    text, valid = decode_text(Path(path).read_bytes())
    if valid:
        return text, None
    warning = Diagnostic(
        "warning",
        f"{path}: not valid UTF-8; undecodable bytes were replaced with U+FFFD",
        path,
    )
    return text, warning
