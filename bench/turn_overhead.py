"""Harness time per turn with a 400-message history: from the last byte of one model response
to the first byte of the next request, tool time excluded.

    python bench/turn_overhead.py [TURNS]

The model is pith's fake server over real HTTP on 127.0.0.1 (OpenAI chat-completions wire
format, through the official SDK); each scripted turn calls a no-op tool, so the gap between
two requests is pith's own work: parsing the stream, recording the reply, running the tool
batch machinery, converting 400+ messages and sending the next request. Baseline: the same gap
measured for a bare SDK client that sends the next request as soon as the previous stream ends.
Target: median at most 5 ms.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import summary
from pith.agent import (
    AbortSignal,
    Agent,
    AgentEvent,
    ToolExecutionEnd,
    ToolResult,
    UpdateCallback,
    text_result,
)
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    Model,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pith.testing import FakeServer

HISTORY = 400


class Noop:
    name = "noop"
    label = "noop"
    description = "Does nothing."
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
    }

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        return text_result("ok")


def history() -> list[AgentMessage]:
    messages: list[AgentMessage] = []
    line = "def handler(request):  # processes one request and returns a response\n"
    for index in range(HISTORY // 4):
        messages.append(
            UserMessage(content=[TextContent(text=f"step {index}: look at file {index}")])
        )
        messages.append(
            AssistantMessage(
                content=[
                    TextContent(text="Reading it."),
                    ToolCall(id=f"h{index}", name="noop", arguments={"n": index}),
                ],
                api="openai-completions",
                provider="fake",
                model="fake-model",
                usage=Usage(input=1000, output=50, total_tokens=1050),
                stop_reason="toolUse",
            )
        )
        messages.append(
            ToolResultMessage(
                tool_call_id=f"h{index}", tool_name="noop", content=[TextContent(text=line * 40)]
            )
        )
        messages.append(
            AssistantMessage(
                content=[TextContent(text="That file looks fine; moving on.")],
                api="openai-completions",
                provider="fake",
                model="fake-model",
                stop_reason="stop",
            )
        )
    return messages


def gaps(timings: list[tuple[float, float]], tool_ms: list[float]) -> list[float]:
    """Milliseconds from each response's last byte to the next request's first, minus tools."""
    out = []
    for index in range(1, len(timings)):
        tool = tool_ms[index - 1] if index - 1 < len(tool_ms) else 0.0
        out.append((timings[index][0] - timings[index - 1][1]) * 1000 - tool)
    return out


def run_pith(turns: int) -> list[float]:
    script = {
        "turns": [{"tool_calls": [{"name": "noop", "arguments": {"n": i}}]} for i in range(turns)]
        + [{"text": "done"}]
    }
    tool_ms: list[float] = []

    def on_event(event: AgentEvent) -> None:
        if isinstance(event, ToolExecutionEnd) and event.duration_ms is not None:
            tool_ms.append(float(event.duration_ms))

    with FakeServer(script) as server:
        model = Model(
            id="fake-model", provider="fake", api="openai-completions", base_url=server.base_url
        )
        agent = Agent(model=model, system_prompt="You are a benchmark.", tools={"noop": Noop()})
        agent.messages = history()
        agent.subscribe(on_event)
        asyncio.run(agent.prompt([UserMessage(content=[TextContent(text="go")])]))
        return gaps(server.timings(), tool_ms)


def run_baseline(turns: int) -> list[float]:
    """A bare SDK loop: send the next (same-size) request as soon as a stream ends."""
    import openai

    script = {"turns": [{"text": "x"} for _ in range(turns + 1)]}
    with FakeServer(script) as server:
        body = [{"role": "user", "content": "hello " * 4000}]

        async def loop() -> None:
            client = openai.AsyncOpenAI(api_key="x", base_url=server.base_url, max_retries=0)
            for _ in range(turns + 1):
                stream = await client.chat.completions.create(
                    model="fake-model",
                    messages=body,
                    stream=True,  # type: ignore[arg-type]
                )
                async for _chunk in stream:
                    pass
            await client.close()

        asyncio.run(loop())
        return gaps(server.timings(), [])


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    run_pith(5)  # warm imports and caches
    ours = run_pith(turns)
    base = run_baseline(turns)
    mine = statistics.median(ours)
    theirs = statistics.median(base)
    print(f"{'':<18} {'median ms':>10} {'p90 ms':>8}")
    for name, values in (("pith turn", ours), ("bare SDK request", base)):
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"{name:<18} {statistics.median(values):10.2f} {p90:8.2f}")
    print(
        summary(
            "turn_overhead",
            history_messages=HISTORY,
            turns=turns,
            median_ms=round(mine, 2),
            sdk_baseline_ms=round(theirs, 2),
            ratio_to_sdk=round(mine / theirs, 2) if theirs else "n/a",
            target="median<=5ms",
        )
    )


if __name__ == "__main__":
    main()
