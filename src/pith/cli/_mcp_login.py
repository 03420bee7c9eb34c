"""`pith mcp login NAME` and `pith mcp logout NAME`: OAuth sign-in from a terminal.

`login` prints the authorization URL (and opens it in a browser when there is a display), then
waits for the browser to come back to the loopback callback, or for the user to paste the
address the browser ended on (a browser on another machine, over SSH). `logout` deletes the
stored tokens and client registration of the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import threading
from pathlib import Path

from pith.errors import InputError
from pith.mcp import ServerConfig

__all__ = ["TerminalPrompt", "has_display", "login", "logout"]


def has_display() -> bool:
    """Whether opening a browser can work here: macOS and Windows, an X or Wayland display, or a
    `BROWSER` the user chose."""
    if sys.platform in ("darwin", "win32"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"))


class TerminalPrompt:
    """Shows the URL on stdout; a line typed or pasted on stdin is the redirected URL."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._lines: asyncio.Queue[str | None] | None = None

    def show_url(self, url: str) -> None:
        print(f"Sign in to MCP server {self._name!r} at this address:\n\n  {url}\n")
        opened = False
        if has_display():
            import webbrowser

            with contextlib.suppress(Exception):
                opened = webbrowser.open(url)
        if opened:
            print("A browser window was opened for it.")
        print(
            "Waiting for the sign-in. If the browser runs on another machine, paste the "
            "address it ends on here and press Enter."
        )
        sys.stdout.flush()

    async def pasted(self) -> str | None:
        if self._lines is None:
            self._lines = asyncio.Queue()
            loop = asyncio.get_running_loop()
            queue = self._lines

            def read() -> None:
                # A daemon thread: a blocked read must not keep the process alive at the end.
                for line in sys.stdin:
                    loop.call_soon_threadsafe(queue.put_nowait, line)
                loop.call_soon_threadsafe(queue.put_nowait, None)

            threading.Thread(target=read, name="pith-paste", daemon=True).start()
        return await self._lines.get()


def _server(home: Path, cwd: Path, name: str, trusted: bool) -> ServerConfig:
    from pith.mcp import load_mcp_config, user_mcp_path

    config = load_mcp_config(home, cwd, trusted=trusted)
    server = config.servers.get(name)
    if server is None:
        problem = next((p for p in config.problems if p.server == name), None)
        if problem is not None:
            raise InputError(problem.line())
        raise InputError(
            f"no MCP server {name!r} in {user_mcp_path(home)} or a trusted project's "
            ".pith/mcp.json; see pith mcp list"
        )
    return server


def login(options: argparse.Namespace, home: Path, cwd: Path, trusted: bool) -> int:
    from pith.mcp import sign_in

    server = _server(home, cwd, options.name, trusted)
    outcome = asyncio.run(sign_in(server, home, TerminalPrompt(server.name)))
    if outcome == "not-needed":
        print(f"MCP server {server.name!r} accepted the connection without signing in.")
    else:
        print(f"Signed in to MCP server {server.name!r}; the tokens are in {home}/mcp-auth.json.")
    return 0


def logout(options: argparse.Namespace, home: Path, cwd: Path, trusted: bool) -> int:
    from pith.mcp import remove_record

    server = _server(home, cwd, options.name, trusted)
    if server.url is None or not remove_record(home, server.name, server.url):
        print(f"MCP server {server.name!r} has no stored sign-in.")
        return 0
    print(f"Signed out of MCP server {server.name!r}: its tokens are deleted.")
    return 0
