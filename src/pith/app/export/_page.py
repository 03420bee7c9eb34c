"""The whole export page of a session: header, context chart, and the session tree. Pure.

The tree is laid out as a conversation: the branch that leads to the current leaf reads from
top to bottom, and at every entry where the conversation forked, the other branches are
collapsed blocks (opened with a click, or all at once with the toolbar). Inside another
branch the same holds, with its newest continuation inline. The walk uses an explicit stack,
so a session of any length or depth renders without recursion.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from pith.ai import AssistantMessage, TextContent, UserMessage
from pith.app.export._assets import CSS, SCRIPT, content_security_policy
from pith.app.export._chart import render_chart
from pith.app.export._entries import EntryMarks, render_entry
from pith.app.export._usage import context_timeline
from pith.session import MessageEntry, SessionStore, TreeNode, UsageEntry

__all__ = ["render_page"]


@dataclass
class _Open:
    node: TreeNode


def render_page(store: SessionStore, *, source: str, warnings: list[str]) -> str:
    """The page for `store` (its tree, its leaf); `source` names where it was read from."""
    path = store.get_branch()
    on_path = {entry.id for entry in path}
    title = store.name or f"Session {store.id}"
    chart = render_chart(context_timeline(path))
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy()}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body><main>",
            f"<h1>{escape(title)}</h1>",
            _info(store, source, len(path)),
            _warnings(warnings),
            _toolbar(store.leaf_id),
            '<pre id="js-errors" hidden></pre>',
            '<h2 id="context">Context size per request (current branch)</h2>',
            chart,
            f'<h2 id="tree">Session tree <span class="muted">({len(store.entries):,} entries)'
            "</span></h2>",
            _tree(store, on_path) if store.entries else '<p class="muted">No entries yet.</p>',
            f"</main><script>{SCRIPT}</script></body></html>\n",
        ]
    )


def _info(store: SessionStore, source: str, path_length: int) -> str:
    header = store.header
    parents = {entry.parent_id for entry in store.entries}
    leaves = sum(1 for entry in store.entries if entry.id not in parents)
    rows = [
        ("session id", escape(store.id)),
        ("file", escape(source)),
        ("working directory", escape(store.cwd)),
    ]
    if isinstance(header.timestamp, str):
        rows.append(("created", escape(header.timestamp)))
    if isinstance(header.parent_session, str):
        rows.append(("forked from", escape(header.parent_session)))
    if store.leaf_id:
        rows.append(
            (
                "current leaf",
                f'<a href="#e-{escape(store.leaf_id)}">{escape(store.leaf_id)}</a> '
                f"({path_length:,} entries on its branch; the tree has {leaves:,} "
                f"{'leaf' if leaves == 1 else 'leaves'})",
            )
        )
    models, input_tokens, output_tokens, cost = _totals(store)
    if models:
        rows.append(("models", escape(", ".join(models))))
    rows.append(
        (
            "tokens (all branches)",
            f"{input_tokens:,} input · {output_tokens:,} output · ${cost:.4f}",
        )
    )
    cells = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows)
    return f'<dl class="info">{cells}</dl>'


def _totals(store: SessionStore) -> tuple[list[str], int, int, float]:
    models: dict[str, None] = {}
    input_tokens = output_tokens = 0
    cost = 0.0
    for entry in store.entries:
        usage = None
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            message = entry.message
            models[f"{message.provider}/{message.model}"] = None
            usage = message.usage
        elif isinstance(entry, UsageEntry):
            usage = entry.usage
        if usage is not None:
            input_tokens += usage.input + usage.cache_read + usage.cache_write
            output_tokens += usage.output
            cost += float(usage.cost.total)
    return list(models), input_tokens, output_tokens, cost


def _warnings(warnings: list[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{escape(line)}</li>" for line in warnings)
    return f'<div class="warnings"><strong>While reading the file:</strong><ul>{items}</ul></div>'


def _toolbar(leaf_id: str | None) -> str:
    links = '<a href="#context">context chart</a> <a href="#tree">tree</a>'
    if leaf_id:
        links += f' <a href="#e-{escape(leaf_id)}">current leaf</a>'
    buttons = "".join(
        f'<button type="button" data-action="{action}" hidden>{text}</button>'
        for action, text in (
            ("go-leaf", "show current leaf"),
            ("expand-outputs", "expand outputs"),
            ("collapse-outputs", "collapse outputs"),
            ("expand-branches", "expand other branches"),
            ("collapse-branches", "collapse other branches"),
        )
    )
    return f'<nav class="toolbar">{links}{buttons}</nav>'


def _tree(store: SessionStore, on_path: set[str]) -> str:
    roots = store.tree()
    sizes = _subtree_sizes(roots)
    out: list[str] = []
    # The stack holds nodes to render and HTML to emit once the nodes before it are done.
    stack: list[_Open | str] = []
    main_root, others = _split(roots, on_path)
    stack.append(_Open(main_root))
    for other in reversed(others):
        stack.extend(_alternate(other, sizes, "another root"))
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node = item.node
        entry = node.entry
        marks = EntryMarks(
            on_path=entry.id in on_path, leaf=entry.id == store.leaf_id, label=node.label
        )
        out.append(render_entry(entry, marks))
        if not node.children:
            continue
        main, alternates = _split(node.children, on_path)
        stack.append(_Open(main))
        for other in reversed(alternates):
            stack.extend(_alternate(other, sizes, f"another branch from {entry.id}"))
    return "".join(out)


def _split(nodes: list[TreeNode], on_path: set[str]) -> tuple[TreeNode, list[TreeNode]]:
    """The child that continues inline (on the current path, else the newest) and the rest."""
    main = next((node for node in nodes if node.entry.id in on_path), nodes[-1])
    return main, [node for node in nodes if node is not main]


def _alternate(node: TreeNode, sizes: dict[int, int], where: str) -> list[_Open | str]:
    """Stack items for a collapsed branch, in pop order reversed (close tag pushed first)."""
    first = _first_words(node)
    summary = f"{where}: {sizes[id(node)]:,} entries"
    if first:
        summary += f" · “{first}”"
    return [
        "</div></details>",
        _Open(node),
        f'<details class="branch"><summary>{escape(summary)}</summary><div>',
    ]


def _subtree_sizes(roots: list[TreeNode]) -> dict[int, int]:
    sizes: dict[int, int] = {}
    order: list[TreeNode] = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        sizes[id(node)] = 1 + sum(sizes[id(child)] for child in node.children)
    return sizes


def _first_words(node: TreeNode, width: int = 80) -> str:
    """The first user text in the branch starting at `node` (following first children)."""
    current: TreeNode | None = node
    for _ in range(200):
        if current is None:
            return ""
        entry = current.entry
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            content = entry.message.content
            text = (
                content
                if isinstance(content, str)
                else " ".join(b.text for b in content if isinstance(b, TextContent))
            )
            line = " ".join(text.split())
            return line if len(line) <= width else line[: width - 1] + "…"
        current = current.children[0] if current.children else None
    return ""
