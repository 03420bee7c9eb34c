"""`ls`: one directory's entries, dotfiles included, directories marked `/` (see docs/tools.md)."""

from __future__ import annotations

import asyncio
import math
import os
import unicodedata
from typing import ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.ai import UNSET, to_builtins
from pith.tools._base import BuiltinTool
from pith.tools._paths import resolve_tool_path
from pith.tools._truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

__all__ = ["LsTool", "collation_key"]

DEFAULT_LIMIT = 500

# Unicode root collation puts spaces, then punctuation and symbols in this order, then digits,
# then letters; Pi sorts names that way (case-insensitively).
_PUNCTUATION_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def collation_key(name: str) -> tuple[tuple[tuple[int, int], ...], tuple[str, ...], str]:
    """A sort key approximating `a.toLowerCase().localeCompare(b.toLowerCase())` in Node."""
    lowered = name.lower()
    primary: list[tuple[int, int]] = []
    secondary: list[str] = []
    for char in lowered:
        decomposed = unicodedata.normalize("NFD", char)
        base = decomposed[0]
        secondary.append(decomposed[1:])
        position = _PUNCTUATION_ORDER.find(base)
        if position != -1:
            primary.append((1, position))
        elif base.isspace():
            primary.append((0, ord(base)))
        elif base.isdigit():
            primary.append((3, ord(base)))
        elif base.isalpha():
            primary.append((4, ord(base)))
        else:
            primary.append((2, ord(base)))
    return tuple(primary), tuple(secondary), lowered


class LsTool(BuiltinTool):
    name = "ls"
    label = "ls"
    description = (
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for "
        "directories. Includes dotfiles. Output is truncated to "
        f"{DEFAULT_LIMIT} entries or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Directory to list (default: current directory)",
            },
            "limit": {
                "type": "number",
                "description": "Maximum number of entries to return (default: 500)",
            },
        },
    }
    prompt_snippet = "List directory contents"

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        directory = resolve_tool_path(self.name, str(args.get("path") or "."), self.cwd)
        limit_value = args.get("limit")
        limit = DEFAULT_LIMIT
        if isinstance(limit_value, int | float) and not isinstance(limit_value, bool):
            limit = max(1, math.floor(limit_value)) if math.isfinite(limit_value) else limit
        return await asyncio.to_thread(_list, directory, limit)


def _list(directory: str, limit: int) -> ToolResult:
    if not os.path.lexists(directory):
        raise ToolError(f"Path not found: {directory}")
    if not os.path.isdir(directory):
        raise ToolError(f"Not a directory: {directory}")
    try:
        names = os.listdir(directory)
    except OSError as error:
        raise ToolError(f"Cannot read directory: {error.strerror or error}: {directory}") from None
    names.sort(key=collation_key)
    entries: list[str] = []
    limit_reached = False
    for name in names:
        if len(entries) >= limit:
            limit_reached = True
            break
        try:
            is_dir = os.path.isdir(os.path.join(directory, name))
            os.stat(os.path.join(directory, name))
        except OSError:
            continue  # a dangling link or a vanished entry
        entries.append(name + "/" if is_dir else name)
    if not entries:
        return text_result("(empty directory)")
    truncation = truncate_head("\n".join(entries), max_lines=2**53 - 1)
    output = truncation.content
    details: dict[str, object] = {}
    notices: list[str] = []
    if limit_reached:
        notices.append(f"{limit} entries limit reached. Use limit={limit * 2} for more")
        details["entryLimitReached"] = limit
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = to_builtins(truncation)
    if notices:
        output += "\n\n[" + ". ".join(notices) + "]"
    return text_result(output, details if details else UNSET)
