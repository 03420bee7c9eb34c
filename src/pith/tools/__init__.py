"""The built-in tools and the output truncation every tool result passes through."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pith.tools._bash import (
    BACKGROUND_NOTE,
    BashTool,
    CapturedOutput,
    ShellRun,
    find_shell,
    run_shell,
)
from pith.tools._edit import EditTool
from pith.tools._files import BINARY_SNIFF_BYTES, looks_binary, write_atomically
from pith.tools._find import FindTool
from pith.tools._grep import GrepTool
from pith.tools._images import IMAGE_SNIFF_BYTES, detect_image_mime, process_image
from pith.tools._ls import LsTool
from pith.tools._output import OutputAccumulator, OutputSnapshot
from pith.tools._output_files import (
    DEFAULT_FULL_OUTPUT_MAX_BYTES,
    create_output_file,
    sweep_output_files,
    write_output_file,
)
from pith.tools._paths import resolve_read_path, resolve_to_cwd, resolve_tool_path
from pith.tools._read import ReadTool
from pith.tools._ripgrep import find_rg
from pith.tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    TruncationResult,
    count_lines,
    format_size,
    slice_head,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from pith.tools._walk import list_files
from pith.tools._write import WriteTool

if TYPE_CHECKING:
    from pith.agent import Tool

__all__ = [
    "BACKGROUND_NOTE",
    "BINARY_SNIFF_BYTES",
    "BUILTIN_TOOL_NAMES",
    "DEFAULT_FULL_OUTPUT_MAX_BYTES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "GREP_MAX_LINE_LENGTH",
    "IMAGE_SNIFF_BYTES",
    "BashTool",
    "CapturedOutput",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "OutputAccumulator",
    "OutputSnapshot",
    "ReadTool",
    "ShellRun",
    "TruncationResult",
    "WriteTool",
    "builtin_tools",
    "count_lines",
    "create_output_file",
    "detect_image_mime",
    "find_rg",
    "find_shell",
    "format_size",
    "list_files",
    "looks_binary",
    "process_image",
    "resolve_read_path",
    "resolve_to_cwd",
    "resolve_tool_path",
    "run_shell",
    "slice_head",
    "sweep_output_files",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "write_atomically",
    "write_output_file",
]

BUILTIN_TOOL_NAMES = ("read", "bash", "edit", "write", "grep", "find", "ls")
DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")
"""Active unless the user picks others, as in Pi."""


def builtin_tools(
    cwd: str,
    *,
    bash_env: Callable[[], dict[str, str]] | None = None,
    shell_path: str | None = None,
    shell_command_prefix: str | None = None,
    full_output_max_bytes: int = DEFAULT_FULL_OUTPUT_MAX_BYTES,
) -> dict[str, Tool]:
    """Every built-in tool bound to `cwd`, by name, in Pi's order.

    `bash_env` supplies the environment of each command (with the session's PITH_* variables);
    `shell_path`, `shell_command_prefix` and `full_output_max_bytes` are the settings
    `shellPath`, `shellCommandPrefix` and `bashFullOutputMaxBytes`.
    """
    tools: list[Tool] = [
        ReadTool(cwd),
        BashTool(
            cwd,
            env=bash_env,
            shell_path=shell_path,
            command_prefix=shell_command_prefix,
            full_output_max_bytes=full_output_max_bytes,
        ),
        EditTool(cwd),
        WriteTool(cwd),
        GrepTool(cwd),
        FindTool(cwd),
        LsTool(cwd),
    ]
    return {tool.name: tool for tool in tools}
