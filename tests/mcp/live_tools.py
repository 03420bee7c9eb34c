"""The tool list of a real MCP server, read through the official SDK's stdio client (for the
definition tests and bench/mcp_context.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from mcp.client.stdio import stdio_client

from mcp import ClientSession, StdioServerParameters


@dataclass(frozen=True)
class ServerTools:
    instructions: str | None
    tools: list[dict[str, Any]]
    """Each tool as the server sent it (camelCase keys: `inputSchema`, `annotations`)."""


def python_script(name: str) -> str | None:
    """A console script installed beside this Python (the venv's `mcp-server-git`)."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


async def _list(command: str, args: Sequence[str], cwd: Path | None) -> ServerTools:
    parameters = StdioServerParameters(command=command, args=list(args), cwd=cwd)
    # The servers' own start-up chatter on stderr is not the caller's output.
    quiet = open(os.devnull, "w")  # noqa: ASYNC230, SIM115 (closed below; /dev/null never blocks)
    try:
        return await _session(parameters, quiet)
    finally:
        quiet.close()


async def _session(parameters: StdioServerParameters, errlog: TextIO) -> ServerTools:
    async with (
        stdio_client(parameters, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        started = await session.initialize()
        listed = await session.list_tools()
        tools = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
        return ServerTools(started.instructions, tools)


def list_tools(
    command: str, args: Sequence[str] = (), cwd: Path | None = None, timeout: float = 60.0
) -> ServerTools:
    """Start the server, initialize, list its tools, stop it."""
    return asyncio.run(asyncio.wait_for(_list(command, args, cwd), timeout))
