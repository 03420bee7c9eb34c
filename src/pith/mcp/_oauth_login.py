"""`pith mcp login`: sign in to an OAuth-protected MCP server, leaving tokens in `mcp-auth.json`.

The MCP SDK's `OAuthClientProvider` does the protocol: on the server's 401 it reads the
protected resource metadata (RFC 9728) and the authorization server's metadata (RFC 8414),
registers a client (RFC 7591) unless one is configured, sends the user to the authorization
endpoint with a PKCE S256 challenge and a fresh `state`, checks `iss` when the answer carries
one (RFC 9207), and exchanges the code for tokens. pith supplies the parts around it: the
storage (`mcp-auth.json`), the redirect URI and the loopback callback server, the pasted URL,
a `state` check that fails with one line, the configured client and scope, and the choice of
how a configured client authenticates at the token endpoint.

Signing in always starts afresh: tokens already stored are not offered, so a login replaces
them. A registered client is reused only when it lists the redirect URI of this sign-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthTokenError
from mcp.client.auth.exceptions import OAuthRegistrationError
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from pydantic import AnyUrl, PrivateAttr

from pith._version import __version__
from pith.mcp._oauth_callback import (
    CallbackServer,
    RedirectAnswer,
    SignInError,
    parse_answer,
    redirect_target,
    redirect_uri,
)
from pith.mcp._oauth_store import Record, read_record, update_record, uses_oauth
from pith.mcp._types import ServerConfig

__all__ = ["SignInOutcome", "SignInPrompt", "sign_in"]

SIGN_IN_SECONDS = 300.0
"""How long a sign-in waits for the browser or a pasted URL (a hang guard)."""
REQUEST_SECONDS = 30.0

SignInOutcome = Literal["signed-in", "not-needed"]


class SignInPrompt(Protocol):
    """The person signing in: shown the authorization URL; may paste the redirected URL."""

    def show_url(self, url: str) -> None: ...

    async def pasted(self) -> str | None:
        """The next line the person pasted, or None when nothing will come."""
        ...


def _token_record(token: OAuthToken, now: float) -> dict[str, Any]:
    data: dict[str, Any] = {"access_token": token.access_token, "token_type": token.token_type}
    if token.refresh_token is not None:
        data["refresh_token"] = token.refresh_token
    if token.scope is not None:
        data["scope"] = token.scope
    if token.expires_in is not None:
        data["expires_at"] = now + token.expires_in
    return data


def client_auth_method(supported: list[str] | None, has_secret: bool) -> str:
    """How a configured client authenticates at the token endpoint: without a secret `none`;
    with one `client_secret_basic` (the method every server must support) unless the server
    lists only `client_secret_post`."""
    if not has_secret:
        return "none"
    if supported and "client_secret_basic" not in supported and "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


class _ClientMetadata(OAuthClientMetadata):
    """The registration metadata, whose `scope` always carries the configured scopes: the
    SDK sets `scope` to the advertised ones before registering, and this adds the
    configured ones to what it sets."""

    _configured: str | None = PrivateAttr(default=None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "scope" and self._configured:
            value = union_scopes(self._configured, value)
        super().__setattr__(name, value)


class _Storage:
    """The SDK's `TokenStorage` over `mcp-auth.json` for one sign-in."""

    def __init__(self, config: ServerConfig, agent_dir: Path, redirect: str) -> None:
        assert config.url is not None
        self._config = config
        self._url = config.url
        self._agent_dir = agent_dir
        self._redirect = redirect
        self.signed_in = False

    def configured_client(self) -> OAuthClientInformationFull | None:
        oauth = self._config.oauth
        if oauth is None or oauth.client_id is None:
            return None
        return OAuthClientInformationFull(
            client_id=oauth.client_id,
            client_secret=oauth.client_secret,
            redirect_uris=[AnyUrl(self._redirect)],
        )

    async def get_tokens(self) -> OAuthToken | None:
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        now = time.time()

        def change(record: Record) -> None:
            record["tokens"] = _token_record(tokens, now)

        update_record(self._agent_dir, self._config.name, self._url, change)
        self.signed_in = True

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        configured = self.configured_client()
        if configured is not None:
            return configured
        record = read_record(self._agent_dir, self._config.name, self._url) or {}
        stored = record.get("client")
        if not isinstance(stored, dict):
            return None
        try:
            client = OAuthClientInformationFull.model_validate(stored)
        except ValueError:
            return None
        uris = [str(uri) for uri in client.redirect_uris or []]
        return client if self._redirect in uris else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        def change(record: Record) -> None:
            record["client"] = client_info.model_dump(mode="json", exclude_none=True)

        update_record(self._agent_dir, self._config.name, self._url, change)


class _Provider(OAuthClientProvider):
    """The SDK's provider with the token endpoint method of a configured client chosen from
    the authorization server's metadata before the code is exchanged."""

    configured = False

    async def _exchange_token_authorization_code(
        self, auth_code: str, code_verifier: str
    ) -> httpx2.Request:
        client = self.context.client_info
        if self.configured and client is not None and client.token_endpoint_auth_method is None:
            metadata = self.context.oauth_metadata
            supported = metadata.token_endpoint_auth_methods_supported if metadata else None
            client.token_endpoint_auth_method = client_auth_method(
                supported, client.client_secret is not None
            )
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)


@dataclass
class _Answers:
    """The browser's answer to one authorization request, from the loopback or a paste."""

    callback: CallbackServer
    prompt: SignInPrompt
    name: str
    expected_state: str | None = None

    async def show(self, url: str) -> None:
        states = parse_qs(urlsplit(url).query).get("state") or []
        self.expected_state = states[0] if states else None
        self.prompt.show_url(url)

    async def wait(self) -> AuthorizationCodeResult:
        answer = await self._first_answer()
        name = self.name
        if answer.error is not None:
            detail = f" ({answer.error_description})" if answer.error_description else ""
            raise SignInError(
                f"MCP server {name!r}: the authorization server refused the sign-in: "
                f"{answer.error}{detail}"
            )
        if answer.state is None or answer.state != self.expected_state:
            raise SignInError(
                f"MCP server {name!r}: the sign-in answer does not belong to this sign-in "
                f"(its state does not match); run `pith mcp login {name}` again"
            )
        assert answer.code is not None
        return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)

    async def _first_answer(self) -> RedirectAnswer:
        pasted = asyncio.ensure_future(self._pasted())
        try:
            done, _ = await asyncio.wait(
                [self.callback.answer, pasted],
                timeout=SIGN_IN_SECONDS,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            pasted.cancel()
        if self.callback.answer in done:
            return self.callback.answer.result()
        if pasted in done:
            return pasted.result()
        raise SignInError(
            f"MCP server {self.name!r}: no answer from the browser within {SIGN_IN_SECONDS:g} s; "
            f"run `pith mcp login {self.name}` again"
        )

    async def _pasted(self) -> RedirectAnswer:
        while True:
            line = await self.prompt.pasted()
            if line is None:
                await asyncio.Event().wait()  # nothing will be pasted: the loopback decides
            elif line.strip():
                return parse_answer(line)


async def sign_in(config: ServerConfig, agent_dir: Path, prompt: SignInPrompt) -> SignInOutcome:
    """Sign in to `config`'s server; `not-needed` when it accepted the connection without."""
    name = config.name
    if not uses_oauth(config):
        why = "is not an HTTP server" if config.transport != "http" else "sends its own header"
        raise SignInError(
            f"MCP server {name!r} {why}: OAuth applies only to HTTP servers "
            "without an Authorization header"
        )
    assert config.url is not None
    oauth = config.oauth
    if oauth is not None and oauth.client_registration == "cimd":
        raise SignInError(
            f"MCP server {name!r}: pith has no client metadata document to offer; set "
            'oauth.clientRegistration to "dcr" or configure oauth.clientId'
        )
    if oauth is not None and oauth.auth_server_metadata_url is not None:
        raise SignInError(
            f"MCP server {name!r}: oauth.authServerMetadataUrl is not supported yet; remove it "
            "to use the metadata the server advertises"
        )
    # The SDK logs a failed flow with its traceback; the one line pith raises says it all.
    sdk_log = logging.getLogger("mcp.client.auth")
    if not sdk_log.handlers:
        sdk_log.addHandler(logging.NullHandler())
        sdk_log.propagate = False
    host, port, path, _ = redirect_target(oauth)
    callback = CallbackServer(host, port, path)
    try:
        redirect = redirect_uri(oauth, await callback.start())
        return await _run(config, agent_dir, prompt, callback, redirect)
    finally:
        await callback.close()


async def _run(
    config: ServerConfig,
    agent_dir: Path,
    prompt: SignInPrompt,
    callback: CallbackServer,
    redirect: str,
) -> SignInOutcome:
    assert config.url is not None
    name = config.name
    oauth = config.oauth
    storage = _Storage(config, agent_dir, redirect)
    metadata = _ClientMetadata(
        redirect_uris=[AnyUrl(redirect)],
        client_name=(oauth.client_name if oauth else None) or "pith",
        software_id="pith",
        software_version=__version__,
    )
    metadata._configured = oauth.scope if oauth is not None else None
    metadata.scope = None
    answers = _Answers(callback, prompt, name)
    show: Callable[[str], Awaitable[None]] = answers.show
    provider = _Provider(
        server_url=config.url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=show,
        callback_handler=answers.wait,
    )
    provider.configured = storage.configured_client() is not None
    response = await _initialize(config, provider)
    if response.status_code in (401, 403):
        raise SignInError(
            f"MCP server {name!r} still refuses the connection after signing in "
            f"(HTTP {response.status_code})"
        )
    if response.status_code >= 400:
        text = " ".join(response.text.split())[:200]
        raise SignInError(f"MCP server {name!r} answered HTTP {response.status_code}: {text}")
    if not storage.signed_in:
        return "not-needed"
    context = provider.context
    token_endpoint = str(context.oauth_metadata.token_endpoint) if context.oauth_metadata else None
    resource = (
        context.get_resource_url()
        if context.should_include_resource_param(context.protocol_version)
        else None
    )
    client = context.client_info

    def change(record: Record) -> None:
        record["token_endpoint"] = token_endpoint
        record["resource"] = resource
        if client is not None and storage.configured_client() is not None:
            # Kept without the secret: the configuration stays its one source.
            record["client"] = client.model_dump(
                mode="json", exclude_none=True, exclude={"client_secret"}
            )

    update_record(agent_dir, name, config.url, change)
    return "signed-in"


async def _initialize(config: ServerConfig, provider: _Provider) -> httpx2.Response:
    """Send `initialize`; the provider signs in on the way. The session it opened is closed."""
    assert config.url is not None
    name = config.name
    body = {
        "jsonrpc": "2.0",
        "id": secrets.randbelow(1 << 30),
        "method": "initialize",
        "params": {
            "protocolVersion": LATEST_HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "pith", "version": __version__},
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": LATEST_HANDSHAKE_VERSION,
    }
    try:
        async with httpx2.AsyncClient(
            auth=provider, headers=dict(config.headers), timeout=REQUEST_SECONDS
        ) as client:
            response = await client.post(config.url, json=body, headers=headers)
            session = response.headers.get("mcp-session-id")
            if session is not None and response.status_code < 400:
                with contextlib.suppress(httpx2.HTTPError):
                    await client.delete(config.url, headers={"mcp-session-id": session})
            return response
    except SignInError:
        raise
    except (OAuthFlowError, OAuthTokenError, OAuthRegistrationError) as error:
        raise SignInError(f"signing in to MCP server {name!r} failed: {error}") from None
    except httpx2.HTTPError as error:
        raise SignInError(
            f"MCP server {name!r}: cannot reach {config.url} ({type(error).__name__}: {error})"
        ) from None
