"""Tool parameter schemas as Gemini takes them (a pure rewrite, docs/providers.md).

Gemini's `parametersJsonSchema` accepts JSON Schema (`anyOf`, `oneOf`, type arrays, `$ref` with
`$defs`, `additionalProperties`), but it ignores `const`, and it has no use for the keywords that
only annotate a schema. So, at every place a schema can stand:

- `const` with a string or number value becomes a one-value `enum` (unless `enum` is there);
- `$schema` and `$comment` are dropped.

Names inside `properties` (and the other maps of names to schemas) are names, not keywords: a
property called `const` or `$comment` stays.
"""

from __future__ import annotations

__all__ = ["DROPPED_KEYWORDS", "gemini_schema"]

DROPPED_KEYWORDS = frozenset({"$schema", "$comment"})

_NAME_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
"""Keywords whose value maps names to subschemas."""

_SUBSCHEMAS = frozenset(
    {
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "contains",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
"""Keywords whose value is a subschema or a list of them."""


def gemini_schema(schema: object) -> object:
    """`schema` rewritten for Gemini's `parametersJsonSchema`; the input is not changed."""
    if isinstance(schema, list):
        return [gemini_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema  # `true` / `false` schemas, and literal data
    out: dict[str, object] = {}
    for key, value in schema.items():
        if key in DROPPED_KEYWORDS:
            continue
        if key in _SUBSCHEMAS:
            out[key] = gemini_schema(value)
        elif key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: gemini_schema(sub) for name, sub in value.items()}
        else:
            out[key] = value  # enum, default, examples, ...: data, left as it is
    const = out.get("const")
    if "enum" not in out and isinstance(const, str | int | float) and not isinstance(const, bool):
        del out["const"]
        out["enum"] = [const]
    return out
