"""The Messages API over HTTP: one streamed POST, its server-sent events as dicts
(`_http_stream`); what the SDK would add on the wire is added here: the API version header and
the key."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pith.ai._http_stream import EventStream, JsonObject, StatusError

__all__ = ["API_VERSION", "AnthropicHTTP", "StatusError", "messages_url"]

API_VERSION = "2023-06-01"


def messages_url(base_url: str | None) -> str:
    """`<base>/v1/messages`, the SDK's path under its `base_url`."""
    return (base_url or "https://api.anthropic.com").rstrip("/") + "/v1/messages"


class AnthropicHTTP:
    """A connection pool to one endpoint with one key and one set of headers."""

    def __init__(
        self, base_url: str | None, api_key: str, headers: dict[str, str], timeout: float
    ) -> None:
        self.stream = EventStream(
            messages_url(base_url),
            {"x-api-key": api_key, "anthropic-version": API_VERSION, **headers},
            timeout,
        )

    async def events(self, body: JsonObject) -> AsyncIterator[JsonObject]:
        """The stream's events (`ping` left out); raises `StatusError` for an API error."""
        async for event, status, headers in self.stream.events(body):
            kind = event.get("type")
            if kind == "ping":
                continue
            if kind == "error":
                raise StatusError(status, event, headers)
            yield event
