"""The definition pith declares to the model for an MCP tool.

A server's `inputSchema` goes to the provider almost as sent, with three changes:

- the root is an object schema: `type: "object"` when the server left `type` out, and
  `properties: {}` when it has none (some providers refuse an object schema without them);
- `$schema` at the root is dropped: it names the JSON Schema dialect, tells the model
  nothing, and some providers reject it;
- every `title` *keyword* is dropped (a property that is itself named `title` stays): titles
  are labels for forms (`"title": "Repo Path"` beside `repo_path`), and generated schemas
  carry one per property, a few percent of every definition for nothing.

Everything else (`$defs` and `$ref`, `anyOf`, defaults, enums, descriptions) is kept: the
providers' own request builders adapt what they must (the Anthropic builder keeps an object
root and moves nothing else).

The description is the server's, trimmed; a tool without one gets its title or a sentence
naming the tool and its server, so the model never sees an empty description.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pith.ai import ToolSpec
from pith.mcp._types import McpTool

__all__ = ["clean_input_schema", "tool_definition", "tool_spec"]

_SUBSCHEMA_KEYS = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _without_titles(schema: object) -> object:
    """A copy of one (sub)schema without `title` keywords, walking only schema positions."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: _without_titles(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [_without_titles(sub) for sub in value]
        elif key in _SUBSCHEMA_KEYS:
            out[key] = (
                [_without_titles(sub) for sub in value]
                if isinstance(value, list)
                else _without_titles(value)
            )
        else:
            out[key] = value
    return out


def clean_input_schema(schema: Mapping[str, Any]) -> dict[str, object]:
    """The input schema as pith declares it (see the module's docstring)."""
    cleaned = _without_titles({k: v for k, v in schema.items() if k != "$schema"})
    assert isinstance(cleaned, dict)
    cleaned.setdefault("type", "object")
    if cleaned["type"] == "object" and not isinstance(cleaned.get("properties"), Mapping):
        cleaned["properties"] = {}
    return cleaned


def _description(tool: McpTool) -> str:
    text = tool.description.strip()
    if text:
        return text
    title = tool.annotations.get("title")
    if isinstance(title, str) and title.strip():
        return title.strip()
    return f"The {tool.name!r} tool of the MCP server {tool.server!r}."


def tool_spec(tool: McpTool) -> ToolSpec:
    """The tool as the agent loop hands it to the provider: full name, description, schema."""
    return ToolSpec(tool.full_name, _description(tool), clean_input_schema(tool.input_schema))


def tool_definition(tool: McpTool) -> dict[str, object]:
    """`{"name", "description", "parameters"}`: the definition as JSON, the shape whose size
    `pith context` reports for every declared tool."""
    spec = tool_spec(tool)
    return {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
