"""MCP tool names: the names Pi 1.6 gives (recorded from its `createMcpToolName`), so a session
moved between the two agents keeps calling the same tools."""

from __future__ import annotations

import pytest

from pith.mcp import server_namespace, server_summary, tool_name, tool_names

# (server, tool, taken, name) as Pi 1.6 returned them.
PI_NAMES = [
    ("git", "git_status", False, "mcp__git__git_status"),
    ("my-server", "get.item", False, "mcp__my_server__get_item"),
    ("s", "a-b", True, "mcp__s__a_b_ed3867d6"),
    ("s", "a_b", True, "mcp__s__a_b_8d47d403"),
    (
        "averyveryverylongservername",
        "an_extremely_long_tool_name_that_goes_past_the_limit",
        False,
        "mcp__averyveryverylongservername__an_extremely_long_too_b9de589b",
    ),
    ("x", "ünïcode tool", False, "mcp__x___n_code_tool"),
    ("e", "rocket🚀tool", False, "mcp__e__rocket__tool"),
    ("e", "x" * 60 + "🚀", False, "mcp__e__" + "x" * 47 + "_0f945671"),
]


@pytest.mark.parametrize(("server", "tool", "taken", "expected"), PI_NAMES)
def test_names_match_pi(server: str, tool: str, taken: bool, expected: str) -> None:
    assert tool_name(server, tool, lambda _: taken) == expected
    assert len(expected) <= 64


def test_colliding_tools_of_one_server_all_get_a_suffix() -> None:
    names = tool_names("s", ["a-b", "a_b", "c"])
    assert names == {"a-b": "mcp__s__a_b_ed3867d6", "a_b": "mcp__s__a_b_8d47d403", "c": "mcp__s__c"}
    assert tool_names("s", ["a_b", "a-b"]) == {"a_b": names["a_b"], "a-b": names["a-b"]}


def test_namespace_and_summary() -> None:
    assert server_namespace("dev-radius") == "mcp__dev_radius"
    assert server_summary("  Search the docs\nmore", "ignored") == "Search the docs"
    summary = server_summary(None, "\n  First line of instructions\nsecond")
    assert summary == "First line of instructions"
    assert server_summary("", None) == ""
