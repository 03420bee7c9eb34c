"""Queries over a session's entries as a tree: the path from the root to an entry, an entry's
children, the whole tree. Pure: they read the entries (and their index by id) and change
nothing, so `SessionStore` answers with them and anything holding entries can use them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pith.session._entries import SessionEntry, timestamp_millis

__all__ = ["TreeNode", "branch_path", "child_entries", "entry_tree", "parent_chain"]


@dataclass
class TreeNode:
    entry: SessionEntry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None


def branch_path(by_id: Mapping[str, SessionEntry], entry_id: str | None) -> list[SessionEntry]:
    """The entries from the root to `entry_id` (empty for None or an unknown id); a parent
    chain that loops back on itself stops where it would repeat."""
    start = by_id.get(entry_id) if entry_id else None
    return [] if start is None else parent_chain(by_id, start)


def parent_chain(by_id: Mapping[str, SessionEntry], start: SessionEntry) -> list[SessionEntry]:
    """The entries from the root to `start`, following parents through `by_id`; a chain that
    loops back on itself stops where an id would repeat."""
    if by_id.get(start.id) is start:
        path = _walk(by_id, start)
        if path is not None:
            return path
    return _walk_checked(by_id, start)


def _walk(by_id: Mapping[str, SessionEntry], start: SessionEntry) -> list[SessionEntry] | None:
    """`parent_chain` without remembering ids: every step lands on an entry of `by_id`, so a
    walk longer than `by_id` holds has looped (None: the caller walks again, checking)."""
    path = [start]
    append = path.append
    get = by_id.get
    current = start
    for _ in range(len(by_id)):
        parent = current.parent_id
        found = get(parent) if parent else None
        if found is None:
            path.reverse()
            return path
        append(found)
        current = found
    return None


def _walk_checked(by_id: Mapping[str, SessionEntry], start: SessionEntry) -> list[SessionEntry]:
    path: list[SessionEntry] = []
    seen: set[str] = set()
    current: SessionEntry | None = start
    while current is not None and current.id not in seen:
        path.append(current)
        seen.add(current.id)
        parent = current.parent_id
        current = by_id.get(parent) if parent else None
    path.reverse()
    return path


def child_entries(entries: Iterable[SessionEntry], parent_id: str | None) -> list[SessionEntry]:
    """The entries whose parent is `parent_id` (None: the roots), in file order."""
    return [entry for entry in entries if entry.parent_id == parent_id]


def entry_tree(entries: list[SessionEntry], labels: Mapping[str, str]) -> list[TreeNode]:
    """Every entry as a tree: roots (and orphans, and entries that name themselves as parent)
    first; each node's children oldest first; `labels` by entry id."""
    nodes = {entry.id: TreeNode(entry, label=labels.get(entry.id)) for entry in entries}
    roots: list[TreeNode] = []
    for entry in entries:
        node = nodes[entry.id]
        parent = entry.parent_id
        if parent is None or parent == entry.id or parent not in nodes:
            roots.append(node)
        else:
            nodes[parent].children.append(node)
    for node in nodes.values():
        node.children.sort(key=lambda child: timestamp_millis(child.entry.timestamp))
    return roots
