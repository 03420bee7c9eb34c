"""A scripted fake model server speaking OpenAI chat completions and Anthropic messages.

pith's provider and agent-loop tests talk to it over real HTTP on 127.0.0.1. Standard library
only. Run it as a process::

    python -m pith.testing.fake_server --script FILE [--port 0] [--port-file F] [--log F]

or in-process with `pith.testing.FakeServer` (or `FakeServer.subprocess(...)`).

Routes: `POST /v1/chat/completions` (and `/chat/completions`) answer in OpenAI's format,
`POST /v1/messages` (and `/messages`) in Anthropic's; both stream SSE when the body has
`"stream": true`. `GET /v1/models` lists the script's model. `GET /_pith/state` returns
`{"requests", "unused_turns", "problems"}` and is the only request not logged.

Script (JSON)::

    {"model": "fake-model",          # optional; else the request's model is echoed
     "chunk": 4,                     # optional default for every turn
     "turns": [{
        "text": "Hello",             # assistant text
        "thinking": "...",           # reasoning_content / a thinking block
        "signature": "...",          # Anthropic thinking signature (default: fake-signature-<i>)
        "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}, "id": "optional"}],
        "stop": "stop",              # stop | length | tool_calls (Anthropic names accepted);
                                     # default tool_calls when there are tool calls, else stop
        "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "reasoning": 0},
        "chunk": 4,                  # characters per streamed delta (arguments are split too)
        "match": ["..."],            # substrings the request body must contain to get this turn
        "unless": ["..."],           # substrings it must not contain
        "expect": ["..."],           # substrings it must contain; a miss is recorded as a problem
        "fault": {...}               # see below
     }]}

`arguments` is an object (sent as compact JSON) or a raw string (sent verbatim, e.g. malformed).
Tool call ids default to `call_<turn>_<k>` (OpenAI) and `toolu_<turn>_<k>` (Anthropic).

Usage: `input` is the uncached input (OpenAI's `prompt_tokens` is `input + cacheRead +
cacheWrite`, with `cached_tokens = cacheRead`); `output` includes `reasoning`. Missing numbers
are computed: input = ceil(request body chars / 4), output = ceil(reply chars / 4), reasoning =
ceil(thinking chars / 4), cache numbers 0.

Routing: each model request gets the first unused turn, in script order, whose `match` and
`unless` hold; a substring "occurs" when it is in the raw body or in its compact re-serialisation
(`json.dumps(body, separators=(",", ":"), ensure_ascii=False)`). A turn is used once.

Faults (`fault`; the turn is consumed by the request that hits it):

- `{"status": 429, "retryAfter": 1.5, "message": "...", "type": "...", "code": "..."}`: that
  status with the provider's error JSON; `Retry-After` and `retry-after-ms` when given.
- `{"overflow": true}`: HTTP 400 with each provider's context-overflow wording.
- `{"cutAfter": N}`: send N SSE frames of the normal reply (for Anthropic the `ping` counts),
  then close the connection mid-body (no finish, no `[DONE]`); non-streaming: N body bytes.
- `{"firstByteDelay": s}`: sleep before the response starts.
- `{"chunkDelay": s}`: sleep between streamed frames.

When no turn is left the answer is HTTP 500 `{"error": {"message": "fake server: script
exhausted"}}` and a problem is recorded. Every request is appended to `--log` as one JSON line
`{"n", "method", "path", "headers", "body", "turn", "problems"}` (without `authorization` and
`x-api-key` headers).
"""

from __future__ import annotations

import abc
import argparse
import contextlib
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType, TracebackType
from typing import Literal, Self, TypeVar

from pith.errors import InputError
from pith.testing import _anthropic_wire, _openai_wire

__all__ = ["FakeServer", "FakeServerProcess", "Reply", "ScriptError", "Turn", "Usage", "main"]

HOST = "127.0.0.1"  # never anything else: the server runs scripted replies for tests only
EXHAUSTED = "fake server: script exhausted"

JsonObject = dict[str, object]
Provider = Literal["openai", "anthropic"]
_T = TypeVar("_T")

_ROUTES: dict[str, Provider] = {
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/messages": "anthropic",
}
_STOPS = {"stop": "stop", "length": "length", "tool_calls": "tool_calls"}
_STOPS.update(end_turn="stop", max_tokens="length", tool_use="tool_calls")
_TURN_KEYS = frozenset({"text", "thinking", "signature", "tool_calls", "stop", "usage", "chunk"})
_TURN_KEYS |= {"match", "unless", "expect", "fault"}
_FAULT_KEYS = frozenset({"status", "retryAfter", "message", "type", "code", "overflow"})
_FAULT_KEYS |= {"cutAfter", "firstByteDelay", "chunkDelay"}
_USAGE_KEYS = {
    "input": "input",
    "output": "output",
    "cacheRead": "cache_read",
    "cacheWrite": "cache_write",
    "reasoning": "reasoning",
}


# --- the script -------------------------------------------------------------------------------


class ScriptError(InputError):
    """A script that cannot be used; the message names the turn and the field."""


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call; `arguments` is the exact text sent on the wire."""

    name: str
    arguments: str
    id: str | None


@dataclass(frozen=True)
class Fault:
    """How a turn misbehaves (see the module docstring)."""

    status: int | None = None
    retry_after: float | None = None
    message: str | None = None
    type: str | None = None
    code: str | None = None
    overflow: bool = False
    cut_after: int | None = None
    first_byte_delay: float = 0.0
    chunk_delay: float = 0.0


@dataclass(frozen=True)
class Turn:
    """One scripted assistant reply and the conditions for serving it."""

    index: int
    text: str = ""
    thinking: str = ""
    signature: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    stop: str = "stop"
    usage: Mapping[str, int] | None = None
    chunk: int = 4
    match: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()
    expect: tuple[str, ...] = ()
    fault: Fault = Fault()


@dataclass(frozen=True)
class Script:
    """A parsed script: the model name (None: echo the request's) and the turns."""

    model: str | None
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Usage:
    """Token numbers of one reply, in Pi's terms (`input` excludes cached tokens)."""

    input: int
    output: int
    cache_read: int
    cache_write: int
    reasoning: int


@dataclass(frozen=True)
class Reply:
    """What a wire module renders: a turn served to request number `request_n`."""

    turn: Turn
    model: str
    usage: Usage
    request_n: int
    created: int

    def pieces(self, text: str) -> list[str]:
        """`text` split into streamed deltas of `turn.chunk` characters (none for "")."""
        size = self.turn.chunk
        return [text[i : i + size] for i in range(0, len(text), size)]


def _field(obj: Mapping[str, object], key: str, kind: type[_T], where: str) -> _T | None:
    value = obj.get(key)
    if value is None:
        return None
    # bool is an int subclass; a JSON `true` is never a number here.
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ScriptError(f"{where}: '{key}' must be {kind.__name__}, got {value!r}")
    return value


def _number(obj: Mapping[str, object], key: str, where: str) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ScriptError(f"{where}: '{key}' must be a non-negative number, got {value!r}")
    return float(value)


def _strings(obj: Mapping[str, object], key: str, where: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(str(item) for item in value)
    raise ScriptError(f"{where}: '{key}' must be a list of strings, got {value!r}")


def _object(value: object, where: str, known: frozenset[str]) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise ScriptError(f"{where}: expected a JSON object, got {value!r}")
    unknown = sorted(set(value) - known)
    if unknown:
        raise ScriptError(f"{where}: unknown key {unknown[0]!r}; known: {', '.join(sorted(known))}")
    return value


def _tool_call(value: object, where: str) -> ToolCall:
    obj = _object(value, where, frozenset({"name", "arguments", "id"}))
    name = _field(obj, "name", str, where)
    if not name:
        raise ScriptError(f"{where}: 'name' is required")
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return ToolCall(name=name, arguments=arguments, id=_field(obj, "id", str, where))


def _fault(value: object, where: str) -> Fault:
    obj = _object(value, f"{where} fault", _FAULT_KEYS)
    where = f"{where} fault"
    cut_after = _field(obj, "cutAfter", int, where)
    if cut_after is not None and cut_after < 0:
        raise ScriptError(f"{where}: 'cutAfter' must be >= 0, got {cut_after}")
    return Fault(
        status=_field(obj, "status", int, where),
        retry_after=_number(obj, "retryAfter", where),
        message=_field(obj, "message", str, where),
        type=_field(obj, "type", str, where),
        code=_field(obj, "code", str, where),
        overflow=bool(_field(obj, "overflow", bool, where)),
        cut_after=cut_after,
        first_byte_delay=_number(obj, "firstByteDelay", where) or 0.0,
        chunk_delay=_number(obj, "chunkDelay", where) or 0.0,
    )


def _chunk(obj: Mapping[str, object], where: str, default: int) -> int:
    chunk = _field(obj, "chunk", int, where)
    if chunk is None:
        return default
    if chunk < 1:
        raise ScriptError(f"{where}: 'chunk' must be a positive integer, got {chunk}")
    return chunk


def _turn(value: object, index: int, default_chunk: int) -> Turn:
    where = f"script turn {index}"
    obj = _object(value, where, _TURN_KEYS)
    calls = obj.get("tool_calls") or []
    if not isinstance(calls, list):
        raise ScriptError(f"{where}: 'tool_calls' must be a list, got {calls!r}")
    tool_calls = tuple(_tool_call(c, f"{where} tool_calls[{k}]") for k, c in enumerate(calls))
    stop = _field(obj, "stop", str, where) or ("tool_calls" if tool_calls else "stop")
    if stop not in _STOPS:
        raise ScriptError(f"{where}: 'stop' must be one of {', '.join(_STOPS)}, got {stop!r}")
    usage: dict[str, int] | None = None
    if "usage" in obj:
        raw_usage = _object(obj["usage"], f"{where} usage", frozenset(_USAGE_KEYS))
        usage = {}
        for key, attr in _USAGE_KEYS.items():
            number = _field(raw_usage, key, int, f"{where} usage")
            if number is not None:
                usage[attr] = number
    chunk = _chunk(obj, where, default_chunk)
    return Turn(
        index=index,
        text=_field(obj, "text", str, where) or "",
        thinking=_field(obj, "thinking", str, where) or "",
        signature=_field(obj, "signature", str, where),
        tool_calls=tool_calls,
        stop=_STOPS[stop],
        usage=usage,
        chunk=chunk,
        match=_strings(obj, "match", where),
        unless=_strings(obj, "unless", where),
        expect=_strings(obj, "expect", where),
        fault=_fault(obj["fault"], where) if obj.get("fault") is not None else Fault(),
    )


def load_script(source: Mapping[str, object] | str | os.PathLike[str]) -> Script:
    """Parse a script given as a dict or a JSON file path; raises `ScriptError` if it is bad."""
    where = "script"
    if isinstance(source, Mapping):
        data: object = dict(source)
    else:
        where = f"script {os.fspath(source)}"
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ScriptError(f"{where}: cannot read it as JSON: {error}") from error
    obj = _object(data, where, frozenset({"model", "chunk", "turns"}))
    turns = obj.get("turns", [])
    if not isinstance(turns, list):
        raise ScriptError(f"{where}: 'turns' must be a list, got {turns!r}")
    default_chunk = _chunk(obj, where, 4)
    return Script(
        model=_field(obj, "model", str, where),
        turns=tuple(_turn(turn, i, default_chunk) for i, turn in enumerate(turns)),
    )


def _ceil4(n: int) -> int:
    return (n + 3) // 4


def usage_for(turn: Turn, request_chars: int) -> Usage:
    """The turn's usage: scripted numbers, the rest computed from sizes (chars / 4)."""
    reply_chars = len(turn.text) + len(turn.thinking)
    reply_chars += sum(len(call.name) + len(call.arguments) for call in turn.tool_calls)
    computed = {
        "input": _ceil4(request_chars),
        "output": _ceil4(reply_chars),
        "cache_read": 0,
        "cache_write": 0,
        "reasoning": _ceil4(len(turn.thinking)),
    }
    computed.update(turn.usage or {})
    return Usage(**computed)


# --- routing and the request log ---------------------------------------------------------------

_SECRET_HEADERS = frozenset({"authorization", "x-api-key"})


class _State:
    """Which turns are used, every request seen, and the problems found; thread-safe."""

    def __init__(self, script: Script, log_path: Path | None) -> None:
        self.script = script
        self.log_path = log_path
        self.lock = threading.Lock()
        self.used: set[int] = set()
        self.requests: list[JsonObject] = []
        self.timings: dict[int, tuple[float, float]] = {}
        """Request number -> (first byte received, last byte sent), wall-clock seconds."""
        self.problems: list[str] = []

    def record(
        self, method: str, path: str, headers: Mapping[str, str], raw: bytes, *, route: str | None
    ) -> tuple[JsonObject, Turn | None]:
        """Log a request and, for a model route (`openai`/`anthropic`), assign it a turn.

        `route` is a provider, `"models"`, or None for a path the server does not know.
        """
        text = raw.decode("utf-8", errors="replace")
        body: object = None
        problems: list[str] = []
        compact = text
        if raw:
            try:
                body = json.loads(text)
                compact = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
            except ValueError:
                body = text
                problems.append("the request body is not JSON")
        haystacks = (text, compact)
        with self.lock:
            n = len(self.requests) + 1
            turn: Turn | None = None
            if route is None:
                problems.append(f"no route for {method} {path}")
            elif route != "models":
                turn = self._pick(haystacks)
                if turn is None:
                    problems.append(f"script exhausted ({method} {path})")
                else:
                    self.used.add(turn.index)
                    problems += [
                        f"turn {turn.index}: expected {needle!r} in the request body"
                        for needle in turn.expect
                        if not any(needle in hay for hay in haystacks)
                    ]
            entry: JsonObject = {
                "n": n,
                "method": method,
                "path": path,
                "headers": {
                    k.lower(): v for k, v in headers.items() if k.lower() not in _SECRET_HEADERS
                },
                "body": body,
                "turn": None if turn is None else turn.index,
                "problems": problems,
            }
            self.requests.append(entry)
            self.problems += [f"request {n}: {problem}" for problem in problems]
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return entry, turn

    def _pick(self, haystacks: tuple[str, str]) -> Turn | None:
        def occurs(needle: str) -> bool:
            return any(needle in hay for hay in haystacks)

        for turn in self.script.turns:
            if turn.index in self.used:
                continue
            if all(map(occurs, turn.match)) and not any(map(occurs, turn.unless)):
                return turn
        return None

    def snapshot(self) -> JsonObject:
        """`{"requests": n, "unused_turns": [...], "problems": [...]}`."""
        with self.lock:
            return {
                "requests": len(self.requests),
                "unused_turns": [t.index for t in self.script.turns if t.index not in self.used],
                "problems": list(self.problems),
            }


# --- HTTP ------------------------------------------------------------------------------------


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
    server: _Server

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
            self._serve(provider, turn, entry["body"], len(raw.decode("utf-8", "replace")), n)
        self.wfile.flush()
        state.timings[n] = (received_at, time.time())

    def _serve(self, provider: Provider, turn: Turn, body: object, chars: int, n: int) -> None:
        fault = turn.fault
        if fault.first_byte_delay:
            time.sleep(fault.first_byte_delay)
        if fault.overflow:
            overflow = (
                _openai_wire.overflow_body()
                if provider == "openai"
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
        requested_model = request.get("model")
        model = self.server.state.script.model or (
            requested_model if isinstance(requested_model, str) else "fake-model"
        )
        reply = Reply(turn, model, usage_for(turn, chars), n, int(time.time()))
        if request.get("stream") is not True:
            reply_body = (
                _openai_wire.completion(reply)
                if provider == "openai"
                else _anthropic_wire.message(reply)
            )
            self._send_json(200, reply_body, n=n, cut_after=fault.cut_after)
            return
        if provider == "openai":
            options = request.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            frames = _openai_wire.stream_frames(reply, include_usage=include_usage)
        else:
            frames = _anthropic_wire.stream_frames(reply)
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
            if provider == "openai"
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: _State, port: int) -> None:
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


# --- running it --------------------------------------------------------------------------------

ScriptSource = Mapping[str, object] | str | os.PathLike[str]


class _Endpoints(abc.ABC):
    """What both ways of running the server offer a test: URLs and the state checks."""

    @property
    @abc.abstractmethod
    def port(self) -> int:
        """The TCP port on 127.0.0.1."""

    @property
    @abc.abstractmethod
    def requests(self) -> list[JsonObject]:
        """Every logged request so far (as in the `--log` file), oldest first."""

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT`."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI SDK's `base_url`: `http://127.0.0.1:PORT/v1`."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The Anthropic SDK's `base_url` (it appends `/v1/messages` itself)."""
        return self.url

    @abc.abstractmethod
    def state(self) -> JsonObject:
        """`{"requests": n, "unused_turns": [...], "problems": [...]}`."""

    def unused_turns(self) -> list[int]:
        """Indices of the script turns no request has used yet."""
        turns = self.state()["unused_turns"]
        assert isinstance(turns, list)
        return [int(t) for t in turns]

    def problems(self) -> list[str]:
        """Expectation misses, exhausted-script requests and unknown routes, in order."""
        problems = self.state()["problems"]
        assert isinstance(problems, list)
        return [str(p) for p in problems]

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @abc.abstractmethod
    def start(self) -> Self:
        """Start serving; returns self."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop serving and close open connections."""


class FakeServer(_Endpoints):
    """The fake server in a background thread of this process, on a free port.

    `with FakeServer({"turns": [{"text": "hi"}]}) as server:` then point an SDK at
    `server.base_url` (OpenAI) or `server.anthropic_base_url` (Anthropic). `server.requests`
    holds the logged requests; `unused_turns()` and `problems()` should both be empty at the end.
    """

    def __init__(self, script: ScriptSource, *, log: str | os.PathLike[str] | None = None) -> None:
        self._state = _State(load_script(script), Path(log) if log is not None else None)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @staticmethod
    def subprocess(
        script: ScriptSource, *, log: str | os.PathLike[str] | None = None
    ) -> FakeServerProcess:
        """The same server as a child process (`python -m pith.testing.fake_server`)."""
        return FakeServerProcess(script, log=log)

    def start(self) -> Self:
        if self._server is None:
            self._server = _Server(self._state, 0)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"pith-fake-server-{self._server.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running; use it in a `with` block")
        return self._server.port

    @property
    def requests(self) -> list[JsonObject]:
        """Every logged request so far (as in the `--log` file), oldest first."""
        with self._state.lock:
            return list(self._state.requests)

    def timings(self) -> list[tuple[float, float]]:
        """(first byte received, last byte sent) wall-clock times of each answered request,
        in request order: for timing benchmarks."""
        with self._state.lock:
            return [self._state.timings[n] for n in sorted(self._state.timings)]

    def state(self) -> JsonObject:
        return self._state.snapshot()


class FakeServerProcess(_Endpoints):
    """The fake server as a child process: `python -m pith.testing.fake_server ...`.

    A dict script is written to a temporary file; the request log goes to `log` or to a
    temporary file. State comes from `GET /_pith/state`; `requests` reads the log.
    """

    def __init__(
        self,
        script: ScriptSource,
        *,
        log: str | os.PathLike[str] | None = None,
        startup_timeout: float = 10.0,
    ) -> None:
        load_script(script)  # a bad script fails here, not in the child
        self._source = script
        self._log = Path(log) if log is not None else None
        self._startup_timeout = startup_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._port: int | None = None
        self._final_requests: list[JsonObject] = []
        self.returncode: int | None = None
        """The child's exit status once stopped (0 after a clean SIGTERM shutdown)."""

    def start(self) -> Self:
        if self._process is not None:
            return self
        self._tmp = tempfile.TemporaryDirectory(prefix="pith-fake-server-")
        tmp = Path(self._tmp.name)
        if isinstance(self._source, Mapping):
            script_path = tmp / "script.json"
            script_path.write_text(json.dumps(self._source), encoding="utf-8")
        else:
            script_path = Path(self._source)
        self._log = self._log or tmp / "requests.jsonl"
        port_file = tmp / "port"
        command = [sys.executable, "-m", "pith.testing.fake_server", "--script", str(script_path)]
        command += ["--port", "0", "--port-file", str(port_file), "--log", str(self._log)]
        with (tmp / "stdout").open("wb") as out, (tmp / "stderr").open("wb") as err:
            self._process = subprocess.Popen(command, stdout=out, stderr=err)
        deadline = time.monotonic() + self._startup_timeout
        while not (port_file.exists() and port_file.read_text().strip()):
            if self._process.poll() is not None or time.monotonic() > deadline:
                stderr = (tmp / "stderr").read_text(errors="replace")
                self.stop()
                raise RuntimeError(f"the fake server did not start: {stderr.strip()}")
            time.sleep(0.02)
        self._port = int(port_file.read_text())
        return self

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                self.returncode = process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                self.returncode = process.wait()
        if self._tmp is not None:
            self._final_requests = self._read_log()  # the log may be in the temporary directory
            self._tmp.cleanup()
            self._tmp = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the fake server process is not running; use it in a `with` block")
        return self._port

    @property
    def requests(self) -> list[JsonObject]:
        """Every logged request so far, read from the log file."""
        return self._read_log() if self._tmp is not None else list(self._final_requests)

    def _read_log(self) -> list[JsonObject]:
        if self._log is None or not self._log.exists():
            return []
        lines = self._log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def state(self) -> JsonObject:
        with urllib.request.urlopen(f"{self.url}/_pith/state", timeout=10) as response:
            state = json.load(response)
        assert isinstance(state, dict)
        return state


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a script until SIGTERM/SIGINT; the exit status is 2 for bad arguments or script."""
    parser = argparse.ArgumentParser(
        prog="python -m pith.testing.fake_server",
        description="Scripted fake OpenAI/Anthropic model server for tests (127.0.0.1 only).",
    )
    parser.add_argument("--script", required=True, help="the JSON script (see the module doc)")
    parser.add_argument("--host", default=HOST, help="must be 127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the bound port to this file")
    parser.add_argument("--log", help="append one JSON line per request to this file")
    args = parser.parse_args(argv)
    if args.host != HOST:
        print(f"fake server: refusing to bind {args.host}; it serves {HOST} only", file=sys.stderr)
        return 2
    try:
        script = load_script(args.script)
    except ScriptError as error:
        print(f"fake server: {error}", file=sys.stderr)
        return 2
    try:
        server = _Server(_State(script, Path(args.log) if args.log else None), args.port)
    except OSError as error:
        print(f"fake server: cannot listen on {HOST}:{args.port}: {error}", file=sys.stderr)
        return 1
    if args.port_file:
        # Written whole then renamed, so a reader polling for the file never sees half of it;
        # before the stdout line, so a reader of that line finds the file too.
        partial = Path(f"{args.port_file}.partial")
        partial.write_text(str(server.port), encoding="utf-8")
        os.replace(partial, args.port_file)
    print(f"listening on http://{HOST}:{server.port}", flush=True)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # shutdown() waits for serve_forever() to return, so it must run on another thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.close_connections()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
