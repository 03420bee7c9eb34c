"""One summarizer request, through pith.ai's public provider functions (an extension cannot
use the app's summarizer): the model's text reply, or `SummaryFailed` saying why not.

Credentials: the key pith itself sends for the model (`ctx.get_api_key(model)`: `--api-key`,
then models.json `apiKey`, then the provider's environment variables, then auth.json) and the
registry's `request_headers(model)`, with a bearer header for providers that want one.

Timeouts (the `summarizer*TimeoutMs` settings): `idle` seconds without a stream event, `total`
seconds in all; 0 turns either off. A timeout aborts the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from typing import Literal

from pith.agent import AbortController
from pith.ai import (
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    Model,
    ModelRegistry,
    StreamEvent,
    StreamOptions,
    TextContent,
    ThinkingLevel,
    Usage,
    UserMessage,
    provider_for,
)

__all__ = ["FailureKind", "SummaryFailed", "ask_summary", "failure_kind"]


FailureKind = Literal["auth", "transient", "unusable"]

_AUTH = re.compile(
    r"^\s*(401|403)\b|unauthori[sz]ed|forbidden|invalid[ _-]?(api[ _-]?)?key|authenticat",
    re.IGNORECASE,
)


class SummaryFailed(Exception):
    """The summarizer gave no usable summary; the message says why (for a notice).

    `kind` (only a `transient` one may trip the outage fallback, `_fallback`): `auth` (the
    provider refused the credentials), `unusable` (a reply came but is no summary: cut by the
    output limit, a tool call, blank) or `transient` (anything else: a failed stream, a
    timeout, an error reply)."""

    def __init__(self, message: str, kind: FailureKind = "transient") -> None:
        super().__init__(message)
        self.kind: FailureKind = kind


def failure_kind(message: str) -> FailureKind:
    """`auth` for an error text that says the credentials were refused, else `transient`."""
    return "auth" if _AUTH.search(message) else "transient"


def _headers(model: Model, registry: ModelRegistry | None, key: str | None) -> dict[str, str]:
    if registry is None:
        return {}
    headers = registry.request_headers(model)
    if key and registry.needs_bearer_header(model):
        headers.setdefault("Authorization", f"Bearer {key}")
    return headers


async def _next(iterator: AsyncIterator[StreamEvent], idle: float) -> StreamEvent:
    if idle <= 0:
        return await anext(iterator)
    try:
        return await asyncio.wait_for(anext(iterator), idle)
    except TimeoutError:
        raise SummaryFailed(f"no response for {idle:g} s") from None


async def _reply(
    model: Model, context: Context, options: StreamOptions, idle: float
) -> AssistantMessage:
    iterator = aiter(provider_for(model).stream(model, context, options))
    try:
        while True:
            try:
                event = await _next(iterator, idle)
            except StopAsyncIteration:
                raise SummaryFailed("the stream ended without a reply") from None
            if isinstance(event, DoneEvent):
                return event.message
            if isinstance(event, ErrorEvent):
                message = event.message.error_message
                text = message if isinstance(message, str) else "request failed"
                raise SummaryFailed(text, failure_kind(text))
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()


async def ask_summary(
    model: Model,
    registry: ModelRegistry | None,
    key: str | None,
    system_prompt: str,
    text: str,
    *,
    idle: float,
    total: float,
    spent: list[Usage] | None = None,
    thinking: ThinkingLevel = "off",
) -> str:
    """The text `model` replies to `text` under `system_prompt` (no tools; `thinking` as the
    reasoning effort when the model reasons, else off).
    Raises `SummaryFailed` on a failed request, a timeout, a reply cut by the output limit, a
    tool call or a blank reply. The reply's usage is appended to `spent` as soon as it
    arrives (a reply that is then refused cost tokens too)."""
    controller = AbortController()
    context = Context(
        system_prompt=system_prompt,
        messages=[UserMessage(content=[TextContent(text=text)])],
        tools=[],
    )
    options = StreamOptions(
        api_key=key,
        signal=controller.signal,
        thinking=thinking if model.reasoning else "off",
        headers=_headers(model, registry, key),
        # Each batch is summarized once: a cache entry for it would never be read.
        cache_retention="none",
    )
    try:
        async with asyncio.timeout(total if total > 0 else None):
            reply = await _reply(model, context, options, idle)
    except TimeoutError:
        controller.abort()
        raise SummaryFailed(f"no summary within {total:g} s") from None
    except SummaryFailed:
        controller.abort()
        raise
    if spent is not None:
        spent.append(reply.usage)
    if reply.stop_reason == "length":
        raise SummaryFailed("the summary was cut by the output limit", "unusable")
    if reply.stop_reason not in ("stop", "toolUse"):
        raise SummaryFailed(f"the request ended with {reply.stop_reason}")
    if reply.tool_calls():
        raise SummaryFailed(
            "the summarizer asked for a tool instead of writing a summary", "unusable"
        )
    summary = "".join(b.text for b in reply.content if isinstance(b, TextContent)).strip()
    if not summary:
        raise SummaryFailed("the summary was empty", "unusable")
    return summary
