"""The pure-Python parse of a plain command, building exactly the tree shfmt would.

Plain words and the four operators `|`, `&&`, `||`, `;`, nothing else: no quotes, `$`,
backslashes, globs, `~`, braces, parentheses, redirections, `&` alone, `#` or newlines. A word
that shfmt would not read as a plain word or a `NAME=value` assignment (a reserved word or a
declaration builtin in command position, `NAME+=value`, `=value`) sends the whole command to
shfmt, as does any empty command between operators. The tree leaves out the keys that only say
where a node sits (line, column, keyword positions); tests/shell/test_parse.py checks the
result against shfmt on generated commands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pith.shell._tree import Node

__all__ = ["fast_parse"]

_TOKEN = re.compile(r"[ \t]*(?:([A-Za-z0-9_./,:=+@%^-]+)|(&&|\|\||[|;]))")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_SPECIAL = (
    "if then elif else fi do done case esac while until for in select function time coproc "
    "declare local export readonly typeset nameref let"
)
_SPECIAL_FIRST_WORDS = frozenset(_SPECIAL.split())


@dataclass(frozen=True, slots=True)
class _Token:
    kind: Literal["word", "op"]
    text: str
    start: int
    """Byte offset of its first character (the command is ASCII); -1 for the `;` the
    tokenizer adds at the end."""
    end: int


_END = _Token("op", ";", -1, -1)


def _pos(offset: int) -> Node:
    return {"Offset": offset}


def _lit(text: str, start: int) -> Node:
    return {"Type": "Lit", "Pos": _pos(start), "End": _pos(start + len(text)), "Value": text}


def _word(text: str, start: int) -> Node:
    end = start + len(text)
    return {"Pos": _pos(start), "End": _pos(end), "Parts": [_lit(text, start)]}


def _call(words: list[_Token]) -> Node | None:
    assigns: list[Node] = []
    args: list[Node] = []
    for token in words:
        text, start, end = token.text, token.start, token.end
        if not args:
            match = _ASSIGN.match(text)
            if match is not None:
                name = match.group(1)
                assign: Node = {
                    "Pos": _pos(start),
                    "End": _pos(end),
                    "Name": {"Pos": _pos(start), "End": _pos(start + len(name)), "Value": name},
                }
                if match.end() < len(text):
                    assign["Value"] = _word(text[match.end() :], start + match.end())
                assigns.append(assign)
                continue
            if "=" in text or text in _SPECIAL_FIRST_WORDS:
                return None
        args.append(_word(text, start))
    node: Node = {"Type": "CallExpr", "Pos": _pos(words[0].start), "End": _pos(words[-1].end)}
    if assigns:
        node["Assigns"] = assigns
    if args:
        node["Args"] = args
    return node


def _stmt(cmd: Node) -> Node:
    return {"Pos": cmd["Pos"], "End": cmd["End"], "Cmd": cmd}


def _split(tokens: list[_Token], ops: tuple[str, ...]) -> list[list[_Token]] | None:
    """`tokens` cut at the operators in `ops` (kept as one-token groups); None when a part is
    empty."""
    parts: list[list[_Token]] = [[]]
    for token in tokens:
        if token.kind == "op" and token.text in ops:
            if not parts[-1]:
                return None
            parts.extend([[token], []])
        else:
            parts[-1].append(token)
    return parts if parts[-1] else None


def _binary(parts: list[list[_Token]], inner: tuple[str, ...] | None) -> Node | None:
    """Left-nested `BinaryCmd`s over `parts` (operands split further at `inner`, or simple
    commands when `inner` is None)."""
    result: Node | None = None
    for index in range(0, len(parts), 2):
        if inner is not None:
            split = _split(parts[index], inner)
            operand = _binary(split, None) if split is not None else None
        else:
            operand = _call(parts[index])
        if operand is None:
            return None
        if result is None:
            result = operand
        else:
            op = parts[index - 1][0]  # the operator's one-token group
            result = {
                "Type": "BinaryCmd",
                "Pos": result["Pos"],
                "End": operand["End"],
                "Op": op.text,
                "X": _stmt(result),
                "Y": _stmt(operand),
            }
    return result


def fast_parse(command: str) -> Node | None:
    """The tree of a plain-word command, or None when shfmt must parse it."""
    if not command.isascii():
        return None
    tokens: list[_Token] = []
    position = 0
    while position < len(command):
        match = _TOKEN.match(command, position)
        if match is None:
            # Only spaces and tabs may be left over.
            if command[position:].strip(" \t"):
                return None
            break
        if match.group(1) is not None:
            token = _Token("word", match.group(1), match.start(1), match.end())
        else:
            token = _Token("op", match.group(2), match.start(2), match.end())
        tokens.append(token)
        position = match.end()
    if not tokens:
        return {"Type": "File"}  # blanks only
    stmts: list[Node] = []
    current: list[_Token] = []
    for token in [*tokens, _END]:
        if token.text != ";" or token.kind != "op":
            current.append(token)
            continue
        if not current:
            if token is _END and stmts:
                break  # a trailing `;` ends the last statement
            return None
        split = _split(current, ("&&", "||"))
        cmd = _binary(split, ("|",)) if split is not None else None
        if cmd is None:
            return None
        end = current[-1].end if token is _END else token.end
        stmts.append({"Pos": cmd["Pos"], "End": _pos(end), "Cmd": cmd})
        current = []
    return {"Type": "File", "Pos": stmts[0]["Pos"], "End": stmts[-1]["End"], "Stmts": stmts}
