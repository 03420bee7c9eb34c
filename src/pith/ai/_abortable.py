"""Consuming a network stream so that an abort takes effect at once, even mid-wait."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

from pith.ai._stream import AbortLike

__all__ = ["ABORTED", "Aborted", "until_aborted"]

T = TypeVar("T")
_ITEM, _END, _ERROR, _ABORT = range(4)

ABORTED = "Request was aborted"
"""The error message of a reply the user aborted."""


class Aborted(Exception):
    """The signal fired before the stream finished."""


async def until_aborted(source: AsyncIterator[T], signal: AbortLike | None) -> AsyncIterator[T]:
    """Yield from `source` until it ends; raise `Aborted` as soon as `signal` fires.

    `source` runs in its own task, so a request still waiting for its first byte is cancelled
    (and its connection closed) the moment the user aborts.
    """
    if signal is None:
        async for item in source:
            yield item
        return
    if signal.aborted:
        raise Aborted
    queue: asyncio.Queue[tuple[int, object]] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for item in source:
                queue.put_nowait((_ITEM, item))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            queue.put_nowait((_ERROR, error))
        else:
            queue.put_nowait((_END, None))

    task = asyncio.ensure_future(pump())
    unsubscribe = signal.on_abort(lambda: queue.put_nowait((_ABORT, None)))
    try:
        while True:
            kind, value = await queue.get()
            if kind == _ITEM:
                yield value  # type: ignore[misc]
            elif kind == _END:
                return
            elif kind == _ERROR:
                assert isinstance(value, Exception)
                raise value
            else:
                raise Aborted
    finally:
        unsubscribe()
        if not task.done():
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(Exception):
                await aclose()
