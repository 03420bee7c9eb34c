"""What the user typed on the command line, turned into the first prompt.

Piped standard input, then `@file` attachments, then the first message, joined with no
separator (as Pi does); later messages become prompts of their own. Text files become
`<file name="/abs/path">…</file>` blocks; images are attached.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from pith.ai import ImageContent
from pith.errors import InputError
from pith.tools import (
    BINARY_SNIFF_BYTES,
    IMAGE_SNIFF_BYTES,
    detect_image_mime,
    looks_binary,
    process_image,
    resolve_read_path,
)

__all__ = ["Prompts", "build_prompts", "read_piped_stdin"]


@dataclass
class Prompts:
    first: str | None
    images: list[ImageContent] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)


def read_piped_stdin() -> str | None:
    """Standard input when something is piped in; never waits on a terminal."""
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return None
    try:
        data = stream.buffer.read()
    except (OSError, ValueError):
        return None
    return data.decode("utf-8", "replace") if data else None


def _attach(path_arg: str, cwd: str, images: list[ImageContent]) -> str:
    path = os.path.abspath(resolve_read_path(path_arg, cwd))
    if not os.path.isfile(path):
        kind = "is a directory" if os.path.isdir(path) else "not found"
        raise InputError(f"@{path_arg}: file {kind}: {path}")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(f"@{path_arg}: cannot read {path}: {error.strerror or error}") from None
    if not data:
        return ""
    mime = detect_image_mime(data[:IMAGE_SNIFF_BYTES])
    if mime is not None:
        processed = process_image(data, mime)
        if processed.image is None:
            return f'<file name="{path}">{processed.message}</file>\n'
        images.append(processed.image)
        return f'<file name="{path}">{chr(10).join(processed.hints)}</file>\n'
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise InputError(f"@{path_arg}: {path} is a binary file; attach text files or images")
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    return f'<file name="{path}">\n{text}\n</file>\n'


def build_prompts(
    messages: list[str], file_args: list[str], stdin_text: str | None, cwd: str
) -> Prompts:
    """Combine stdin, `@file` attachments and the first message into the first prompt."""
    images: list[ImageContent] = []
    attached = "".join(_attach(arg, cwd, images) for arg in file_args)
    parts = [part for part in (stdin_text, attached) if part]
    rest = list(messages)
    if rest:
        parts.append(rest.pop(0))
    first = "".join(parts) if parts else None
    return Prompts(first, images, rest)
