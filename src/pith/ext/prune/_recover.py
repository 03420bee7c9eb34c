"""The raw output of a record, for `context_tree_query`: from its spill file, else from the
session's own `toolResult` message on the branch."""

from __future__ import annotations

from pathlib import Path

from pith.ai import ToolResultMessage
from pith.ext.prune._capture import result_text
from pith.ext.prune._records import ToolCallRecord, occurrence_key
from pith.session import MessageEntry, SessionStore

__all__ = ["read_raw"]


def read_raw(record: ToolCallRecord, store: SessionStore | None) -> str | None:
    """The raw text behind `record`, or None when neither copy can be found."""
    if record.spill_path is not None:
        try:
            return Path(record.spill_path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            pass  # gone: the session's own message is the other copy
    if store is None:
        return None
    key = record.key
    for entry in store.get_branch():
        message = entry.message if isinstance(entry, MessageEntry) else None
        if (
            isinstance(message, ToolResultMessage)
            and occurrence_key(message.tool_call_id, message.timestamp) == key
        ):
            return result_text(message)
    return None
