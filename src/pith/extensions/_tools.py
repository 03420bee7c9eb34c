"""Tools from extensions: a definition with a context-aware `execute`, adapted to `Tool`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pith.agent import AbortSignal, Tool, ToolResult, UpdateCallback

if TYPE_CHECKING:
    from pith.extensions._context import ExtensionContext

__all__ = ["DefinedTool", "ToolDefinition", "ToolInfo", "as_tool"]

Execute = Callable[
    [str, dict[str, object], AbortSignal, UpdateCallback | None, "ExtensionContext"],
    Awaitable[ToolResult] | ToolResult,
]


@dataclass
class ToolDefinition:
    """A tool an extension provides (`api.register_tool`).

    `execute(call_id, args, signal, on_update, ctx)` returns a `ToolResult` (or raises
    `ToolError` to fail the call). `parameters` is the JSON schema the arguments are checked
    against; `prepare_arguments` may repair old argument shapes before that check.
    `prompt_snippet` and `prompt_guidelines` feed the system prompt's tools and rules sections.
    """

    name: str
    description: str
    parameters: dict[str, object]
    execute: Execute
    label: str = ""
    prepare_arguments: Callable[[object], object] | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: Sequence[str] = ()
    execution_mode: Literal["parallel", "sequential"] = "parallel"
    default_active: bool = True


@dataclass(frozen=True)
class ToolInfo:
    """What `api.get_all_tools()` tells about a tool."""

    name: str
    description: str
    parameters: dict[str, object]
    prompt_guidelines: tuple[str, ...] = field(default_factory=tuple)
    source: str = "builtin"
    """`builtin`, or the name of the extension that registered it."""


class DefinedTool:
    """A `ToolDefinition` as the agent loop sees it: `execute` gets the extension's context."""

    def __init__(self, definition: ToolDefinition, context: ExtensionContext) -> None:
        self.definition = definition
        self._context = context
        self.name = definition.name
        self.label = definition.label or definition.name
        self.description = definition.description
        self.parameters = definition.parameters
        self.prompt_snippet = definition.prompt_snippet
        self.prompt_guidelines = tuple(definition.prompt_guidelines)
        self.execution_mode = definition.execution_mode
        self.default_active = definition.default_active
        if definition.prepare_arguments is not None:
            self.prepare_arguments = definition.prepare_arguments

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        result = self.definition.execute(call_id, args, signal, on_update, self._context)
        if inspect.isawaitable(result):
            return await result
        return result


def as_tool(tool: object, context: ExtensionContext) -> Tool:
    """`tool` as a `Tool`: a `ToolDefinition` is adapted; anything else must already be one."""
    if isinstance(tool, ToolDefinition):
        return DefinedTool(tool, context)
    if isinstance(tool, Tool):
        return tool
    raise TypeError(
        "register_tool() takes a ToolDefinition or an object with name, label, description, "
        f"parameters and execute(call_id, args, signal, on_update); got {type(tool).__name__}"
    )
