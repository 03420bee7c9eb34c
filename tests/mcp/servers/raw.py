"""A stdio MCP server spoken line by line, for what the SDK's server would never send: tool
lists in several pages, and answers that are not valid MCP results."""

from __future__ import annotations

import json
import sys


def tool(name: str) -> dict[str, object]:
    return {"name": name, "description": f"tool {name}", "inputSchema": {"type": "object"}}


PAGES = {None: ([tool("first"), tool("second")], "page-2"), "page-2": ([tool("bad")], None)}


def answer(request: dict[str, object]) -> dict[str, object] | None:
    method = request.get("method")
    params = request.get("params") or {}
    assert isinstance(params, dict)
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    if method == "tools/list":
        tools, cursor = PAGES[params.get("cursor")]
        return {"tools": tools, **({"nextCursor": cursor} if cursor else {})}
    if method == "tools/call":
        if params.get("name") == "bad":
            return {"content": "this should be a list"}
        return {"content": [{"type": "text", "text": str(params.get("name"))}]}
    return {}


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    result = answer(message)
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
