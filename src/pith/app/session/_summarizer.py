"""One summary request: a model asked for text, no tools, with the session's retry policy.

Used by compaction and branch summaries. The caller judges the reply (a summary cut by the
output limit, a failed request or a tool call is not a summary).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from pith.agent import AbortSignal
from pith.ai import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    RetryPolicy,
    StreamOptions,
    TextContent,
    ThinkingLevel,
    UserMessage,
    is_retryable_error,
    provider_for,
    retry_delay_seconds,
)

__all__ = ["Summarizer"]


@dataclass
class Summarizer:
    """How summaries are requested: which model, with which key and headers."""

    model: Model
    api_key: Callable[[Model], str | None]
    headers: Callable[[Model], dict[str, str]]
    thinking: ThinkingLevel = "off"
    retry: RetryPolicy | None = None

    async def ask(
        self, system_prompt: str, text: str, signal: AbortSignal | None = None
    ) -> AssistantMessage:
        """The model's reply to `text` under `system_prompt`; transient failures are retried
        (waits end early on abort). Never raises for the provider's sake."""
        policy = self.retry or RetryPolicy()
        attempt = 0
        while True:
            reply, retry_after = await self._once(system_prompt, text, signal)
            if (
                not policy.enabled
                or attempt >= policy.max_retries
                or not is_retryable_error(reply)
                or (signal is not None and signal.aborted)
            ):
                return reply
            attempt += 1
            delay = retry_delay_seconds(policy, attempt, retry_after)
            if signal is not None:
                stop = asyncio.Event()
                unsubscribe = signal.on_abort(stop.set)
                try:
                    await asyncio.wait_for(stop.wait(), delay)
                    return reply  # aborted while waiting
                except TimeoutError:
                    pass
                finally:
                    unsubscribe()
            else:
                await asyncio.sleep(delay)

    async def _once(
        self, system_prompt: str, text: str, signal: AbortSignal | None
    ) -> tuple[AssistantMessage, float | None]:
        model = self.model
        context = Context(
            system_prompt=system_prompt,
            messages=[UserMessage(content=[TextContent(text=text)])],
            tools=[],
        )
        options = StreamOptions(
            api_key=self.api_key(model),
            signal=signal,
            thinking=self.thinking if model.reasoning else "off",
            headers=self.headers(model),
            # A transcript summarized once: a cache entry for it would never be read.
            cache_retention="none",
        )
        final: AssistantMessage | None = None
        retry_after: float | None = None
        async for event in provider_for(model).stream(model, context, options):
            if isinstance(event, DoneEvent):
                final = event.message
            elif isinstance(event, ErrorEvent):
                final = event.message
                retry_after = event.retry_after_seconds
        assert final is not None, "a provider stream ends with done or error"
        return final, retry_after
