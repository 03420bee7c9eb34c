"""Builders for conversations the pruner sees."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.ext.prune._capture import plan_batch
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._records import IndexEntry, ToolCallRecord


class Convo:
    """A growing conversation with ever-increasing timestamps."""

    def __init__(self) -> None:
        self.messages: list[AgentMessage] = []
        self.clock = 1000
        self.calls = 0

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def user(self, text: str = "go") -> UserMessage:
        message = UserMessage(content=text, timestamp=self.tick())
        self.messages.append(message)
        return message

    def turn(
        self, *calls: tuple[str, dict[str, object], str], error: bool = False
    ) -> tuple[AssistantMessage, list[ToolResultMessage]]:
        blocks: list[ToolCall] = []
        for name, args, _ in calls:
            self.calls += 1
            blocks.append(ToolCall(id=f"call_{self.calls}", name=name, arguments=args))
        assistant = AssistantMessage(content=list(blocks), timestamp=self.tick())
        self.messages.append(assistant)
        results = []
        for block, (_, _, text) in zip(blocks, calls, strict=True):
            result = ToolResultMessage(
                tool_call_id=block.id,
                tool_name=block.name,
                content=[TextContent(text=text)],
                is_error=error,
                timestamp=self.tick(),
            )
            self.messages.append(result)
            results.append(result)
        return assistant, results

    def reply(self, text: str = "done") -> None:
        self.messages.append(
            AssistantMessage(content=[TextContent(text=text)], timestamp=self.tick())
        )


def index_turn(
    index: PruneIndex,
    turn: tuple[AssistantMessage, Sequence[ToolResultMessage]],
    config: PruneConfig | None = None,
) -> None:
    """Capture `turn` into `index` as the extension does (no spill)."""
    plan = plan_batch(turn[0], turn[1], index, config or PruneConfig(min_batch_chars=0), "")
    for alias in plan.aliases:
        index.add_alias(alias)
    if plan.outcome == "indexed":
        records = [
            ToolCallRecord(
                tool_call_id=c.tool_call_id,
                tool_name=c.tool_name,
                args=c.args,
                is_error=c.is_error,
                result_timestamp=c.result_timestamp,
                result_bytes=len(c.text.encode()),
                result_lines=c.text.count("\n") + 1,
                content_hash=c.content_hash,
            )
            for c in plan.calls
        ]
        index.add_batch(IndexEntry(assistant_timestamp=turn[0].timestamp, tool_calls=records))


def dump(messages: Sequence[AgentMessage]) -> bytes:
    return msgspec.json.encode(list(messages))


@pytest.fixture
def convo() -> Convo:
    return Convo()
