"""Reading the nodes of a parsed command: typed lookups, byte offsets, source text and a walk
over every node.

A tree is shfmt's JSON decoded into plain dicts. Every node has `Pos` and `End` whose `Offset`
is a **byte** offset into the UTF-8 encoding of the command; node kinds are named by a `Type`
key (`CallExpr`, `BinaryCmd`, `Lit`, `CmdSubst`, …), while statements, words and assignments
have no `Type` and are known by where they sit. Trees are shared through the parse cache, so
nothing here (or anywhere) changes a node.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = [
    "Node",
    "assignment_name",
    "child",
    "children",
    "offset",
    "source_slice",
    "string",
    "walk",
]

Node = dict[str, object]
"""One node of shfmt's JSON tree (read only: trees are shared through the cache)."""


def child(node: Node, key: str) -> Node | None:
    """`node[key]` when it is a node."""
    value = node.get(key)
    return value if isinstance(value, dict) else None


def children(node: Node, key: str) -> list[Node]:
    """`node[key]` when it is a list of nodes, else an empty list."""
    value = node.get(key)
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, dict)]


def string(node: Node, key: str) -> str | None:
    """`node[key]` when it is a string."""
    value = node.get(key)
    return value if isinstance(value, str) else None


def offset(node: Node | None, key: str) -> int:
    """The byte offset of `node`'s `Pos` or `End` (0 when either is absent)."""
    position = child(node, key) if node is not None else None
    value = position.get("Offset") if position is not None else None
    return value if isinstance(value, int) else 0


def source_slice(data: bytes, node: Node) -> str:
    """The source text of `node` (its `Pos`..`End` byte range of `data`)."""
    return data[offset(node, "Pos") : offset(node, "End")].decode("utf-8", "replace")


def assignment_name(assign: Node) -> str:
    """The name an assignment (`NAME=value`, a declaration's argument) sets; empty when none."""
    name = child(assign, "Name")
    return (string(name, "Value") if name is not None else None) or ""


def walk(node: object) -> Iterator[Node]:
    """Every node (dict) of the tree under `node`, `node` included, depth first, in source
    order. Positions are not nodes and are skipped."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "Offset" in item:
                continue  # a position, not a node
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
