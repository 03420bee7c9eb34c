"""`grep`: search file contents with ripgrep, capped by matches and bytes (see docs/tools.md).

ripgrep runs with `--json`; its match and context events feed a `GrepCollector`, which applies
the match limit (keeping the trailing context of the last allowed match, and saying the limit
was reached only once ripgrep proves one more match exists), cuts long lines and caps the bytes.
Without an rg binary a pure-Python search produces the same events.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
import os
import re
from collections.abc import Callable
from typing import ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.ai import UNSET, TextContent, to_builtins
from pith.tools._base import BuiltinTool
from pith.tools._grep_search import GrepEvent, rg_arguments
from pith.tools._paths import resolve_tool_path
from pith.tools._ripgrep import find_rg
from pith.tools._truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
    utf8_len,
)

__all__ = ["GrepCollector", "GrepTool"]

DEFAULT_LIMIT = 100
_LINE_END = re.compile(r"\r?\n?$")


class GrepCollector:
    """Turns search events into the tool's text, applying every limit. Pure; no I/O."""

    def __init__(self, limit: int, context: int, format_path: Callable[[str], str]) -> None:
        self.limit = limit
        self.context = context
        self.format_path = format_path
        self.match_count = 0
        self.match_limit_reached = False
        self.lines_truncated = False
        self.done = False
        self._lines: list[str] = []
        self._bytes = 0
        self._line_count = 0
        self._limit_hit = False
        self._last_file: str | None = None
        self._trailing_context_end = 0

    def add(self, event: GrepEvent) -> None:
        """Take one event; sets `done` once nothing more can change the output."""
        if self.done:
            return
        if not self._limit_hit:
            self._push(event.path, event.line_number, event.text, event.is_match)
            if not event.is_match:
                return
            self.match_count += 1
            if self.match_count >= self.limit:
                self._limit_hit = True
                self._trailing_context_end = event.line_number + self.context
            return
        in_window = (
            event.path == self._last_file and event.line_number <= self._trailing_context_end
        )
        if in_window:
            # A match inside the last match's trailing context is shown as context.
            self._push(event.path, event.line_number, event.text, False)
        if event.is_match:
            self.match_limit_reached = True  # proof that the limit cut results off
        if self.match_limit_reached and not (
            in_window and event.line_number < self._trailing_context_end
        ):
            self.done = True

    def _push(self, path: str, line_number: int, text: str, is_match: bool) -> None:
        self._last_file = path
        shown_path = self.format_path(path)
        cut = truncate_line(_LINE_END.sub("", text, count=1))
        if cut.was_truncated:
            self.lines_truncated = True
        separator = ":" if is_match else "-"
        line = f"{shown_path}{separator}{line_number}{separator} {cut.text}"
        # Lines past the byte cap are counted, not stored: truncation drops them anyway.
        if self._bytes - 1 <= DEFAULT_MAX_BYTES:
            self._lines.append(line)
        self._bytes += utf8_len(line) + 1
        self._line_count += 1

    def result(self) -> ToolResult:
        if self.match_count == 0:
            return text_result("No matches found")
        truncation = truncate_head("\n".join(self._lines), max_lines=2**53 - 1)
        truncation.total_lines = self._line_count
        truncation.total_bytes = self._bytes - 1
        output = truncation.content
        details: dict[str, object] = {}
        notices: list[str] = []
        if self.match_limit_reached:
            notices.append(
                f"{self.limit} matches limit reached. Use limit={self.limit * 2} for more, "
                "or refine pattern"
            )
            details["matchLimitReached"] = self.limit
        if truncation.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = to_builtins(truncation)
        if self.lines_truncated:
            notices.append(
                f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. "
                "Use read tool to see full lines"
            )
            details["linesTruncated"] = True
        if notices:
            output += "\n\n[" + ". ".join(notices) + "]"
        return text_result(output, details if details else UNSET)


class GrepTool(BuiltinTool):
    name = "grep"
    label = "grep"
    description = (
        "Search file contents for a pattern. Returns matching lines with file paths and line "
        "numbers. Respects .gitignore. Output is truncated to "
        f"{DEFAULT_LIMIT} matches or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). "
        f"Long lines are truncated to {GREP_MAX_LINE_LENGTH} chars."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "description": "Search pattern (regex or literal string)",
            },
            "path": {
                "type": "string",
                "description": "Directory or file to search (default: current directory)",
            },
            "glob": {
                "type": "string",
                "description": (
                    "Filter files by glob pattern relative to path, e.g. 'src/**/*.ts'. Without "
                    "'/', e.g. '*.ts', it matches file names at any depth"
                ),
            },
            "ignoreCase": {
                "type": "boolean",
                "description": "Case-insensitive search (default: false)",
            },
            "literal": {
                "type": "boolean",
                "description": "Treat pattern as literal string instead of regex (default: false)",
            },
            "context": {
                "type": "number",
                "description": "Number of lines to show before and after each match (default: 0)",
            },
            "limit": {
                "type": "number",
                "description": "Maximum number of matches to return (default: 100)",
            },
        },
        "required": ["pattern"],
    }
    prompt_snippet = "Search file contents for patterns (respects .gitignore)"

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        pattern = str(args["pattern"])
        search_path = resolve_tool_path(self.name, str(args.get("path") or "."), self.cwd)
        try:
            is_directory = os.path.isdir(search_path)
            os.stat(search_path)
        except OSError:
            raise ToolError(f"Path not found: {search_path}") from None
        context = _whole(args.get("context"), 0)
        limit = max(1, _whole(args.get("limit"), DEFAULT_LIMIT))
        glob = args.get("glob")
        glob_text = glob if isinstance(glob, str) and glob else None

        def format_path(path: str) -> str:
            if is_directory:
                relative = os.path.relpath(os.path.join(search_path, path), search_path)
                if relative != "." and not relative.startswith(".."):
                    return relative.replace(os.sep, "/")
            return os.path.basename(path)

        collector = GrepCollector(limit, context, format_path)
        ignore_case = args.get("ignoreCase") is True
        literal = args.get("literal") is True
        rg = find_rg()
        warning: str | None = None
        if rg is None:
            # Imported here so that startup does not pay for it where rg is installed.
            from pith.tools._grep_fallback import search

            problems: list[str] = []

            def run_fallback() -> None:
                events = search(
                    pattern,
                    search_path,
                    is_directory,
                    ignore_case=ignore_case,
                    literal=literal,
                    glob=glob_text,
                    context=context,
                    warnings=problems,
                )
                for event in events:
                    if signal.aborted:
                        raise ToolError("Operation aborted")
                    collector.add(event)
                    if collector.done:
                        return

            await asyncio.to_thread(run_fallback)
            warning = problems[0] if problems else None
        else:
            target = "." if is_directory else search_path
            arguments = rg_arguments(
                pattern,
                target,
                ignore_case=ignore_case,
                literal=literal,
                glob=glob_text,
                context=context,
            )
            cwd = search_path if is_directory else None
            warning = await _run_rg(rg, arguments, cwd, collector, signal)
        result = collector.result()
        if warning:
            block = result.content[0]
            assert isinstance(block, TextContent)
            block.text += f"\n\n[Some paths could not be searched: {warning}]"
        return result


def _whole(value: object, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return max(0, math.floor(value))


async def _run_rg(
    rg: str,
    arguments: list[str],
    cwd: str | None,
    collector: GrepCollector,
    signal: AbortSignal,
) -> str | None:
    """Feed rg's events to `collector`; returns rg's complaint when it searched only part."""
    try:
        process = await asyncio.create_subprocess_exec(
            rg,
            *arguments,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=1 << 26,
        )
    except OSError as error:
        raise ToolError(f"Failed to run ripgrep: {error.strerror or error}") from None
    assert process.stdout is not None
    assert process.stderr is not None
    stopped_early = False

    def stop() -> None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()

    unsubscribe = signal.on_abort(stop)
    stderr_task = asyncio.ensure_future(process.stderr.read())
    try:
        async for raw in process.stdout:
            event = _parse_event(raw)
            if event is None:
                continue
            collector.add(event)
            if collector.done:
                stopped_early = True
                stop()
                break
        code = await process.wait()
        stderr = (await stderr_task).decode("utf-8", "replace").strip()
    finally:
        unsubscribe()
        if process.returncode is None:
            stop()
            await process.wait()
    if signal.aborted:
        raise ToolError("Operation aborted")
    if stopped_early or code in (0, 1):
        return None
    if collector.match_count == 0:
        raise ToolError(stderr or f"ripgrep exited with code {code}")
    return stderr.splitlines()[0] if stderr else f"ripgrep exited with code {code}"


def _parse_event(raw: bytes) -> GrepEvent | None:
    if not raw.strip():
        return None
    try:
        event = json.loads(raw)
    except ValueError:
        return None
    kind = event.get("type")
    if kind not in ("match", "context"):
        return None
    data = event.get("data") or {}
    path = _rg_text(data.get("path"))
    line_number = data.get("line_number")
    if not path or not isinstance(line_number, int):
        return None
    return GrepEvent(kind == "match", path, line_number, _rg_text(data.get("lines")))


def _rg_text(data: object) -> str:
    """A ripgrep JSON text field; non-UTF-8 data arrives base64-encoded in `bytes`."""
    if isinstance(data, dict):
        if isinstance(data.get("text"), str):
            return str(data["text"])
        if isinstance(data.get("bytes"), str):
            return base64.b64decode(data["bytes"]).decode("utf-8", "replace")
    return ""
