"""How MCP tools are named for the model: `mcp__<server>__<tool>`.

Providers accept tool names of at most 64 characters drawn from letters, digits, `_` and `-`;
pith (like Pi and Codex) keeps only letters, digits and `_`, so a tool's name is also a valid
identifier. Every other character becomes `_`. When that makes a name too long, or two tools
of one server end up with the same name (`a-b` and `a_b`), the name is cut and ends in `_`
plus the first 8 hex digits of SHA-256 over `server NUL tool` — the same name Pi gives, so a
session moved between the two agents keeps calling the same tools.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

__all__ = [
    "MAX_TOOL_NAME_LENGTH",
    "server_namespace",
    "server_summary",
    "tool_name",
    "tool_names",
]

MAX_TOOL_NAME_LENGTH = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def _safe(text: str) -> str:
    # A character beyond the Basic Multilingual Plane becomes two `_`, one per UTF-16 unit, as
    # in Pi (JavaScript strings count and replace UTF-16 units).
    return _UNSAFE.sub(lambda m: "__" if ord(m.group()) > 0xFFFF else "_", text)


_HASH_DIGITS = 8


def tool_name(server: str, tool: str, is_taken: Callable[[str], bool] = lambda _: False) -> str:
    """The model-facing name of `tool` on `server`; `is_taken` says a name is already used."""
    name = _safe(f"mcp__{server}__{tool}")
    if len(name) <= MAX_TOOL_NAME_LENGTH and not is_taken(name):
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:_HASH_DIGITS]
    return f"{name[: MAX_TOOL_NAME_LENGTH - _HASH_DIGITS - 1]}_{digest}"


def tool_names(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Names for all of a server's tools at once: every tool whose plain name collides with
    another's gets the hash suffix, so the result does not depend on the order of the list."""
    tools = list(dict.fromkeys(tools))
    plain = {tool: _safe(f"mcp__{server}__{tool}") for tool in tools}
    counts: dict[str, int] = {}
    for name in plain.values():
        counts[name] = counts.get(name, 0) + 1
    return {tool: tool_name(server, tool, lambda n: counts.get(n, 0) > 1) for tool in tools}


def server_namespace(server: str) -> str:
    """`mcp__<server>` with `-` read as `_`: two servers differing only there are one server."""
    return "mcp__" + server.replace("-", "_")


def server_summary(description: str | None, instructions: str | None) -> str:
    """The server's one line for people and prompts: its configured description, else the first
    line of the instructions it sent when it connected; empty when it has neither."""
    text = (description or "").strip() or (instructions or "").strip()
    return text.split("\n", 1)[0].strip()
