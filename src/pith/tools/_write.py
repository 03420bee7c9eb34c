"""`write`: create or replace a file, making parent directories (see docs/tools.md)."""

from __future__ import annotations

import asyncio
import os
from typing import ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.tools._base import BuiltinTool
from pith.tools._files import (
    describe_os_error,
    mutation_lock,
    refuse_directory_path,
    write_atomically,
)
from pith.tools._paths import resolve_tool_path

__all__ = ["WriteTool"]


class WriteTool(BuiltinTool):
    name = "write"
    label = "write"
    description = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Path to the file to write (relative or absolute)",
            },
            "content": {"type": "string", "description": "Content to write to the file"},
        },
        "required": ["path", "content"],
    }
    prompt_snippet = "Create or overwrite files"
    prompt_guidelines = ("Use write only for new files or complete rewrites.",)

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        path = str(args["path"])
        content = str(args["content"])
        absolute = resolve_tool_path(self.name, path, self.cwd)
        async with mutation_lock(absolute):
            if signal.aborted:
                raise ToolError("Operation aborted")
            await asyncio.to_thread(_write_file, path, absolute, content)
        return text_result(f"Successfully wrote to {path}")


def _write_file(path: str, absolute: str, content: str) -> None:
    refuse_directory_path(path, absolute, "write")
    if os.path.isdir(absolute):
        raise ToolError(f"{path} is a directory; give the path of a file to write.")
    try:
        os.makedirs(os.path.dirname(absolute), exist_ok=True)
    except FileExistsError:
        raise ToolError(
            f"Cannot create the parent directory of {path}: a file with that name exists."
        ) from None
    except OSError as error:
        raise ToolError(describe_os_error(error, os.path.dirname(path) or ".", "create")) from None
    try:
        write_atomically(absolute, content.encode("utf-8", "surrogatepass"))
    except OSError as error:
        raise ToolError(describe_os_error(error, path, "write")) from None
