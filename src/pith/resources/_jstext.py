"""JavaScript string rules that Pi's resource handling depends on, so pith reproduces them:
what `String.prototype.trim` and the regex class `\\s` call whitespace (not Python's
`str.isspace`), and string lengths counted in UTF-16 code units."""

from __future__ import annotations

__all__ = ["JS_SPACE_CLASS", "JS_WHITESPACE", "js_trim", "utf16_len", "utf16_prefix"]

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""JavaScript's WhiteSpace and LineTerminator characters (`\\s`, `trim()`). Unlike
`str.isspace` it includes U+FEFF and excludes U+001C-U+001F and U+0085."""

JS_SPACE_CLASS = (
    "[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
)
"""A regular-expression character class equal to JavaScript's `\\s`."""


def js_trim(text: str) -> str:
    """`text.trim()` as JavaScript does it."""
    return text.strip(JS_WHITESPACE)


def utf16_len(text: str) -> int:
    """`text.length` in JavaScript: UTF-16 code units (a character outside the BMP counts 2)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def utf16_prefix(text: str, units: int) -> str:
    """`text.slice(0, units)` in JavaScript, except that a character whose two UTF-16 units
    would be split is left out whole (JavaScript keeps half of it, which is not valid text)."""
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > units:
            return text[:index]
    return text
