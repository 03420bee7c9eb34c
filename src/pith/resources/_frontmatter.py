"""YAML frontmatter of skill and prompt-template files, read the way Pi reads it.

A file has frontmatter when, after a leading BOM is dropped and CRLF / CR line ends become LF,
it starts with `---`. The YAML is everything from the fifth character up to the first `\\n---`
(so `---name: x` parses as `ame: x`, and a closing `---x` still closes); the body is the rest
after those four characters, trimmed. Without a closing line there is no frontmatter and the
body is the whole (normalised) text, untrimmed.

The YAML is read with the YAML 1.2 core schema, like the `yaml` package Pi uses: `yes`/`no`
and dates stay strings, map keys become strings the way JavaScript object keys do (`null` ->
`""`, `1.5` -> `"1.5"`), and duplicate keys are an error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pith.json_input import MAX_DEPTH, MAX_NUMBER_DIGITS
from pith.resources._jstext import js_trim

if TYPE_CHECKING:
    from ruamel.yaml.events import Event, MappingStartEvent, ScalarEvent

__all__ = ["Frontmatter", "FrontmatterError", "parse_frontmatter", "strip_frontmatter"]


@dataclass(frozen=True)
class Frontmatter:
    data: object = field(default_factory=dict)
    """The parsed YAML: usually a dict with string keys, but a scalar or a list when the
    block holds one (as in Pi). `{}` when there is no frontmatter or it is empty."""
    body: str = ""
    """The text after the frontmatter, trimmed; the whole text when there is none."""


class FrontmatterError(ValueError):
    """The frontmatter is not valid YAML (one-line message with line and column)."""


def _normalize(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _split(text: str) -> tuple[str | None, str, int]:
    """(YAML text or None, body, the file line the YAML starts on, 1-based)."""
    normalized = _normalize(text)
    if not normalized.startswith("---"):
        return None, normalized, 1
    end = normalized.find("\n---", 3)
    if end == -1:
        return None, normalized, 1
    first_line = 2 if normalized[3:4] == "\n" else 1
    return normalized[4:end], js_trim(normalized[end + 4 :]), first_line


def parse_frontmatter(text: str) -> Frontmatter:
    """The frontmatter data and body of `text`. Raises `FrontmatterError` on invalid YAML."""
    yaml_text, body, first_line = _split(text)
    if not yaml_text:
        return Frontmatter({}, body)
    data = _load_yaml(yaml_text, first_line)
    return Frontmatter({} if data is None else data, body)


def strip_frontmatter(text: str) -> str:
    """The body of `text` (see `parse_frontmatter`). Raises `FrontmatterError` on invalid
    YAML, as Pi's `stripFrontmatter` does."""
    return parse_frontmatter(text).body


# --- YAML 1.2 core schema over ruamel's event stream ---------------------------------------

_NULL = re.compile(r"(?:~|[Nn]ull|NULL)?")
_BOOL = re.compile(r"[Tt]rue|TRUE|[Ff]alse|FALSE")
_INT_OCT = re.compile(r"0o[0-7]+")
_INT = re.compile(r"[-+]?[0-9]+")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT_SPECIAL = re.compile(r"[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN")
_FLOAT_EXP = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)")

_TAG = "tag:yaml.org,2002:"
_RESOLVED_TAGS = frozenset(_TAG + kind for kind in ("null", "bool", "int", "float"))


def _resolve_plain(value: str) -> object:
    """A plain (unquoted, untagged) scalar under the core schema."""
    if _NULL.fullmatch(value):
        return None
    if _BOOL.fullmatch(value):
        return value[0] in "tT"
    if _INT_OCT.fullmatch(value):
        return int(value[2:], 8)
    if _INT.fullmatch(value):
        return int(value)
    if _INT_HEX.fullmatch(value):
        return int(value[2:], 16)
    if _FLOAT_SPECIAL.fullmatch(value):
        if value.lower().endswith("nan"):
            return math.nan
        return -math.inf if value.startswith("-") else math.inf
    if _FLOAT_EXP.fullmatch(value) or _FLOAT.fullmatch(value):
        return float(value)
    return value


def _resolve_tagged(value: str, tag: str) -> object:
    """A scalar with an explicit tag: `!!str` keeps the text, `!!int` & co. resolve it when it
    fits; anything else (custom tags) is kept as text, as Pi's parser does with a warning."""
    if tag in _RESOLVED_TAGS:
        resolved = _resolve_plain(value)
        kind = tag[len(_TAG) :]
        if (
            (kind == "null" and resolved is None)
            or (kind == "bool" and isinstance(resolved, bool))
            or (kind in ("int", "float") and type(resolved) in (int, float))
        ):
            return resolved
    return value


def _js_key(key: object) -> str:
    """A map key as a JavaScript object key."""
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return _js_number(key)
    if isinstance(key, int | str):
        return str(key)
    return _flow(key)


def _js_number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def _flow(value: object) -> str:
    """A collection key written in YAML flow style (how Pi's parser names such keys)."""
    if isinstance(value, list):
        return "[ " + ", ".join(_flow(item) for item in value) + " ]" if value else "[]"
    if isinstance(value, dict):
        items = ", ".join(f"{key}: {_flow(item)}" for key, item in value.items())
        return "{ " + items + " }" if value else "{}"
    return "null" if value is None else _js_key(value)


def _key_identity(key: object) -> object:
    """What makes two keys the same key for the duplicate check (numbers compare by value,
    collections never collide)."""
    if isinstance(key, bool):
        return ("bool", key)
    if isinstance(key, int | float):
        return ("number", float(key))
    if isinstance(key, str):
        return ("str", key)
    if key is None:
        return ("null", None)
    return ("node", id(key))


class _Builder:
    """Builds Python values from ruamel's parser events (so that ruamel's own YAML 1.1-ish
    type resolution never runs)."""

    def __init__(self, events: Iterator[Event], text: str, first_line: int) -> None:
        self._events = events
        self._anchors: dict[str, object] = {}
        self._text = text
        self._first_line = first_line

    def document(self) -> object:
        from ruamel.yaml.events import DocumentStartEvent, StreamEndEvent, StreamStartEvent

        value: object = None
        documents = 0
        for event in self._events:
            if isinstance(event, StreamStartEvent):
                continue
            if isinstance(event, StreamEndEvent):
                break
            if isinstance(event, DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise self._error("more than one YAML document", event)
                value = self._node(next(self._events), 0)
                next(self._events)  # DocumentEndEvent
        return value

    def _error(self, problem: str, event: Event) -> FrontmatterError:
        mark = event.start_mark
        if mark is None:
            return FrontmatterError(f"invalid YAML frontmatter: {problem}")
        where = _location(mark.line, mark.column, self._text, self._first_line)
        return FrontmatterError(f"invalid YAML frontmatter{where}: {problem}")

    def _node(self, event: Event, depth: int) -> object:
        """The value `event` starts, `depth` collections down (bounded like JSON input: the
        builder recurses, and a value nested thousands deep is no skill's metadata)."""
        from ruamel.yaml.events import (
            AliasEvent,
            MappingStartEvent,
            ScalarEvent,
            SequenceStartEvent,
        )

        if isinstance(event, AliasEvent):
            if event.anchor not in self._anchors:
                raise self._error(f"unknown alias *{event.anchor}", event)
            return self._anchors[event.anchor]
        if isinstance(event, ScalarEvent):
            value = self._scalar(event)
            if event.anchor is not None:
                self._anchors[event.anchor] = value
            return value
        if isinstance(event, SequenceStartEvent | MappingStartEvent) and depth >= MAX_DEPTH:
            raise self._error(f"nested more than {MAX_DEPTH} levels deep", event)
        if isinstance(event, SequenceStartEvent):
            items: list[object] = []
            if event.anchor is not None:
                self._anchors[event.anchor] = items
            for item_event in self._until_end():
                items.append(self._node(item_event, depth + 1))
            return items
        if isinstance(event, MappingStartEvent):
            return self._mapping(event, depth)
        raise self._error(f"unexpected {type(event).__name__}", event)

    def _until_end(self) -> Iterator[Event]:
        from ruamel.yaml.events import CollectionEndEvent

        for event in self._events:
            if isinstance(event, CollectionEndEvent):
                return
            yield event

    def _mapping(self, start: MappingStartEvent, depth: int) -> dict[str, object]:
        mapping: dict[str, object] = {}
        if start.anchor is not None:
            self._anchors[start.anchor] = mapping
        seen: set[object] = set()
        events = self._until_end()
        for key_event in events:
            key = self._node(key_event, depth + 1)
            identity = _key_identity(key)
            if identity in seen:
                raise self._error("map keys must be unique", key_event)
            seen.add(identity)
            mapping[_js_key(key)] = self._node(next(events), depth + 1)
        return mapping

    def _scalar(self, event: ScalarEvent) -> object:
        tag = event.tag
        resolvable = (tag is None and event.style is None) or tag in _RESOLVED_TAGS
        if resolvable and len(event.value) > MAX_NUMBER_DIGITS and _INT.fullmatch(event.value):
            # Python will not convert so long a number (and no setting needs one).
            raise self._error(f"a number longer than {MAX_NUMBER_DIGITS} digits", event)
        if tag is None:
            return _resolve_plain(event.value) if event.style is None else event.value
        if tag == "!":
            return event.value
        return _resolve_tagged(event.value, tag)


def _location(line: int, column: int, text: str, first_line: int) -> str:
    """` at line L, column C` in the file's terms (0-based `line`/`column` of the YAML text);
    a position past the end (an unexpected end) is the end of the YAML's last line."""
    lines = text.split("\n")
    if line >= len(lines):
        line, column = len(lines) - 1, len(lines[-1])
    return f" at line {line + first_line}, column {column + 1}"


def _load_yaml(text: str, first_line: int) -> object:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    parser = YAML(typ="safe", pure=True)
    try:
        # Pi's parser ends a block scalar that reaches the end of the text with a line break
        # (clip chomping as if the text ended with one); ruamel does only when it does.
        return _Builder(iter(parser.parse(text + "\n")), text, first_line).document()
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "invalid YAML"
        where = "" if mark is None else _location(mark.line, mark.column, text, first_line)
        raise FrontmatterError(f"invalid YAML frontmatter{where}: {problem}") from None
    except YAMLError as error:
        message = " ".join(str(error).split())
        raise FrontmatterError(f"invalid YAML frontmatter: {message}") from None
