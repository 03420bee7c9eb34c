"""`schemas/permissions.schema.json` describes exactly what `build_rules` accepts.

The schema is checked by a small interpreter written here for the keywords it uses (no
`jsonschema` dependency); a keyword the interpreter does not know fails the test, so the
schema cannot grow a rule this file does not check.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pith.ext.permissions import PermissionConfigError, PermissionLayer, build_rules
from pith.ext.permissions._rules import PATH_TOOLS

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "schemas" / "permissions.schema.json"
SCHEMA: dict[str, object] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))

# --- a draft 2020-12 interpreter for the keywords the schema uses ----------------------------

_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "examples"})
_TYPES: dict[str, Callable[[object], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


def _json_equal(a: object, b: object) -> bool:
    """JSON equality: `true` is not `1`, `1` is `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _resolve(ref: str) -> object:
    assert ref.startswith("#/"), f"only local references are supported: {ref}"
    node: object = SCHEMA
    for part in ref[2:].split("/"):
        assert isinstance(node, dict), ref
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def valid(schema: object, value: object) -> bool:
    """Whether `value` is valid against `schema`."""
    if isinstance(schema, bool):
        return schema
    assert isinstance(schema, dict), schema
    for keyword, argument in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise AssertionError(f"the test's interpreter does not know {keyword!r}")
        if not check(argument, value, schema):
            return False
    return True


def _type(argument: object, value: object, _: dict[str, object]) -> bool:
    names = argument if isinstance(argument, list) else [argument]
    return any(_TYPES[str(name)](value) for name in names)


def _properties(argument: object, value: object, _: dict[str, object]) -> bool:
    assert isinstance(argument, dict)
    if not isinstance(value, dict):
        return True
    return all(valid(argument[key], item) for key, item in value.items() if key in argument)


def _additional(argument: object, value: object, schema: dict[str, object]) -> bool:
    if not isinstance(value, dict):
        return True
    named = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    assert isinstance(named, dict)
    assert isinstance(patterns, dict)
    return all(
        valid(argument, item)
        for key, item in value.items()
        if key not in named and not any(re.search(p, key) for p in patterns)
    )


def _pattern_properties(argument: object, value: object, _: dict[str, object]) -> bool:
    assert isinstance(argument, dict)
    if not isinstance(value, dict):
        return True
    return all(
        valid(sub, item)
        for key, item in value.items()
        for pattern, sub in argument.items()
        if re.search(pattern, key)
    )


def _property_names(argument: object, value: object, _: dict[str, object]) -> bool:
    return not isinstance(value, dict) or all(valid(argument, key) for key in value)


def _required(argument: object, value: object, _: dict[str, object]) -> bool:
    assert isinstance(argument, list)
    return not isinstance(value, dict) or all(key in value for key in argument)


def _min_length(argument: object, value: object, _: dict[str, object]) -> bool:
    assert isinstance(argument, int)
    return not isinstance(value, str) or len(value) >= argument


def _pattern(argument: object, value: object, _: dict[str, object]) -> bool:
    assert isinstance(argument, str)
    return not isinstance(value, str) or re.search(argument, value) is not None


def _subschemas(argument: object) -> list[object]:
    assert isinstance(argument, list)
    assert argument
    return argument


Keyword = Callable[[Any, object, dict[str, object]], bool]
"""A keyword's check: (its argument, the value, the schema object it sits in) -> valid."""

_KEYWORDS: dict[str, Keyword] = {
    "$ref": lambda argument, value, _: valid(_resolve(argument), value),
    "type": _type,
    "enum": lambda argument, value, _: any(_json_equal(value, item) for item in argument),
    "const": lambda argument, value, _: _json_equal(value, argument),
    "properties": _properties,
    "additionalProperties": _additional,
    "patternProperties": _pattern_properties,
    "propertyNames": _property_names,
    "required": _required,
    "minLength": _min_length,
    "pattern": _pattern,
    "not": lambda argument, value, _: not valid(argument, value),
    "oneOf": lambda argument, value, _: (
        sum(valid(sub, value) for sub in _subschemas(argument)) == 1
    ),
    "anyOf": lambda argument, value, _: any(valid(sub, value) for sub in _subschemas(argument)),
}


def accepted_by_build_rules(section: object) -> bool:
    try:
        build_rules([PermissionLayer("settings.json", section)])
    except PermissionConfigError:
        return False
    return True


# --- the cases -------------------------------------------------------------------------------

VALID = [
    {},
    {"*": "allow"},
    {"bash": "deny"},
    {"*": "ask", "read": "allow", "write": "ask", "edit": "deny"},
    {"bash": {"*": "ask", "git *": "allow", "git push *": "ask"}},
    {"read": {"*": "allow", "*.env": "deny", "~/.ssh/*": "deny", "**/secrets/": "ask"}},
    {"bash": {"rm *": {"action": "deny", "reason": "delete by hand"}}},
    {"bash": {"rm *": {"action": "deny"}}},
    {"bash": {"action": "deny"}},
    {"bash": {"action": "deny", "reason": "no shell here"}},
    {"bash": {"action": "deny", "reason": ""}},
    {"bash": {"action": "deny", "reason": None}},
    {"bash": {}},
    {"deploy_tool": "ask", "mcp": "ask", "skill": {"*": "allow", "deploy": "deny"}},
    {"path": {"/etc/*": "deny"}, "external_directory": {"*": "deny", "/tmp/*": "allow"}},
    {"bash": {" git *": "allow", "é*": "deny", "reason": "deny"}},
    {"action": "deny"},  # a surface named `action` is just a tool name
    {" ": "allow"},
]

INVALID = [
    "allow",
    ["allow"],
    1,
    True,
    {"": "allow"},
    {"bash": "sometimes"},
    {"bash": "Allow"},
    {"bash": None},
    {"bash": True},
    {"bash": 1},
    {"bash": ["allow"]},
    {"bash": {"git *": "maybe"}},
    {"bash": {"": "allow"}},
    {"bash": {"   ": "allow"}},
    {"bash": {"\t\n": "allow"}},
    {"bash": {"git *": None}},
    {"bash": {"git *": {"*": "allow"}}},
    {"bash": {"git *": {}}},
    {"bash": {"git *": ["deny"]}},
    {"bash": {"action": "allow"}},
    {"bash": {"action": None}},
    {"bash": {"action": "ask", "reason": "why"}},
    {"bash": {"action": "deny", "reason": 5}},
    {"bash": {"action": "deny", "reason": ["x"]}},
    {"bash": {"action": "deny", "because": "x"}},
    {"bash": {"action": "deny", "git *": "allow"}},
    {"bash": {"reason": "x"}},
    {"bash": {"git *": {"action": "deny", "reason": "x", "extra": 1}}},
    {"bash": {"git *": {"action": "allow"}}},
    {"read": {"*": "allow", "*.env": "deny "}},
]


@pytest.mark.parametrize("section", VALID, ids=json.dumps)
def test_schema_and_build_rules_accept_valid_section(section: object) -> None:
    assert valid(SCHEMA, section)
    assert accepted_by_build_rules(section)


@pytest.mark.parametrize("section", INVALID, ids=json.dumps)
def test_schema_and_build_rules_reject_invalid_section(section: object) -> None:
    assert not valid(SCHEMA, section)
    assert not accepted_by_build_rules(section)


def _examples(node: object, surface: str | None = None) -> Iterator[tuple[str | None, object]]:
    """Every `examples` entry of the schema with the surface it is an example for (None: a
    whole section)."""
    if isinstance(node, dict):
        for example in node.get("examples", []):
            yield surface, example
        for key, value in node.items():
            if key == "properties" and node is SCHEMA:
                assert isinstance(value, dict)
                for name, sub in value.items():
                    yield from _examples(sub, name)
            elif key in ("$defs", "additionalProperties"):
                inner = value.values() if key == "$defs" and isinstance(value, dict) else [value]
                for sub in inner:
                    yield from _examples(sub, "some_tool")
            elif isinstance(value, dict | list) and key != "examples":
                yield from _examples(value, surface)
    elif isinstance(node, list):
        for item in node:
            yield from _examples(item, surface)


EXAMPLES = list(_examples(SCHEMA))


def test_schema_has_examples_for_every_named_surface() -> None:
    properties = SCHEMA["properties"]
    assert isinstance(properties, Mapping)
    assert {surface for surface, _ in EXAMPLES} >= set(properties) | {None}


@pytest.mark.parametrize(("surface", "example"), EXAMPLES, ids=json.dumps)
def test_every_example_in_the_schema_is_accepted(surface: str | None, example: object) -> None:
    section = example if surface is None else {surface: example}
    assert valid(SCHEMA, section)
    assert accepted_by_build_rules(section)


def test_schema_names_every_path_tool_with_path_patterns() -> None:
    properties = SCHEMA["properties"]
    assert isinstance(properties, Mapping)
    for surface in (*PATH_TOOLS, "path", "external_directory"):
        assert properties[surface]["$ref"] == "#/$defs/pathSurface", surface


def test_schema_is_draft_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_a_missing_section_is_no_section() -> None:
    # `PermissionLayer(section=None)` is a settings file without `permission`; the schema
    # describes a section that is there, so it does not accept null.
    assert accepted_by_build_rules(None)
    assert not valid(SCHEMA, None)


def test_interpreter_refuses_keywords_it_does_not_know() -> None:
    with pytest.raises(AssertionError, match="minimum"):
        valid({"minimum": 1}, 2)


# --- generated near misses -------------------------------------------------------------------

_TEXT = st.sampled_from(
    ["allow", "ask", "deny", "Allow", "deny ", "", " ", "\t", "*", "git *", "action", "reason"]
)
_SCALAR = st.one_of(_TEXT, st.none(), st.booleans(), st.integers(-1, 1), st.text(max_size=3))
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2),
        st.dictionaries(st.one_of(_TEXT, st.text(max_size=3)), inner, max_size=3),
        st.fixed_dictionaries(
            {"action": st.one_of(_TEXT, st.none())},
            optional={"reason": st.one_of(_TEXT, st.none(), st.integers()), "extra": inner},
        ),
    ),
    max_leaves=6,
)
_SECTION = st.one_of(
    _VALUE.filter(lambda value: value is not None),  # None: no section at all (see below)
    st.dictionaries(st.sampled_from(["*", "bash", "read", "path", "", " ", "my_tool"]), _VALUE),
)


@settings(max_examples=400, deadline=None)
@given(_SECTION)
def test_schema_accepts_exactly_what_build_rules_accepts(section: object) -> None:
    assert valid(SCHEMA, section) == accepted_by_build_rules(section)
