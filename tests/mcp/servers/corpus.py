"""An MCP server serving one server of tests/mcp/tool_corpus.py over stdio.

Run as `python corpus.py NAME` (`github`, `sentry`, ...): it lists that server's tools with
their schemas, sends the server's summary as its instructions, and answers every call with
`<tool>: done.` — for bench/mcp_context.py, which needs servers of realistic size that pith
starts and talks to like any other.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.mcp.tool_corpus import SERVERS, schema

NAME = sys.argv[1]
SUMMARY, SPECS = SERVERS[NAME]
TOOLS = [
    types.Tool(name=name, description=description, input_schema=schema(params))
    for name, description, params in SPECS
]


async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=f"{params.name}: done.")])


server = Server(NAME, instructions=SUMMARY, on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
