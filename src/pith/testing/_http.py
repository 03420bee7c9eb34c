"""The fake server's HTTP side: the routes, the request handler and the threading server.

A model route answers in its provider's wire format (`_openai_wire`, `_anthropic_wire`,
`_gemini_wire`), with
the turn the state assigns and that turn's fault if it has one.
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

from pith.testing import _anthropic_wire, _gemini_wire, _openai_wire, _responses_wire
from pith.testing._reply import Reply, Usage
from pith.testing._script import Fault, Turn
from pith.testing._state import ServerState

__all__ = ["EXHAUSTED", "HOST", "FakeHttpServer"]

HOST = "127.0.0.1"  # never anything else: the server runs scripted replies for tests only
EXHAUSTED = "fake server: script exhausted"

JsonObject = dict[str, object]
Provider = Literal["openai", "anthropic", "gemini", "responses"]

_ROUTES: dict[str, Provider] = {
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/messages": "anthropic",
    "/v1/responses": "responses",
    "/responses": "responses",
}


def _seconds(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _default_message(status: int) -> str:
    special = {429: "Rate limit exceeded", 500: "Internal server error", 529: "Overloaded"}
    if status in special:
        return special[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"


def _dumps(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


class _Handler(BaseHTTPRequestHandler):
    # Small SSE writes must not wait for the client's delayed ACK (40 ms each on Linux).
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"  # keep-alive, and chunked streams whose cut a client notices
    server_version = "pith-fake/1"
    server: FakeHttpServer
    gemini: tuple[str, bool] | None = None
    """The model and whether to stream, on a Gemini route."""

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the JSON request log is the record."""

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, add=False)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    do_PUT = do_DELETE = do_PATCH = do_POST

    def _handle(self) -> None:
        try:
            self._dispatch()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away, e.g. an aborted stream

    def _dispatch(self) -> None:
        received_at = time.time()
        path = self.path.split("?", 1)[0]
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        state = self.server.state
        if self.command == "GET" and path == "/_pith/state":
            self._send_json(200, state.snapshot())
            return
        provider = _ROUTES.get(path) if self.command == "POST" else None
        self.gemini = _gemini_wire.model_route(path) if self.command == "POST" else None
        if self.gemini is not None:
            provider = "gemini"
        is_models = self.command == "GET" and path in ("/v1/models", "/models")
        route = "models" if is_models else provider
        headers = dict(self.headers.items())
        entry, turn = state.record(self.command, self.path, headers, raw, route=route)
        n = entry["n"]
        assert isinstance(n, int)
        model = state.script.model or "fake-model"
        if is_models:
            self._send_json(200, _models_body(model))
        elif provider is None:
            message = f"fake server: no route for {self.command} {path}"
            self._send_json(404, {"error": {"message": message, "type": "not_found_error"}})
        elif turn is None:
            self._send_error(provider, 500, EXHAUSTED, None, None, n, {})
        else:
            self._serve(provider, turn, entry["body"], state.usage_of(entry), n)
        self.wfile.flush()
        state.timings[n] = (received_at, time.time())

    def _serve(
        self,
        provider: Provider,
        turn: Turn,
        body: object,
        usage: Usage,
        n: int,
    ) -> None:
        fault = turn.fault
        if fault.first_byte_delay:
            time.sleep(fault.first_byte_delay)
        if fault.overflow:
            overflow = (
                _openai_wire.overflow_body()
                if provider == "openai"
                else _gemini_wire.overflow_body()
                if provider == "gemini"
                else _responses_wire.overflow_body()
                if provider == "responses"
                else _anthropic_wire.overflow_body(f"req_fake_{n}")
            )
            self._send_json(400, overflow, n=n)
            return
        if fault.status is not None:
            headers: dict[str, str] = {}
            if fault.retry_after is not None:
                headers["retry-after"] = _seconds(fault.retry_after)
                headers["retry-after-ms"] = str(round(fault.retry_after * 1000))
            message = fault.message or _default_message(fault.status)
            self._send_error(provider, fault.status, message, fault.type, fault.code, n, headers)
            return
        request = body if isinstance(body, dict) else {}
        if provider == "gemini":
            self._serve_gemini(turn, usage, n)
            return
        requested_model = request.get("model")
        model = self.server.state.script.model or (
            requested_model if isinstance(requested_model, str) else "fake-model"
        )
        reply = Reply(turn, model, usage, n, int(time.time()))
        if request.get("stream") is not True:
            reply_body = (
                _openai_wire.completion(reply)
                if provider == "openai"
                else _responses_wire.response(reply)
                if provider == "responses"
                else _anthropic_wire.message(reply)
            )
            self._send_json(200, reply_body, n=n, cut_after=fault.cut_after)
            return
        if provider == "openai":
            options = request.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            frames = _openai_wire.stream_frames(reply, include_usage=include_usage)
        elif provider == "responses":
            frames = _responses_wire.stream_frames(reply)
        else:
            frames = _anthropic_wire.stream_frames(reply)
        self._send_stream(frames, fault, n)

    def _serve_gemini(self, turn: Turn, usage: Usage, n: int) -> None:
        assert self.gemini is not None
        requested, streamed = self.gemini
        model = self.server.state.script.model or requested
        reply = Reply(turn, model, usage, n, int(time.time()))
        fault = turn.fault
        if not streamed:
            body = _gemini_wire.response(reply, fault.finish_reason)
            self._send_json(200, body, n=n, cut_after=fault.cut_after)
            return
        frames = _gemini_wire.stream_frames(
            reply, finish=fault.finish_reason, block=fault.block_reason
        )
        self._send_stream(frames, fault, n)

    def _start(
        self, status: int, content_type: str, n: int | None, extra: Mapping[str, str]
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if n is not None:
            self.send_header("x-request-id", f"req_fake_{n}")
            self.send_header("request-id", f"req_fake_{n}")
        for key, value in extra.items():
            self.send_header(key, value)

    def _send_json(
        self,
        status: int,
        body: JsonObject,
        *,
        n: int | None = None,
        headers: Mapping[str, str] | None = None,
        cut_after: int | None = None,
    ) -> None:
        data = _dumps(body)
        self._start(status, "application/json", n, headers or {})
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if cut_after is not None and cut_after < len(data):
            self.wfile.write(data[:cut_after])
            self.close_connection = True
            return
        self.wfile.write(data)

    def _send_error(
        self,
        provider: Provider,
        status: int,
        message: str,
        type_: str | None,
        code: str | None,
        n: int,
        headers: Mapping[str, str],
    ) -> None:
        body = (
            _openai_wire.error_body(status, message, type_=type_, code=code)
            if provider in ("openai", "responses")
            else _gemini_wire.error_body(status, message)
            if provider == "gemini"
            else _anthropic_wire.error_body(
                status, message, type_=type_, request_id=f"req_fake_{n}"
            )
        )
        self._send_json(status, body, n=n, headers=headers)

    def _send_stream(self, frames: Sequence[bytes], fault: Fault, n: int) -> None:
        self._start(200, "text/event-stream; charset=utf-8", n, {"Cache-Control": "no-cache"})
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, frame in enumerate(frames):
            if fault.cut_after is not None and i >= fault.cut_after:
                # Without the closing zero-length chunk the client sees a truncated body.
                self.close_connection = True
                return
            if i and fault.chunk_delay:
                time.sleep(fault.chunk_delay)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
        self.wfile.write(b"0\r\n\r\n")


def _models_body(model: str) -> JsonObject:
    # One list both SDKs parse: OpenAI's `object`/`owned_by` and Anthropic's `type`/paging keys.
    item: JsonObject = {
        "id": model,
        "object": "model",
        "created": 0,
        "owned_by": "pith-fake",
        "type": "model",
        "display_name": model,
        "created_at": "2025-01-01T00:00:00Z",
        "lifecycle": "active",
    }
    return {
        "object": "list",
        "data": [item],
        "has_more": False,
        "first_id": model,
        "last_id": model,
    }


class FakeHttpServer(ThreadingHTTPServer):
    """The threading HTTP server on 127.0.0.1 that answers from one `ServerState`."""

    daemon_threads = True

    def __init__(self, state: ServerState, port: int) -> None:
        self.state = state
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__((HOST, port), _Handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a reset keep-alive connection, an aborted stream) is not a
        server error: no traceback on standard error for it."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]

    def server_bind(self) -> None:
        """Bind without HTTPServer's reverse DNS lookup of the host name."""
        socketserver.TCPServer.server_bind(self)
        self.server_name = HOST
        self.server_port = self.port

    @property
    def port(self) -> int:
        """The bound TCP port."""
        port = self.socket.getsockname()[1]
        assert isinstance(port, int)
        return port

    def track(self, connection: socket.socket, *, add: bool) -> None:
        """Remember open connections, so that stopping can close idle keep-alive ones."""
        with self._connections_lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def close_connections(self) -> None:
        """Shut down every open connection (their handler threads then finish)."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)
