"""The session tree as rows for `/tree`: one row per point worth going back to (your
messages, replies, summaries), indented where the conversation branched; labels shown; the
current branch marked. Pure: a store in, rows out."""

from __future__ import annotations

from dataclasses import dataclass

from pith.ai import AssistantMessage, ToolCall, UserMessage, content_text
from pith.session import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
    SessionStore,
    TreeNode,
)

__all__ = ["TreeRow", "entry_summary", "tree_rows"]

_WIDTH = 90


@dataclass(frozen=True)
class TreeRow:
    entry_id: str
    text: str
    is_leaf: bool
    on_branch: bool


def _one_line(text: str, width: int = _WIDTH) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def entry_summary(entry: SessionEntry) -> str | None:
    """How an entry reads in the tree; None for entries not shown (tool results, settings)."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return "you: " + _one_line(content_text(message.content, " "))
        if isinstance(message, AssistantMessage):
            text = content_text(message.content, " ")
            calls = [b.name for b in message.content if isinstance(b, ToolCall)]
            if text.strip():
                return "pith: " + _one_line(text)
            if calls:
                return "pith → " + ", ".join(calls)
            return "pith: (no text)"
        if getattr(message, "role", "") == "bashExecution":
            return "you: !" + _one_line(str(getattr(message, "command", "")))
        return None
    if isinstance(entry, CompactionEntry):
        return f"[compaction: {entry.tokens_before:,} tokens summarized]"
    if isinstance(entry, BranchSummaryEntry):
        return "[branch summary] " + _one_line(entry.summary, 60)
    if isinstance(entry, CustomMessageEntry) and entry.display:
        return f"[{entry.custom_type}] " + _one_line(content_text(entry.content, " "), 60)
    return None


def tree_rows(store: SessionStore) -> list[TreeRow]:
    path = store.get_branch()
    branch = {entry.id for entry in path}
    # The leaf may be an entry not shown (a tool result, a model change): mark its nearest
    # shown ancestor instead.
    shown_leaf = next((e.id for e in reversed(path) if entry_summary(e) is not None), None)
    rows: list[TreeRow] = []
    stack: list[tuple[TreeNode, int]] = [(root, 0) for root in reversed(store.tree())]
    while stack:
        node, depth = stack.pop()
        entry = node.entry
        summary = entry_summary(entry)
        if summary is not None:
            is_leaf = entry.id == shown_leaf
            mark = "◉" if is_leaf else "•" if entry.id in branch else "○"
            label = f" [{node.label}]" if node.label else ""
            rows.append(
                TreeRow(
                    entry.id,
                    f"{'  ' * depth}{mark} {summary}{label}",
                    is_leaf,
                    entry.id in branch,
                )
            )
        children = node.children
        step = 1 if len(children) > 1 else 0
        for child in reversed(children):
            stack.append((child, depth + step))
    return rows
