"""SDK clients, reused: one per endpoint, key and headers, per event loop.

Creating a client costs 20+ ms (TLS context, connection pool) and a fresh connection per
request; reusing one keeps connections alive across turns. Clients are bound to the event loop
that created them, so the cache is per loop and goes away with it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import TypeVar

__all__ = ["cached_client"]

T = TypeVar("T")

_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[object, ...], object]] = (
    weakref.WeakKeyDictionary()
)


def cached_client(key: tuple[object, ...], create: Callable[[], T]) -> T:
    """The client for `key` on the running loop, created by `create()` the first time."""
    clients = _CLIENTS.setdefault(asyncio.get_running_loop(), {})
    client = clients.get(key)
    if client is None:
        client = create()
        clients[key] = client
    return client  # type: ignore[return-value]
