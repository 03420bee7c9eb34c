"""Building an assistant message from streamed pieces, emitting Pi's stream events on the way.

Providers differ in wire format, not in what they produce: text, thinking and tool-call blocks
that start, grow and end. `MessageBuilder` owns that shared part so each provider only maps its
own chunks onto `text`, `thinking` and `tool_call_*` calls.
"""

from __future__ import annotations

from pith.ai._cost import apply_cost
from pith.ai._messages import (
    AssistantMessage,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    now_ms,
)
from pith.ai._models import Model
from pith.ai._partial_json import finish_arguments, parse_partial_object
from pith.ai._stream import (
    DoneEvent,
    ErrorEvent,
    StartEvent,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)

__all__ = ["MessageBuilder"]


class MessageBuilder:
    """Accumulates one assistant message; every method returns the events to emit."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.message = AssistantMessage(
            content=[],
            api=model.api,
            provider=model.provider,
            model=model.id,
            usage=Usage(),
            stop_reason="pending",
            timestamp=now_ms(),
        )
        self._text: TextContent | None = None
        self._thinking: ThinkingContent | None = None
        self._tool_args: dict[int, str] = {}
        """Raw argument text per content index of a tool call still streaming."""
        self._open: list[int] = []
        self.finished = False

    def start(self) -> list[StreamEvent]:
        return [StartEvent(self.message)]

    def _index(self, block: object) -> int:
        return next(i for i, item in enumerate(self.message.content) if item is block)

    def _close(self, block: TextContent | ThinkingContent | None) -> list[StreamEvent]:
        """End `block` when it is open: a new kind of block starting ends the one before, so
        the events of one block never interleave with another's (thinking ends before the
        reply's text starts, text before a tool call)."""
        if block is None:
            return []
        return self.end_block(self._index(block))

    def text(self, delta: str) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if self._text is None:
            events += self._close(self._thinking)
            self._text = TextContent(text="")
            self.message.content.append(self._text)
            index = len(self.message.content) - 1
            self._open.append(index)
            events.append(TextStart(index, self.message))
        self._text.text += delta
        events.append(TextDelta(self._index(self._text), delta, self.message))
        return events

    def thinking(self, delta: str, signature: str | None = None) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if self._thinking is None:
            events += self._close(self._text)
            self._thinking = ThinkingContent(thinking="")
            if signature is not None:
                self._thinking.thinking_signature = signature
            self.message.content.append(self._thinking)
            index = len(self.message.content) - 1
            self._open.append(index)
            events.append(ThinkingStart(index, self.message))
        self._thinking.thinking += delta
        if delta:
            events.append(ThinkingDelta(self._index(self._thinking), delta, self.message))
        return events

    def thinking_signature(self, signature: str) -> None:
        if self._thinking is None:
            self.thinking("")
        assert self._thinking is not None
        previous = self._thinking.thinking_signature
        self._thinking.thinking_signature = (
            previous if isinstance(previous, str) else ""
        ) + signature

    def redacted_thinking(self, data: str) -> list[StreamEvent]:
        block = ThinkingContent(thinking="", thinking_signature=data, redacted=True)
        self.message.content.append(block)
        index = len(self.message.content) - 1
        return [ThinkingStart(index, self.message), ThinkingEnd(index, "", self.message)]

    def tool_call_start(self, call_id: str, name: str) -> tuple[int, list[StreamEvent]]:
        # Text and thinking before a tool call end first (OpenAI-compatible streams leave them
        # open); tool calls stay open side by side, as their arguments may still arrive.
        events = self._close(self._thinking) + self._close(self._text)
        block = ToolCall(id=call_id, name=name, arguments={})
        self.message.content.append(block)
        index = len(self.message.content) - 1
        self._tool_args[index] = ""
        self._open.append(index)
        return index, [*events, ToolCallStart(index, call_id, name, self.message)]

    def tool_call(self, index: int) -> ToolCall:
        block = self.message.content[index]
        assert isinstance(block, ToolCall)
        return block

    def tool_call_args(self, index: int, delta: str) -> list[StreamEvent]:
        self._tool_args[index] += delta
        self.tool_call(index).arguments = parse_partial_object(self._tool_args[index])
        return [ToolCallDelta(index, delta, self.message)]

    def end_block(self, index: int) -> list[StreamEvent]:
        """Close one block (Anthropic closes blocks one at a time)."""
        if index not in self._open:
            return []
        self._open.remove(index)
        block = self.message.content[index]
        if isinstance(block, TextContent):
            if block is self._text:
                self._text = None
            return [TextEnd(index, block.text, self.message)]
        if isinstance(block, ThinkingContent):
            if block is self._thinking:
                self._thinking = None
            return [ThinkingEnd(index, block.thinking, self.message)]
        assert isinstance(block, ToolCall)
        arguments, error = finish_arguments(self._tool_args.pop(index, ""))
        block.arguments = arguments
        if error is not None:
            block.arguments_error = error
        return [ToolCallEnd(index, block, self.message)]

    def end_all(self) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for index in list(self._open):
            events.extend(self.end_block(index))
        return events

    def set_usage(self, usage: Usage) -> None:
        self.message.usage = apply_cost(self.model, usage)

    def done(
        self, stop_reason: StopReason, raw_stop_reason: str | None = None
    ) -> list[StreamEvent]:
        events = self.end_all()
        self.message.stop_reason = stop_reason
        if raw_stop_reason is not None:
            self.message.raw_stop_reason = raw_stop_reason
        self.finished = True
        return [*events, DoneEvent(self.message)]

    def fail(
        self, message: str, *, aborted: bool = False, retry_after: float | None = None
    ) -> list[StreamEvent]:
        """End with an error (or abort); blocks received so far stay in the message."""
        events = self.end_all()
        self.message.stop_reason = "aborted" if aborted else "error"
        self.message.error_message = message
        self.finished = True
        return [*events, ErrorEvent(self.message, retry_after)]

    def has_tool_calls(self) -> bool:
        return any(isinstance(block, ToolCall) for block in self.message.content)
