"""MCP servers' tools, resources and prompts in front of the model (docs/mcp.md).

`_extension` wires the parts to pith: the tools of each server as pith tools
(`_tool_defs`), what `tool_search` loaded on the branch (`_loaded`).
"""

from pith.ext.mcp._extension import DIRECT_WAIT, McpTools, register

__all__ = ["DIRECT_WAIT", "McpTools", "register"]
