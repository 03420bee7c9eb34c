"""Where the authorization server's answer to a sign-in arrives.

The browser is sent back to a redirect URI on the loopback interface (RFC 8252): by default
`http://127.0.0.1:<port>/callback`, the port `oauth.callbackPort` or a free one; or
`oauth.callbackUrl` as written, with the port added when it names none. `CallbackServer`
answers that one path and hands over the first answer; `parse_answer` reads the same answer
from a redirected URL the user pasted (the browser ran on another machine). This module does
not import the MCP SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit, urlunsplit

from pith.errors import PithError
from pith.mcp._types import OAuthConfig

__all__ = [
    "CallbackServer",
    "RedirectAnswer",
    "SignInError",
    "parse_answer",
    "redirect_target",
    "redirect_uri",
]

CALLBACK_PATH = "/callback"
MAX_REQUEST_BYTES = 16 * 1024
"""A request line and headers longer than this are not an authorization answer."""

_PAGE = (
    "<!doctype html><meta charset=utf-8><title>pith</title>"
    "<p style='font-family:sans-serif'>{text}</p>"
)


class SignInError(PithError):
    """Signing in did not work: one line saying why and what to do."""


@dataclass(frozen=True)
class RedirectAnswer:
    """The query of the redirect: a `code` (with `state` and maybe `iss`), or an `error`."""

    code: str | None
    state: str | None
    iss: str | None
    error: str | None = None
    error_description: str | None = None


def redirect_target(oauth: OAuthConfig | None) -> tuple[str, int, str, str | None]:
    """(host to listen on, port or 0 for a free one, path, the configured URL or None)."""
    port = oauth.callback_port if oauth is not None and oauth.callback_port is not None else 0
    url = oauth.callback_url if oauth is not None else None
    if url is None:
        return "127.0.0.1", port, CALLBACK_PATH, None
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    listen = "::1" if host == "::1" else "127.0.0.1"
    return listen, parts.port or port, parts.path or "/", url


def redirect_uri(oauth: OAuthConfig | None, port: int) -> str:
    """The redirect URI sent to the authorization server once the listening port is known."""
    _, _, path, url = redirect_target(oauth)
    if url is None:
        return f"http://127.0.0.1:{port}{path}"
    parts = urlsplit(url)
    if parts.port is not None:
        return url
    host = parts.hostname or "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, f"{shown}:{port}", parts.path, parts.query, parts.fragment))


def parse_answer(text: str) -> RedirectAnswer:
    """The answer in a redirected URL (or just its `?query`); `SignInError` when it is none."""
    query = urlsplit(text.strip()).query if "?" in text else ""
    values = {key: items[0] for key, items in parse_qs(query).items() if items}
    answer = RedirectAnswer(
        code=values.get("code"),
        state=values.get("state"),
        iss=values.get("iss"),
        error=values.get("error"),
        error_description=values.get("error_description"),
    )
    if answer.code is None and answer.error is None:
        raise SignInError(
            "the pasted text is not the redirected URL (it has no code= or error= in its "
            "query); copy the whole address the browser ended on"
        )
    return answer


class CallbackServer:
    """A tiny HTTP server on the loopback interface that waits for one authorization answer."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self._host = host
        self._port = port
        self._path = path
        self._server: asyncio.Server | None = None
        self.answer: asyncio.Future[RedirectAnswer] = asyncio.get_running_loop().create_future()

    async def start(self) -> int:
        """Listen; the port it listens on."""
        try:
            self._server = await asyncio.start_server(self._serve, self._host, self._port)
        except OSError as error:
            raise SignInError(
                f"cannot listen for the sign-in callback on {self._host}:{self._port} "
                f"({error.strerror or error}); free the port or change oauth.callbackPort"
            ) from None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5.0)
        if not self.answer.done():
            self.answer.cancel()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
            writer.close()
            return
        if len(head) > MAX_REQUEST_BYTES:
            await self._reply(writer, 431, "Request too large.")
            return
        words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
        target = words[1] if len(words) == 3 else ""
        parts = urlsplit(target)
        if words[:1] != ["GET"] or parts.path != self._path:
            await self._reply(writer, 404, "Not the sign-in callback.")
            return
        try:
            answer = parse_answer(target)
        except SignInError:
            await self._reply(writer, 400, "This address carries no sign-in answer.")
            return
        if answer.error is not None:
            await self._reply(writer, 200, "Sign-in was refused. Return to the terminal.")
        else:
            await self._reply(writer, 200, "Signed in. You may close this page.")
        if not self.answer.done():
            self.answer.set_result(answer)

    async def _reply(self, writer: asyncio.StreamWriter, status: int, text: str) -> None:
        body = _PAGE.format(text=text).encode()
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 431: "Too Large"}[status]
        writer.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(Exception):
            await writer.drain()
        writer.close()
