"""The prompts each server offered when it last connected, kept in `<agent dir>/mcp-prompts.json`.

Commands are matched before a prompt runs, and in a print run (`pith -p "/mcp__git__commit"`)
that is before the servers have connected. So the prompt commands of a server are registered
at start-up from what it offered last time, and brought up to date when it connects; a print
run waits at start-up only for servers it has never seen. A file that cannot be read counts as
empty; one that cannot be written is left as it was (the commands then appear on connect).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pith.tools import write_atomically

if TYPE_CHECKING:
    from pith.mcp import McpPrompt

__all__ = ["CACHE_FILE", "read_prompt_cache", "write_prompt_cache"]

CACHE_FILE = "mcp-prompts.json"


def _prompt(server: str, data: Any) -> McpPrompt | None:
    from pith.mcp import McpPrompt, PromptArgument

    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    arguments = tuple(
        PromptArgument(a["name"], a.get("description"), bool(a.get("required")))
        for a in data.get("arguments") or ()
        if isinstance(a, dict) and isinstance(a.get("name"), str)
    )
    description = data.get("description")
    return McpPrompt(
        server, data["name"], description if isinstance(description, str) else None, arguments
    )


def read_prompt_cache(agent_dir: Path) -> dict[str, list[McpPrompt]]:
    """Each server's prompts as last seen (servers never seen are absent)."""
    try:
        document = json.loads((agent_dir / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = document.get("servers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        return {}
    found: dict[str, list[McpPrompt]] = {}
    for server, prompts in servers.items():
        if isinstance(prompts, list):
            found[server] = [p for p in (_prompt(server, d) for d in prompts) if p is not None]
    return found


def write_prompt_cache(
    agent_dir: Path, server: str, prompts: Sequence[McpPrompt], known: Mapping[str, object]
) -> None:
    """Record `server`'s prompts, keeping the other servers' entries of the file."""
    cache = read_prompt_cache(agent_dir)
    cache[server] = list(prompts)
    document = {
        "servers": {
            name: [
                {
                    "name": p.name,
                    "description": p.description,
                    "arguments": [
                        {"name": a.name, "description": a.description, "required": a.required}
                        for a in p.arguments
                    ],
                }
                for p in found
            ]
            for name, found in sorted(cache.items())
            if name in known or name == server
        }
    }
    try:
        agent_dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        write_atomically(str(agent_dir / CACHE_FILE), text.encode())
    except OSError:
        pass
