"""The bearer token a session sends to an OAuth-protected server, refreshed when it runs out.

`StoredTokenAuth` is the `httpx2.Auth` of a connection whose server uses OAuth (see
`uses_oauth`). Each request reads the server's record in `mcp-auth.json` (so a sign-in in
another shell is used from the next request on) and sends its access token. The token is
refreshed first when its lifetime is over, and once when the server answers 401 while a
refresh token is stored; a refreshed token is written back at once. Without a usable token
the server's 401 stands, and the connection reports that the server needs a sign-in. The
interactive part of OAuth never runs here: that is `pith mcp login`.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import anyio
import httpx2

from pith.mcp._oauth_store import Record, read_record, update_record
from pith.mcp._types import ServerConfig

__all__ = ["EXPIRY_MARGIN_SECONDS", "StoredTokenAuth", "refresh_form"]

EXPIRY_MARGIN_SECONDS = 30.0
"""A token this close to its end is refreshed before use rather than sent to be refused."""


def refresh_form(
    record: Record, client_secret: str | None
) -> tuple[str, dict[str, str], dict[str, str]] | None:
    """(token endpoint, form, headers) of the refresh request for `record`; None without a
    refresh token or a client id. A client secret goes where the client's method says."""
    tokens = record.get("tokens") or {}
    client = record.get("client") or {}
    refresh = tokens.get("refresh_token")
    client_id = client.get("client_id")
    if not isinstance(refresh, str) or not isinstance(client_id, str):
        return None
    endpoint = record.get("token_endpoint")
    if not isinstance(endpoint, str):
        parts = urlsplit(str(record.get("url", "")))
        endpoint = f"{parts.scheme}://{parts.netloc}/token"
    form = {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client_id}
    resource = record.get("resource")
    if isinstance(resource, str):
        form["resource"] = resource
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    secret = client_secret if client_secret is not None else client.get("client_secret")
    method = client.get("token_endpoint_auth_method")
    if isinstance(secret, str) and method == "client_secret_basic":
        pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    elif isinstance(secret, str) and method == "client_secret_post":
        form["client_secret"] = secret
    return endpoint, form, headers


def _expired(tokens: dict[str, Any], now: float) -> bool:
    expires_at = tokens.get("expires_at")
    return isinstance(expires_at, int | float) and now >= expires_at - EXPIRY_MARGIN_SECONDS


def _refreshed(old: dict[str, Any], answer: object, now: float) -> dict[str, Any] | None:
    """The stored tokens after a refresh answered `answer` (None: it is not a token answer).
    A refresh token or scope the answer leaves out stays as it was (RFC 6749 section 6)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("access_token"), str):
        return None
    tokens: dict[str, Any] = {"access_token": answer["access_token"], "token_type": "Bearer"}
    for key in ("refresh_token", "scope"):
        value = answer.get(key, old.get(key))
        if isinstance(value, str):
            tokens[key] = value
    lifetime = answer.get("expires_in")
    if isinstance(lifetime, int | float) and not isinstance(lifetime, bool):
        tokens["expires_at"] = now + lifetime
    return tokens


class StoredTokenAuth(httpx2.Auth):
    """Bearer tokens from `mcp-auth.json` for one server, refreshed on expiry and on a 401."""

    requires_response_body = True

    def __init__(
        self, config: ServerConfig, agent_dir: Path, *, clock: Callable[[], float] = time.time
    ) -> None:
        assert config.url is not None
        self._name = config.name
        self._url = config.url
        self._secret = config.oauth.client_secret if config.oauth is not None else None
        self._agent_dir = agent_dir
        self._clock = clock
        self._lock: anyio.Lock | None = None

    def _record(self) -> Record:
        return read_record(self._agent_dir, self._name, self._url) or {}

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._lock is None:
            self._lock = anyio.Lock()
        record = self._record()
        tokens = record.get("tokens") or {}
        refreshed = False
        if tokens and _expired(tokens, self._clock()):
            async with self._lock:
                record = self._record()  # another request may have refreshed it meanwhile
                tokens = record.get("tokens") or {}
                refresh = self._refresh_request(record)
                if _expired(tokens, self._clock()) and refresh is not None:
                    refreshed = True
                    answer = yield refresh
                    tokens = await self._accept(answer, record) or {}
        self._bearer(request, tokens)
        response = yield request
        if response.status_code != 401 or refreshed:
            return
        async with self._lock:
            latest = self._record()
            fresh = latest.get("tokens") or {}
            if fresh.get("access_token") not in (None, tokens.get("access_token")):
                tokens = fresh  # refreshed by another request while this one was out
            else:
                refresh = self._refresh_request(latest)
                if refresh is None:
                    return
                answer = yield refresh
                tokens = await self._accept(answer, latest) or {}
        # Sent again either way: without a token the server's 401 is the answer the caller sees.
        self._bearer(request, tokens)
        yield request

    def _refresh_request(self, record: Record) -> httpx2.Request | None:
        form = refresh_form(record, self._secret)
        if form is None:
            return None
        endpoint, data, headers = form
        return httpx2.Request("POST", endpoint, data=data, headers=headers)

    def _bearer(self, request: httpx2.Request, tokens: dict[str, Any]) -> None:
        token = tokens.get("access_token")
        if isinstance(token, str):
            request.headers["Authorization"] = f"Bearer {token}"

    async def _accept(self, response: httpx2.Response, record: Record) -> dict[str, Any] | None:
        """Store what a refresh answered; the new tokens, or None when it failed."""
        await response.aread()
        old = record.get("tokens") or {}
        tokens = None
        if response.status_code == 200:
            try:
                tokens = _refreshed(old, json.loads(response.content), self._clock())
            except ValueError:
                tokens = None
        if tokens is None and response.status_code not in (400, 401):
            return None  # the server had trouble: keep the tokens for the next try
        kept = tokens

        def change(stored: Record) -> None:
            if kept is None:
                stored.pop("tokens", None)  # the refresh token was refused: sign in again
            else:
                stored["tokens"] = kept

        update_record(self._agent_dir, self._name, self._url, change)
        return tokens
