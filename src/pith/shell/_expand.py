"""What one bash word becomes when the command runs, as far as the text of the command says.

Bash's expansions in order — brace expansion, tilde expansion, parameter expansion of
variables whose value is known, word splitting, pathname expansion (against the file
system), quote removal — over a word of shfmt's tree, on the characters `_quotes` marks with
how they were typed. A word whose value depends on anything else (a command or arithmetic
substitution, a variable not assigned a literal in the same command, `${x:-y}` and other
parameter operators, `$1`, extended globs) is *not literal*: `expand_word` returns None and
the caller judges it by its source text.
"""

from __future__ import annotations

import glob
import itertools
import pwd
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pith.shell._quotes import (
    LIT,
    QUOTED,
    VAR,
    Char,
    chars_text,
    decode_ansi_c,
    double_quoted_chars,
    simple_parameter,
    unquoted_chars,
)
from pith.shell._tree import Node, children, string

__all__ = [
    "MAX_FIELDS",
    "Expansion",
    "Scope",
    "assignment_value",
    "expand_word",
    "lone_process_substitution",
    "word_text",
]

MAX_FIELDS = 1000
"""More fields than this from one word (a huge glob or brace sequence) → not literal."""

_GLOB_CHARS = frozenset("*?[")
_POSIX_CLASS = re.compile(r"\[[!^]?\]?[^]]*\[[:=.]")
_IFS_WHITESPACE = frozenset(" \t\n")


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


def _chars(parts: list[Node], scope: Scope, quoted: bool) -> list[Char] | None:
    out: list[Char] = []
    for part in parts:
        kind = part.get("Type")
        if kind == "Lit":
            text = string(part, "Value") or ""
            out += double_quoted_chars(text) if quoted else unquoted_chars(text)
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


def _tilde(chars: list[Char], scope: Scope) -> list[Char] | None:
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


def _brace_match(chars: list[Char], start: int) -> tuple[int, list[int]] | None:
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


def _braces(chars: list[Char]) -> list[list[Char]] | None:
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
        alternatives: list[list[Char]]
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
        out: list[list[Char]] = []
        for alternative in alternatives:
            expanded = _braces(alternative)
            if expanded is None:
                return None
            for middle in expanded:
                out += [prefix + middle + suffix for suffix in suffixes]
                if len(out) > MAX_FIELDS:
                    return None
        return out


def _split(chars: list[Char]) -> list[list[Char]]:
    """Word splitting: unquoted variable values break at blanks; an empty unquoted value
    vanishes, a quoted empty string stays."""
    fields: list[list[Char]] = []
    current: list[Char] = []
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


def _glob_pattern(chars: list[Char]) -> str | None:
    """A pattern for Python's glob with bash's meaning, or None when it uses something Python's
    glob does not know (POSIX classes such as `[[:alpha:]]`)."""
    if _POSIX_CLASS.search(chars_text(chars)):
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


def _is_glob(chars: list[Char]) -> bool:
    return any(kind != QUOTED and char in _GLOB_CHARS for char, kind in chars)


def _pathname(chars: list[Char], scope: Scope) -> list[str] | None:
    """Pathname expansion of one field: its sorted matches, itself when none match."""
    if not _is_glob(chars):
        return [chars_text(chars)]
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
    return matches or [chars_text(chars)]


def lone_process_substitution(word: Node) -> bool:
    """The word is one `<(…)` or `>(…)` and nothing else: bash passes it as the path of a
    pipe to the commands inside."""
    return _lone_process_substitution(children(word, "Parts"))


def _lone_process_substitution(parts: list[Node]) -> bool:
    return len(parts) == 1 and parts[0].get("Type") == "ProcSubst"


def _word_chars(word: Node, scope: Scope) -> list[Char] | None:
    parts = children(word, "Parts")
    if _lone_process_substitution(parts):
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
            globbed = globbed or (_is_glob(field) and matches != [chars_text(field)])
            fields += matches
            unglobbed.append(chars_text(field))
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
    return None if tilded is None else chars_text(tilded)


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
    return None if tilded is None else chars_text(tilded)
