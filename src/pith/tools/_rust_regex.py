"""Rust regex syntax (ripgrep's default engine) translated to Python's `re`, line by line.

ripgrep matches each line without its terminator, so only whether a line matches matters:
captures become plain groups and laziness is dropped. Rust's classes never match invalid
UTF-8, which the caller decodes with `surrogateescape`, so classes exclude those surrogates.
`(?i)` and `(?-u)` last to the end of their group in Rust; here each atom carries scoped flags.
Set operations in classes, negated nested classes and Unicode scripts are not supported.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import NoReturn

__all__ = ["PatternError", "translate"]

_BYTES = "\\udc80-\\udcff"  # invalid UTF-8 bytes, as surrogateescape decodes them
_GUARD = f"(?![{_BYTES}])"  # Rust's Unicode classes never match an invalid byte
_SPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_WORD_START, _WORD_END = "\\b(?=\\w)", "\\b(?<=\\w)"
_OUTSIDE = {"d": "\\d", "D": f"[^\\d{_BYTES}]", "w": "\\w", "W": f"[^\\w{_BYTES}]", "b": "\\b"}
_OUTSIDE |= {"s": f"[{_SPACE}]", "S": f"[^{_SPACE}{_BYTES}]", "<": _WORD_START, ">": _WORD_END}
_INSIDE = {"d": "\\d", "D": "\\D", "w": "\\w", "W": "\\W", "s": _SPACE, "S": "\\S"}
_BOUNDARIES = {"start": _WORD_START, "end": _WORD_END}
_BOUNDARIES |= {"start-half": "(?<!\\w)", "end-half": "(?!\\w)"}
# Anchors for one line (\A, \z), or for a whole file; Rust's \B also matches in an empty line,
# and never next to an invalid byte.
_NOT_BOUNDARY = f"(?:\\B(?<![{_BYTES}])(?![{_BYTES}])|{{0}}{{1}})"
_TEXT_ANCHORS = {"A": "\\A", "z": "\\Z", "B": _NOT_BOUNDARY.format("\\A", "\\Z")}
_LINE_ANCHORS = {"A": "(?m:^)", "z": "(?m:$)", "B": _NOT_BOUNDARY.format("(?m:^)", "(?m:$)")}
_CONTROL = {"a": "\a", "f": "\f", "t": "\t", "n": "\n", "r": "\r", "v": "\v"}
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\0-\x7f", "blank": "\t ",
          "cntrl": "\0-\x1f\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
          "print": " -~", "punct": "!-/:-@[-`{-~", "space": "\t-\r ", "upper": "A-Z",
          "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}  # fmt: skip
_CATEGORIES = {"letter": "L", "lowercaseletter": "Ll", "uppercaseletter": "Lu", "mark": "M",
               "number": "N", "decimalnumber": "Nd", "digit": "Nd", "punctuation": "P",
               "symbol": "S", "separator": "Z", "other": "C", "control": "Cc"}  # fmt: skip
_CATEGORIES |= {code.lower(): code for code in ("L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn",
                "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po",
                "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co",
                "Cn")}  # fmt: skip
_NEWLINE = 'the literal "\\n" is not allowed in a regex'


class PatternError(ValueError):
    """A pattern ripgrep would reject, or one this translation does not support."""


@dataclass(frozen=True)
class _Flags:
    ignore_case: bool
    ascii: bool = False
    verbose: bool = False
    crlf: bool = False


def translate(pattern: str, ignore_case: bool, *, whole_text: bool = False) -> str:
    """Python regex source for a Rust-syntax `pattern`, to search one line without its `\\n`;
    raises `PatternError`. With `whole_text`, a regex for many lines at once that matches
    wherever some line matches (and maybe elsewhere): a cheap test before going line by line."""
    # ripgrep wraps each pattern in `(?:...)`, so `a)|(b` is a valid pattern there too.
    anchors = _LINE_ANCHORS if whole_text else _TEXT_ANCHORS
    translator = _Translator(f"(?:{pattern})", _Flags(ignore_case), anchors)
    body = translator.alternation(translator.base)
    if translator.index < len(translator.pattern):
        raise PatternError("unopened group")
    return body


class _Translator:
    """Recursive descent over Rust's syntax. Flags set by `(?i)` last to the end of the group,
    so each atom is wrapped in a scoped `(?i:...)` when its flags differ from the base."""

    def __init__(self, pattern: str, base: _Flags, anchors: dict[str, str]) -> None:
        self.pattern, self.index, self.base, self.anchors = pattern, 0, base, anchors
        self.names: set[str] = set()
        self.folding = base.ignore_case  # whether the atom being read is case-insensitive

    def fail(self, reason: str) -> NoReturn:
        raise PatternError(reason)

    def peek(self, size: int = 1) -> str:
        return self.pattern[self.index : self.index + size]

    def take(self) -> str:
        if self.index >= len(self.pattern):
            self.fail("unexpected end of pattern")
        self.index += 1
        return self.pattern[self.index - 1]

    def found(self, regex: str) -> re.Match[str] | None:
        """Consume `regex` if the pattern continues with it."""
        match = re.compile(regex).match(self.pattern, self.index)
        self.index = match.end() if match else self.index
        return match

    def alternation(self, flags: _Flags) -> str:
        branches: list[str] = []
        atoms: list[str | None] = []  # None: a `(?flags)` item, which cannot be repeated
        while self.index < len(self.pattern) and self.peek() != ")":
            char = self.take()
            if flags.verbose and (char.isspace() or char == "#"):
                self.found(r"[^\n]*" if char == "#" else "")
            elif char == "|":
                branches.append("".join(filter(None, atoms)))
                atoms = []
            elif char in "*+?{":
                atoms.append(self.repeat(char, atoms.pop() if atoms else None))
            elif char == "(":
                atom, flags = self.group(flags)
                atoms.append(atom)
            else:
                atoms.append(self.scoped(self.atom(char, flags), flags))
        return "|".join([*branches, "".join(filter(None, atoms))])

    def scoped(self, text: str, flags: _Flags) -> str:
        case = "" if flags.ignore_case == self.base.ignore_case else "i"
        case = "-" + case if case and self.base.ignore_case else case
        return f"(?{'a' * flags.ascii}{case}:{text})" if case or flags.ascii else text

    def repeat(self, char: str, atom: str | None) -> str:
        if atom is None:
            self.fail("repetition operator missing expression")
        counted = self.found(r"(\d+)(?:,(\d*))?\}") if char == "{" else None
        if char == "{" and (not counted or int(counted[2] or counted[1]) < int(counted[1])):
            self.fail("invalid counted repetition")
        self.found(r"\?")  # laziness cannot change whether a line matches
        return f"(?:{atom}){char}{counted[0] if counted else ''}"

    def group(self, flags: _Flags) -> tuple[str | None, _Flags]:
        inner = flags
        if self.found(r"\?"):
            named = self.found(r"P?<([A-Za-z_][A-Za-z0-9_.\[\]]*)>")
            if named and named[1] in self.names:
                self.fail(f"duplicate capture group name {named[1]!r}")
            self.names |= {named[1]} if named else set()
            setting = None if named else self.found(r"([imsUuxR]*)(?:-([imsUuxR]+))?([:)])")
            if not named and (not setting or setting[0] == ")"):
                self.fail("look-around, backreferences and this group syntax are unsupported")
            if setting:
                inner = self.flags(flags, setting[1], setting[2] or "")
                if setting[3] == ")":
                    return None, inner
        body = self.alternation(inner)
        if not self.found(r"\)"):
            self.fail("unclosed group")
        return f"(?:{body})", flags

    def flags(self, flags: _Flags, on: str, off: str) -> _Flags:
        for letters, value in ((on, True), (off, False)):
            for letter in letters:
                name = {"i": "ignore_case", "u": "ascii", "x": "verbose", "R": "crlf"}.get(letter)
                if name:  # m, s and U cannot change whether a line matches
                    flags = replace(flags, **{name: value != (letter == "u")})
        return flags

    def atom(self, char: str, flags: _Flags) -> str:
        self.folding = flags.ignore_case
        if char == "[":
            return self.char_class(flags)
        if char == "\\":
            literal, text = self.escape(inside=False)
            return self.fail(_NEWLINE) if literal == "\n" else text
        if char == "\n":
            self.fail(_NEWLINE)
        if char == ".":
            return f"[^\\n{_BYTES}]"
        if char == "^":
            return self.anchors["A"]
        if char == "$":  # the end of the line, or before a `\r` ending it in CRLF mode
            return f"(?=\\r?{self.anchors['z']})" if flags.crlf else self.anchors["z"]
        return re.escape(char)

    def escape(self, *, inside: bool) -> tuple[str | None, str]:
        """The character an escape stands for (None for a class or an assertion) and its regex."""
        char = self.take()
        boundary = None if inside or char != "b" else self.found(r"\{([a-z-]*)\}")
        if boundary:
            return None, _BOUNDARIES.get(boundary[1]) or self.fail("unknown word boundary")
        if not inside and char in self.anchors:
            return None, self.anchors[char]
        if char in (_INSIDE if inside else _OUTSIDE):
            return None, (_INSIDE if inside else _OUTSIDE)[char]
        if char in "pP":
            return None, self.category(char == "P", inside)
        if char in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[char]
            code = self.found(rf"\{{([0-9A-Fa-f]{{1,8}})\}}|[0-9A-Fa-f]{{{width}}}")
            value = int(code[1] or code[0], 16) if code else -1
            if not 0 <= value <= 0x10FFFF or 0xD800 <= value <= 0xDFFF:
                self.fail(f"invalid \\{char} escape")
            literal = chr(value)
        elif (char.isascii() and not char.isalnum()) or char in _CONTROL:
            literal = _CONTROL.get(char, char)
        else:
            self.fail(f"unsupported escape \\{char}")
        return literal, re.escape(literal)

    def category(self, negated: bool, inside: bool) -> str:
        name = self.found(r"\{([^}]*)\}|.")
        key = (name[1] or name[0]) if name else ""
        code = _CATEGORIES.get(re.sub(r"[\s_-]", "", key).lower())
        if code is None:
            self.fail("unsupported Unicode class")
        body = _ranges_text(_category_ranges(code), negated, self.folding)
        return body if inside else f"{_GUARD}[{body}]"

    def char_class(self, flags: _Flags) -> str:
        negated, body, had_newline = self.class_parts(flags)
        if negated:
            return f"[^{body}{_BYTES}]"
        return (
            f"{_GUARD}[{body}]" if body else self.fail(_NEWLINE if had_newline else "empty class")
        )

    def class_parts(self, flags: _Flags) -> tuple[bool, str, bool]:
        """After `[`: whether it is negated, the class body, and whether it held a `\\n`."""
        negated = bool(self.found(r"\^"))
        self.folding = flags.ignore_case
        parts: list[str] = []
        first, had_newline = True, False
        while not (self.peek() == "]" and not first):
            if flags.verbose:
                self.found(r"\s*")
            if not first and self.peek(2) in ("&&", "--", "~~"):
                self.fail("class set operations are unsupported")
            posix = self.found(r"\[:(\^?)([a-z]+):\]")
            if posix and posix[2] not in _POSIX:
                self.fail(f"unknown POSIX class {posix[2]!r}")
            if posix:
                ranges = tuple(_spec_ranges(_POSIX[posix[2]]))
                parts.append(_ranges_text(ranges, bool(posix[1]), self.folding))
            elif self.peek() == "[" and self.found(r"\["):
                nested, inner, newline = self.class_parts(flags)
                parts.append(inner if not nested else self.fail("negated nested class"))
                had_newline |= newline
            else:
                item = self.class_item()
                had_newline |= item == "\n"
                parts.append("" if item == "\n" else item)
            first = False
        self.index += 1
        return negated, "".join(parts), had_newline

    def class_item(self) -> str:
        char = self.take()
        low, text = self.escape(inside=True) if char == "\\" else (char, re.escape(char))
        if low is None or self.peek() != "-" or self.peek(2) == "-]":
            return low if low == "\n" else text
        self.index += 1
        char = self.take()
        high = self.escape(inside=True)[0] if char == "\\" else char
        if high is None or high < low:
            self.fail("invalid class range")
        return f"{text}-{re.escape(high)}"


@functools.cache
def _category_ranges(code: str) -> tuple[tuple[int, int], ...]:
    """Code point ranges of a Unicode general category (all of them for `L`, `N`...)."""
    ranges: list[tuple[int, int]] = []
    for point in range(0x110000):
        if unicodedata.category(chr(point)).startswith(code):
            if ranges and ranges[-1][1] == point - 1:
                ranges[-1] = (ranges[-1][0], point)
            else:
                ranges.append((point, point))
    return tuple(ranges)


def _ranges_text(ranges: tuple[tuple[int, int], ...], negated: bool, folding: bool) -> str:
    """A class body for code point `ranges`, or for all the others when `negated`.

    Like Rust, a case-insensitive negation leaves out every case variant of `ranges` too."""
    if negated:
        gaps, start = [], 0
        for low, high in sorted(_case_closed(ranges) if folding else ranges):
            gaps += [(start, low - 1)] if low > start else []
            start = max(start, high + 1)
        ranges = (*gaps, (start, 0x10FFFF)) if start <= 0x10FFFF else tuple(gaps)
    return "".join(f"\\U{lo:08x}" + (f"-\\U{hi:08x}" if hi > lo else "") for lo, hi in ranges)


@functools.cache
def _case_closed(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """`ranges` plus every code point that folds to the same character as one in them."""
    groups = _fold_groups()
    points = {point for low, high in ranges for point in range(low, high + 1)}
    points.update(*(groups.get(_fold(chr(point)), ()) for point in list(points)))
    closed: list[tuple[int, int]] = []
    for point in sorted(points):
        if closed and closed[-1][1] == point - 1:
            closed[-1] = (closed[-1][0], point)
        else:
            closed.append((point, point))
    return tuple(closed)


def _fold(char: str) -> str:
    return next((form for form in (char.casefold(), char.lower()) if len(form) == 1), char)


@functools.cache
def _fold_groups() -> dict[str, tuple[int, ...]]:
    """Code points that fold alike (`k`, `K`, KELVIN SIGN), keyed by their folded form."""
    groups: dict[str, list[int]] = {}
    for point in range(0x110000):
        groups.setdefault(_fold(chr(point)), []).append(point)
    return {key: tuple(points) for key, points in groups.items() if len(points) > 1}


def _spec_ranges(spec: str) -> list[tuple[int, int]]:
    """Ranges from a POSIX class spec such as `0-9A-Fa-f`."""
    pairs = re.findall(r"(.)(?:-(.))?", spec, re.DOTALL)
    return [(ord(low), ord(high or low)) for low, high in pairs]
