"""`read`: file contents, head first, with a continuation notice (see docs/tools.md)."""

from __future__ import annotations

import asyncio
import math
from typing import ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback
from pith.ai import UNSET, TextContent, ToolResultContent, to_builtins
from pith.tools._base import BuiltinTool
from pith.tools._files import (
    BINARY_SNIFF_BYTES,
    binary_file_error,
    describe_os_error,
    looks_binary,
    require_regular_file,
)
from pith.tools._images import IMAGE_SNIFF_BYTES, detect_image_mime, process_image
from pith.tools._line_select import LineSelection, select_lines
from pith.tools._paths import resolve_tool_path
from pith.tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

__all__ = ["ReadTool"]


class ReadTool(BuiltinTool):
    name = "read"
    label = "read"
    description = (
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). "
        "Images are sent as attachments. For text files, output is truncated to "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset "
        "until complete."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Path to the file to read (relative or absolute)",
            },
            "offset": {
                "type": "number",
                "description": "Line number to start reading from (1-indexed)",
            },
            "limit": {"type": "number", "description": "Maximum number of lines to read"},
        },
        "required": ["path"],
    }
    prompt_snippet = "Read file contents"
    prompt_guidelines = ("Use read to examine files instead of cat or sed.",)

    def __init__(self, cwd: str, *, auto_resize_images: bool = True) -> None:
        super().__init__(cwd)
        self.auto_resize_images = auto_resize_images

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        path = str(args["path"])
        offset = _optional_number(args.get("offset"), "offset")
        limit = _optional_number(args.get("limit"), "limit")
        if limit is not None and limit < 0:
            raise ToolError(f"limit must be 0 or more lines, got {_shown(limit)}")
        absolute = resolve_tool_path(self.name, path, self.cwd)
        return await asyncio.to_thread(self._read, path, absolute, offset, limit, signal)

    def _read(
        self,
        path: str,
        absolute: str,
        offset: float | None,
        limit: float | None,
        signal: AbortSignal,
    ) -> ToolResult:
        info = require_regular_file(absolute, path, "read")
        try:
            with open(absolute, "rb") as handle:
                head = handle.read(max(IMAGE_SNIFF_BYTES, BINARY_SNIFF_BYTES))
                mime = detect_image_mime(head)
                if mime is not None:
                    handle.seek(0)
                    return self._image(handle.read(), mime)
                if looks_binary(head[:BINARY_SNIFF_BYTES]):
                    raise ToolError(binary_file_error(path, info.st_size))
                handle.seek(0)
                start_line = max(0, math.floor(offset) - 1) if offset else 0
                count = None if limit is None else math.floor(limit)
                selection = select_lines(handle, start_line, count, signal)
        except OSError as error:
            raise ToolError(describe_os_error(error, path, "read")) from None
        return _text_result(path, offset, start_line, count, selection)

    def _image(self, data: bytes, mime: str) -> ToolResult:
        processed = process_image(data, mime, auto_resize=self.auto_resize_images)
        if processed.image is None:
            note = f"Read image file [{mime}]\n{processed.message}"
            return ToolResult(content=[TextContent(text=note)])
        note = f"Read image file [{processed.image.mime_type}]"
        if processed.hints:
            note += "\n" + "\n".join(processed.hints)
        content: list[ToolResultContent] = [TextContent(text=note), processed.image]
        return ToolResult(content=content)


def _text_result(
    path: str,
    offset: float | None,
    start_line: int,
    limit: int | None,
    selection: LineSelection,
) -> ToolResult:
    total = selection.total_file_lines
    truncation = selection.truncation
    if start_line >= total:
        raise ToolError(f"Offset {_shown(offset)} is beyond end of file ({total} lines total)")
    first_shown = start_line + 1
    details: object = UNSET
    if truncation.first_line_exceeds_limit:
        size = format_size(selection.first_line_bytes)
        text = (
            f"[Line {first_shown} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first_shown}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        details = {"truncation": to_builtins(truncation)}
    elif truncation.truncated:
        last_shown = first_shown + truncation.output_lines - 1
        limit_note = (
            ""
            if truncation.truncated_by == "lines"
            else (f" ({format_size(DEFAULT_MAX_BYTES)} limit)")
        )
        text = (
            f"{truncation.content}\n\n[Showing lines {first_shown}-{last_shown} of {total}"
            f"{limit_note}. Use offset={last_shown + 1} to continue.]"
        )
        details = {"truncation": to_builtins(truncation)}
    elif limit is not None and min(start_line + limit, total) < total:
        shown_end = start_line + limit
        text = (
            f"{truncation.content}\n\n[{total - shown_end} more lines in file. "
            f"Use offset={shown_end + 1} to continue.]"
        )
    else:
        text = truncation.content
    if selection.invalid_utf8:
        text += (
            "\n\n[The file is not valid UTF-8: undecodable bytes are shown as \ufffd. "
            "Do not edit it with the edit tool.]"
        )
    return ToolResult(content=[TextContent(text=text)], details=details)


def _optional_number(value: object, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ToolError(f"{name} must be a finite number, got {value!r}")
    return value


def _shown(value: float | None) -> str:
    """A number the way the model wrote it: `3`, not `3.0`."""
    if value is None:
        return "undefined"
    return str(int(value)) if float(value).is_integer() else str(value)
