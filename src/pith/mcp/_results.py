"""What an MCP server answers, turned into what pith's model sees.

A tool result's blocks become pith content: text stays text, images stay images (always kept,
never capped), and every other kind becomes one line of text saying what it was — audio is
named, a resource link names its server and URI so the model can read it with the
`mcp_resources` tool, an embedded text resource becomes its text under its URI, an embedded
binary resource is saved to a private temporary file the line names. `structuredContent` is
kept as it is in `structured`; when the result has no text, its JSON becomes the text.

The model-facing text of one result is capped at `MAX_TEXT_BYTES` (20 KB, UTF-8): longer text
keeps its first and last 10 KB, the middle becomes a marker counting the characters cut, and
the whole text goes to a full-output file (the same private temporary files the bash tool
writes) whose path the text names, with how to page through it with `read`.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from pith.ai import ImageContent, TextContent
from pith.tools import DEFAULT_FULL_OUTPUT_MAX_BYTES, create_output_file, write_output_file

__all__ = [
    "MAX_TEXT_BYTES",
    "RESOURCE_TOOL",
    "McpCallResult",
    "cap_content",
    "convert_blocks",
    "convert_contents",
    "convert_result",
    "error_result",
]

MAX_TEXT_BYTES = 20 * 1024
"""The model-facing text of one MCP result, at most (UTF-8 bytes); the rest is in a file."""
RESOURCE_TOOL = "mcp_resources"
"""The tool the model reads a server's resources with; resource links name it."""
OUTPUT_PREFIX = "pith-mcp"
BLOB_PREFIX = "pith-mcp-blob"

Content = TextContent | ImageContent


@dataclass(frozen=True)
class McpCallResult:
    """One MCP answer ready for the model: `content` (text capped, images kept), `is_error`,
    `structured` (the server's `structuredContent`, or None), and `details` for people and
    extensions (never sent): `server`, `tool` or `uri`, `fullOutputPath` when the text was
    cut, `savedFiles` for binary resources written to disk, `truncated` with the sizes."""

    content: list[Content] = field(default_factory=list)
    is_error: bool = False
    structured: object | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """The text blocks joined, as a person would read the result."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextContent))


def error_result(message: str, **details: Any) -> McpCallResult:
    """A failed call in pith's words (no server answer to convert)."""
    return McpCallResult([TextContent(text=message)], is_error=True, details=dict(details))


def convert_result(result: types.CallToolResult, *, server: str, tool: str) -> McpCallResult:
    """A `tools/call` answer as pith content, capped (see the module docstring)."""
    saved: list[str] = []
    content = convert_blocks(result.content, server=server, saved=saved)
    structured = result.structured_content
    if structured is not None and not any(isinstance(block, TextContent) for block in content):
        content.append(TextContent(text=json.dumps(structured, indent=2, ensure_ascii=False)))
    details: dict[str, Any] = {"server": server, "tool": tool}
    content = cap_content(content, details)
    if saved:
        details["savedFiles"] = saved
    return McpCallResult(content, bool(result.is_error), structured, details)


def convert_contents(
    contents: Sequence[types.TextResourceContents | types.BlobResourceContents],
    *,
    server: str,
    uri: str,
) -> McpCallResult:
    """A `resources/read` answer as pith content, capped like a tool result."""
    saved: list[str] = []
    blocks = [_resource_contents(item, saved) for item in contents]
    details: dict[str, Any] = {"server": server, "uri": uri}
    capped = cap_content(blocks, details)
    if saved:
        details["savedFiles"] = saved
    return McpCallResult(capped, False, None, details)


def convert_blocks(
    blocks: Iterable[types.ContentBlock], *, server: str, saved: list[str] | None = None
) -> list[Content]:
    """Each block as one pith block; `saved` collects the files binary resources went to."""
    files = saved if saved is not None else []
    return [_block(block, server, files) for block in blocks]


def _block(block: types.ContentBlock, server: str, saved: list[str]) -> Content:
    if isinstance(block, types.TextContent):
        return TextContent(text=block.text)
    if isinstance(block, types.ImageContent):
        return ImageContent(data=block.data, mime_type=block.mime_type)
    if isinstance(block, types.AudioContent):
        return TextContent(
            text=f"[audio ({block.mime_type}, {_decoded_size(block.data)} bytes) not shown]"
        )
    if isinstance(block, types.ResourceLink):
        kind = f", {block.mime_type}" if block.mime_type else ""
        about = f" — {block.description}" if block.description else ""
        return TextContent(
            text=f"[resource link {block.name!r} ({block.uri}{kind}){about}: read it with "
            f"{RESOURCE_TOOL}, server {server!r}, uri {str(block.uri)!r}]"
        )
    return _resource_contents(block.resource, saved)


def _resource_contents(
    item: types.TextResourceContents | types.BlobResourceContents, saved: list[str]
) -> Content:
    uri = str(item.uri)
    if isinstance(item, types.TextResourceContents):
        return TextContent(text=f"[resource {uri}]\n{item.text}")
    mime = item.mime_type or "application/octet-stream"
    if mime.startswith("image/"):
        return ImageContent(data=item.blob, mime_type=mime)
    try:
        data = base64.b64decode(item.blob, validate=True)
    except (binascii.Error, ValueError):
        return TextContent(
            text=f"[resource {uri} ({mime}): the server sent binary data that is not base64]"
        )
    path = _save_blob(data, mime)
    if path is None:
        return TextContent(text=f"[resource {uri} ({mime}, {len(data)} bytes): could not be saved]")
    saved.append(path)
    return TextContent(text=f"[resource {uri} ({mime}, {len(data)} bytes) saved to {path}]")


def _save_blob(data: bytes, mime: str) -> str | None:
    extension = mimetypes.guess_extension(mime) or ".bin"
    try:
        path, handle = create_output_file(BLOB_PREFIX, extension)
        with handle:
            handle.write(data)
    except OSError:
        return None
    return path


def _decoded_size(data: str) -> int:
    return len(data.strip().rstrip("=")) * 3 // 4


def cap_content(content: list[Content], details: dict[str, Any]) -> list[Content]:
    """Keep the text within `MAX_TEXT_BYTES`: when it is longer, one text block (start, a marker,
    end, and where the full text is) replaces the text blocks, the images follow. `details`
    gains `fullOutputPath` and `truncated`."""
    texts = [block.text for block in content if isinstance(block, TextContent)]
    combined = "\n".join(texts)
    data = combined.encode("utf-8")
    if len(data) <= MAX_TEXT_BYTES:
        return content
    head_end = _boundary(data, MAX_TEXT_BYTES // 2, -1)
    tail_start = _boundary(data, len(data) - (MAX_TEXT_BYTES - MAX_TEXT_BYTES // 2), 1)
    head = data[:head_end].decode("utf-8")
    tail = data[tail_start:].decode("utf-8")
    cut = len(data[head_end:tail_start].decode("utf-8"))
    saved = write_output_file(OUTPUT_PREFIX, [data], DEFAULT_FULL_OUTPUT_MAX_BYTES)
    details["truncated"] = {"totalChars": len(combined), "cutChars": cut, "totalBytes": len(data)}
    if saved is not None:
        path, _ = saved
        details["fullOutputPath"] = path
        lines = combined.count("\n") + 1
        where = (
            f"[Output cut: {len(combined)} characters, {lines} line{'s' if lines != 1 else ''} in "
            f"all. Full output: {path} — read it with the read tool, using offset and limit]"
        )
    else:
        where = (
            f"[Output cut: {len(combined)} characters in all; the full output could not be saved]"
        )
    text = f"{head}\n…[{cut} characters cut]…\n{tail}\n\n{where}"
    return [
        TextContent(text=text),
        *(block for block in content if isinstance(block, ImageContent)),
    ]


def _boundary(data: bytes, index: int, step: int) -> int:
    """The nearest character start at or beyond `index` in direction `step`."""
    index = max(0, min(index, len(data)))
    while 0 < index < len(data) and (data[index] & 0xC0) == 0x80:
        index += step
    return index
