"""The resources pith loads for a project, as plain values: context files, skills, prompt
templates and the diagnostics found while loading them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Collision",
    "ContextFile",
    "Diagnostic",
    "DiagnosticType",
    "PromptTemplate",
    "Skill",
    "SourceInfo",
]

DiagnosticType = Literal["warning", "error", "collision"]


@dataclass(frozen=True)
class ContextFile:
    """An AGENTS.md / CLAUDE.md file: its absolute path and its text (BOM removed)."""

    path: str
    content: str


@dataclass(frozen=True)
class SourceInfo:
    """Where a skill or template came from (Pi's `sourceInfo`)."""

    path: str
    source: str
    """`local` (a loader given a directory), `auto` (discovered), `cli`, `settings`,
    `extension`."""
    scope: str
    """`user`, `project` or `temporary`."""
    origin: str
    """`top-level` or `package`."""
    base_dir: str | None = None


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    file_path: str
    base_dir: str
    source_info: SourceInfo
    disable_model_invocation: bool = False
    """Hidden from the system prompt; `/skill:name` still works."""


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    file_path: str
    source_info: SourceInfo
    argument_hint: str | None = None


@dataclass(frozen=True)
class Collision:
    resource_type: str
    name: str
    winner_path: str
    loser_path: str


@dataclass(frozen=True)
class Diagnostic:
    """A problem found while loading resources: shown to the user, never fatal."""

    type: DiagnosticType
    message: str
    path: str
    collision: Collision | None = None
