"""The tool contract: what the agent loop calls, and what a tool gives back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from pith.agent._abort import AbortSignal
from pith.ai import UNSET, TextContent, ToolResultContent, UnsetType

__all__ = [
    "Tool",
    "ToolError",
    "ToolResult",
    "UpdateCallback",
    "error_result",
    "text_result",
]


@dataclass
class ToolResult:
    """Content blocks for the model plus `details` for people and extensions (never sent)."""

    content: list[ToolResultContent] = field(default_factory=list)
    details: object | UnsetType = UNSET
    is_error: bool = False
    terminate: bool = False
    """With every result of a batch set, the run ends after the batch."""

    def text(self) -> str:
        """The text blocks joined, as a person would read the result."""
        return "\n".join(block.text for block in self.content if isinstance(block, TextContent))


UpdateCallback = Callable[[ToolResult], None]


class ToolError(Exception):
    """Raised inside a tool to fail the call; the message becomes the model's error text."""


@runtime_checkable
class Tool(Protocol):
    """A tool the model can call.

    `parameters` is a JSON schema for the arguments, checked (with light coercion, such as
    `"5"` to `5`) before `execute` runs. A tool reports failure by raising `ToolError` or by
    returning `is_error=True`; any other exception is turned into an error result too.
    """

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def parameters(self) -> dict[str, object]: ...

    def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> Awaitable[ToolResult]: ...


class ArgumentPreparer(Protocol):
    """Optional tool hook: repair an argument shape before schema validation."""

    def prepare_arguments(self, args: object) -> object: ...


ExecutionMode = Literal["parallel", "sequential"]


def text_result(text: str, details: object | UnsetType = UNSET) -> ToolResult:
    """A successful result holding one text block."""
    return ToolResult(content=[TextContent(text=text)], details=details)


def error_result(message: str) -> ToolResult:
    """A failed result holding one text block and empty details, as Pi records them."""
    return ToolResult(content=[TextContent(text=message)], details={}, is_error=True)
