"""An OAuth-protected MCP server that is also its own authorization server, for the tests.

Run as `python oauth_server.py PORTFILE [--client-id ID --client-secret S --redirect URI]`. It
listens on 127.0.0.1 (a free port, written to PORTFILE) and serves, through the SDK's server
auth support: protected resource metadata, authorization server metadata, dynamic client
registration, `/authorize` (which approves at once and redirects with `code`, `state` and
`iss`), `/token`, and the MCP endpoint `/mcp` with one tool, `whoami`, answering with the
bearer token it was called with. `--client-id` pre-registers a client.

Test controls, not part of OAuth:

- `POST /test/expire`: every access token issued so far is refused from now on;
- `POST /test/next-lifetime?seconds=N`: the next token issued says `expires_in: N`;
- `POST /test/iss?value=V`: redirects carry `iss=V` instead of the issuer;
- `GET /test/state`: counts and the last authorization request, as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import socket
import time
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

SCOPES = ["mcp:tools", "extra"]
REQUIRED = ["mcp:tools"]


class Provider:
    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.iss: str | None = issuer
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.refused: set[str] = set()
        self.next_lifetime: int | None = None
        self.counts = {"registrations": 0, "refreshes": 0, "rejected": 0, "exchanges": 0}
        self.last_authorize: dict[str, Any] = {}
        self.last_token_auth: str | None = None

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.counts["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_urlsafe(24)
        self.last_authorize = {
            "client_id": client.client_id,
            "scopes": params.scopes,
            "redirect_uri": str(params.redirect_uri),
            "resource": params.resource,
        }
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(
            str(params.redirect_uri), code=code, state=params.state, iss=self.iss
        )

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        lifetime = 3600 if self.next_lifetime is None else self.next_lifetime
        self.next_lifetime = None
        return OAuthToken(
            access_token=access, expires_in=lifetime, scope=" ".join(scopes), refresh_token=refresh
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.counts["exchanges"] += 1
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.counts["refreshes"] += 1
        return self._issue(
            refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or token in self.refused:
            self.counts["rejected"] += 1
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port_file")
    parser.add_argument("--client-id")
    parser.add_argument("--client-secret")
    parser.add_argument("--auth-method", default="client_secret_basic")
    parser.add_argument("--redirect")
    options = parser.parse_args()

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    issuer = f"http://127.0.0.1:{port}"
    provider = Provider(issuer)
    if options.client_id:
        provider.clients[options.client_id] = OAuthClientInformationFull(
            client_id=options.client_id,
            client_secret=options.client_secret,
            redirect_uris=[AnyUrl(options.redirect)],
            token_endpoint_auth_method=options.auth_method,
            scope=" ".join(SCOPES),
        )
    server = MCPServer(
        "guarded",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=f"{issuer}/mcp",
            validate_token_resource=False,
            required_scopes=REQUIRED,
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=SCOPES
            ),
        ),
    )

    @server.tool(description="The bearer token of this call.")
    def whoami() -> str:
        token = get_access_token()
        return token.token if token is not None else "(none)"

    @server.custom_route("/test/expire", methods=["POST"])
    async def expire(request: Request) -> Response:
        provider.refused.update(provider.access)
        return JSONResponse({"refused": len(provider.refused)})

    @server.custom_route("/test/next-lifetime", methods=["POST"])
    async def next_lifetime(request: Request) -> Response:
        provider.next_lifetime = int(request.query_params["seconds"])
        return JSONResponse({})

    @server.custom_route("/test/iss", methods=["POST"])
    async def iss(request: Request) -> Response:
        provider.iss = request.query_params["value"]
        return JSONResponse({})

    @server.custom_route("/test/state", methods=["GET"])
    async def state(request: Request) -> Response:
        return JSONResponse(
            {
                **provider.counts,
                "authorize": provider.last_authorize,
                "clients": sorted(provider.clients),
            }
        )

    app = server.streamable_http_app()
    http = uvicorn.Server(uvicorn.Config(app, log_level="warning"))

    async def serve() -> None:
        task = asyncio.create_task(http.serve(sockets=[sock]))
        while not http.started:  # noqa: ASYNC110 - uvicorn offers no event for it
            await asyncio.sleep(0.01)
        Path(options.port_file).write_text(str(port))
        await task

    asyncio.run(serve())


if __name__ == "__main__":
    main()
