"""Session entries in Pi's v3 file format (docs/sessions.md, The file).

One JSON object per line: the `session` header first, then entries with `id`, `parentId` and
`timestamp` forming a tree. Every entry type Pi 1.6 writes has a struct here; an entry of a type
pith does not know is kept as `RawEntry`, whose original object is written back unchanged, and
unknown fields of known entries survive in `extra`.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Container
from datetime import UTC, datetime

import msgspec

from pith.ai import (
    UNSET,
    AgentMessage,
    SystemMessage,
    TextContent,
    UnsetType,
    Usage,
    UserContent,
    WireStruct,
)

__all__ = [
    "CURRENT_VERSION",
    "BranchSummaryEntry",
    "CompactionEntry",
    "ContextEditEntry",
    "ContextReplacement",
    "CustomEntry",
    "CustomMessageEntry",
    "Entry",
    "LabelEntry",
    "MessageEntry",
    "ModelChangeEntry",
    "RawEntry",
    "SessionEntry",
    "SessionHeader",
    "SessionInfoEntry",
    "ThinkingLevelChangeEntry",
    "UsageEntry",
    "iso_now",
    "js_trim",
    "new_entry_id",
    "new_session_id",
    "timestamp_millis",
]

CURRENT_VERSION = 3


def iso_now() -> str:
    """The current time as Pi writes entry timestamps: ISO 8601 with milliseconds, UTC."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ECMAScript's WhiteSpace and LineTerminator: what `String.prototype.trim` removes.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """`text.trim()` as JavaScript does it (which also removes U+FEFF and U+2028)."""
    return text.strip(_JS_SPACE)


def timestamp_millis(timestamp: str) -> float:
    """An entry timestamp as epoch milliseconds (`new Date(t).getTime()`); 0 if unreadable."""
    try:
        parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # no offset means local time, as in JavaScript
    return parsed.timestamp() * 1000


def new_session_id() -> str:
    """A UUIDv7: time-ordered, so session ids sort by creation."""
    millis = int(datetime.now(UTC).timestamp() * 1000)
    rand = secrets.randbits(74)
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= (rand >> 62) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def new_entry_id(taken: Container[str]) -> str:
    """8 hex digits not in `taken` (a full UUID after 100 collisions)."""
    for _ in range(100):
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


class SessionHeader(WireStruct, tag_field="type", tag="session"):
    id: str
    version: int | UnsetType = UNSET
    timestamp: str | UnsetType = UNSET
    cwd: str | UnsetType = UNSET
    parent_session: str | UnsetType = UNSET


class MessageEntry(WireStruct, tag_field="type", tag="message"):
    id: str
    parent_id: str | None
    timestamp: str
    message: AgentMessage


class ModelChangeEntry(WireStruct, tag_field="type", tag="model_change"):
    id: str
    parent_id: str | None
    timestamp: str
    provider: str
    model_id: str


class ThinkingLevelChangeEntry(WireStruct, tag_field="type", tag="thinking_level_change"):
    id: str
    parent_id: str | None
    timestamp: str
    thinking_level: str


class CompactionEntry(WireStruct, tag_field="type", tag="compaction"):
    id: str
    parent_id: str | None
    timestamp: str
    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: object | UnsetType = UNSET
    usage: Usage | UnsetType = UNSET
    from_hook: bool | UnsetType = UNSET
    system_message: SystemMessage | UnsetType = UNSET


class BranchSummaryEntry(WireStruct, tag_field="type", tag="branch_summary"):
    id: str
    parent_id: str | None
    timestamp: str
    from_id: str
    summary: str
    details: object | UnsetType = UNSET
    usage: Usage | UnsetType = UNSET
    from_hook: bool | UnsetType = UNSET


class CustomEntry(WireStruct, tag_field="type", tag="custom"):
    """Extension state: never sent to the model."""

    id: str
    parent_id: str | None
    timestamp: str
    custom_type: str
    data: object | UnsetType = UNSET


class CustomMessageEntry(WireStruct, tag_field="type", tag="custom_message"):
    """An extension's message that enters the model's context (as user text)."""

    id: str
    parent_id: str | None
    timestamp: str
    custom_type: str
    content: str | list[UserContent]
    display: bool = False  # absent in a file: not shown, as in Pi (appending defaults to True)
    details: object | UnsetType = UNSET


class LabelEntry(WireStruct, tag_field="type", tag="label"):
    id: str
    parent_id: str | None
    timestamp: str
    target_id: str
    label: str | UnsetType | None = UNSET
    """Absent, null or empty clears the label."""


class SessionInfoEntry(WireStruct, tag_field="type", tag="session_info"):
    id: str
    parent_id: str | None
    timestamp: str
    name: str | UnsetType = UNSET


class UsageEntry(WireStruct, tag_field="type", tag="usage"):
    """Cost outside the conversation (cache warming, ...): counted, never sent."""

    id: str
    parent_id: str | None
    timestamp: str
    kind: str
    provider: str
    model: str
    usage: Usage
    note: str | UnsetType = UNSET


class ContextReplacement(WireStruct):
    content: str | list[UserContent | TextContent]


class ContextEditEntry(WireStruct, tag_field="type", tag="context_edit"):
    """Hides (replacement `null`) or replaces an earlier entry's content on this branch."""

    id: str
    parent_id: str | None
    timestamp: str
    target_id: str
    replacement: ContextReplacement | None


class RawEntry(msgspec.Struct, kw_only=True):
    """An entry pith cannot type (an unknown `type`, a shape it cannot read): kept verbatim."""

    raw: dict[str, object]
    message: AgentMessage | None = None
    """For a message entry, what pith could read of it (unknown content blocks left out)."""

    @property
    def id(self) -> str:
        value = self.raw.get("id")
        return value if isinstance(value, str) else ""

    @property
    def parent_id(self) -> str | None:
        value = self.raw.get("parentId")
        return value if isinstance(value, str) else None

    @property
    def timestamp(self) -> str:
        value = self.raw.get("timestamp")
        return value if isinstance(value, str) else ""

    @property
    def type(self) -> str:
        value = self.raw.get("type")
        return value if isinstance(value, str) else ""


Entry = (
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomEntry
    | CustomMessageEntry
    | LabelEntry
    | SessionInfoEntry
    | UsageEntry
    | ContextEditEntry
)
"""Every typed entry (the header is not an entry)."""

SessionEntry = Entry | RawEntry
