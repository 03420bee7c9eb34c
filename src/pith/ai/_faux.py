"""A provider whose replies are scripted in-process: for tests and extension authors.

    from pith.ai import FauxReply, faux_model, register_faux
    register_faux("demo", [FauxReply(text="Hello!"), lambda context: FauxReply(text="again")])
    model = faux_model("demo")

Each request takes the next reply (a `FauxReply`, or a function of the request `Context` that
returns one). Text and arguments are streamed in small pieces, like a real provider.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

from pith.ai._abortable import ABORTED, Aborted
from pith.ai._builder import MessageBuilder
from pith.ai._messages import StopReason, Usage
from pith.ai._models import Model
from pith.ai._stream import Context, StreamEvent, StreamOptions

__all__ = ["FauxCall", "FauxProvider", "FauxReply", "faux_model", "register_faux"]


@dataclass
class FauxCall:
    name: str
    arguments: dict[str, object] = field(default_factory=dict)
    id: str | None = None


@dataclass
class FauxReply:
    text: str = ""
    thinking: str = ""
    tool_calls: list[FauxCall] = field(default_factory=list)
    usage: Usage | None = None
    stop_reason: StopReason | None = None
    error: str | None = None
    """Fail the request with this message instead of replying."""
    delay_seconds: float = 0.0


Script = list[FauxReply | Callable[[Context], FauxReply]]
_SCRIPTS: dict[str, Script] = {}
_REQUESTS: dict[str, list[Context]] = {}


def register_faux(provider: str, replies: Script) -> None:
    """Script the replies of the faux provider `provider` (replacing earlier ones)."""
    _SCRIPTS[provider] = list(replies)
    _REQUESTS[provider] = []


def faux_requests(provider: str) -> list[Context]:
    """Every context the faux provider `provider` was asked to answer, in order."""
    return _REQUESTS.get(provider, [])


def faux_model(provider: str, model_id: str = "faux-model", **fields: object) -> Model:
    """A model served by the faux provider `provider`."""
    values: dict[str, object] = {"context_window": 128_000, "max_tokens": 16_384}
    values.update(fields)
    return Model(id=model_id, provider=provider, api="faux", name=model_id, **values)  # type: ignore[arg-type]


def _pieces(text: str, size: int = 4) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)] or []


class FauxProvider:
    async def stream(
        self, model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        builder = MessageBuilder(model)
        for event in builder.start():
            yield event
        script = _SCRIPTS.get(model.provider)
        _REQUESTS.setdefault(model.provider, []).append(context)
        if not script:
            for event in builder.fail(f"faux provider {model.provider!r}: no scripted reply left"):
                yield event
            return
        entry = script.pop(0)
        reply = entry(context) if callable(entry) else entry
        try:
            if reply.delay_seconds:
                await _sleep(reply.delay_seconds, options)
            if reply.error is not None:
                for event in builder.fail(reply.error):
                    yield event
                return
            for piece in _pieces(reply.thinking):
                for event in builder.thinking(piece):
                    yield event
            for piece in _pieces(reply.text):
                for event in builder.text(piece):
                    yield event
            for number, call in enumerate(reply.tool_calls):
                index, events = builder.tool_call_start(call.id or f"faux_{number}", call.name)
                for event in events:
                    yield event
                for piece in _pieces(json.dumps(call.arguments), 8):
                    for event in builder.tool_call_args(index, piece):
                        yield event
                    await asyncio.sleep(0)
                    if options.signal is not None and options.signal.aborted:
                        raise Aborted
        except Aborted:
            for event in builder.fail(ABORTED, aborted=True):
                yield event
            return
        builder.set_usage(reply.usage or Usage(input=100, output=10, total_tokens=110))
        stop = reply.stop_reason or ("toolUse" if reply.tool_calls else "stop")
        for event in builder.done(stop):
            yield event


async def _sleep(seconds: float, options: StreamOptions) -> None:
    signal = options.signal
    if signal is None:
        await asyncio.sleep(seconds)
        return
    done = asyncio.Event()
    unsubscribe = signal.on_abort(done.set)
    try:
        try:
            await asyncio.wait_for(done.wait(), seconds)
        except TimeoutError:
            return
        raise Aborted
    finally:
        unsubscribe()
