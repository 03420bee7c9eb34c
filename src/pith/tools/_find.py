"""`find`: files and directories by glob, .gitignore respected (see docs/tools.md).

The file list comes from `rg --files` (or the pure-Python walker); directories are the parents
of listed files. A pattern without `/` matches names at any depth; with `/` it matches the path
relative to the search directory. An all-lower-case pattern matches case-insensitively. Results
are sorted, so the same call always gives the same output.
"""

from __future__ import annotations

import asyncio
import math
import os
import re
from typing import ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.ai import UNSET, to_builtins
from pith.glob import find_glob_regex
from pith.tools._base import BuiltinTool
from pith.tools._paths import resolve_tool_path
from pith.tools._ripgrep import find_rg
from pith.tools._truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

__all__ = ["FindTool", "path_sort_key"]

DEFAULT_LIMIT = 1000


def path_sort_key(path: str) -> list[str]:
    """Sort paths by their components, so `a/` comes right before `a/b`."""
    return path.rstrip("/").split("/")


def _inside_git_repo(path: str) -> bool:
    current = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


class FindTool(BuiltinTool):
    name = "find"
    label = "find"
    description = (
        "Search for files by glob pattern. Returns matching file paths relative to the search "
        "directory. Respects .gitignore. Output is truncated to "
        f"{DEFAULT_LIMIT} results or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first)."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": (
                    "Glob pattern relative to the search directory, e.g. 'src/**/*.ts'. Without "
                    "'/', e.g. '*.ts', it matches file names at any depth"
                ),
            },
            "path": {
                "type": "string",
                "description": "Directory to search in (default: current directory)",
            },
            "limit": {
                "type": "number",
                "description": "Maximum number of results (default: 1000)",
            },
        },
        "required": ["pattern"],
    }
    prompt_snippet = "Find files by glob pattern (respects .gitignore)"

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        search_path = resolve_tool_path(self.name, str(args.get("path") or "."), self.cwd)
        if not os.path.exists(search_path):
            raise ToolError(f"Path not found: {search_path}")
        if not os.path.isdir(search_path):
            raise ToolError(f"Not a directory: {search_path}")
        limit_value = args.get("limit")
        limit = DEFAULT_LIMIT
        if isinstance(limit_value, int | float) and not isinstance(limit_value, bool):
            limit = max(1, math.floor(limit_value)) if math.isfinite(limit_value) else limit
        pattern = re.sub(r"^(?:\./)+", "", str(args["pattern"]))
        files = await _list_files(search_path, signal)
        return _select(files, search_path, pattern, limit)


async def _list_files(root: str, signal: AbortSignal) -> list[str]:
    respect_gitignore_outside_git = not _inside_git_repo(root)
    rg = find_rg()
    if rg is None:
        from pith.tools._walk import list_files

        return await asyncio.to_thread(
            lambda: list(list_files(root, require_git=not respect_gitignore_outside_git))
        )
    arguments = [
        "--no-config",
        "--files",
        "--hidden",
        "--color=never",
        "--sort",
        "path",
        "--glob",
        "!.git",
    ]
    if respect_gitignore_outside_git:
        arguments.append("--no-require-git")
    arguments += ["--", "."]
    try:
        process = await asyncio.create_subprocess_exec(
            rg,
            *arguments,
            cwd=root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as error:
        raise ToolError(f"Failed to run ripgrep: {error.strerror or error}") from None
    unsubscribe = signal.on_abort(process.kill)
    try:
        stdout, stderr = await process.communicate()
    finally:
        unsubscribe()
    if signal.aborted:
        raise ToolError("Operation aborted")
    lines = stdout.decode("utf-8", "surrogateescape").splitlines()
    if process.returncode not in (0, 1) and not lines:
        message = stderr.decode("utf-8", "replace").strip()
        raise ToolError(message or f"ripgrep exited with code {process.returncode}")
    return [line[2:] if line.startswith("./") else line for line in lines if line]


def _select(files: list[str], root: str, pattern: str, limit: int) -> ToolResult:
    is_path_pattern = "/" in pattern
    matcher = find_glob_regex(pattern, ignore_case=pattern == pattern.lower())
    absolute_pattern = os.path.isabs(pattern)
    entries: set[str] = set()
    for file in files:
        entries.add(file)
        parent = os.path.dirname(file)
        while parent and parent + "/" not in entries:
            entries.add(parent + "/")
            parent = os.path.dirname(parent)
    results: list[str] = []
    limit_reached = False
    for entry in sorted(entries, key=path_sort_key):
        bare = entry.rstrip("/")
        if absolute_pattern:
            subject = os.path.join(root, bare)
        elif is_path_pattern:
            subject = bare
        else:
            subject = bare.rsplit("/", 1)[-1]
        if not matcher.fullmatch(subject):
            continue
        if len(results) == limit:
            limit_reached = True
            break
        results.append(entry)
    if not results:
        return text_result("No files found matching pattern")
    truncation = truncate_head("\n".join(results), max_lines=2**53 - 1)
    output = truncation.content
    details: dict[str, object] = {}
    notices: list[str] = []
    if limit_reached:
        notices.append(
            f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern"
        )
        details["resultLimitReached"] = limit
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = to_builtins(truncation)
    if notices:
        output += "\n\n[" + ". ".join(notices) + "]"
    return text_result(output, details if details else UNSET)
