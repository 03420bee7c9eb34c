"""The agent loop and the contracts it runs on: tools, tool calls, cancellation."""

from pith.agent._abort import AbortController, AbortSignal
from pith.agent._schema import SchemaIssue, check, coerce, format_validation_error
from pith.agent._tool import Tool, ToolError, ToolResult, UpdateCallback, error_result, text_result
from pith.agent._tool_call import (
    AfterHook,
    BeforeHook,
    BlockDecision,
    ToolCallOutcome,
    run_tool_call,
)

__all__ = [
    "AbortController",
    "AbortSignal",
    "AfterHook",
    "BeforeHook",
    "BlockDecision",
    "SchemaIssue",
    "Tool",
    "ToolCallOutcome",
    "ToolError",
    "ToolResult",
    "UpdateCallback",
    "check",
    "coerce",
    "error_result",
    "format_validation_error",
    "run_tool_call",
    "text_result",
]
