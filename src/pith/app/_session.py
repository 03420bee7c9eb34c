"""`AgentSession`: an agent, its session tree, tools, model, system prompt and retry policy.

This is the object every mode drives (print, json, rpc, interactive). The model's context is the
session's projection: loaded from the tree when the session starts, and every message the agent
adds is recorded as an entry the moment it ends. Extensions, resources and compaction plug in
here as they are built.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable, Sequence

from pith.agent import (
    AbortController,
    Agent,
    AgentEnd,
    AgentEvent,
    AgentOptions,
    MessageEnd,
    Tool,
)
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    ImageContent,
    Model,
    ModelRegistry,
    RetryPolicy,
    TextContent,
    ThinkingLevel,
    UserContent,
    UserMessage,
    is_retryable_error,
    retry_delay_seconds,
)
from pith.app._events import AgentSettled, AutoRetryEnd, AutoRetryStart, SessionEvent
from pith.resources import SystemPromptOptions, build_system_prompt
from pith.session import MessageEntry, SessionStore
from pith.tools import run_shell

__all__ = ["AgentSession", "SessionListener"]

SessionListener = Callable[[SessionEvent], Awaitable[None] | None]


class AgentSession:
    """Runs prompts against one model with one tool set, recording everything in `store`."""

    def __init__(
        self,
        *,
        cwd: str,
        model: Model,
        registry: ModelRegistry,
        tools: dict[str, Tool],
        store: SessionStore,
        thinking: ThinkingLevel = "off",
        api_key: str | None = None,
        system_prompt: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.cwd = cwd
        self.registry = registry
        self.store = store
        self.retry = retry or RetryPolicy()
        self._api_key_override = api_key
        prompt = system_prompt or build_system_prompt(
            SystemPromptOptions(cwd=cwd, tools=list(tools.values()))
        )
        options = AgentOptions(
            api_key=lambda m: registry.api_key(m, self._api_key_override),
            headers=self._headers,
            session_id=store.id,
        )
        projection = store.projection()
        self.agent = Agent(
            model=model,
            system_prompt=prompt,
            tools=tools,
            thinking=thinking,
            messages=list(projection.messages),
            options=options,
        )
        if projection.model != (model.provider, model.id):
            store.append_model_change(model.provider, model.id)
        if projection.thinking_level != thinking:
            store.append_thinking_level_change(thinking)
        self._listeners: list[SessionListener] = []
        self._retry_attempt = 0
        self._will_retry = False
        self._retry_wait: asyncio.Event | None = None
        self._aborted = False
        self._queued_bash: list[BashExecutionMessage] = []
        self._bash_abort: AbortController | None = None
        self.agent.subscribe(self._forward)

    @property
    def model(self) -> Model:
        return self.agent.model

    @property
    def thinking(self) -> ThinkingLevel:
        return self.agent.thinking

    @property
    def messages(self) -> list[AgentMessage]:
        return self.agent.messages

    def _headers(self, model: Model) -> dict[str, str]:
        headers = self.registry.request_headers(model)
        key = self.registry.api_key(model, self._api_key_override)
        if key and self.registry.needs_bearer_header(model):
            headers.setdefault("Authorization", f"Bearer {key}")
        return headers

    def shell_environment(self) -> dict[str, str]:
        """The environment of every command: the user's, plus this session's PITH_* variables."""
        env = dict(os.environ)
        env["PITH_SESSION_ID"] = self.store.id
        if self.store.path is not None:
            env["PITH_SESSION_FILE"] = str(self.store.path)
        env["PITH_PROVIDER"] = self.model.provider
        env["PITH_MODEL"] = self.model.id
        env["PITH_REASONING_LEVEL"] = self.thinking
        return env

    # --- events -----------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            result = listener(event)
            if inspect.isawaitable(result):
                await result

    async def _forward(self, event: AgentEvent) -> None:
        if isinstance(event, MessageEnd):
            self._record(event.message)
        if isinstance(event, AgentEnd):
            self._will_retry = self._should_retry()
        await self._emit(event)

    def _record(self, message: AgentMessage) -> None:
        if isinstance(message, CustomMessage):
            self.store.append_custom_message(
                message.custom_type,
                message.content,
                display=message.display,
                details=message.details,
            )
        else:
            self.store.append_message(message)

    @property
    def will_retry(self) -> bool:
        """Whether the run that just ended is about to be retried (for `agent_end`)."""
        return self._will_retry

    def _last_reply(self) -> AssistantMessage | None:
        last = self.agent.messages[-1] if self.agent.messages else None
        return last if isinstance(last, AssistantMessage) else None

    def _should_retry(self) -> bool:
        reply = self._last_reply()
        return (
            self.retry.enabled
            and reply is not None
            and is_retryable_error(reply)
            and self._retry_attempt < self.retry.max_retries
            and not self._aborted
        )

    # --- prompting --------------------------------------------------------------------------

    async def prompt(
        self, text: str, images: Sequence[ImageContent] = ()
    ) -> AssistantMessage | None:
        """Send a user message and run until the agent (and any retries) settle.

        Returns the final assistant message, if any.
        """
        content: list[UserContent] = [TextContent(text=text), *images]
        self._aborted = False
        self._retry_attempt = 0
        try:
            await self.agent.prompt([UserMessage(content=content)])
            await self._retry_loop()
        finally:
            self._flush_bash()
        await self._emit(AgentSettled(aborted=self._aborted))
        return self._last_reply()

    async def _retry_loop(self) -> None:
        while self._should_retry():
            reply = self._last_reply()
            assert reply is not None
            self._retry_attempt += 1
            delay = retry_delay_seconds(
                self.retry, self._retry_attempt, self.agent.last_retry_after
            )
            message = reply.error_message if isinstance(reply.error_message, str) else "error"
            await self._emit(
                AutoRetryStart(
                    self._retry_attempt, self.retry.max_retries, round(delay * 1000), message
                )
            )
            self._hide_failed_reply()
            if not await self._sleep(delay):
                await self._emit(AutoRetryEnd(False, self._retry_attempt, "aborted"))
                return
            await self.agent.continue_()
            final = self._last_reply()
            if final is not None and final.stop_reason != "error":
                await self._emit(AutoRetryEnd(True, self._retry_attempt))
                return
        if self._retry_attempt and not self._aborted:
            reply = self._last_reply()
            error = (
                reply.error_message
                if reply is not None and isinstance(reply.error_message, str)
                else None
            )
            await self._emit(AutoRetryEnd(False, self._retry_attempt, error))

    def _hide_failed_reply(self) -> None:
        """Take the failed attempt out of the model's history, in memory and in the tree."""
        failed = self.agent.messages.pop()
        leaf = self.store.by_id.get(self.store.leaf_id or "")
        if isinstance(leaf, MessageEntry) and leaf.message is failed:
            self.store.append_context_edit(leaf.id, None)

    async def _sleep(self, seconds: float) -> bool:
        """Wait `seconds`; False when an abort cut the wait short."""
        self._retry_wait = asyncio.Event()
        try:
            await asyncio.wait_for(self._retry_wait.wait(), seconds)
        except TimeoutError:
            return True
        finally:
            self._retry_wait = None
        return False

    def abort(self) -> None:
        """Stop the run, any retry wait, a user command, and the tools in flight."""
        self._aborted = True
        self.agent.abort()
        if self._retry_wait is not None:
            self._retry_wait.set()
        if self._bash_abort is not None:
            self._bash_abort.abort()

    # --- the user's own commands (`!cmd`) ---------------------------------------------------

    async def run_user_bash(
        self, command: str, *, exclude_from_context: bool = False
    ) -> BashExecutionMessage:
        """Run a command the user typed (`!cmd`; `!!cmd` keeps it out of the model's context).

        While the agent is working the result is queued and recorded after the run, so it never
        lands between a tool call and its result.
        """
        self._bash_abort = AbortController()
        try:
            run = await run_shell(
                command, self.cwd, self._bash_abort.signal, env=self.shell_environment()
            )
        finally:
            self._bash_abort = None
        snapshot = run.snapshot
        message = BashExecutionMessage(
            command=command,
            output=snapshot.content,
            exit_code=run.exit_code,
            cancelled=run.cancelled,
            truncated=snapshot.truncation.truncated,
        )
        if snapshot.full_output_path is not None and snapshot.truncation.truncated:
            message.full_output_path = snapshot.full_output_path
        if exclude_from_context:
            message.exclude_from_context = True
        if self.agent.is_running:
            self._queued_bash.append(message)
        else:
            self._add_bash(message)
        return message

    def _add_bash(self, message: BashExecutionMessage) -> None:
        self.store.append_message(message)
        self.agent.messages.append(message)

    def _flush_bash(self) -> None:
        queued, self._queued_bash = self._queued_bash, []
        for message in queued:
            self._add_bash(message)

    def close(self) -> None:
        self.store.close()
