"""`--tools` and MCP tools: which names the gate lets be declared."""

from __future__ import annotations

from pith.app.session._tool_selection import mcp_tool_gate, select_tool_names


def test_without_mcp_entries_every_mcp_tool_is_kept() -> None:
    assert mcp_tool_gate("read,grep") is None
    assert mcp_tool_gate(None) is None


def test_an_mcp_entry_keeps_only_what_it_matches_and_the_resource_tool_with_it() -> None:
    gate = mcp_tool_gate("read,mcp__git__*")
    assert gate is not None
    assert gate("read")
    assert gate("mcp__git__git_status")
    assert not gate("mcp__box__echo")
    assert not gate("mcp_resources")
    named = mcp_tool_gate("mcp__git__*,mcp_resources")
    assert named is not None
    assert named("mcp_resources")


def test_minus_entries_and_no_tools() -> None:
    gate = mcp_tool_gate("-mcp__git__git_push,-mcp_resources")
    assert gate is not None
    assert gate("mcp__git__git_status")
    assert not gate("mcp__git__git_push")
    assert not gate("mcp_resources")
    none = mcp_tool_gate(None, no_tools=True)
    assert none is not None
    assert not none("mcp_resources")
    assert not none("mcp__a__b")


def test_mcp_entries_are_not_unknown_tools() -> None:
    names = select_tool_names("read,mcp__git__*,mcp_resources", ["read"], ["read", "bash"])
    assert names == ["read"]
