"""A well-behaved MCP server with one tool per result shape, plus fault modes.

Run as `python toolbox.py [--mode MODE] [--marks DIR]`:

- `normal` (default): serve over stdio;
- `exit`: write a line on stderr and exit 3 before speaking;
- `garbage`: print lines that are not JSON-RPC on stdout first, then serve;
- `http PORTFILE`: serve Streamable HTTP on 127.0.0.1 (a free port, written to PORTFILE).

`--marks DIR` is where the server leaves evidence the tests read: `cancelled` when a call was
cancelled, `child.pid` for the child `spawn_child` starts, `calls` counting calls.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import subprocess
import sys
from pathlib import Path

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

parser = argparse.ArgumentParser()
parser.add_argument("--mode", default="normal")
parser.add_argument("--marks", default=None)
parser.add_argument("--port-file", default=None)
options = parser.parse_args()
marks = Path(options.marks) if options.marks else None
WIRE = os.dup(1)


def mark(name: str, text: str) -> None:
    if marks is not None:
        (marks / name).write_text(text)


server = MCPServer("toolbox", instructions="Test tools for pith.\nSecond line.")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="Return a text block of `size` characters.")
def big(size: int) -> str:
    return "".join(chr(ord("a") + i % 26) for i in range(size))


@server.tool(description="A one-pixel PNG and a caption.")
def picture() -> types.CallToolResult:
    image = types.ImageContent(data=base64.b64encode(PNG).decode(), mime_type="image/png")
    return types.CallToolResult(content=[types.TextContent(text="a pixel"), image])


class Weather(BaseModel):
    city: str
    celsius: float


@server.tool(description="Structured weather.")
def weather(city: str) -> Weather:
    return Weather(city=city, celsius=21.5)


@server.tool(description="Only structured content, no text.")
def bare_structured() -> types.CallToolResult:
    return types.CallToolResult(content=[], structured_content={"answer": 42})


@server.tool(description="Every other block kind.")
def blocks() -> types.CallToolResult:
    return types.CallToolResult(
        content=[
            types.AudioContent(data=base64.b64encode(b"RIFF").decode(), mime_type="audio/wav"),
            types.ResourceLink(name="notes", uri="memo://notes", mime_type="text/plain"),
            types.EmbeddedResource(
                resource=types.TextResourceContents(uri="memo://inline", text="inline text")
            ),
            types.EmbeddedResource(
                resource=types.BlobResourceContents(
                    uri="memo://blob",
                    blob=base64.b64encode(b"\x00\x01\x02").decode(),
                    mime_type="application/octet-stream",
                )
            ),
        ]
    )


@server.tool(description="Fail on purpose.")
def fail(reason: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=f"failed: {reason}")], is_error=True
    )


@server.tool(description="Raise inside the tool.")
def explode() -> str:
    raise ValueError("boom")


@server.tool(description="Report progress `steps` times, `pause` seconds apart.")
async def progress(steps: int, pause: float, ctx: Context) -> str:
    for step in range(steps):
        await asyncio.sleep(pause)
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
    return "done"


@server.tool(description="The client's roots, one URI per line (none: an empty answer).")
async def roots(ctx: Context) -> str:
    result = await ctx.session.list_roots()
    return "\n".join(f"{root.uri} {root.name}" for root in result.roots) or "(no roots)"


@server.tool(description="Report progress, then wait until the file `gate` exists.")
async def gated(gate: str, ctx: Context) -> str:
    await ctx.report_progress(1, 2, "halfway there")
    while not os.path.exists(gate):  # noqa: ASYNC110 - another process makes the file
        await asyncio.sleep(0.05)
    return "gate passed"


@server.tool(description="Log a message, then answer.")
async def chatty(ctx: Context) -> str:
    await ctx.info("hello from the server", logger_name="toolbox")
    return "logged"


@server.tool(description="Never answer (until cancelled).")
async def hang() -> str:
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        mark("cancelled", "yes")
        raise
    return "woke"


@server.tool(description="Exit the process in the middle of the call.")
def crash() -> str:
    sys.stderr.write("crashing on purpose\n")
    sys.stderr.flush()
    os._exit(7)


@server.tool(description="Start a child process that ignores SIGTERM-free exits, then hang.")
def spawn_child() -> str:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    mark("child.pid", str(child.pid))
    return str(child.pid)


@server.tool(description="Add a tool named `extra` and say the list changed.")
async def grow(ctx: Context) -> str:
    def extra() -> str:
        return "extra"

    server.add_tool(extra, name="extra", description="Appeared later.")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool(description="Write a line that is not JSON-RPC on stdout, then answer.")
def scribble() -> str:
    # The SDK's server moves its protocol off fd 1; a copy made before it did still reaches pith.
    os.write(WIRE, b"this is not json\n")
    return "scribbled"


@server.resource("memo://notes", name="notes", description="Some notes.", mime_type="text/plain")
def notes() -> str:
    return "the notes"


@server.resource("memo://pixel", name="pixel", mime_type="image/png")
def pixel() -> bytes:
    return PNG


@server.resource("memo://items/{item}", name="item", description="One item.")
def item(item: str) -> str:
    return f"item {item}"


def _page(index: int) -> None:
    def read() -> str:
        return f"page {index}"

    server.resource(f"memo://page/{index}", name=f"page{index}")(read)


for _index in range(30):
    _page(_index)


@server.prompt(description="Ask for a review of a file.")
def review(path: str, focus: str = "bugs") -> str:
    return f"Review {path} for {focus}."


def main() -> None:
    if options.mode == "exit":
        sys.stderr.write("toolbox: cannot start, missing TOKEN\n")
        sys.exit(3)
    if options.mode == "garbage":
        sys.stdout.write("Starting toolbox server v1.0...\n{not json either\n")
        sys.stdout.flush()
    if options.mode == "http":
        import uvicorn

        app = server.streamable_http_app()
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
        http = uvicorn.Server(config)

        async def serve() -> None:
            task = asyncio.create_task(http.serve())
            while not http.started:  # noqa: ASYNC110 - uvicorn offers no event for it
                await asyncio.sleep(0.01)
            port = http.servers[0].sockets[0].getsockname()[1]
            Path(options.port_file).write_text(str(port))
            await task

        asyncio.run(serve())
        return
    server.run()


if __name__ == "__main__":
    main()
