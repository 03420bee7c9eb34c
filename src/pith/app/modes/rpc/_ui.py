"""Extension questions and notices over RPC: `extension_ui_request` records out, the client's
`extension_ui_response` records back.

A question waits for its answer; with a timeout (or when the connection closes) it gets the
default answer a person who said nothing would give: no for `confirm`, nothing for `select`
and `input`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence

from pith.app.modes.rpc._protocol import UiAnswer
from pith.extensions import NoticeLevel

__all__ = ["RpcUI"]

Write = Callable[[dict[str, object]], None]


class RpcUI:
    """An `ExtensionUI` whose person is the RPC client."""

    def __init__(self, write: Write) -> None:
        self._write = write
        self._pending: dict[str, asyncio.Future[UiAnswer]] = {}
        self._closed = False

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        self._write(
            {
                "type": "extension_ui_request",
                "id": _new_id(),
                "method": "notify",
                "message": message,
                "notifyType": level,
            }
        )

    def set_status(self, key: str, text: str | None) -> None:
        record: dict[str, object] = {
            "type": "extension_ui_request",
            "id": _new_id(),
            "method": "setStatus",
            "statusKey": key,
        }
        if text is not None:
            record["statusText"] = text
        self._write(record)

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        request: dict[str, object] = {"method": "confirm", "title": title, "message": message}
        answer = await self._ask(request, timeout)
        return bool(answer is not None and not answer.cancelled and answer.confirmed)

    async def select(
        self, title: str, options: Sequence[str], *, timeout: float | None = None
    ) -> str | None:
        request: dict[str, object] = {"method": "select", "title": title, "options": list(options)}
        answer = await self._ask(request, timeout)
        return _value(answer)

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        request: dict[str, object] = {"method": "input", "title": title}
        if placeholder is not None:
            request["placeholder"] = placeholder
        answer = await self._ask(request, timeout)
        return _value(answer)

    def answer(self, answer: UiAnswer) -> bool:
        """Hand a client's answer to the question waiting for it; False when none waits (it
        timed out, or the id is unknown)."""
        future = self._pending.pop(answer.id, None)
        if future is None or future.done():
            return False
        future.set_result(answer)
        return True

    def close(self) -> None:
        """The client is gone: every open question gets its default answer, later ones too."""
        self._closed = True
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_result(UiAnswer("", cancelled=True))

    @property
    def waiting(self) -> int:
        """How many questions wait for an answer."""
        return len(self._pending)

    async def _ask(self, request: dict[str, object], timeout: float | None) -> UiAnswer | None:
        if self._closed:
            return None
        request_id = _new_id()
        record: dict[str, object] = {"type": "extension_ui_request", "id": request_id, **request}
        if timeout is not None:
            record["timeout"] = round(timeout * 1000)
        future: asyncio.Future[UiAnswer] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._write(record)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None
        finally:
            self._pending.pop(request_id, None)


def _value(answer: UiAnswer | None) -> str | None:
    if answer is None or answer.cancelled:
        return None
    return answer.value


def _new_id() -> str:
    return str(uuid.uuid4())
