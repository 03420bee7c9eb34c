"""What one bash word becomes when the command runs, as far as the text of the command says.

Bash's expansions in order — brace expansion, tilde expansion, parameter expansion of
variables whose value is known, word splitting, pathname expansion (against the file
system), quote removal — over a word of shfmt's tree. A word whose value depends on anything
else (a command or arithmetic substitution, a variable not assigned a literal in the same
command, `${x:-y}` and other parameter operators, `$1`, extended globs) is *not literal*:
`expand_word` returns None and the caller judges it by its source text.

Characters carry a kind while expanding: typed unquoted (`LIT`: braces and globs work), the
unquoted value of a variable (`VAR`: split and globbed, no braces), or quoted (`QUOTED`:
nothing). A quoted empty string is a `("", QUOTED)` marker so that `""` stays an argument.

`taint` says which names a command may set behind such an analysis's back (`read x`, a
function body), so that their values are never substituted. Shared by the permission system
and the tool guard.
"""

from __future__ import annotations

import glob
import itertools
import pwd
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pith.tools.shell_parse import Node, child, children, string

__all__ = [
    "Expansion",
    "Scope",
    "Taint",
    "assignment_value",
    "decode_ansi_c",
    "expand_word",
    "simple_parameter",
    "taint",
    "word_text",
]

LIT, VAR, QUOTED = 0, 1, 2
_Char = tuple[str, int]

MAX_FIELDS = 1000
"""More fields than this from one word (a huge glob or brace sequence) → not literal."""

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GLOB_CHARS = frozenset("*?[")
_POSIX_CLASS = re.compile(r"\[[!^]?\]?[^]]*\[[:=.]")
_IFS_WHITESPACE = frozenset(" \t\n")
_SIMPLE_PARAM_KEYS = frozenset({"Type", "Pos", "End", "Dollar", "Rbrace", "Short", "Param"})


@dataclass(frozen=True)
class Scope:
    """What the shell knows when a word is expanded."""

    variables: Mapping[str, str | None]
    """Values assigned earlier in the same command (None: assigned something not literal)."""
    home: str | None
    """`$HOME` / `~` when the command does not assign HOME itself."""
    directory: str | None
    """Where the command runs: `$PWD`, and where globs are matched; None when unknown."""
    tainted: frozenset[str] = frozenset()
    """Names that something may set behind the analysis's back (`read x`, a function body)."""
    split_safe: bool = True
    """IFS is untouched, so unquoted values split at blanks."""
    glob_safe: bool = True
    """No `shopt`/GLOBIGNORE, so globs match as with bash's defaults."""

    def variable(self, name: str) -> str | None:
        """The value of `$name`, or None when it is not known."""
        if name in self.tainted:
            return None
        if name in self.variables:
            return self.variables[name]
        if name == "HOME":
            return self.home
        if name == "PWD":
            return self.directory
        return None


@dataclass(frozen=True)
class Expansion:
    """The arguments one word becomes."""

    fields: tuple[str, ...]
    """After every expansion, globs matched against the file system (bash's argv)."""
    unglobbed: tuple[str, ...]
    """The same before pathname expansion (a glob that matched is kept as typed)."""
    globbed: bool
    """Some field came from a file-system match."""


def decode_ansi_c(body: str) -> str:
    """The value of `$'body'`: backslash escapes decoded, cut at a NUL as bash does."""
    out = bytearray()
    i = 0
    simple = {
        "a": 7, "b": 8, "e": 27, "E": 27, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11,
        "\\": 92, "'": 39, '"': 34, "?": 63,
    }  # fmt: skip
    while i < len(body):
        char = body[i]
        if char != "\\" or i + 1 == len(body):
            out += char.encode("utf-8", "surrogateescape")
            i += 1
            continue
        escape, i = body[i + 1], i + 2
        if escape in simple:
            out.append(simple[escape])
        elif escape in "01234567":
            digits = re.match(r"[0-7]{0,2}", body[i:])
            assert digits is not None
            out.append(int(escape + digits.group(), 8) & 0xFF)
            i += digits.end()
        elif escape in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[escape]
            digits = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", body[i:])
            if digits is None:
                out += b"\\" + escape.encode()
                continue
            value = int(digits.group(), 16)
            i += digits.end()
            if escape == "x":
                out.append(value)
            else:
                out += chr(min(value, 0x10FFFF)).encode("utf-8", "surrogatepass")
        elif escape == "c" and i < len(body):
            out.append(ord(body[i]) & 0x1F)
            i += 1
        else:
            out += b"\\" + escape.encode("utf-8", "surrogateescape")
    return out.split(b"\0", 1)[0].decode("utf-8", "replace")


def _unquoted_lit(text: str) -> list[_Char]:
    out: list[_Char] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append((text[i + 1], QUOTED))
            i += 2
        else:
            out.append((text[i], LIT))
            i += 1
    return out


def _double_quoted_lit(text: str) -> list[_Char]:
    out: list[_Char] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append((text[i + 1], QUOTED))
            i += 2
        else:
            out.append((text[i], QUOTED))
            i += 1
    return out


def simple_parameter(part: Node) -> str | None:
    """The name in `$name` / `${name}` (no operators, not special), else None."""
    if any(value for key, value in part.items() if key not in _SIMPLE_PARAM_KEYS):
        return None
    param = child(part, "Param")
    name = string(param, "Value") if param is not None else None
    return name if name is not None and _IDENT.fullmatch(name) else None


def _chars(parts: list[Node], scope: Scope, quoted: bool) -> list[_Char] | None:
    out: list[_Char] = []
    for part in parts:
        kind = part.get("Type")
        if kind == "Lit":
            text = string(part, "Value") or ""
            out += _double_quoted_lit(text) if quoted else _unquoted_lit(text)
        elif kind == "SglQuoted":
            text = string(part, "Value") or ""
            if part.get("Dollar") is True:
                text = decode_ansi_c(text)
            out.append(("", QUOTED))
            out += [(c, QUOTED) for c in text]
        elif kind == "DblQuoted":
            inner = _chars(children(part, "Parts"), scope, quoted=True)
            if inner is None:
                return None
            out.append(("", QUOTED))
            out += inner
        elif kind == "ParamExp":
            name = simple_parameter(part)
            value = scope.variable(name) if name is not None else None
            if value is None:
                return None
            out += [(c, QUOTED if quoted else VAR) for c in value]
        else:
            return None
    return out


def _tilde(chars: list[_Char], scope: Scope) -> list[_Char] | None:
    """Tilde expansion of a word's (or field's) leading `~prefix`."""
    if not chars or chars[0] != ("~", LIT):
        return chars
    end = 1
    while end < len(chars) and chars[end] != ("/", LIT):
        if chars[end][1] == VAR:
            return None  # `~$x`: not worth modelling
        if chars[end][1] == QUOTED:
            return chars  # a quoted prefix is not expanded
        end += 1
    user = "".join(c for c, _ in chars[1:end])
    if user == "":
        home = scope.variable("HOME")
    elif user == "+":
        home = scope.variable("PWD")
    elif user == "-":
        home = None  # OLDPWD
    else:
        try:
            home = pwd.getpwnam(user).pw_dir
        except KeyError:
            return chars  # no such user: bash keeps the word as it is
    if home is None:
        return None
    return [(c, QUOTED) for c in home] + chars[end:]


def _brace_match(chars: list[_Char], start: int) -> tuple[int, list[int]] | None:
    """The `}` closing the `{` at `start` and the commas at its top level."""
    depth = 0
    commas: list[int] = []
    for index in range(start, len(chars)):
        char, kind = chars[index]
        if kind != LIT:
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index, commas
        elif char == "," and depth == 1:
            commas.append(index)
    return None


_SEQUENCE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")


def _sequence(text: str) -> list[str] | None:
    match = _SEQUENCE.fullmatch(text)
    if match is None:
        return None
    first, last, step_text = match.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        a, b = int(first), int(last)
        padded = any(len(x.lstrip("-")) > 1 and x.lstrip("-")[0] == "0" for x in (first, last))
        width = max(len(first), len(last)) if padded else 0
        numbers = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        if len(numbers) > MAX_FIELDS:
            return None
        return [f"{n:0{width}d}" for n in numbers]
    if first.isalpha() and last.isalpha():
        a, b = ord(first), ord(last)
        codes = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [chr(code) for code in codes]
    return None


def _braces(chars: list[_Char]) -> list[list[_Char]] | None:
    """Brace expansion (`{a,b}`, `{1..3}`); None when it yields too many words."""
    start = 0
    while True:
        opening = next(
            (i for i in range(start, len(chars)) if chars[i] == ("{", LIT)),
            None,
        )
        if opening is None:
            return [chars]
        match = _brace_match(chars, opening)
        if match is None:
            start = opening + 1
            continue
        closing, commas = match
        alternatives: list[list[_Char]]
        if commas:
            bounds = [opening, *commas, closing]
            alternatives = [chars[a + 1 : b] for a, b in itertools.pairwise(bounds)]
        else:
            inner = chars[opening + 1 : closing]
            words = (
                _sequence("".join(c for c, _ in inner))
                if all(kind == LIT for _, kind in inner)
                else None
            )
            if words is None:
                start = opening + 1
                continue
            alternatives = [[(c, QUOTED) for c in word] for word in words]
        prefix, suffixes = chars[:opening], _braces(chars[closing + 1 :])
        if suffixes is None:
            return None
        out: list[list[_Char]] = []
        for alternative in alternatives:
            expanded = _braces(alternative)
            if expanded is None:
                return None
            for middle in expanded:
                out += [prefix + middle + suffix for suffix in suffixes]
                if len(out) > MAX_FIELDS:
                    return None
        return out


def _split(chars: list[_Char]) -> list[list[_Char]]:
    """Word splitting: unquoted variable values break at blanks; an empty unquoted value
    vanishes, a quoted empty string stays."""
    fields: list[list[_Char]] = []
    current: list[_Char] = []
    started = False
    for char, kind in chars:
        if kind == VAR and char in _IFS_WHITESPACE:
            if started:
                fields.append(current)
            current, started = [], False
        else:
            current.append((char, kind))
            started = True
    if started:
        fields.append(current)
    return fields


def _glob_pattern(chars: list[_Char]) -> str | None:
    """A pattern for Python's glob with bash's meaning, or None when it uses something Python's
    glob does not know (POSIX classes such as `[[:alpha:]]`)."""
    if _POSIX_CLASS.search(_text(chars)):
        return None
    out: list[str] = []
    for index, (char, kind) in enumerate(chars):
        if kind == QUOTED:
            out.append(glob.escape(char))
        elif char == "^" and index > 0 and chars[index - 1] == ("[", kind) and kind != QUOTED:
            out.append("!")  # bash's `[^…]` is Python's `[!…]`
        else:
            out.append(char)
    return "".join(out)


def _is_glob(chars: list[_Char]) -> bool:
    return any(kind != QUOTED and char in _GLOB_CHARS for char, kind in chars)


def _text(chars: list[_Char]) -> str:
    return "".join(char for char, _ in chars)


def _pathname(chars: list[_Char], scope: Scope) -> list[str] | None:
    """Pathname expansion of one field: its sorted matches, itself when none match."""
    if not _is_glob(chars):
        return [_text(chars)]
    pattern = _glob_pattern(chars)
    if pattern is None or not scope.glob_safe:
        return None
    if not pattern.startswith("/") and scope.directory is None:
        return None
    try:
        matches = sorted(glob.glob(pattern, root_dir=scope.directory))
    except OSError:
        return None
    if len(matches) > MAX_FIELDS:
        return None
    return matches or [_text(chars)]


def _word_chars(word: Node, scope: Scope) -> list[_Char] | None:
    parts = children(word, "Parts")
    if len(parts) == 1 and parts[0].get("Type") == "ProcSubst":
        # bash passes a process substitution as the path of a pipe.
        return [(c, QUOTED) for c in "/dev/fd/63"]
    return _chars(parts, scope, quoted=False)


def expand_word(word: Node, scope: Scope) -> Expansion | None:
    """The arguments `word` becomes, or None when they are not known from the text."""
    chars = _word_chars(word, scope)
    if chars is None:
        return None
    if any(kind == VAR for _, kind in chars) and not scope.split_safe:
        return None
    braced = _braces(chars)
    if braced is None:
        return None
    fields: list[str] = []
    unglobbed: list[str] = []
    globbed = False
    for alternative in braced:
        tilded = _tilde(alternative, scope)
        if tilded is None:
            return None
        for field in _split(tilded):
            matches = _pathname(field, scope)
            if matches is None:
                return None
            globbed = globbed or (_is_glob(field) and matches != [_text(field)])
            fields += matches
            unglobbed.append(_text(field))
    if len(fields) > MAX_FIELDS:
        return None
    return Expansion(tuple(fields), tuple(unglobbed), globbed)


def word_text(word: Node, scope: Scope) -> str | None:
    """`word` as one string, with no brace expansion, splitting or globbing (assignment
    values, `[[ … ]]` operands, here-strings); None when not literal."""
    chars = _word_chars(word, scope)
    if chars is None:
        return None
    tilded = _tilde(chars, scope)
    return None if tilded is None else _text(tilded)


def assignment_value(word: Node | None, scope: Scope) -> str | None:
    """The value `NAME=word` assigns, or None when not literal (`a=~/x:~/y` included)."""
    if word is None:
        return ""
    chars = _word_chars(word, scope)
    if chars is None:
        return None
    if any(chars[i] == (":", LIT) and chars[i + 1] == ("~", LIT) for i in range(len(chars) - 1)):
        return None
    tilded = _tilde(chars, scope)
    return None if tilded is None else _text(tilded)


@dataclass(frozen=True)
class Taint:
    """What a command says about names and settings, whatever the order."""

    names: frozenset[str]
    """Names never substituted: written as a word or inside a string anywhere (`read x`,
    `unset x`, `printf -v x`, `((x++))`, `declare -n r=x`, `${x:=y}`), or assigned in a
    function body (which runs when called, not where it is written)."""
    split_unsafe: bool
    """IFS is assigned or mentioned: unquoted values may split anywhere."""
    glob_unsafe: bool
    """`shopt` or GLOBIGNORE appear: globs may match differently from bash's defaults."""
    cdpath: bool
    """CDPATH appears: a relative `cd` may go elsewhere."""


def taint(root: Node) -> Taint:
    """The names and settings of the command `root` that the walk must not rely on."""
    mentioned: set[str] = set()
    assigned: set[tuple[str, bool]] = set()
    _scan_names(root, mentioned, assigned, in_function=False)
    names = mentioned | {name for name, _ in assigned}
    return Taint(
        frozenset(mentioned | {name for name, in_function in assigned if in_function}),
        split_unsafe="IFS" in names,
        glob_unsafe=bool(names & {"shopt", "GLOBIGNORE"}),
        cdpath="CDPATH" in names,
    )


def _scan_names(
    node: object, mentioned: set[str], assigned: set[tuple[str, bool]], *, in_function: bool
) -> None:
    if isinstance(node, list):
        for item in node:
            _scan_names(item, mentioned, assigned, in_function=in_function)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("Type")
    inside = in_function or kind == "FuncDecl"
    for key, value in node.items():
        if key == "Value" and isinstance(value, str):
            mentioned.update(_IDENT.findall(value))
        elif key == "Name" and kind is None and isinstance(value, dict):
            name = string(value, "Value")
            if name:
                assigned.add((name, inside))  # an assignment's own name
        elif key == "Param" and kind == "ParamExp":
            expansion = child(node, "Exp")
            op = string(expansion, "Op") if expansion is not None else None
            name = simple_parameter({"Param": value}) if isinstance(value, dict) else None
            if op is not None and "=" in op and name:
                mentioned.add(name)  # `${x:=default}` assigns
        elif isinstance(value, dict | list):
            _scan_names(value, mentioned, assigned, in_function=inside)
