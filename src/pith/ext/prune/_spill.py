"""Eager spill: a huge result also goes to `<session dir>/<session id>-blobs/<key>.txt`."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["preview", "spill_path", "write_spill"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def spill_path(session_dir: Path, session_id: str, key: str) -> Path:
    """The sidecar file for occurrence `key` (`bash_23@1150` → `bash_23_1150.txt`)."""
    name = _UNSAFE.sub("_", key).strip(".") or "result"
    return session_dir / f"{session_id}-blobs" / f"{name}.txt"


def preview(text: str, max_bytes: int) -> str:
    """The head of `text` in at most `max_bytes` UTF-8 bytes, cut at the last line break
    inside that room when there is one, never inside a character."""
    data = text.encode()
    if len(data) <= max_bytes:
        return text
    head = data[:max_bytes].decode("utf-8", errors="ignore")
    cut = head.rfind("\n")
    return head[:cut] if cut > 0 else head


def write_spill(path: Path, text: str) -> int:
    """Write `text` to `path` (creating the folder); returns the bytes written. Raises
    OSError: the caller then keeps the result inline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    path.write_bytes(data)
    return len(data)
