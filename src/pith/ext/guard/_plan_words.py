"""Reading shfmt's tree for the guard's planner: literal words, quiet words, command names and
a walk over every node.

"Literal" here is stricter than bash's quote removal: a word is literal only when its value
cannot depend on anything but its own text — no expansion of any kind (parameters,
substitutions, arithmetic), no unquoted glob or brace characters, no leading `~`. That is what
lets a removed view be re-run elsewhere (by the guard, in the tool's directory and
environment) and still mean the same thing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from pith.tools.shell_parse import Node, child, children, string

__all__ = [
    "STANDARD_BIN_DIRS",
    "command_words",
    "is_identifier",
    "literal_word",
    "program_name",
    "quiet_word",
    "walk",
    "word_set",
]

STANDARD_BIN_DIRS = frozenset(
    {"/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/usr/gnu/bin", "/sbin"}
)
"""Directories whose `head` is the `head` (`/usr/bin/head` is `head`; `./head` is not)."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKETS = {"[": "]", "{": "}"}
"""Unquoted openers that make bash expand a word (globs, braces) when closed later."""
_SIMPLE_PARAM_KEYS = frozenset({"Type", "Pos", "End", "Dollar", "Rbrace", "Short", "Param"})


def walk(node: object) -> Iterator[Node]:
    """Every node (dict) of the tree under `node`, `node` included, depth first."""
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


def word_set(text: str) -> frozenset[str]:
    """The blank-separated words of `text` (for option and name tables)."""
    return frozenset(text.split())


def is_identifier(text: str) -> bool:
    """`text` is a shell variable name."""
    return _IDENT.fullmatch(text) is not None


def _unquoted(text: str, first: bool) -> str | None:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        if char in "*?" or (char == "~" and first and i == 0):
            return None
        if char in _BRACKETS and _BRACKETS[char] in text[i + 1 :]:
            return None  # `[…]` globs and `{…}` braces; a lone `[` (as in `[ -f x ]`) is text
        out.append(char)
        i += 1
    return "".join(out)


def _double_quoted(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def literal_word(word: Node) -> str | None:
    """The value of `word` after quote removal, or None when bash would expand anything in
    it (`$x`, `$(…)`, `*`, `{a,b}`, `~`, `$'\\t'` escapes)."""
    out: list[str] = []
    for index, part in enumerate(children(word, "Parts")):
        kind = part.get("Type")
        if kind == "Lit":
            text = _unquoted(string(part, "Value") or "", first=index == 0)
            if text is None:
                return None
            out.append(text)
        elif kind == "SglQuoted":
            value = string(part, "Value") or ""
            if part.get("Dollar") is True and "\\" in value:
                return None
            out.append(value)
        elif kind == "DblQuoted":
            for inner in children(part, "Parts"):
                if inner.get("Type") != "Lit":
                    return None
                out.append(_double_quoted(string(inner, "Value") or ""))
        else:
            return None
    return "".join(out)


def _simple_parameter(part: Node) -> bool:
    if any(value for key, value in part.items() if key not in _SIMPLE_PARAM_KEYS):
        return False
    param = child(part, "Param")
    name = string(param, "Value") if param is not None else None
    return name is not None and is_identifier(name)


def quiet_word(word: Node | None) -> bool:
    """Expanding `word` as an assignment value can neither print nor fail: quotes, literal
    text and plain `$name` / `${name}` only (no substitutions, arithmetic or `${x:?}`)."""
    if word is None:
        return True
    for part in children(word, "Parts"):
        kind = part.get("Type")
        if kind in ("Lit", "SglQuoted"):
            continue
        if kind == "ParamExp" and _simple_parameter(part):
            continue
        if kind == "DblQuoted":
            for inner in children(part, "Parts"):
                if inner.get("Type") == "Lit":
                    continue
                if inner.get("Type") == "ParamExp" and _simple_parameter(inner):
                    continue
                return False
            continue
        return False
    return True


def command_words(call: Node) -> list[str | None]:
    """The words of a `CallExpr` (assignments excluded), each literal or None."""
    return [literal_word(word) for word in children(call, "Args")]


def program_name(word: str, *, strict: bool) -> str:
    """The program a literal command word runs: its basename. With `strict`, a path counts
    only when it is in a standard bin directory (`/usr/bin/head`), so `./head` stays
    `./head`."""
    if "/" not in word:
        return word
    directory, base = posixpath.split(word)
    if not strict or posixpath.normpath(directory) in STANDARD_BIN_DIRS:
        return base
    return word
