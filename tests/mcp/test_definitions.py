"""What pith declares for an MCP tool: the schema cleaned of what costs tokens or is refused,
everything else as the server sent it, and the token cost `pith context` shows."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pith.ai import ToolSpec
from pith.ai._anthropic_convert import convert_tools as anthropic_tools
from pith.ai._openai_convert import convert_tools as openai_tools
from pith.compaction import estimate_tool_tokens
from pith.mcp import McpTool, clean_input_schema, tool_definition, tool_names, tool_spec
from tests.mcp.live_tools import list_tools, python_script


def mcp_tool(schema: dict[str, Any], description: str = "Does it.", **annotations: Any) -> McpTool:
    return McpTool(
        server="srv",
        name="do_it",
        full_name="mcp__srv__do_it",
        description=description,
        input_schema=schema,
        exposure="direct",
        annotations=annotations,
    )


def keys_named(value: object, key: str, inside_properties: bool = False) -> int:
    """How many times `key` is a schema keyword (not a property name) anywhere in `value`."""
    if isinstance(value, dict):
        found = 0 if inside_properties else int(key in value)
        for name, sub in value.items():
            if name == "properties" and isinstance(sub, dict):
                found += sum(keys_named(prop, key) for prop in sub.values())
            elif not inside_properties:
                found += keys_named(sub, key)
        return found
    if isinstance(value, list):
        return sum(keys_named(item, key) for item in value)
    return 0


def test_root_is_an_object_schema() -> None:
    assert clean_input_schema({}) == {"type": "object", "properties": {}}
    assert clean_input_schema({"type": "object"}) == {"type": "object", "properties": {}}
    kept = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert clean_input_schema(kept) == kept


def test_schema_dialect_and_titles_go_the_rest_stays() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "doItArguments",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string", "description": "The issue's title"},
            "mode": {
                "anyOf": [{"type": "string", "title": "M"}, {"type": "null"}],
                "default": None,
            },
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        },
        "required": ["title"],
        "$defs": {
            "Item": {"title": "Item", "type": "object", "properties": {"n": {"type": "integer"}}}
        },
        "additionalProperties": False,
    }
    assert clean_input_schema(schema) == {
        "type": "object",
        "properties": {
            "title": {"type": "string", "description": "The issue's title"},
            "mode": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        },
        "required": ["title"],
        "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "additionalProperties": False,
    }
    assert "$schema" in schema, "the server's schema is not changed in place"


def test_description_falls_back_to_the_title_then_a_sentence() -> None:
    assert tool_spec(mcp_tool({}, "  Runs it.\n")).description == "Runs it."
    assert tool_spec(mcp_tool({}, " ", title="Do It")).description == "Do It"
    assert tool_spec(mcp_tool({}, "")).description == "The 'do_it' tool of the MCP server 'srv'."


def test_definition_and_its_cost() -> None:
    tool = mcp_tool({"type": "object", "properties": {"x": {"type": "integer"}}})
    definition = tool_definition(tool)
    assert definition == {
        "name": "mcp__srv__do_it",
        "description": "Does it.",
        "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }
    spec = tool_spec(tool)
    assert estimate_tool_tokens(spec) == math.ceil(len(json.dumps(definition)) / 4)


@pytest.fixture(scope="module")
def git_server_tools(tmp_path_factory: pytest.TempPathFactory) -> list[McpTool]:
    """The real `mcp-server-git`'s tools, as pith names them."""
    command = python_script("mcp-server-git")
    if command is None:
        pytest.fail(
            "mcp-server-git is not installed: it is in the dev extras "
            "(.venv/bin/pip install -e '.[dev]')"
        )
    repo: Path = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    listed = list_tools(command, ["--repository", str(repo)])
    names = tool_names("git", [tool["name"] for tool in listed.tools])
    return [
        McpTool(
            server="git",
            name=tool["name"],
            full_name=names[tool["name"]],
            description=tool.get("description", ""),
            input_schema=tool["inputSchema"],
            exposure="direct",
            annotations=tool.get("annotations", {}),
        )
        for tool in listed.tools
    ]


def test_a_real_servers_schemas_stay_valid_and_get_smaller(git_server_tools: list[McpTool]) -> None:
    assert len(git_server_tools) >= 10
    for tool in git_server_tools:
        original = dict(tool.input_schema)
        cleaned = tool_spec(tool).parameters
        jsonschema.Draft202012Validator.check_schema(cleaned)
        assert keys_named(cleaned, "title") == 0
        assert set(cleaned.get("properties", {})) == set(original.get("properties", {}))
        assert cleaned.get("required") == original.get("required")
        # The same arguments pass or fail both schemas.
        arguments = {name: "x" for name in original.get("required", [])}
        for args in (arguments, {}, {**arguments, "max_count": "many"}):
            assert jsonschema.Draft202012Validator(cleaned).is_valid(args) == (
                jsonschema.Draft202012Validator(original).is_valid(args)
            )
    raw = sum(
        estimate_tool_tokens(ToolSpec(t.full_name, t.description, dict(t.input_schema)))
        for t in git_server_tools
    )
    cleaned_cost = sum(estimate_tool_tokens(tool_spec(t)) for t in git_server_tools)
    assert cleaned_cost < raw


def test_providers_declare_the_cleaned_schema(git_server_tools: list[McpTool]) -> None:
    specs = [tool_spec(tool) for tool in git_server_tools]
    for declared, spec in zip(openai_tools(specs), specs, strict=True):
        assert declared["function"] == {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        }
    for declared, spec in zip(anthropic_tools(specs), specs, strict=True):
        assert declared["name"] == spec.name
        assert declared["input_schema"]["properties"] == spec.parameters["properties"]
