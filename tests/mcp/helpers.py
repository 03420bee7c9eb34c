"""Starting the test servers and a manager around them."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from pith.mcp import ServerConfig
from pith.mcp._manager import McpManager

T = TypeVar("T")
SERVERS = Path(__file__).parent / "servers"
TOOLBOX = SERVERS / "toolbox.py"
WAIT = 60.0
"""A hang guard, never a measure: connecting a Python server on a busy machine."""


def toolbox(name: str = "box", *args: str, timeout: float = 60.0, **fields: object) -> ServerConfig:
    return ServerConfig(
        name=name,
        transport="stdio",
        source=None,
        command=sys.executable,
        args=(str(TOOLBOX), *args),
        timeout=timeout,
        **fields,  # type: ignore[arg-type]
    )


def with_manager(
    servers: list[ServerConfig],
    tmp_path: Path,
    body: Callable[[McpManager], Awaitable[T]],
    **kwargs: object,
) -> T:
    """Run `body(manager)` on a started manager (every server waited for), then close it."""

    async def main() -> T:
        manager = McpManager(
            {s.name: s for s in servers},
            agent_dir=tmp_path / "agent",
            cwd=tmp_path,
            **kwargs,  # type: ignore[arg-type]
        )
        manager.start()
        try:
            await manager.wait_for(None, WAIT)
            return await body(manager)
        finally:
            await manager.close()

    return asyncio.run(main())


def process_gone(pid: int) -> bool:
    """The process no longer runs (gone, or a zombie nobody reaped yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


async def until(condition: Callable[[], bool], seconds: float = WAIT) -> bool:
    """Wait for `condition` (polling), at most `seconds`; its last value."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True
