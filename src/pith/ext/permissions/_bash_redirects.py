"""Redirections and file tests: the paths a statement's redirections and `[[ -f x ]]` touch,
and the text a here-document or here-string feeds to the command."""

from __future__ import annotations

import re

from pith.ext.permissions._bash_argv import Mode, Origin
from pith.ext.permissions._bash_context import Findings, Knowledge, Walking
from pith.ext.permissions._bash_files import FILE_TESTS
from pith.ext.permissions._bash_state import State
from pith.shell import (
    Node,
    child,
    children,
    expand_word,
    lone_process_substitution,
    source_slice,
    string,
    word_text,
)

__all__ = ["Redirects"]


class Redirects:
    """Records the paths of redirections, file tests and other path words."""

    def __init__(self, walker: Walking, findings: Findings, knowledge: Knowledge) -> None:
        self.walker = walker
        self.findings = findings
        self.knowledge = knowledge

    def walk(self, redirects: list[Node], state: State, data: bytes, source: str) -> str | None:
        """Walk redirect targets; return the literal text a here-document or here-string
        feeds to the command (for `bash <<'EOF'`)."""
        stdin: str | None = None
        for redirect in redirects:
            op = string(redirect, "Op") or ""
            word = child(redirect, "Word")
            if op in ("<<", "<<-"):
                body = child(redirect, "Hdoc")
                self.walker.nested(body, state, data, "heredoc")
                stdin = _heredoc_text(word, body)
                continue
            if word is None:
                continue
            self.walker.nested(word, state, data, None)
            first = self.knowledge.scope(state, state.dirs[0])
            if op == "<<<":
                text = word_text(word, first)
                stdin = None if text is None else text + "\n"
                if text is not None:
                    self.walker.literal_code(text, state)
                continue
            if op in (">&", "<&"):
                target = word_text(word, first)
                if target is not None and re.fullmatch(r"\d*-?", target):
                    continue  # `2>&1`, `>&-`: a file descriptor, not a file
            if lone_process_substitution(word):
                continue  # a pipe to the commands inside, walked above
            mode: Mode = "read" if op in ("<", "<&") else "write"
            self.path_word(word, state, data, mode, "redirect", source)
        return stdin

    def path_word(
        self, word: Node, state: State, data: bytes, mode: Mode, origin: Origin, command: str
    ) -> None:
        """Record the paths `word` names in each directory the shell may be in (its source
        text, unresolved, where it is not literal)."""
        for directory in state.dirs:
            expansion = expand_word(word, self.knowledge.scope(state, directory))
            if expansion is None:
                self.findings.unresolved_word(source_slice(data, word), mode)
                continue
            for path in expansion.fields:
                self.findings.path(path, directory, mode, origin, command)

    def file_tests(self, node: Node | None, state: State, data: bytes, source: str) -> None:
        """File tests inside `[[ … ]]`: their operand is a path (`access`)."""
        if node is None:
            return
        kind = node.get("Type")
        if kind == "UnaryTest" and string(node, "Op") in FILE_TESTS:
            operand = child(node, "X")
            if operand is not None:
                self.path_word(operand, state, data, "access", "operand", source)
        elif kind in ("BinaryTest", "UnaryTest", "ParenTest"):
            for key in ("X", "Y"):
                self.file_tests(child(node, key), state, data, source)


def _heredoc_text(delimiter: Node | None, body: Node | None) -> str | None:
    """The text a here-document feeds, when the command's text fixes it."""
    if body is None:
        return ""
    parts = children(body, "Parts")
    if any(part.get("Type") != "Lit" for part in parts):
        return None
    text = "".join(string(part, "Value") or "" for part in parts)
    quoted = delimiter is not None and any(
        part.get("Type") != "Lit" or "\\" in (string(part, "Value") or "")
        for part in children(delimiter, "Parts")
    )
    return text if quoted or "\\" not in text else None
