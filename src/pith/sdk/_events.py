"""A session's events as an async iterator."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pith.app.session import SessionEvent

__all__ = ["EventStream"]


class _End:
    """Marks the end of the stream in its queue."""


_END = _End()


class EventStream:
    """The events of a session from the moment this stream was made, in order, until it is
    closed (`aclose()`, leaving an `async with` block, or the session closing). Events wait in
    the stream until read, so a slow reader loses none."""

    def __init__(self, subscribe: Callable[[Callable[[SessionEvent], None]], Callable[[], None]]):
        self._queue: asyncio.Queue[SessionEvent | _End] = asyncio.Queue()
        self._closed = False
        self._unsubscribe = subscribe(self._queue.put_nowait)

    def close(self) -> None:
        """Stop taking events; the reader gets those already taken, then the stream ends."""
        if not self._closed:
            self._closed = True
            self._unsubscribe()
            self._queue.put_nowait(_END)

    async def aclose(self) -> None:
        self.close()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> SessionEvent:
        item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)  # a later read ends too
            raise StopAsyncIteration
        return item

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
