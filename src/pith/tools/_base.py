"""Shared shape of the built-in tools: name, schema, prompt snippet and working directory."""

from __future__ import annotations

from typing import ClassVar

__all__ = ["BuiltinTool"]


class BuiltinTool:
    """Base of the seven built-ins. Each binds a working directory at construction."""

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[dict[str, object]]
    prompt_snippet: ClassVar[str]
    prompt_guidelines: tuple[str, ...] = ()

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
