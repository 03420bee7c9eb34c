"""Eager spill: a huge result also goes to `<session dir>/<session id>-blobs/<key>.txt`."""

from __future__ import annotations

import re
from pathlib import Path

from pith.ext.prune._capture import CapturedCall
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._records import ToolCallRecord
from pith.extensions import ExtensionContext
from pith.tools import count_lines

__all__ = ["make_record", "preview", "spill_path", "write_spill"]

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


def make_record(call: CapturedCall, config: PruneConfig, ctx: ExtensionContext) -> ToolCallRecord:
    """The index record for `call`; a result of `spillThreshold` chars or more is written to
    its spill file first (a failed write is a warning and the result stays inline)."""
    record = ToolCallRecord(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        args=call.args,
        is_error=call.is_error,
        result_timestamp=call.result_timestamp,
        result_bytes=len(call.text.encode()),
        result_lines=count_lines(call.text),
        content_hash=call.content_hash,
    )
    store = ctx.session
    if len(call.text) < config.spill_threshold or store is None or store.path is None:
        return record
    path = spill_path(store.path.parent, store.id, call.key)
    try:
        written = write_spill(path, call.text)
    except OSError as error:
        ctx.ui.notify(f"cannot spill {call.key} to {path}: {error}; kept inline", "warning")
        return record
    record.spill_path = str(path)
    record.spill_bytes = written
    record.result_preview = preview(call.text, config.spill_preview_bytes)
    return record
