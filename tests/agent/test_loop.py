"""The agent loop with the in-process faux provider: order of events, tools, queues, abort."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pith.agent import (
    AbortSignal,
    Agent,
    AgentEvent,
    AgentOptions,
    BlockDecision,
    Tool,
    ToolResult,
    UpdateCallback,
    text_result,
)
from pith.ai import (
    AssistantMessage,
    Context,
    FauxCall,
    FauxReply,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    faux_model,
    faux_requests,
    register_faux,
)
from pith.tools import builtin_tools


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)])


def run(agent: Agent, text: str) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    asyncio.run(agent.prompt([user(text)]))
    return events


def kinds(events: list[AgentEvent]) -> list[str]:
    return [event.type for event in events if event.type != "message_update"]


def test_a_tool_turn_then_an_answer_in_pis_event_order(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    register_faux(
        "order",
        [
            FauxReply(text="Reading.", tool_calls=[FauxCall("read", {"path": "a.txt"})]),
            FauxReply(text="It says alpha."),
        ],
    )
    agent = Agent(model=faux_model("order"), tools=builtin_tools(str(tmp_path)))
    events = run(agent, "what is in a.txt?")
    assert kinds(events) == [
        "agent_start", "turn_start",
        "message_start", "message_end",  # user
        "message_start", "message_end",  # assistant with the call
        "tool_execution_start", "tool_execution_end",
        "message_start", "message_end",  # tool result
        "turn_end", "turn_start",
        "message_start", "message_end",  # final answer
        "turn_end", "agent_end",
    ]  # fmt: skip
    result = agent.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert result.content == [TextContent(text="alpha\n")]
    final = agent.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.text() == "It says alpha."


class Sleepy:
    """Sleeps for `args["seconds"]`, then reports its own name."""

    name = "sleepy"
    label = "sleepy"
    description = "sleep"
    parameters: dict[str, object] = {  # noqa: RUF012
        "type": "object",
        "properties": {"seconds": {"type": "number"}, "tag": {"type": "string"}},
        "required": ["seconds", "tag"],
    }

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        seconds = float(args["seconds"])  # type: ignore[arg-type]
        waited = asyncio.ensure_future(signal.wait())
        try:
            await asyncio.wait_for(asyncio.shield(waited), seconds)
        except TimeoutError:
            return text_result(str(args["tag"]))
        finally:
            waited.cancel()
        return text_result(f"{args['tag']} interrupted")


def test_parallel_results_come_back_in_call_order() -> None:
    register_faux("parallel", [
        FauxReply(tool_calls=[
            FauxCall("sleepy", {"seconds": 0.3, "tag": "slow"}, id="c1"),
            FauxCall("sleepy", {"seconds": 0.01, "tag": "fast"}, id="c2"),
        ]),
        FauxReply(text="done"),
    ])  # fmt: skip
    tools: dict[str, Tool] = {"sleepy": Sleepy()}
    agent = Agent(model=faux_model("parallel"), tools=tools)
    events = run(agent, "go")
    ends = [e.tool_call_id for e in events if e.type == "tool_execution_end"]  # type: ignore[union-attr]
    assert ends == ["c2", "c1"]  # completion order
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["c1", "c2"]  # the model's order
    assert [r.content[0].text for r in results] == ["slow", "fast"]  # type: ignore[union-attr]


def test_a_length_stop_does_not_run_its_tool_calls(tmp_path: Path) -> None:
    call = FauxCall("write", {"path": "x.txt", "content": "half"})
    register_faux(
        "length", [FauxReply(tool_calls=[call], stop_reason="length"), FauxReply(text="ok")]
    )
    agent = Agent(model=faux_model("length"), tools=builtin_tools(str(tmp_path)))
    run(agent, "write it")
    assert not (tmp_path / "x.txt").exists()
    result = agent.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert result.is_error
    assert "was not executed: the response hit the output token limit" in result.content[0].text  # type: ignore[union-attr]


def test_wrong_argument_type_gets_a_useful_error_result(tmp_path: Path) -> None:
    register_faux("types", [
        FauxReply(tool_calls=[FauxCall("read", {"path": "a.txt", "limit": "ten"})]),
        FauxReply(text="sorry"),
    ])  # fmt: skip
    agent = Agent(model=faux_model("types"), tools=builtin_tools(str(tmp_path)))
    run(agent, "read")
    result = agent.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith(
        'Validation failed for tool "read":\n  - limit: expected number, got string'
    )
    # The model sees the error in its next request.
    second = faux_requests("types")[1]
    assert any(isinstance(m, ToolResultMessage) and m.is_error for m in second.messages)


def test_steering_is_delivered_after_the_tool_batch() -> None:
    seen: list[list[str]] = []

    def record(context: Context) -> FauxReply:
        seen.append([type(m).__name__ for m in context.messages])
        return FauxReply(text="noted")

    register_faux("steer", [
        FauxReply(tool_calls=[FauxCall("sleepy", {"seconds": 0.2, "tag": "t"})]),
        record,
    ])  # fmt: skip
    agent = Agent(model=faux_model("steer"), tools={"sleepy": Sleepy()})

    async def scenario() -> None:
        task = asyncio.ensure_future(agent.prompt([user("start")]))
        await asyncio.sleep(0.05)
        agent.steer(user("also check the tests"))
        await task

    asyncio.run(scenario())
    assert seen == [["UserMessage", "AssistantMessage", "ToolResultMessage", "UserMessage"]]


def test_follow_up_runs_when_the_agent_would_stop() -> None:
    register_faux("follow", [FauxReply(text="first"), FauxReply(text="second")])
    agent = Agent(model=faux_model("follow"))
    agent.follow_up(user("and then?"))
    run(agent, "hi")
    texts = [m.text() for m in agent.messages if isinstance(m, AssistantMessage)]
    assert texts == ["first", "second"]


def test_abort_mid_tool_leaves_every_call_with_a_result() -> None:
    register_faux("abort", [
        FauxReply(tool_calls=[
            FauxCall("sleepy", {"seconds": 5, "tag": "a"}, id="a"),
            FauxCall("sleepy", {"seconds": 5, "tag": "b"}, id="b"),
        ]),
    ])  # fmt: skip
    agent = Agent(model=faux_model("abort"), tools={"sleepy": Sleepy()})

    async def scenario() -> None:
        task = asyncio.ensure_future(agent.prompt([user("go")]))
        await asyncio.sleep(0.2)
        agent.abort()
        await asyncio.wait_for(task, 3)

    asyncio.run(scenario())
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ["a", "b"]
    assert not agent.is_running


def test_abort_during_the_stream_ends_the_reply_as_aborted() -> None:
    register_faux("abort-stream", [FauxReply(text="never", delay_seconds=5)])
    agent = Agent(model=faux_model("abort-stream"))

    async def scenario() -> None:
        task = asyncio.ensure_future(agent.prompt([user("go")]))
        await asyncio.sleep(0.1)
        agent.abort()
        await asyncio.wait_for(task, 2)

    asyncio.run(scenario())
    final = agent.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "aborted"


def test_before_hook_blocks_and_the_model_reads_the_reason(tmp_path: Path) -> None:
    async def guard(tool: Tool, call: ToolCall, args: dict[str, object]) -> BlockDecision | None:
        return BlockDecision("writing is not allowed here") if tool.name == "write" else None

    register_faux("block", [
        FauxReply(tool_calls=[FauxCall("write", {"path": "x", "content": "y"})]),
        FauxReply(text="understood"),
    ])  # fmt: skip
    options = AgentOptions(before_tool_call=guard)
    agent = Agent(model=faux_model("block"), tools=builtin_tools(str(tmp_path)), options=options)
    run(agent, "write")
    result = agent.messages[2]
    assert isinstance(result, ToolResultMessage)
    assert result.content[0].text == "writing is not allowed here"  # type: ignore[union-attr]
    assert not (tmp_path / "x").exists()


def test_continue_refuses_an_assistant_tail() -> None:
    register_faux("cont", [FauxReply(text="hi")])
    agent = Agent(model=faux_model("cont"))
    run(agent, "hello")
    with pytest.raises(RuntimeError, match="Cannot continue from message role: assistant"):
        asyncio.run(agent.continue_())
