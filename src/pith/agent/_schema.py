"""Tool-argument checking against a JSON schema, with the light coercion models need.

Models often send `"42"` for a number, `"true"` for a boolean, one value where a list is
expected, a list or object encoded as a JSON string, or `null` for an omitted optional field.
`coerce` repairs those shapes (never anything else) and `check` reports what is still wrong, one
issue per field, in the words Pi uses (`missing`, `expected number, got string`).

The supported schema vocabulary is what tool schemas use: `type` (string or list), `properties`,
`required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf` / `oneOf`, `minimum`,
`maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from pith.json_input import MAX_ARGUMENT_DEPTH, JsonInputError, parse_json

__all__ = ["SchemaIssue", "check", "coerce", "format_validation_error", "json_type_name"]

Schema = dict[str, object]


@dataclass(frozen=True)
class SchemaIssue:
    path: str
    """Dotted path of the field (`edits.0.oldText`), or `root`."""
    message: str


def coerce(schema: object, value: object) -> object:
    """`value` with model-typical shape mistakes repaired; the input is never modified."""
    if not isinstance(schema, dict):
        return value
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            if any(not check(branch, value) for branch in branches):
                return value  # already valid for a branch
            for branch in branches:
                candidate = coerce(branch, value)
                if not check(branch, candidate):
                    return candidate
            return value
    types = _types(schema)
    if not types:
        return value
    if _matches_type(types, value):
        return _coerce_members(schema, types, value)
    for wanted in types:
        converted = _convert(wanted, value)
        if converted is not _NO:
            return _coerce_members(schema, types, converted)
    return value


def check(schema: object, value: object, path: str = "") -> list[SchemaIssue]:
    """What is wrong with `value` under `schema`; an empty list means it is valid."""
    issues: list[SchemaIssue] = []
    _check(schema, value, path, issues)
    return issues


def format_validation_error(tool_name: str, issues: list[SchemaIssue], received: object) -> str:
    """The error text a model gets for arguments that do not fit the tool's schema."""
    lines = "\n".join(f"  - {issue.path or 'root'}: {issue.message}" for issue in issues)
    shown = json.dumps(received, indent=2, ensure_ascii=False, default=str)
    return f'Validation failed for tool "{tool_name}":\n{lines}\n\nReceived arguments:\n{shown}'


def json_type_name(value: object) -> str:
    """The JSON type of `value` as error messages name it (`integer` for whole numbers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


# --- coercion -------------------------------------------------------------------------------


class _Missing:
    pass


_NO = _Missing()


def _types(schema: Schema) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [item for item in declared if isinstance(item, str)]
    return []


def _matches_type(types: list[str], value: object) -> bool:
    return any(_is_type(wanted, value) for wanted in types)


def _is_type(wanted: str, value: object) -> bool:
    if wanted == "null":
        return value is None
    if wanted == "boolean":
        return isinstance(value, bool)
    if wanted == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (
            isinstance(value, float) and math.isfinite(value) and value.is_integer()
        )
    if wanted == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if wanted == "string":
        return isinstance(value, str)
    if wanted == "array":
        return isinstance(value, list)
    if wanted == "object":
        return isinstance(value, dict)
    return False


def _convert(wanted: str, value: object) -> object:
    """`value` converted to the JSON type `wanted`, or `_NO` when no safe conversion exists."""
    if wanted in ("number", "integer") and isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            return _NO
        if not text or not math.isfinite(number):
            return _NO
        if number.is_integer() and "e" not in text.lower() and "." not in text:
            return int(text)
        if wanted == "integer":
            return int(number) if number.is_integer() else _NO
        return number
    if wanted == "boolean":
        if value in ("true", "false"):
            return value == "true"
        return _NO
    if wanted == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)
    if wanted == "string" and isinstance(value, bool):
        return "true" if value else "false"
    if wanted in ("array", "object") and isinstance(value, str):
        try:
            parsed = parse_json(value, "argument", fix="", max_depth=MAX_ARGUMENT_DEPTH)
        except JsonInputError:
            parsed = _NO
        if wanted == "array" and isinstance(parsed, list):
            return parsed
        if wanted == "object" and isinstance(parsed, dict):
            return parsed
    if wanted == "array" and value is not None and not isinstance(value, list):
        return [value]
    return _NO


def _coerce_members(schema: Schema, types: list[str], value: object) -> object:
    if isinstance(value, dict) and "object" in types:
        return _coerce_object(schema, value)
    if isinstance(value, list) and "array" in types:
        items = schema.get("items")
        if isinstance(items, dict):
            return [coerce(items, item) for item in value]
    return value


def _coerce_object(schema: Schema, value: dict[str, object]) -> dict[str, object]:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    additional = schema.get("additionalProperties")
    result: dict[str, object] = {}
    for key, item in value.items():
        member = properties.get(key)
        if member is not None:
            # An optional field sent as null means "not given".
            if item is None and key not in required_names and check(member, None):
                continue
            result[key] = coerce(member, item)
        elif isinstance(additional, dict):
            result[key] = coerce(additional, item)
        else:
            result[key] = item
    return result


# --- checking -------------------------------------------------------------------------------


def _child(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _check(schema: object, value: object, path: str, issues: list[SchemaIssue]) -> None:
    if schema is False:
        issues.append(SchemaIssue(path, "no value is allowed here"))
        return
    if not isinstance(schema, dict):
        return
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            best: list[SchemaIssue] | None = None
            for branch in branches:
                found = check(branch, value, path)
                if not found:
                    return
                if best is None or len(found) < len(best):
                    best = found
            issues.extend(best or [])
            return
    types = _types(schema)
    if types and not _matches_type(types, value):
        expected = " or ".join(types)
        issues.append(SchemaIssue(path, f"expected {expected}, got {json_type_name(value)}"))
        return
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        listed = ", ".join(json.dumps(item) for item in enum)
        issues.append(SchemaIssue(path, f"expected one of {listed}"))
    if "const" in schema and value != schema["const"]:
        issues.append(SchemaIssue(path, f"expected {json.dumps(schema['const'])}"))
    if isinstance(value, str):
        _check_bounds(schema, len(value), "minLength", "maxLength", "characters", path, issues)
    if isinstance(value, int | float) and not isinstance(value, bool):
        minimum = schema.get("minimum")
        maximum = schema.get("maximum")
        if isinstance(minimum, int | float) and value < minimum:
            issues.append(SchemaIssue(path, f"expected >= {minimum}"))
        if isinstance(maximum, int | float) and value > maximum:
            issues.append(SchemaIssue(path, f"expected <= {maximum}"))
    if isinstance(value, list):
        _check_bounds(schema, len(value), "minItems", "maxItems", "items", path, issues)
        items = schema.get("items")
        if isinstance(items, dict):
            for index, item in enumerate(value):
                _check(items, item, _child(path, index), issues)
    if isinstance(value, dict):
        _check_object(schema, value, path, issues)


def _check_bounds(
    schema: Schema,
    size: int,
    low_key: str,
    high_key: str,
    unit: str,
    path: str,
    issues: list[SchemaIssue],
) -> None:
    low = schema.get(low_key)
    high = schema.get(high_key)
    if isinstance(low, int) and size < low:
        issues.append(SchemaIssue(path, f"expected at least {low} {unit}"))
    if isinstance(high, int) and size > high:
        issues.append(SchemaIssue(path, f"expected at most {high} {unit}"))


def _check_object(
    schema: Schema, value: dict[str, object], path: str, issues: list[SchemaIssue]
) -> None:
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = schema.get("required")
    for name in required if isinstance(required, list) else []:
        if isinstance(name, str) and name not in value:
            issues.append(SchemaIssue(_child(path, name), "missing"))
    additional = schema.get("additionalProperties")
    for key, item in value.items():
        if key in properties:
            _check(properties[key], item, _child(path, key), issues)
        elif additional is False:
            issues.append(SchemaIssue(_child(path, key), "unknown field"))
        elif isinstance(additional, dict):
            _check(additional, item, _child(path, key), issues)
