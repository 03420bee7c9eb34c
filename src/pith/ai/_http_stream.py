"""One streamed JSON POST to a model server, its server-sent events read back as dicts.

Both provider families speak through this (`httpx2`, the HTTP client the official SDKs are
built on, imported only when a request is made) rather than through the `openai` and
`anthropic` SDKs: the SDKs spend 0.25–1.4 s importing typed models before the first request,
and pith uses none of them — bodies are built and events read as plain JSON.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import msgspec

from pith.json_input import JsonInputError, check_json_limits

if TYPE_CHECKING:
    import ssl

    import httpx2

__all__ = ["EventStream", "JsonObject", "StatusError", "endpoint_description", "transport_kind"]

CONNECT_TIMEOUT_SECONDS = 10.0

JsonObject = dict[str, object]
Headers = dict[str, str]


class StatusError(Exception):
    """The server answered with an error: an HTTP status, or an error event inside the stream
    (then `status` is the stream's 200)."""

    def __init__(self, status: int, body: object, headers: dict[str, str]) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body
        self.headers = headers


class EventStream:
    """A connection pool to one endpoint with one set of headers."""

    def __init__(self, url: str, headers: dict[str, str], timeout: float) -> None:
        import httpx2

        self.url = url
        self.headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **headers,
        }
        self.client = httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_SECONDS)),
            verify=_tls_for(url),
        )

    async def events(self, body: JsonObject) -> AsyncIterator[tuple[JsonObject, int, Headers]]:
        """Each event's data as `(object, HTTP status, headers)`; an HTTP error status raises
        `StatusError` with the body read back."""
        content = msgspec.json.encode(body)
        async with self.client.stream(
            "POST", self.url, content=content, headers=self.headers
        ) as response:
            headers = _headers(response)
            if response.status_code >= 400:
                raw = await response.aread()
                raise StatusError(response.status_code, json_or_text(raw), headers)
            async for event in _server_sent_events(response):
                yield event, response.status_code, headers


def _tls_for(url: str) -> ssl.SSLContext | bool:
    """`True` (the system's certificates) for an https endpoint. A plain-http one, such as a
    local model server, gets a context that loads no certificates: loading them costs more
    than a short run's whole start-up, and a request that is somehow sent over TLS after all
    fails verification instead of going out unchecked."""
    if url[:8].lower() == "https://":
        return True
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


async def _server_sent_events(response: httpx2.Response) -> AsyncIterator[JsonObject]:
    """Each event's `data` as a JSON object; `[DONE]` ends the stream."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line:
            if line.startswith("data:"):
                data.append(line[6:] if line.startswith("data: ") else line[5:])
            continue  # `event:`, `id:`, `retry:` and comments carry nothing pith needs
        if data:
            joined = "\n".join(data)
            data = []
            if joined.strip() == "[DONE]":
                return
            value = json_or_text(joined.encode())
            if isinstance(value, dict):
                yield value
    if data:
        value = json_or_text("\n".join(data).encode())
        if isinstance(value, dict):
            yield value


def json_or_text(raw: bytes) -> object:
    """A response body or event as JSON, or as text when it is not JSON pith can use (also
    when it nests too deep or holds an absurd number: then the text is what is reported)."""
    try:
        check_json_limits(raw, "the model server's reply", fix="")
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, JsonInputError):
        return raw.decode("utf-8", "replace")


def _headers(response: httpx2.Response) -> dict[str, str]:
    return {key.lower(): value for key, value in response.headers.items()}


def transport_kind(error: BaseException) -> str | None:
    """`timeout`, `stream` (the connection broke mid-body), `connection`, or None for an
    error that is not the transport's, judged by the exception's class names."""
    names = {cls.__name__ for cls in type(error).__mro__}
    if "TimeoutException" in names:
        return "timeout"
    if "StreamError" in names or "RemoteProtocolError" in names:
        return "stream"
    if "TransportError" in names:
        return "connection"
    return None


def endpoint_description(provider: str, url: str) -> str:
    """`provider NAME at URL`, for errors of the connection: which configuration to check."""
    return f"provider {provider} at {url}"
