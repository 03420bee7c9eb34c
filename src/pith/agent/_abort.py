"""Cooperative cancellation shared by the loop, providers and tools (like a DOM AbortSignal)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["AbortController", "AbortSignal"]


class AbortSignal:
    """Set once; holders check `aborted`, await `wait()` or register a callback."""

    def __init__(self) -> None:
        self._aborted = False
        self._reason = "aborted"
        self._callbacks: list[Callable[[], None]] = []
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> str:
        return self._reason

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call `callback` on abort (at once if already aborted); returns an unsubscriber."""
        if self._aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def unsubscribe() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return unsubscribe

    async def wait(self) -> None:
        """Return once the signal is aborted."""
        if self._aborted:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            await future
        finally:
            if future in self._waiters:
                self._waiters.remove(future)

    def _fire(self, reason: str) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()
        for future in self._waiters:
            if not future.done():
                future.set_result(None)


class AbortController:
    """Owns an `AbortSignal` and is the only thing that can fire it."""

    def __init__(self) -> None:
        self.signal = AbortSignal()

    def abort(self, reason: str = "aborted") -> None:
        self.signal._fire(reason)
