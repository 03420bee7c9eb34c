"""JavaScript's `JSON.stringify` and string ordering, for text the model reads and counts.

Pi measures tool-call arguments and tool declarations as `JSON.stringify(value).length` (token
estimates) and writes arguments into the summarizer's input with `JSON.stringify(value)`.
Python's `json.dumps` agrees for the common case (no floats, no integer-like keys, no lone
surrogates) and is used then; otherwise a small formatter reproduces JavaScript: numbers in
ECMAScript's `Number#toString` form, integer-like object keys first in ascending order, lone
surrogates escaped.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable

__all__ = ["js_length", "js_number", "js_object_keys", "js_sorted", "js_stringify"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ARRAY_INDEX_LIMIT = 2**32 - 1


def js_length(text: str) -> int:
    """`text.length` in JavaScript: UTF-16 code units (an astral character counts 2)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _is_array_index(key: str) -> bool:
    """Canonical array-index strings ("0", "17", not "01"): JavaScript orders them first."""
    if not key or not key.isdigit() or not key.isascii():
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return int(key) < _ARRAY_INDEX_LIMIT


def js_object_keys(keys: Iterable[str]) -> list[str]:
    """Keys in JavaScript's property order: integer-like keys ascending, then the rest in
    insertion order."""
    listed = list(keys)
    indices = [key for key in listed if _is_array_index(key)]
    if not indices:
        return listed
    indices.sort(key=int)
    return indices + [key for key in listed if not _is_array_index(key)]


def js_number(value: float) -> str:
    """`String(value)` in JavaScript (ECMAScript Number::toString)."""
    if math.isnan(value) or math.isinf(value):
        return "null"  # JSON.stringify writes non-finite numbers as null
    if value == 0:
        return "0"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    k = len(digits)
    n = exponent + k  # the decimal point sits after n digits
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest round-tripping decimal digits of `value` and their exponent."""
    text = repr(value)
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    digits = (whole + fraction).lstrip("0")
    exponent -= len(fraction)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return stripped or "0", exponent


def _plain(value: object) -> bool:
    """True when `json.dumps` already writes what `JSON.stringify` writes."""
    if isinstance(value, str):
        return value.isascii() or _LONE_SURROGATE.search(value) is None
    if value is None or isinstance(value, bool | int):
        return True
    if isinstance(value, float):
        return False
    if isinstance(value, dict):
        return all(
            isinstance(key, str) and not _is_array_index(key) and _plain(key) and _plain(item)
            for key, item in value.items()
        )
    if isinstance(value, list | tuple):
        return all(_plain(item) for item in value)
    return False


def _string(text: str) -> str:
    quoted = json.dumps(text, ensure_ascii=False)
    if text.isascii():
        return quoted
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", quoted)


def _slow(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(_slow(item) for item in value) + "]"
    if isinstance(value, dict):
        items = {str(key): item for key, item in value.items()}
        return (
            "{"
            + ",".join(f"{_string(key)}:{_slow(items[key])}" for key in js_object_keys(items))
            + "}"
        )
    return _string(str(value))


def js_stringify(value: object) -> str:
    """`JSON.stringify(value)` for JSON-shaped Python values (dicts, lists, scalars)."""
    if _plain(value):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _slow(value)


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def js_sorted(strings: Iterable[str]) -> list[str]:
    """`[...strings].sort()` in JavaScript: by UTF-16 code units, not code points."""
    listed = list(strings)
    if all(text.isascii() for text in listed):
        return sorted(listed)
    return sorted(listed, key=_utf16_key)
