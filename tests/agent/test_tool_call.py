"""One tool call runs like a model's call: every failure becomes a result, never an exception."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pith.agent import (
    AbortController,
    AbortSignal,
    BlockDecision,
    Tool,
    ToolError,
    ToolResult,
    UpdateCallback,
    run_tool_call,
    text_result,
)
from pith.ai import ToolCall


class Echo:
    name = "echo"
    label = "echo"
    description = "echo a number"
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }
    seen: ClassVar[list[dict[str, object]]] = []

    def prepare_arguments(self, args: object) -> object:
        if isinstance(args, dict) and "number" in args:
            return {"n": args["number"]}
        return args

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        self.seen.append(args)
        if args["n"] == 13:
            raise ToolError("unlucky number")
        if args["n"] == 0:
            raise ZeroDivisionError("division by zero")
        return text_result(f"n={args['n']}")


def run(call: ToolCall, **hooks: object) -> ToolResult:
    tools: dict[str, Tool] = {"echo": Echo()}
    outcome = asyncio.run(run_tool_call(tools, call, AbortController().signal, **hooks))  # type: ignore[arg-type]
    return outcome.result


def test_arguments_are_prepared_then_coerced_then_run() -> None:
    result = run(ToolCall(id="1", name="echo", arguments={"number": "7"}))
    assert result.text() == "n=7"
    assert not result.is_error


def test_unknown_tool_is_an_error_result() -> None:
    result = run(ToolCall(id="1", name="nope", arguments={}))
    assert result.is_error
    assert result.text().startswith("Tool nope not found. Available tools: ")
    assert "echo" in result.text()


def test_validation_failure_names_tool_and_field() -> None:
    result = run(ToolCall(id="1", name="echo", arguments={"n": "seven"}))
    assert result.is_error
    assert 'Validation failed for tool "echo"' in result.text()
    assert "  - n: expected integer, got string" in result.text()


def test_tool_error_text_reaches_the_model_verbatim() -> None:
    assert run(ToolCall(id="1", name="echo", arguments={"n": 13})).text() == "unlucky number"


def test_an_unexpected_exception_is_named_not_raised() -> None:
    result = run(ToolCall(id="1", name="echo", arguments={"n": 0}))
    assert result.is_error
    assert result.text() == "ZeroDivisionError: division by zero"


def test_aborted_before_start_never_runs_the_tool() -> None:
    controller = AbortController()
    controller.abort()
    Echo.seen.clear()
    outcome = asyncio.run(
        run_tool_call(
            {"echo": Echo()}, ToolCall(id="1", name="echo", arguments={"n": 1}), controller.signal
        )
    )
    assert outcome.result.text() == "Operation aborted"
    assert Echo.seen == []


def test_before_hook_can_block_with_a_reason() -> None:
    async def block(tool: Tool, call: ToolCall, args: dict[str, object]) -> BlockDecision:
        return BlockDecision(reason="not allowed here")

    result = run(ToolCall(id="1", name="echo", arguments={"n": 1}), before=block)
    assert result.is_error
    assert result.text() == "not allowed here"


def test_after_hook_can_replace_the_result() -> None:
    async def patch(
        tool: Tool, call: ToolCall, args: dict[str, object], result: ToolResult
    ) -> ToolResult:
        return text_result(result.text() + " (checked)")

    assert (
        run(ToolCall(id="1", name="echo", arguments={"n": 2}), after=patch).text()
        == "n=2 (checked)"
    )


def test_malformed_model_arguments_are_reported() -> None:
    call = ToolCall(id="1", name="echo", arguments={}, arguments_error="Unexpected end of JSON")
    result = run(call)
    assert result.text() == 'Invalid arguments for tool "echo": Unexpected end of JSON'
