"""Quote removal and `$name`: what the characters of one bash word are once quotes and
escapes are gone, each marked with how it was typed.

A character's kind says what bash may still do with it: typed unquoted (`LIT`: globs, braces
and a leading `~` work), the unquoted value of a variable (`VAR`: split at blanks and globbed,
no braces), or quoted (`QUOTED`: taken as it is). Word expansion (`_expand`) builds on these;
`literal_word` is the strict reading that needs no expansion at all.
"""

from __future__ import annotations

import re

from pith.shell._tree import Node, child, children, string

__all__ = [
    "IDENTIFIER",
    "LIT",
    "QUOTED",
    "VAR",
    "Char",
    "chars_text",
    "command_words",
    "decode_ansi_c",
    "double_quoted_chars",
    "is_identifier",
    "literal_word",
    "quiet_word",
    "simple_parameter",
    "unquoted_chars",
]

LIT, VAR, QUOTED = 0, 1, 2
Char = tuple[str, int]
"""One character and its kind (`LIT`, `VAR` or `QUOTED`). A pair rather than a class: words
are expanded character by character and compared as `("~", LIT)`, which must stay cheap. A
quoted empty string is the marker `("", QUOTED)`, so that `""` stays an argument."""

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""A shell variable name."""
_SIMPLE_PARAM_KEYS = frozenset({"Type", "Pos", "End", "Dollar", "Rbrace", "Short", "Param"})
_NEEDS_A_LOOK = re.compile(r"[\\*?\[{~]")
"""What can make a literal part differ from its text: an escape, a glob, a brace, a tilde."""
_CLOSERS = {"[": "]", "{": "}"}
"""Unquoted openers that make bash expand a word (globs, braces) when closed later."""


def is_identifier(text: str) -> bool:
    """`text` is a shell variable name."""
    return IDENTIFIER.fullmatch(text) is not None


def chars_text(chars: list[Char]) -> str:
    """The characters as one string, their kinds dropped."""
    return "".join(char for char, _ in chars)


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


def unquoted_chars(text: str) -> list[Char]:
    """An unquoted literal's characters: `\\x` is a quoted `x`, `\\<newline>` vanishes, the
    rest is `LIT`."""
    if "\\" not in text:
        return [(char, LIT) for char in text]
    out: list[Char] = []
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


def double_quoted_chars(text: str) -> list[Char]:
    """A literal's characters inside `"…"`: all quoted; a backslash escapes only `$`, a
    backtick, `"`, `\\` and a newline (which vanishes)."""
    if "\\" not in text:
        return [(char, QUOTED) for char in text]
    out: list[Char] = []
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
    return name if name is not None and IDENTIFIER.fullmatch(name) else None


def _expands(text: str, first: bool) -> str | None:
    """An unquoted literal part after quote removal, or None when bash would expand something
    in it: an unescaped `*` or `?`, a `[…]` glob or `{…}` brace (an opener with its closer
    later in the part; a lone `[`, as in `[ -f x ]`, is text), or a `~` that starts the word."""
    if _NEEDS_A_LOOK.search(text) is None:
        return text
    if first and text.startswith("~"):
        return None
    chars = unquoted_chars(text)
    for position, (char, kind) in enumerate(chars):
        if kind != LIT:
            continue
        if char in "*?":
            return None
        closer = _CLOSERS.get(char)
        if closer is not None and any(later == closer for later, _ in chars[position + 1 :]):
            return None
    return chars_text(chars)


def literal_word(word: Node) -> str | None:
    """The value of `word` after quote removal, or None when bash would expand anything in
    it (`$x`, `$(…)`, `*`, `{a,b}`, `~`, `$'\\t'` escapes).

    Stricter than expansion with nothing known: the value depends on nothing but the word's
    own text, so it means the same wherever and in whatever environment it runs."""
    out: list[str] = []
    for index, part in enumerate(children(word, "Parts")):
        kind = part.get("Type")
        if kind == "Lit":
            text = _expands(string(part, "Value") or "", first=index == 0)
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
                out.append(chars_text(double_quoted_chars(string(inner, "Value") or "")))
        else:
            return None
    return "".join(out)


def quiet_word(word: Node | None) -> bool:
    """Expanding `word` as an assignment value can neither print nor fail: quotes, literal
    text and plain `$name` / `${name}` only (no substitutions, arithmetic or `${x:?}`)."""
    if word is None:
        return True
    for part in children(word, "Parts"):
        kind = part.get("Type")
        if kind in ("Lit", "SglQuoted"):
            continue
        if kind == "ParamExp" and simple_parameter(part) is not None:
            continue
        if kind == "DblQuoted":
            for inner in children(part, "Parts"):
                if inner.get("Type") == "Lit":
                    continue
                if inner.get("Type") == "ParamExp" and simple_parameter(inner) is not None:
                    continue
                return False
            continue
        return False
    return True


def command_words(call: Node) -> list[str | None]:
    """The words of a `CallExpr` (assignments excluded), each `literal_word` or None."""
    return [literal_word(word) for word in children(call, "Args")]
