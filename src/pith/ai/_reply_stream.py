"""One reply streamed from a provider's events onto a `MessageBuilder`, for every provider.

The provider opens the request and maps each event; this loop does the rest the same way for
all of them: the start event first, an abort that takes effect at once, and every failure (an
abort, an error status, a stream that says it failed, a broken connection) ending the reply as
an error event with the words the provider chose and the server's Retry-After.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

from pith.ai._abortable import ABORTED, Aborted, until_aborted
from pith.ai._builder import MessageBuilder
from pith.ai._http_errors import retry_after_seconds, status_message, transport_message
from pith.ai._http_stream import JsonObject, StatusError
from pith.ai._stream import AbortLike, StreamEvent

__all__ = ["EventMapper", "StreamFailure", "stream_reply"]


class EventMapper(Protocol):
    """Turns a provider's events into builder events; `finish` judges how the stream ended."""

    def take(self, event: JsonObject) -> list[StreamEvent]: ...

    def finish(self) -> list[StreamEvent]: ...


class StreamFailure(Exception):
    """The stream itself said the reply failed; the exception's text is the error message."""


def _status_words(error: StatusError) -> str:
    return status_message(error.status, error.body)


Events = AsyncIterator[JsonObject]


async def stream_reply(
    builder: MessageBuilder,
    mapper: EventMapper,
    open_events: Callable[[], Events | Awaitable[Events]],
    signal: AbortLike | None,
    *,
    where: str = "",
    transport_words: Callable[[Exception], str] | None = None,
    status_words: Callable[[StatusError], str] = _status_words,
) -> AsyncIterator[StreamEvent]:
    """The reply's events: `builder.start()`, then `mapper`'s for each event of the stream
    `open_events()` returns (or, when it is a coroutine, returns once awaited), then
    `mapper.finish()` or the error that ended it.

    A broken connection is worded by `transport_words`, by default `transport_message` for the
    endpoint `where` (from `endpoint_description`)."""
    for event in builder.start():
        yield event
    try:
        opened = open_events()
        events = await opened if inspect.isawaitable(opened) else opened
        async for item in until_aborted(events, signal):
            for event in mapper.take(item):
                yield event
        final = mapper.finish()
    except Aborted:
        final = builder.fail(ABORTED, aborted=True)
    except StatusError as error:
        final = builder.fail(status_words(error), retry_after=retry_after_seconds(error.headers))
    except StreamFailure as error:
        final = builder.fail(str(error))
    except Exception as error:
        words = transport_words(error) if transport_words else transport_message(error, where)
        final = builder.fail(words)
    for event in final:
        yield event
