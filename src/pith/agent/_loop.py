"""The agent loop: ask the model, run the tools it calls, repeat, as Pi's loop does.

One run = `agent_start`, then turns until the model stops calling tools, then `agent_end`.
Each turn streams one assistant message and runs its tool calls: checks happen one call at a
time in the model's order, executions run in parallel (unless a tool asks for sequential
execution), and results enter the history in the model's call order whatever order they finish
in. Steering messages are delivered after a turn's tools finish; follow-ups when the agent would
otherwise stop. An abort cancels the stream and the running tools; every tool call still gets a
result, so the history stays valid for the next request.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pith.agent._abort import AbortController, AbortSignal
from pith.agent._convert import convert_to_llm
from pith.agent._events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from pith.agent._tool import Tool, ToolResult, error_result
from pith.agent._tool_call import (
    AfterHook,
    BeforeHook,
    PreparedCall,
    ToolCallOutcome,
    apply_after_hook,
    execute_prepared,
    prepare_tool_call,
)
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    Message,
    Model,
    PayloadHook,
    StartEvent,
    StreamOptions,
    ThinkingLevel,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    provider_for,
)

__all__ = ["Agent", "AgentOptions", "Listener", "QueueMode"]

Listener = Callable[[AgentEvent], Awaitable[None] | None]
QueueMode = Literal["one-at-a-time", "all"]
TRUNCATED_CALL = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its '
    "arguments may be truncated. Re-issue the tool call with complete arguments."
)


@dataclass
class AgentOptions:
    """Hooks and knobs; every field has a sensible default."""

    api_key: Callable[[Model], str | None] = lambda model: None
    headers: Callable[[Model], dict[str, str]] = lambda model: {}
    transform_context: Callable[[list[AgentMessage]], Awaitable[list[AgentMessage]]] | None = None
    """Per-request view of the history (extensions' `context` event); the stored history is
    never changed by it."""
    convert: Callable[[list[AgentMessage]], list[Message]] = convert_to_llm
    on_payload: PayloadHook | None = None
    """Sees (and may replace) each request body (extensions' `before_provider_request`)."""
    replace_message: Callable[[AgentMessage], Awaitable[AgentMessage | None]] | None = None
    """May replace a message as it ends, before it enters the history (extensions'
    `message_end`); a replacement keeps the role."""
    before_next_turn: Callable[[], Awaitable[None]] | None = None
    """Runs before each request after the first of a run (tool results are in the history):
    the session compacts here when a turn crossed the threshold."""
    before_tool_call: BeforeHook | None = None
    after_tool_call: AfterHook | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    tool_execution: Literal["parallel", "sequential"] = "parallel"
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    session_id: str | None = None


@dataclass
class _Queues:
    steering: list[AgentMessage] = field(default_factory=list)
    follow_up: list[AgentMessage] = field(default_factory=list)


class Agent:
    """Holds the conversation state and runs it; see the module docstring."""

    def __init__(
        self,
        *,
        model: Model,
        system_prompt: str = "",
        tools: Mapping[str, Tool] | None = None,
        thinking: ThinkingLevel = "off",
        messages: list[AgentMessage] | None = None,
        options: AgentOptions | None = None,
    ) -> None:
        self.model = model
        self.system_prompt = system_prompt
        self.tools: dict[str, Tool] = dict(tools or {})
        self.thinking = thinking
        self.messages: list[AgentMessage] = list(messages or [])
        self.options = options or AgentOptions()
        self._listeners: list[Listener] = []
        self._queues = _Queues()
        self._controller: AbortController | None = None
        self._running = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._turn_index = 0
        self.last_retry_after: float | None = None
        """The server's Retry-After on the latest failed request, for the retry policy."""

    # --- observing --------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event (awaited when it is async); returns an unsubscriber."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def _emit(self, event: AgentEvent) -> None:
        for listener in list(self._listeners):
            result = listener(event)
            if inspect.isawaitable(result):
                await result

    @property
    def is_running(self) -> bool:
        return self._running

    async def wait_for_idle(self) -> None:
        """Return once no run is in progress."""
        await self._idle.wait()

    @property
    def signal(self) -> AbortSignal | None:
        """The current run's abort signal; None while idle."""
        return self._controller.signal if self._controller is not None else None

    # --- queues and abort -------------------------------------------------------------------

    def steer(self, message: AgentMessage) -> None:
        """Deliver `message` after the current turn's tools finish, before the next request."""
        self._queues.steering.append(message)

    def follow_up(self, message: AgentMessage) -> None:
        """Deliver `message` when the agent would otherwise stop."""
        self._queues.follow_up.append(message)

    def clear_queues(self) -> list[AgentMessage]:
        """Drop queued steering and follow-up messages; returns them (for the editor)."""
        queued = self._queues.steering + self._queues.follow_up
        self._queues = _Queues()
        return queued

    def queued(self) -> tuple[list[AgentMessage], list[AgentMessage]]:
        return list(self._queues.steering), list(self._queues.follow_up)

    def abort(self) -> None:
        """Stop the current run: the stream is cancelled, running tools are killed."""
        if self._controller is not None:
            self._controller.abort()

    def _take(self, queue: list[AgentMessage], mode: QueueMode) -> list[AgentMessage]:
        if not queue:
            return []
        taken = list(queue) if mode == "all" else [queue[0]]
        del queue[: len(taken)]
        return taken

    # --- running ----------------------------------------------------------------------------

    async def prompt(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """Add `messages` (usually one user message) and run until the agent stops."""
        return await self._run(list(messages))

    async def continue_(self) -> list[AgentMessage]:
        """Run again from the current history (after a retry hid a failed reply, say)."""
        if not self.messages:
            raise RuntimeError("Cannot continue: no messages in context")
        if isinstance(self.messages[-1], AssistantMessage):
            steering = self._take(self._queues.steering, self.options.steering_mode)
            follow = (
                [] if steering else self._take(self._queues.follow_up, self.options.follow_up_mode)
            )
            if not steering and not follow:
                raise RuntimeError("Cannot continue from message role: assistant")
            return await self._run(steering or follow, poll_first=False)
        return await self._run([])

    async def _run(
        self, initial: list[AgentMessage], poll_first: bool = True
    ) -> list[AgentMessage]:
        if self._running:
            raise RuntimeError("the agent is already running; steer or queue a follow-up instead")
        self._running = True
        self._idle.clear()
        self._controller = AbortController()
        added: list[AgentMessage] = []
        try:
            await self._emit(AgentStart())
            self._turn_index = 0
            await self._emit(TurnStart(self._turn_index))
            for message in initial:
                await self._add(message, added)
            pending = (
                self._take(self._queues.steering, self.options.steering_mode) if poll_first else []
            )
            await self._loop(pending, added)
        finally:
            self._running = False
            self._idle.set()
            self._controller = None
        await self._emit(AgentEnd(added))
        return added

    async def _add(self, message: AgentMessage, added: list[AgentMessage]) -> None:
        await self._emit(MessageStart(message))
        message = await self._replaced(message)
        self.messages.append(message)
        added.append(message)
        await self._emit(MessageEnd(message))

    async def _loop(self, pending: list[AgentMessage], added: list[AgentMessage]) -> None:
        signal = self._signal()
        first = True
        while True:
            more_tool_calls = True
            while more_tool_calls or pending:
                later_turn = not first
                if later_turn:
                    self._turn_index += 1
                    if not pending:
                        pending = self._take(self._queues.steering, self.options.steering_mode)
                    await self._emit(TurnStart(self._turn_index))
                first = False
                for message in pending:
                    await self._add(message, added)
                pending = []
                if later_turn and self.options.before_next_turn is not None:
                    await self.options.before_next_turn()  # e.g. compaction between turns
                reply = await self._stream_reply(signal, added)
                if reply.stop_reason in ("error", "aborted"):
                    await self._emit(TurnEnd(reply, [], self._turn_index))
                    return
                calls = reply.tool_calls()
                results: list[ToolResultMessage] = []
                more_tool_calls = False
                if calls:
                    if reply.stop_reason == "length":
                        results, terminate = await self._fail_truncated(calls)
                    else:
                        results, terminate = await self._run_tools(calls, signal)
                    for result in results:
                        await self._add(result, added)
                    more_tool_calls = not terminate
                await self._emit(TurnEnd(reply, results, self._turn_index))
                if signal.aborted:
                    return
                pending = self._take(self._queues.steering, self.options.steering_mode)
            follow = self._take(self._queues.follow_up, self.options.follow_up_mode)
            if not follow:
                return
            pending = follow

    def _signal(self) -> AbortSignal:
        assert self._controller is not None
        return self._controller.signal

    # --- one model request ------------------------------------------------------------------

    async def next_context(self) -> Context:
        """Exactly what the next request would send: system prompt, tools, messages (after
        the `transform_context` hook and conversion)."""
        history = list(self.messages)
        if self.options.transform_context is not None:
            history = await self.options.transform_context(history)
        return Context(
            system_prompt=self.system_prompt,
            messages=self.options.convert(history),
            tools=[ToolSpec(t.name, t.description, t.parameters) for t in self.tools.values()],
        )

    async def _stream_reply(
        self, signal: AbortSignal, added: list[AgentMessage]
    ) -> AssistantMessage:
        context = await self.next_context()
        options = StreamOptions(
            api_key=self.options.api_key(self.model),
            signal=signal,
            max_tokens=self.options.max_tokens,
            thinking=self.thinking if self.model.reasoning else "off",
            headers=self.options.headers(self.model),
            temperature=self.options.temperature,
            session_id=self.options.session_id,
            on_payload=self.options.on_payload,
        )
        final: AssistantMessage | None = None
        started = False
        async for event in provider_for(self.model).stream(self.model, context, options):
            if isinstance(event, StartEvent):
                started = True
                await self._emit(MessageStart(event.partial))
            elif isinstance(event, DoneEvent):
                final = event.message
                self.last_retry_after = None
            elif isinstance(event, ErrorEvent):
                final = event.message
                self.last_retry_after = event.retry_after_seconds
            else:
                await self._emit(MessageUpdate(event.partial, event))
        assert final is not None, "a provider stream must end with done or error"
        if not started:
            await self._emit(MessageStart(final))
        replaced = await self._replaced(final)
        if isinstance(replaced, AssistantMessage):
            final = replaced
        self.messages.append(final)
        added.append(final)
        await self._emit(MessageEnd(final))
        return final

    async def _replaced(self, message: AgentMessage) -> AgentMessage:
        if self.options.replace_message is None:
            return message
        replaced = await self.options.replace_message(message)
        return message if replaced is None or replaced.role != message.role else replaced

    # --- tools ------------------------------------------------------------------------------

    async def _fail_truncated(self, calls: list[ToolCall]) -> tuple[list[ToolResultMessage], bool]:
        results = []
        for call in calls:
            await self._emit(ToolExecutionStart(call.id, call.name, call.arguments))
            outcome = ToolCallOutcome(error_result(TRUNCATED_CALL.format(name=call.name)))
            await self._emit(ToolExecutionEnd(call.id, call.name, outcome.result, True))
            results.append(_result_message(call, outcome))
        return results, False

    async def _run_tools(
        self, calls: list[ToolCall], signal: AbortSignal
    ) -> tuple[list[ToolResultMessage], bool]:
        sequential = self.options.tool_execution == "sequential" or any(
            getattr(self.tools.get(call.name), "execution_mode", "parallel") == "sequential"
            for call in calls
        )
        outcomes: list[ToolCallOutcome | None] = [None] * len(calls)
        runs: list[Awaitable[None]] = []

        async def execute(index: int, prepared: PreparedCall) -> None:
            call = prepared.call
            updates: list[asyncio.Future[None]] = []
            outcome = await execute_prepared(prepared, signal, self._updater(call, updates))
            if updates:  # every update is reported before the result is final
                await asyncio.gather(*updates, return_exceptions=True)
            outcome.result = await apply_after_hook(
                prepared, outcome.result, self.options.after_tool_call
            )
            outcomes[index] = outcome
            await self._emit(
                ToolExecutionEnd(
                    call.id, call.name, outcome.result, outcome.result.is_error, outcome.duration_ms
                )
            )

        for index, call in enumerate(calls):
            await self._emit(ToolExecutionStart(call.id, call.name, call.arguments))
            prepared = await prepare_tool_call(
                self.tools, call, signal, before=self.options.before_tool_call
            )
            if isinstance(prepared, ToolCallOutcome):
                outcomes[index] = prepared
                await self._emit(ToolExecutionEnd(call.id, call.name, prepared.result, True))
                continue
            if sequential:
                await execute(index, prepared)
            else:
                runs.append(asyncio.ensure_future(execute(index, prepared)))
        if runs:
            await asyncio.gather(*runs)
        results = [
            _result_message(call, outcome)
            for call, outcome in zip(calls, outcomes, strict=True)
            if outcome
        ]
        terminate = bool(results) and all(
            outcome is not None and outcome.result.terminate for outcome in outcomes
        )
        return results, terminate

    def _updater(
        self, call: ToolCall, pending: list[asyncio.Future[None]]
    ) -> Callable[[ToolResult], None]:
        def update(partial: ToolResult) -> None:
            event = ToolExecutionUpdate(call.id, call.name, call.arguments, partial)
            pending.append(asyncio.ensure_future(self._emit(event)))

        return update


def _result_message(call: ToolCall, outcome: ToolCallOutcome) -> ToolResultMessage:
    result = outcome.result
    message = ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=list(result.content),
        details=result.details,
        is_error=result.is_error,
    )
    if outcome.duration_ms is not None:
        message.duration_ms = outcome.duration_ms
    return message
