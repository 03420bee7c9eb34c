"""The shapes statements take: `&&`/`||` chains, pipelines, and where a statement's text ends.

shfmt nests a chain `a && b || c` as binary commands, each side a statement; `chain` and
`stages` flatten them into their members in source order, the way both the guard (which cuts
a pipeline's trailing stages) and the permission system (which threads the shell's state
through `&&` and `||`) read them. A side is opened only when it is *bare*: a negated,
backgrounded or redirected side is one member, whatever is inside."""

from __future__ import annotations

from pith.shell._quotes import command_words
from pith.shell._tree import Node, child, children, offset, string

__all__ = [
    "PIPE_OPS",
    "call_name",
    "chain",
    "content_end",
    "is_bare",
    "stages",
    "statement_text",
]

PIPE_OPS = ("|", "|&")
_CHAIN_OPS = ("&&", "||")


def is_bare(stmt: Node) -> bool:
    """Not negated, backgrounded, a coprocess, nor redirected as a whole."""
    return not any(stmt.get(key) for key in ("Negated", "Background", "Coprocess", "Redirs"))


def _binary(stmt: Node, ops: tuple[str, ...]) -> Node | None:
    cmd = child(stmt, "Cmd")
    if cmd is not None and cmd.get("Type") == "BinaryCmd" and string(cmd, "Op") in ops:
        return cmd
    return None


def chain(stmt: Node) -> tuple[list[Node], list[str]]:
    """The members of a statement's `&&`/`||` chain and the operators between them; the
    statement itself and no operator when it is not a chain."""
    cmd = _binary(stmt, _CHAIN_OPS)
    if cmd is None:
        return [stmt], []
    left, right = child(cmd, "X"), child(cmd, "Y")
    if left is None or right is None:
        return [stmt], []
    head, ops = chain(left) if is_bare(left) else ([left], [])
    return [*head, right], [*ops, string(cmd, "Op") or "&&"]


def stages(stmt: Node) -> tuple[list[Node], list[str]]:
    """The stages of a pipeline statement and the operators between them (`|` or `|&`); the
    statement itself and no operator when it is not a pipeline."""
    cmd = _binary(stmt, PIPE_OPS)
    if cmd is None:
        return [stmt], []
    left, right = child(cmd, "X"), child(cmd, "Y")
    if left is None or right is None:
        return [stmt], []
    left_stages, left_ops = stages(left) if is_bare(left) else ([left], [])
    right_stages, right_ops = stages(right) if is_bare(right) else ([right], [])
    return [*left_stages, *right_stages], [*left_ops, string(cmd, "Op") or "|", *right_ops]


def call_name(stmt: Node) -> tuple[str | None, list[str | None]]:
    """The literal command name of a simple-command statement (None when it has none or it
    is not literal), and its words (`command_words`)."""
    cmd = child(stmt, "Cmd")
    if cmd is None or cmd.get("Type") != "CallExpr":
        return None, []
    words = command_words(cmd)
    if not words or words[0] is None:
        return None, words
    return words[0], words


def content_end(stmt: Node) -> int:
    """Where a statement's text ends, without its `;` or `&`."""
    ends = [offset(child(stmt, "Cmd"), "End")]
    ends += [offset(redirect, "End") for redirect in children(stmt, "Redirs")]
    return max(ends)


def statement_text(data: bytes, stmt: Node) -> str:
    """A statement's text, redirections included, without its `;` or `&`."""
    return data[offset(stmt, "Pos") : content_end(stmt)].decode("utf-8", "replace")
