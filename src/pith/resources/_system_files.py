"""The custom system prompt (`SYSTEM.md`) and the text appended to the prompt
(`APPEND_SYSTEM.md`): given on the command line, or discovered in the trusted project's `.pith/`
or else the agent dir."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from pith.errors import InputError
from pith.resources._pathnames import PROJECT_DIR, StrPath, resolve_path
from pith.resources._text_file import read_text_file
from pith.resources._types import Diagnostic

__all__ = [
    "APPEND_SYSTEM_FILE",
    "SYSTEM_FILE",
    "PromptText",
    "SystemFiles",
    "load_system_files",
]

SYSTEM_FILE = "SYSTEM.md"
APPEND_SYSTEM_FILE = "APPEND_SYSTEM.md"


@dataclass(frozen=True)
class PromptText:
    text: str
    """The file's text (BOM removed, trailing newline kept) or the literal value."""
    source: str | None
    """The absolute path of the file it was read from; None for literal text."""


@dataclass(frozen=True)
class SystemFiles:
    system_prompt: PromptText | None
    """Replaces the default preamble; None keeps the default."""
    append: list[PromptText] = field(default_factory=list)
    """Appended to the prompt, in order."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _discover(name: str, cwd: str, agent_dir: str, trusted: bool) -> str | None:
    """The project's `.pith/<name>` when trusted and present, else the agent dir's; exactly
    one file, never both."""
    project = os.path.join(cwd, PROJECT_DIR, name)
    if trusted and os.path.exists(project):
        return project
    user = os.path.join(agent_dir, name)
    return user if os.path.exists(user) else None


def _read_discovered(path: str, diagnostics: list[Diagnostic]) -> PromptText | None:
    try:
        text, warning = read_text_file(path)
    except OSError as error:
        reason = error.strerror or str(error)
        diagnostics.append(Diagnostic("warning", f"{path}: cannot read ({reason}); ignored", path))
        return None
    if warning is not None:
        diagnostics.append(warning)
    return PromptText(text, path)


def _read_cli_value(flag: str, value: str, diagnostics: list[Diagnostic]) -> PromptText | None:
    """A command-line value: the file at exactly that path (relative to the process's working
    directory, no `~` expansion) when it exists, else the value itself; None for ''."""
    if not value:
        return None
    if not os.path.exists(value):
        return PromptText(value, None)
    path = resolve_path(value)
    try:
        text, warning = read_text_file(value)
    except OSError as error:
        reason = error.strerror or str(error)
        raise InputError(f"{flag} {value}: cannot read the file ({reason})") from error
    if warning is not None:
        diagnostics.append(warning)
    return PromptText(text, path)


def load_system_files(
    cwd: StrPath,
    agent_dir: StrPath,
    *,
    trusted: bool,
    system_prompt: str | None = None,
    append_system_prompt: Sequence[str] | None = None,
) -> SystemFiles:
    """The custom system prompt and the append texts for a session in `cwd`.

    `system_prompt` (`--system-prompt`) and `append_system_prompt` (`--append-system-prompt`,
    repeatable) replace discovery when given (not None); an empty list means no append. Each
    value is read as a file when that exact path exists, else used as literal text.

    Raises `InputError` when a command-line value names a path that cannot be read (a
    directory, no permission)."""
    resolved_cwd = resolve_path(cwd)
    resolved_agent_dir = resolve_path(agent_dir)
    diagnostics: list[Diagnostic] = []

    custom: PromptText | None = None
    if system_prompt is not None:
        custom = _read_cli_value("--system-prompt", system_prompt, diagnostics)
    else:
        found = _discover(SYSTEM_FILE, resolved_cwd, resolved_agent_dir, trusted)
        if found is not None:
            custom = _read_discovered(found, diagnostics)

    append: list[PromptText] = []
    if append_system_prompt is not None:
        for value in append_system_prompt:
            text = _read_cli_value("--append-system-prompt", value, diagnostics)
            if text is not None:
                append.append(text)
    else:
        found = _discover(APPEND_SYSTEM_FILE, resolved_cwd, resolved_agent_dir, trusted)
        if found is not None:
            text = _read_discovered(found, diagnostics)
            if text is not None:
                append.append(text)

    return SystemFiles(custom, append, diagnostics)
