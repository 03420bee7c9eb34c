"""The Messages API over HTTP: one streamed POST, its server-sent events as dicts.

pith speaks to Anthropic through `httpx2` (the HTTP client the official SDKs are built on)
rather than the `anthropic` SDK itself: the SDK spends about 1.4 s importing its typed models
before the first request, and pith uses none of them (bodies are built and events read as plain
JSON). What the SDK would add on the wire is added here: the API version header and the key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import httpx2

__all__ = ["API_VERSION", "AnthropicHTTP", "StatusError", "messages_url"]

API_VERSION = "2023-06-01"
CONNECT_TIMEOUT_SECONDS = 10.0

JsonObject = dict[str, object]


class StatusError(Exception):
    """The API answered with an error: an HTTP status, or an `error` event inside the stream
    (then `status` is the stream's 200)."""

    def __init__(self, status: int, body: object, headers: dict[str, str]) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body
        self.headers = headers


def messages_url(base_url: str | None) -> str:
    """`<base>/v1/messages`, the SDK's path under its `base_url`."""
    return (base_url or "https://api.anthropic.com").rstrip("/") + "/v1/messages"


class AnthropicHTTP:
    """A connection pool to one endpoint with one key and one set of headers."""

    def __init__(
        self, base_url: str | None, api_key: str, headers: dict[str, str], timeout: float
    ) -> None:
        import httpx2

        self.url = messages_url(base_url)
        self.headers = {
            "x-api-key": api_key,
            "anthropic-version": API_VERSION,
            "content-type": "application/json",
            "accept": "text/event-stream",
            **headers,
        }
        self.client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_SECONDS))
        )

    async def events(self, body: JsonObject) -> AsyncIterator[JsonObject]:
        """The stream's events (`ping` left out); raises `StatusError` for an API error."""
        content = msgspec.json.encode(body)
        async with self.client.stream(
            "POST", self.url, content=content, headers=self.headers
        ) as response:
            if response.status_code >= 400:
                raw = await response.aread()
                raise StatusError(response.status_code, _json_or_text(raw), _headers(response))
            async for event in _server_sent_events(response):
                kind = event.get("type")
                if kind == "ping":
                    continue
                if kind == "error":
                    raise StatusError(response.status_code, event, _headers(response))
                yield event


async def _server_sent_events(response: httpx2.Response) -> AsyncIterator[JsonObject]:
    """Each event's `data` as a JSON object; the `event:` name is also in the data's `type`."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line:
            if line.startswith("data:"):
                data.append(line[6:] if line.startswith("data: ") else line[5:])
            continue  # `event:`, `id:`, `retry:` and comments carry nothing pith needs
        if data:
            value = _json_or_text("\n".join(data).encode())
            data = []
            if isinstance(value, dict):
                yield value
    if data:
        value = _json_or_text("\n".join(data).encode())
        if isinstance(value, dict):
            yield value


def _json_or_text(raw: bytes) -> object:
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return raw.decode("utf-8", "replace")


def _headers(response: httpx2.Response) -> dict[str, str]:
    return {key.lower(): value for key, value in response.headers.items()}
