"""Pure-Python stand-in for the `rg --json` search that `grep` runs: the same events.

Files come from the walker in `_walk` (with the `--glob` overrides grep passes). Like ripgrep,
a file found by walking is given up on at the first NUL byte, but only when its read buffer
reaches it, so matches in earlier buffers are reported; a file named explicitly is searched as
text. A UTF-8 byte-order mark is dropped and UTF-16 (with a mark) is transcoded. The pattern
is Rust regex syntax, translated to Python's `re`, matched against each line without its `\\n`.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import NoReturn

from pith.agent import ToolError
from pith.tools._walk import GlobError, walk
from pith.tools.grep import GrepEvent, rg_arguments

__all__ = ["search"]

_CAPACITY = 64 * 1024  # ripgrep's initial line buffer
_BLOCK = 1 << 20


def search(
    pattern: str,
    search_path: str,
    is_directory: bool,
    *,
    ignore_case: bool,
    literal: bool,
    glob: str | None,
    context: int,
) -> Iterator[GrepEvent]:
    """The match and context events `rg` would print for `rg_arguments(...)`, in its order.

    Raises `ToolError` at once for a pattern or glob ripgrep would reject."""
    regex = compile_pattern(pattern, ignore_case=ignore_case, literal=literal)
    if not is_directory:
        return _search_file(search_path, search_path, regex, context, explicit=True)
    arguments = rg_arguments(
        pattern, ".", ignore_case=ignore_case, literal=literal, glob=glob, context=context
    )
    options = arguments[: arguments.index("--")]
    globs = [options[i + 1] for i, option in enumerate(options) if option == "--glob"]
    try:
        files = walk(search_path, require_git=True, globs=globs)
    except GlobError as error:
        raise ToolError(f"Invalid glob: {error}") from None
    return _search_tree(search_path, files, regex, context)


def compile_pattern(pattern: str, *, ignore_case: bool, literal: bool) -> re.Pattern[str]:
    """`pattern` (Rust regex syntax, or a literal) as a Python regex for one line of text."""
    try:
        if "\n" in pattern:
            raise PatternError('the literal "\\n" is not allowed in a regex')
        translated = re.escape(pattern) if literal else translate(pattern, ignore_case)
        return re.compile(translated, re.IGNORECASE if ignore_case else 0)
    except (PatternError, re.error, OverflowError, RecursionError) as error:
        raise ToolError(f"Invalid regex {pattern!r}: {error}") from None


def _search_tree(
    root: str, files: Iterator[str], regex: re.Pattern[str], context: int
) -> Iterator[GrepEvent]:
    for relative in files:
        shown = ("./" + relative).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        path = f"{root}/{relative}"
        yield from _search_file(path, shown, regex, context, explicit=False)


def _search_file(
    path: str, shown: str, regex: re.Pattern[str], context: int, *, explicit: bool
) -> Iterator[GrepEvent]:
    try:
        data = _read(path, stop_at_nul=not explicit)
    except OSError:
        return  # ripgrep reports an unreadable file on stderr and goes on
    stream, has_bom = _decoded(data)
    if explicit and has_bom:
        stream = stream.replace(b"\0", b"\n")  # ripgrep's reader turns NULs into line ends
    lines = _split_lines(stream)
    nul = -1 if explicit else stream.find(b"\0")
    if nul >= 0:
        ends = _line_ends(lines)
        before_nul = bisect.bisect_right(ends, nul)
        matched = [i for i in range(before_nul) if _matches(regex, lines[i])] if context else []
        searched = _quit_offset(stream, not has_bom, context, ends, matched)
        lines = lines[: bisect.bisect_right(ends, searched)]
    flags = [_matches(regex, line) for line in lines]
    yield from _events(lines, flags, context, shown)


def _read(path: str, *, stop_at_nul: bool) -> bytes:
    """The file's bytes; a walked file is read only up to its first NUL (nothing after counts)."""
    blocks: list[bytes] = []
    with open(path, "rb") as file:
        while block := file.read(_BLOCK):
            blocks.append(block)
            utf16 = blocks[0].startswith((b"\xff\xfe", b"\xfe\xff"))
            if stop_at_nul and not utf16 and b"\0" in block:
                break
    return b"".join(blocks)


def _decoded(data: bytes) -> tuple[bytes, bool]:
    """The bytes ripgrep searches, and whether the file started with a byte-order mark."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:], True
    for bom, codec in ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            # The decoder drops a second mark too, as ripgrep's does.
            return data[2:].decode(codec, "replace").removeprefix("\ufeff").encode(), True
    return data, False


def _split_lines(stream: bytes) -> list[bytes]:
    """Lines with their `\\n`; a last line without one is kept as it is."""
    pieces = stream.split(b"\n")
    lines = [piece + b"\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _line_ends(lines: list[bytes]) -> list[int]:
    ends: list[int] = []
    total = 0
    for line in lines:
        total += len(line)
        ends.append(total)
    return ends


def _matches(regex: re.Pattern[str], line: bytes) -> bool:
    # Invalid UTF-8 bytes become lone surrogates, which the translated classes never match.
    return regex.search(line.removesuffix(b"\n").decode("utf-8", "surrogateescape")) is not None


def _events(lines: list[bytes], flags: list[bool], context: int, shown: str) -> Iterator[GrepEvent]:
    """Each match with up to `context` lines around it; overlapping windows merge."""
    emitted = -1
    for index, is_match in enumerate(flags):
        if not is_match or index + context <= emitted:
            continue
        last = min(index + context, len(lines) - 1)
        for number in range(max(index - context, emitted + 1), last + 1):
            text = lines[number].decode("utf-8", "replace")
            yield GrepEvent(flags[number], shown, number + 1, text)
        emitted = last


def _quit_offset(
    stream: bytes, peeked: bool, context: int, ends: list[int], matched: list[int]
) -> int:
    """How far ripgrep searches a walked file before its reads reach the first NUL.

    ripgrep's buffer starts at 64 KiB and triples when one line does not fit; the first read
    returns the 3 bytes peeked for a byte-order mark. Each read must reach a line end before the
    lines are searched, and a read that contains a NUL ends the file unsearched. What stays in
    the buffer between reads (a partial line, plus lines kept for context) shrinks the next read.
    """
    capacity, offset, kept, searched = _CAPACITY, 0, 0, 0
    first = peeked
    while True:
        end = kept
        while True:
            if end == capacity:
                capacity *= 3
            size = min(3, capacity - end) if first else capacity - end
            first = False
            chunk = stream[offset : offset + size]
            if not chunk:
                return len(stream)
            if b"\0" in chunk:
                return searched
            offset, end = offset + len(chunk), end + len(chunk)
            if b"\n" in chunk:
                break
        start = offset - end
        previous, searched = searched, stream.rfind(b"\n", 0, offset) + 1
        consumed = searched
        if context:
            visited = _last_visited(ends, matched, context, previous, searched)
            consumed = max(_preceding(stream, start, searched, context), visited or start)
        kept = offset - consumed


def _preceding(stream: bytes, start: int, end: int, count: int) -> int:
    """Where the line `count` lines before the buffer's last line starts (ripgrep's rule)."""
    position = end
    if position > start and stream[position - 1] == 0x0A:
        position -= 1
    while True:
        found = stream.rfind(b"\n", start, position)
        if found < 0:
            return start
        if count == 0:
            return found + 1
        if found == start:
            return start
        count -= 1
        position = found


def _last_visited(ends: list[int], matched: list[int], context: int, old: int, new: int) -> int:
    """End of the last line printed while searching the bytes between `old` and `new`."""
    first_line = bisect.bisect_right(ends, old)
    last_line = bisect.bisect_left(ends, new)
    before = bisect.bisect_right(matched, last_line)
    if before == 0:
        return 0
    shown = min(matched[before - 1] + context, last_line)
    return ends[shown] if shown >= first_line else 0


# --- Rust regex syntax to Python `re` -------------------------------------------------------

_BYTES = "\\udc80-\\udcff"  # invalid UTF-8 bytes, as surrogateescape decodes them
_GUARD = f"(?![{_BYTES}])"  # Rust's Unicode classes never match an invalid byte
_SPACE = "\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
_WORD_START, _WORD_END = "\\b(?=\\w)", "\\b(?<=\\w)"
_OUTSIDE = {"d": "\\d", "D": f"[^\\d{_BYTES}]", "w": "\\w", "W": f"[^\\w{_BYTES}]", "A": "\\A"}
_OUTSIDE |= {"s": f"[{_SPACE}]", "S": f"[^{_SPACE}{_BYTES}]", "z": "\\Z", "b": "\\b", "B": "\\B"}
_OUTSIDE |= {"<": _WORD_START, ">": _WORD_END}
_INSIDE = {"d": "\\d", "D": "\\D", "w": "\\w", "W": "\\W", "s": _SPACE, "S": "\\S"}
_BOUNDARIES = {
    "start": _WORD_START,
    "end": _WORD_END,
    "start-half": "(?<!\\w)",
    "end-half": "(?!\\w)",
}
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


def translate(pattern: str, ignore_case: bool) -> str:
    """Python regex source for a Rust-syntax `pattern`; raises `PatternError`."""
    # ripgrep wraps each pattern in `(?:...)`, so `a)|(b` is a valid pattern there too.
    translator = _Translator(f"(?:{pattern})", _Flags(ignore_case))
    body = translator.alternation(translator.base)
    if translator.index < len(translator.pattern):
        raise PatternError("unopened group")
    return body


class _Translator:
    """Recursive descent over Rust's syntax. Flags set by `(?i)` last to the end of the group,
    so each atom is wrapped in a scoped `(?i:...)` when its flags differ from the base."""

    def __init__(self, pattern: str, base: _Flags) -> None:
        self.pattern, self.index, self.base = pattern, 0, base
        self.names: set[str] = set()

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
                self.found(r"[^\n]*") if char == "#" else None
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
        if char == "\n":
            self.fail(_NEWLINE)
        simple = {"[": None, ".": f"[^\\n{_BYTES}]", "^": "^", "\\": None}
        simple["$"] = "(?=\\r?\\Z)" if flags.crlf else "\\Z"
        if char == "[":
            return self.char_class(flags)
        if char == "\\":
            literal, text = self.escape(inside=False)
            return self.fail(_NEWLINE) if literal == "\n" else text
        return simple.get(char) or re.escape(char)

    def escape(self, *, inside: bool) -> tuple[str | None, str]:
        """The character an escape stands for (None for a class or an assertion) and its regex."""
        char = self.take()
        boundary = None if inside or char != "b" else self.found(r"\{([a-z-]*)\}")
        if boundary:
            return None, _BOUNDARIES.get(boundary[1]) or self.fail("unknown word boundary")
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
        body = _ranges_text(_category_ranges(code), negated)
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
                parts.append(_ranges_text(_spec_ranges(_POSIX[posix[2]]), bool(posix[1])))
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


def _ranges_text(ranges: Iterable[tuple[int, int]], negated: bool) -> str:
    """A class body for code point `ranges`, or for all the others when `negated`."""
    if negated:
        gaps, start = [], 0
        for low, high in sorted(ranges):
            gaps += [(start, low - 1)] if low > start else []
            start = max(start, high + 1)
        ranges = [*gaps, (start, 0x10FFFF)] if start <= 0x10FFFF else gaps
    return "".join(f"\\U{lo:08x}" + (f"-\\U{hi:08x}" if hi > lo else "") for lo, hi in ranges)


def _spec_ranges(spec: str) -> list[tuple[int, int]]:
    """Ranges from a POSIX class spec such as `0-9A-Fa-f`."""
    ranges: list[tuple[int, int]] = []
    index = 0
    while index < len(spec):
        high = spec[index + 2] if spec[index + 1 : index + 2] == "-" else spec[index]
        ranges.append((ord(spec[index]), ord(high)))
        index += 3 if high != spec[index] or spec[index + 1 : index + 2] == "-" else 1
    return ranges
