"""Decoding JSON that comes from outside pith: files, RPC lines, model replies, CLI arguments.

Every such decoder goes through `parse_json` (or, for a typed msgspec decoder, calls
`check_json_limits` first). Both bound what a decoder would otherwise die on: arrays and objects
nested deeper than `MAX_DEPTH` (Python's decoders raise `RecursionError` near 1000 levels, and
code that walks a value later recurses too) and numbers longer than `MAX_NUMBER_DIGITS` digits
(Python refuses to convert integers past 4300 digits). A refusal is a `JsonInputError` naming
where the text came from, the line and column, and what to do — never a bare `RecursionError`
or `ValueError`.

`unique_keys=True` also refuses an object that names the same key twice: JSON decoders keep the
last value silently, so a second `"permission"` block would drop the first one's rules.
"""

from __future__ import annotations

import itertools
import json
import re

from pith.errors import InputError

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "MAX_DEPTH",
    "MAX_NUMBER_DIGITS",
    "JsonInputError",
    "check_json_limits",
    "parse_json",
]

MAX_DEPTH = 128
"""Deepest nesting of arrays and objects accepted (pith's own files nest a few levels)."""
MAX_ARGUMENT_DEPTH = 100
"""Deepest nesting of a model's tool-call arguments: they are stored inside session lines and
sent back inside requests, so they leave room under `MAX_DEPTH` for that wrapping."""
MAX_NUMBER_DIGITS = 1000
"""Longest run of digits in a number (JSON numbers are doubles to Pi; 309 digits overflow)."""


class JsonInputError(InputError):
    """JSON pith will not use. `str(error)` is `SOURCE:LINE:COLUMN: REASON; FIX`; the parts are
    attributes, for callers that frame the message their own way."""

    def __init__(
        self,
        source: str,
        reason: str,
        *,
        line: int = 1,
        column: int = 1,
        fix: str,
        limit: bool = False,
    ) -> None:
        self.source = source
        self.limit = limit
        """True when the text is JSON but past a limit (depth, number length)."""
        self.reason = reason
        self.line = line
        self.column = column
        self.fix = fix
        tail = f"; {fix}" if fix else ""
        super().__init__(f"{source}:{line}:{column}: {reason}{tail}")


def parse_json(
    data: bytes | str,
    source: str,
    *,
    fix: str,
    unique_keys: bool = False,
    max_depth: int = MAX_DEPTH,
) -> object:
    """The value of the JSON text `data` (bytes must be UTF-8).

    Raises `JsonInputError` naming `source` (a path, or words such as "tool call arguments")
    and ending with `fix` (what the reader should do) when the text is not valid JSON, is too
    deep or holds a too-long number, or (with `unique_keys`) repeats a key in one object."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line, column = _position(data, error.start)
            raise JsonInputError(
                source, "not valid UTF-8", line=line, column=column, fix=fix
            ) from None
    else:
        text = data
    check_json_limits(text, source, fix=fix, max_depth=max_depth)
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise JsonInputError(
            source,
            f"not valid JSON ({error.msg})",
            line=error.lineno,
            column=error.colno,
            fix=fix,
        ) from None
    except _NotJson as error:
        raise JsonInputError(source, f"not valid JSON ({error})", fix=fix) from None
    except (RecursionError, ValueError) as error:
        # The limits were checked above; this is the backstop for text they mis-scanned.
        reason = f"too large to decode ({error})"
        raise JsonInputError(source, reason, fix=fix, limit=True) from None
    if unique_keys:
        _scan(_encoded(text), source, fix, max_depth=max_depth, unique_keys=True)
    return value


class _NotJson(ValueError):
    pass


def _no_constant(name: str) -> object:
    raise _NotJson(f"{name} is not a JSON value")


def check_json_limits(
    data: bytes | str, source: str, *, fix: str, max_depth: int = MAX_DEPTH
) -> None:
    """Raise `JsonInputError` when `data` nests deeper than `max_depth` or holds a number of
    more than `MAX_NUMBER_DIGITS` digits; otherwise nothing. Brackets and digits inside
    strings do not count. For use before a decoder that does not go through `parse_json`."""
    raw = _encoded(data)
    deep = raw.count(b"[") + raw.count(b"{") > max_depth
    long_number = len(raw) > MAX_NUMBER_DIGITS and _LONG_DIGITS.search(raw) is not None
    if not (deep or long_number):
        return
    if not long_number and _max_depth(raw) <= max_depth:
        return
    _scan(raw, source, fix, max_depth=max_depth, unique_keys=False)


def _encoded(data: bytes | str) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")


# --- scanning ---------------------------------------------------------------------------------

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_LONG_DIGITS = re.compile(rb"(?<![0-9])[0-9]{%d}" % (MAX_NUMBER_DIGITS + 1))
_STRINGS = re.compile(_STRING, re.DOTALL)
_TOKENS = re.compile(
    rb"(?P<string>" + _STRING + rb")(?P<colon>[ \t\r\n]*:)?"
    rb"|(?P<open>[\[{])|(?P<close>[\]}])"
    rb"|(?P<number>(?<![0-9])[0-9]{%d})" % (MAX_NUMBER_DIGITS + 1),
    re.DOTALL,
)
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")
_STEP = [0] * 256
for _byte in b"[{":
    _STEP[_byte] = 1
for _byte in b"]}":
    _STEP[_byte] = -1


def _max_depth(raw: bytes) -> int:
    """The deepest nesting in `raw`, strings left out (all in C: no Python loop per byte)."""
    brackets = _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _scan(raw: bytes, source: str, fix: str, *, max_depth: int, unique_keys: bool) -> None:
    """Walk the tokens of `raw` and raise at the first one past a limit (or a repeated key)."""
    frames: list[set[str] | None] = []
    for token in _TOKENS.finditer(raw):
        if token.group("open"):
            frames.append(set() if token.group() == b"{" else None)
            if len(frames) > max_depth:
                reason = f"nested more than {max_depth} levels deep"
                _raise(raw, token.start(), source, reason, fix, limit=True)
        elif token.group("close"):
            if frames:
                frames.pop()
        elif token.group("number"):
            reason = f"a number longer than {MAX_NUMBER_DIGITS} digits"
            _raise(raw, token.start(), source, reason, fix, limit=True)
        elif unique_keys and token.group("colon") and frames and frames[-1] is not None:
            key = _key(token.group("string"))
            if key in frames[-1]:
                shown = json.dumps(key, ensure_ascii=False)
                _raise(raw, token.start(), source, f"the key {shown} appears twice here", fix)
            frames[-1].add(key)


def _key(token: bytes) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        return token.decode("utf-8", "replace")
    return key if isinstance(key, str) else str(key)


def _raise(
    raw: bytes, offset: int, source: str, reason: str, fix: str, *, limit: bool = False
) -> None:
    line, column = _position(raw, offset)
    raise JsonInputError(source, reason, line=line, column=column, fix=fix, limit=limit)


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte `offset`."""
    start = raw.rfind(b"\n", 0, offset) + 1
    column = len(raw[start:offset].decode("utf-8", "replace")) + 1
    return raw.count(b"\n", 0, offset) + 1, column
