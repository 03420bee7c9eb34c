"""Which files the summarized conversation read and changed, as Pi tracks them.

Calls of the `read`, `write` and `edit` tools with a string `path` (also the calls a tool made
itself, listed in a tool result's `nestedCalls`) are collected. A summary ends with the files
only read and the files modified, so a model that continues from it knows what it touched;
the lists also go into the entry's `details` and seed the next compaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from pith.ai import UNSET, AgentMessage, AssistantMessage, ToolCall, ToolResultMessage, js_sorted

__all__ = [
    "FileLists",
    "FileOps",
    "compute_file_lists",
    "extract_file_ops",
    "file_lists_from_details",
    "format_file_operations",
]


class FileOps(msgspec.Struct, kw_only=True):
    """Paths seen per operation (Pi's `FileOperations`). Mutable: extraction adds to it."""

    read: set[str] = msgspec.field(default_factory=set)
    written: set[str] = msgspec.field(default_factory=set)
    edited: set[str] = msgspec.field(default_factory=set)

    def seed(self, details: object) -> None:
        """Add the lists a previous summary recorded in its `details`: read files as read,
        modified files as edited."""
        lists = file_lists_from_details(details)
        self.read.update(lists.read_files)
        self.edited.update(lists.modified_files)


class FileLists(msgspec.Struct, rename="camel", frozen=True, kw_only=True):
    """The final lists, sorted; also the `details` of a compaction or branch summary entry
    (`{"readFiles": [...], "modifiedFiles": [...]}`)."""

    read_files: list[str] = msgspec.field(default_factory=list)
    modified_files: list[str] = msgspec.field(default_factory=list)


_KINDS = ("read", "write", "edit")


def _add(name: object, arguments: object, ops: FileOps) -> None:
    if name not in _KINDS:
        return
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return
    path = arguments.get("path")
    if not isinstance(path, str) or not path:
        return
    if name == "read":
        ops.read.add(path)
    elif name == "write":
        ops.written.add(path)
    else:
        ops.edited.add(path)


def extract_file_ops(message: AgentMessage, ops: FileOps) -> None:
    """Add the file operations of one message: an assistant's tool calls, or the calls a tool
    made on its own behalf (`nestedCalls.calls` of a tool result)."""
    if isinstance(message, AssistantMessage):
        for block in message.content:
            if type(block) is ToolCall:
                _add(block.name, block.arguments, ops)
        return
    if isinstance(message, ToolResultMessage):
        nested = message.nested_calls
        if nested is UNSET or not isinstance(nested, Mapping):
            return
        calls = nested.get("calls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, Mapping):
                    _add(call.get("name"), call.get("arguments"), ops)


def compute_file_lists(ops: FileOps) -> FileLists:
    """Modified = written or edited; read = read and not modified; both sorted as JavaScript
    sorts strings."""
    modified = ops.edited | ops.written
    return FileLists(
        read_files=js_sorted(path for path in ops.read if path not in modified),
        modified_files=js_sorted(modified),
    )


def _strings(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str)]


def file_lists_from_details(details: object) -> FileLists:
    """The lists a summary entry recorded (`details.readFiles` / `details.modifiedFiles`);
    empty for details of another shape (an extension's own)."""
    if not isinstance(details, Mapping):
        return FileLists()
    return FileLists(
        read_files=_strings(details.get("readFiles")),
        modified_files=_strings(details.get("modifiedFiles")),
    )


def _block(tag: str, paths: Iterable[str]) -> str:
    return f"<{tag}>\n" + "\n".join(paths) + f"\n</{tag}>"


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The text appended to a summary: a blank line, then `<read-files>` and
    `<modified-files>` blocks (each only when non-empty); "" when both are empty."""
    sections = []
    if read_files:
        sections.append(_block("read-files", read_files))
    if modified_files:
        sections.append(_block("modified-files", modified_files))
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)
