"""`AgentSession`: an agent with its tools, model, system prompt and retry policy.

This is the object every mode drives (print, json, rpc, interactive). Sessions on disk,
extensions, resources and compaction plug in here as they are built.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence

from pith.agent import Agent, AgentEnd, AgentEvent, AgentOptions, Tool
from pith.ai import (
    AssistantMessage,
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

__all__ = ["AgentSession", "SessionListener"]

SessionListener = Callable[[SessionEvent], Awaitable[None] | None]


class AgentSession:
    """Runs prompts against one model with one tool set; reports every event to listeners."""

    def __init__(
        self,
        *,
        cwd: str,
        model: Model,
        registry: ModelRegistry,
        tools: dict[str, Tool],
        thinking: ThinkingLevel = "off",
        api_key: str | None = None,
        system_prompt: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.cwd = cwd
        self.registry = registry
        self.retry = retry or RetryPolicy()
        self._api_key_override = api_key
        prompt = system_prompt or build_system_prompt(
            SystemPromptOptions(cwd=cwd, tools=list(tools.values()))
        )
        options = AgentOptions(
            api_key=lambda m: registry.api_key(m, self._api_key_override),
            headers=self._headers,
        )
        self.agent = Agent(
            model=model, system_prompt=prompt, tools=tools, thinking=thinking, options=options
        )
        self._listeners: list[SessionListener] = []
        self._retry_attempt = 0
        self._will_retry = False
        self._retry_wait: asyncio.Event | None = None
        self._aborted = False
        self.agent.subscribe(self._forward)

    @property
    def model(self) -> Model:
        return self.agent.model

    @property
    def messages(self) -> list:  # type: ignore[type-arg]
        return self.agent.messages

    def _headers(self, model: Model) -> dict[str, str]:
        headers = self.registry.request_headers(model)
        key = self.registry.api_key(model, self._api_key_override)
        if key and self.registry.needs_bearer_header(model):
            headers.setdefault("Authorization", f"Bearer {key}")
        return headers

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            result = listener(event)
            if inspect.isawaitable(result):
                await result

    async def _forward(self, event: AgentEvent) -> None:
        if isinstance(event, AgentEnd):
            self._will_retry = self._should_retry()
        await self._emit(event)

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
        await self.agent.prompt([UserMessage(content=content)])
        await self._retry_loop()
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
            self.agent.messages.pop()  # the failed attempt leaves the model's history
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
        """Stop the run, any retry wait, and the tools in flight."""
        self._aborted = True
        self.agent.abort()
        if self._retry_wait is not None:
            self._retry_wait.set()
