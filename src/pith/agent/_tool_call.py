"""One tool call, start to finish, exactly as a model-issued call runs.

Steps: abort check, tool lookup, `prepare_arguments`, schema coercion and validation, the
`before` hook (which may block), execution, the `after` hook (which may patch the result). Every
failure along the way becomes an error result: `run_tool_call` never raises for a tool's sake,
so every call the model made gets a result.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from pith.agent._abort import AbortSignal
from pith.agent._schema import check, coerce, format_validation_error
from pith.agent._tool import Tool, ToolError, ToolResult, UpdateCallback, error_result
from pith.ai import ToolCall

__all__ = [
    "AfterHook",
    "BeforeHook",
    "BlockDecision",
    "PreparedCall",
    "ToolCallOutcome",
    "apply_after_hook",
    "execute_prepared",
    "prepare_tool_call",
    "run_tool_call",
]


@dataclass(frozen=True)
class BlockDecision:
    """Returned by a `before` hook to stop a call; `reason` becomes the model's error text."""

    reason: str | None = None
    terminate: bool = False


BeforeHook = Callable[[Tool, ToolCall, dict[str, object]], Awaitable[BlockDecision | None]]
"""Sees the validated arguments (and may change them in place); may block the call."""

AfterHook = Callable[[Tool, ToolCall, dict[str, object], ToolResult], Awaitable[ToolResult | None]]
"""Sees the result; may return a replacement."""


@dataclass
class ToolCallOutcome:
    result: ToolResult
    args: dict[str, object] | None = None
    """The arguments the tool ran with, after preparation and coercion."""
    duration_ms: int | None = None
    """Execution time; None when the call never reached `execute`."""


@dataclass
class PreparedCall:
    """A call that passed every check and may now execute."""

    tool: Tool
    call: ToolCall
    args: dict[str, object]


async def prepare_tool_call(
    tools: Mapping[str, Tool],
    call: ToolCall,
    signal: AbortSignal,
    *,
    before: BeforeHook | None = None,
) -> PreparedCall | ToolCallOutcome:
    """Check `call` (lookup, argument repair, schema, `before` hook).

    Returns what to execute, or the finished (error) outcome when the call must not run.
    """
    if signal.aborted:
        return ToolCallOutcome(error_result("Operation aborted"))
    tool = tools.get(call.name)
    if tool is None:
        declared = ", ".join(tools) or "none"
        return ToolCallOutcome(
            error_result(f"Tool {call.name} not found. Available tools: {declared}")
        )
    if isinstance(call.arguments_error, str):
        message = f'Invalid arguments for tool "{call.name}": {call.arguments_error}'
        return ToolCallOutcome(error_result(message))

    arguments: object = copy.deepcopy(call.arguments)
    prepare = getattr(tool, "prepare_arguments", None)
    if callable(prepare):
        try:
            arguments = prepare(arguments)
        except Exception as error:
            return ToolCallOutcome(error_result(_message(error)))
    coerced = coerce(tool.parameters, arguments)
    issues = check(tool.parameters, coerced)
    if issues:
        text = format_validation_error(call.name, issues, call.arguments)
        return ToolCallOutcome(error_result(text))
    if not isinstance(coerced, dict):  # a schema without "type": "object"
        message = f'Validation failed for tool "{call.name}": arguments must be a JSON object'
        return ToolCallOutcome(error_result(message))

    nul = _nul_argument(coerced)
    if nul is not None:
        message = (
            f'Invalid arguments for tool "{call.name}": "{nul}" contains a NUL byte (\\0), '
            "which no file name or command can hold; remove it and call the tool again"
        )
        return ToolCallOutcome(error_result(message), coerced)

    if before is not None:
        try:
            decision = await before(tool, call, coerced)
        except Exception as error:
            return ToolCallOutcome(error_result(_message(error)), coerced)
        if _aborted(signal):  # the hook may have waited on the user
            return ToolCallOutcome(error_result("Operation aborted"), coerced)
        if decision is not None:
            blocked = error_result(decision.reason or "Tool execution was blocked")
            blocked.terminate = decision.terminate
            return ToolCallOutcome(blocked, coerced)
    return PreparedCall(tool, call, coerced)


async def execute_prepared(
    prepared: PreparedCall,
    signal: AbortSignal,
    on_update: UpdateCallback | None = None,
    *,
    after: AfterHook | None = None,
) -> ToolCallOutcome:
    """Run a prepared call and the `after` hook; tool failures become error results."""
    started = time.perf_counter()
    try:
        result = await prepared.tool.execute(prepared.call.id, prepared.args, signal, on_update)
    except Exception as error:
        result = error_result(_message(error))
    duration_ms = round((time.perf_counter() - started) * 1000)
    result = await apply_after_hook(prepared, result, after)
    return ToolCallOutcome(result, prepared.args, duration_ms)


async def apply_after_hook(
    prepared: PreparedCall, result: ToolResult, after: AfterHook | None
) -> ToolResult:
    """`result` as the `after` hook leaves it (a failing hook turns it into an error)."""
    if after is None:
        return result
    try:
        patched = await after(prepared.tool, prepared.call, prepared.args, result)
    except Exception as error:
        return error_result(_message(error))
    return result if patched is None else patched


async def run_tool_call(
    tools: Mapping[str, Tool],
    call: ToolCall,
    signal: AbortSignal,
    on_update: UpdateCallback | None = None,
    *,
    before: BeforeHook | None = None,
    after: AfterHook | None = None,
) -> ToolCallOutcome:
    """Run `call` against `tools`; always returns an outcome, never raises for tool failures."""
    prepared = await prepare_tool_call(tools, call, signal, before=before)
    if isinstance(prepared, ToolCallOutcome):
        return prepared
    return await execute_prepared(prepared, signal, on_update, after=after)


_NAMED_ARGUMENTS = frozenset({"command", "pattern", "glob", "cwd"})


def _nul_argument(arguments: Mapping[str, object]) -> str | None:
    """The first argument naming a file or a command (`path`, `command`, …) that holds a NUL
    byte: the operating system cannot take it, so the call is refused before any hook or
    tool sees it. File contents may hold NUL and are not checked."""
    for name, value in arguments.items():
        named = name in _NAMED_ARGUMENTS or "path" in name.lower()
        if named and isinstance(value, str) and "\0" in value:
            return name
    return None


def _aborted(signal: AbortSignal) -> bool:
    return signal.aborted


def _message(error: Exception) -> str:
    if isinstance(error, ToolError):
        return str(error)
    # Not a failure the tool meant to report: name the exception so the bug is visible.
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
