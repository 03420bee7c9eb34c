"""Bash syntax trees from mvdan/sh's parser (`shfmt --to-json -ln bash`), shared by the
permission system and the tool guard.

A tree is shfmt's JSON decoded into plain dicts: every node has `Pos` and `End` whose `Offset`
is a **byte** offset into the UTF-8 encoding of the command (`source_slice` turns a node back
into text). Node kinds are named by a `Type` key (`CallExpr`, `BinaryCmd`, `Lit`, `CmdSubst`,
…); statements, words and assignments have no `Type` and are known by where they sit.

Parsing is a subprocess (~2 ms), so a command made only of plain words and the operators
`|`, `&&`, `||`, `;` is tokenized here instead (`_fast_parse`), producing the same tree minus
the position-only keys `Line`, `Col`, `ValuePos`, `ValueEnd`, `Position`, `OpPos` and
`Semicolon`, which nothing reads. Everything else goes to shfmt. Results are cached by command
text: both extensions parse the same command in one tool call.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
from dataclasses import dataclass

import msgspec

__all__ = [
    "SHFMT_ENV",
    "Node",
    "ShellSyntaxError",
    "ShellTree",
    "child",
    "children",
    "clear_cache",
    "find_shfmt",
    "parse_bash",
    "source_slice",
    "string",
    "takes_fast_path",
]

SHFMT_ENV = "PITH_SHFMT"
"""Environment variable naming the shfmt binary to use instead of the one in the venv."""

_TIMEOUT = 10.0

Node = dict[str, object]
"""One node of shfmt's JSON tree (read only: trees are shared through the cache)."""


class ShellSyntaxError(ValueError):
    """The command cannot be parsed (or the parser cannot run); `str()` is one line, such as
    shfmt's `1:6: reached EOF without closing quote '`."""


@dataclass(frozen=True)
class ShellTree:
    """A parsed command."""

    source: str
    """The command as given."""
    data: bytes
    """`source` encoded as UTF-8: node offsets index into these bytes."""
    root: Node
    """shfmt's `File` node: `Stmts` (the statements) and `Last` (trailing comments)."""

    @property
    def stmts(self) -> list[Node]:
        """The top-level statements."""
        return children(self.root, "Stmts")


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


def _offset(node: Node, key: str) -> int:
    position = child(node, key)
    value = position.get("Offset") if position is not None else None
    return value if isinstance(value, int) else 0


def source_slice(data: bytes, node: Node) -> str:
    """The source text of `node` (its `Pos`..`End` byte range of `data`)."""
    return data[_offset(node, "Pos") : _offset(node, "End")].decode("utf-8", "replace")


def find_shfmt() -> str | None:
    """Path of the shfmt executable: `$PITH_SHFMT`, the venv's scripts dir, then PATH."""
    configured = os.environ.get(SHFMT_ENV)
    if configured:
        return configured
    return _installed_shfmt()


@functools.cache
def _installed_shfmt() -> str | None:
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, "shfmt")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("shfmt")


def clear_cache() -> None:
    """Forget every parse (benchmarks measure the parse itself this way)."""
    _parse_cached.cache_clear()


def takes_fast_path(command: str) -> bool:
    """Whether `command` is plain enough to be parsed without shfmt."""
    return _fast_parse(command) is not None


def parse_bash(command: str) -> ShellTree:
    """The syntax tree of `command`; raises `ShellSyntaxError` when it does not parse."""
    result = _parse_cached(command)
    if isinstance(result, str):
        raise ShellSyntaxError(result)
    return result


@functools.lru_cache(maxsize=256)
def _parse_cached(command: str) -> ShellTree | str:
    data = command.encode("utf-8", "surrogateescape")
    root = _fast_parse(command)
    if root is None:
        outcome = _run_shfmt(data)
        if isinstance(outcome, str):
            return outcome
        root = outcome
    return ShellTree(command, data, root)


def _run_shfmt(data: bytes) -> Node | str:
    binary = find_shfmt()
    if binary is None:
        return "the bash parser (shfmt, from the shfmt-py package) is not installed"
    try:
        process = subprocess.Popen(
            [binary, "--to-json", "-ln", "bash"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as error:
        return f"the bash parser could not run: {error}"
    # A watchdog instead of `communicate(timeout=)`, whose wait polls in growing sleeps and
    # adds ~0.5 ms to every parse; here the wait blocks until shfmt exits.
    watchdog = threading.Timer(_TIMEOUT, process.kill)
    watchdog.start()
    try:
        stdout, stderr = process.communicate(data)
    finally:
        watchdog.cancel()
    if process.returncode < 0:
        return f"the bash parser took longer than {_TIMEOUT:g} s"
    if process.returncode != 0:
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[0] if lines else f"the bash parser failed (exit {process.returncode})"
    try:
        root = msgspec.json.decode(stdout)
    except msgspec.DecodeError as error:
        return f"the bash parser printed something that is not JSON: {error}"
    except RecursionError:
        return "the command is nested too deeply to be analyzed"
    if not isinstance(root, dict):
        return "the bash parser printed an unexpected tree"
    return root


# --- fast path ----------------------------------------------------------------------------
#
# Plain words and the four operators, nothing else: no quotes, `$`, backslashes, globs, `~`,
# braces, parentheses, redirections, `&` alone, `#` or newlines. A word that shfmt would not
# read as a plain word or a `NAME=value` assignment (a reserved word or a declaration builtin
# in command position, `NAME+=value`, `=value`) sends the whole command to shfmt, as does any
# empty command between operators. tests/tools/test_shell_parse.py checks the result against
# shfmt on generated commands.

_TOKEN = re.compile(r"[ \t]*(?:([A-Za-z0-9_./,:=+@%^-]+)|(&&|\|\||[|;]))")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_SPECIAL = (
    "if then elif else fi do done case esac while until for in select function time coproc "
    "declare local export readonly typeset nameref let"
)
_SPECIAL_FIRST_WORDS = frozenset(_SPECIAL.split())

_Token = tuple[str, str, int, int]  # (kind "word"/"op", text, start, end)


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
    for _, text, start, end in words:
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
    node: Node = {"Type": "CallExpr", "Pos": _pos(words[0][2]), "End": _pos(words[-1][3])}
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
        if token[0] == "op" and token[1] in ops:
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
            op = parts[index - 1][0]
            result = {
                "Type": "BinaryCmd",
                "Pos": result["Pos"],
                "End": operand["End"],
                "Op": op[1],
                "X": _stmt(result),
                "Y": _stmt(operand),
            }
    return result


def _fast_parse(command: str) -> Node | None:
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
        kind = "word" if match.group(1) is not None else "op"
        start = match.start(1) if kind == "word" else match.start(2)
        tokens.append((kind, command[start : match.end()], start, match.end()))
        position = match.end()
    if not tokens:
        return {"Type": "File"}  # blanks only
    stmts: list[Node] = []
    current: list[_Token] = []
    for token in [*tokens, ("op", ";", -1, -1)]:
        if token[1] != ";" or token[0] != "op":
            current.append(token)
            continue
        if not current:
            if token[2] == -1 and stmts:
                break  # a trailing `;` ends the last statement
            return None
        split = _split(current, ("&&", "||"))
        cmd = _binary(split, ("|",)) if split is not None else None
        if cmd is None:
            return None
        end = token[3] if token[2] != -1 else current[-1][3]
        stmts.append({"Pos": cmd["Pos"], "End": _pos(end), "Cmd": cmd})
        current = []
    return {"Type": "File", "Pos": stmts[0]["Pos"], "End": stmts[-1]["End"], "Stmts": stmts}
