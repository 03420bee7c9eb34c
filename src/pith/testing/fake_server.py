"""A scripted fake model server speaking OpenAI chat completions, Anthropic messages and Gemini.

pith's provider and agent-loop tests talk to it over real HTTP on 127.0.0.1. Standard library
only. Run it as a process::

    python -m pith.testing.fake_server --script FILE [--port 0] [--port-file F] [--log F]

or in-process with `pith.testing.FakeServer` (or `FakeServer.subprocess(...)`).

Routes: `POST /v1/chat/completions` (and `/chat/completions`) answer in OpenAI's format,
`POST /v1/messages` (and `/messages`) in Anthropic's, `POST /v1/responses` (and `/responses`)
in OpenAI's Responses format (`_responses_wire`: thinking becomes a reasoning item with a made-up
`encrypted_content`); all stream SSE when the body has `"stream": true`.
`POST /v1beta/models/<model>:streamGenerateContent` (also under `/v1` or no prefix) streams
Gemini's SSE, and `...:generateContent` answers in one response. `GET /v1/models` lists the
script's model. `GET /_pith/state` returns `{"requests", "unused_turns", "problems"}` and is the
only request not logged.

Script (JSON)::

    {"model": "fake-model",          # optional; else the request's model is echoed
     "chunk": 4,                     # optional default for every turn
     "promptCache": false,           # optional; true: usage models the provider's prompt cache
     "turns": [{
        "text": "Hello",             # assistant text
        "thinking": "...",           # reasoning_content / a thinking block
        "signature": "...",          # Anthropic thinking signature (default: fake-signature-<i>);
                                     # Responses encrypted_content (default: fake-encrypted-<i>);
                                     # Gemini thought signature, on the first functionCall part
                                     # or else the last part (default: base64 "fake-thought-<i>")
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

Prompt cache (`"promptCache": true`; `_cache` says exactly how): the server remembers every
answered request per cache key (route, model, and `prompt_cache_key` or a `session-id` header)
and splits each new request's input into cache reads, cache writes and uncached input, the way
the provider would bill it. Anthropic caches only up to the `cache_control` breakpoints the
request sends (a read of the longest earlier breakpoint prefix it repeats, a write of the rest up
to its last breakpoint, at least 1024 tokens); OpenAI chat and Responses cache the longest
common prefix with an earlier request automatically (from 1024 tokens, in 128-token steps, no
writes). Tokens are characters / 4 of each block's compact JSON. Gemini routes are not modelled.
A logged request then has `"cache": {"read", "write"}`; scripted `usage` numbers still win.

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
- `{"finishReason": "SAFETY"}` (Gemini only): end the reply with that finish reason instead.
- `{"blockReason": "PROHIBITED_CONTENT"}` (Gemini only): answer with one chunk whose
  `promptFeedback.blockReason` refuses the prompt, and no candidate.

When no turn is left the answer is HTTP 500 `{"error": {"message": "fake server: script
exhausted"}}` and a problem is recorded. Every request is appended to `--log` as one JSON line
`{"n", "method", "path", "headers", "credentials", "body", "turn", "problems"}`, plus `usage`
(the numbers the reply reports: `input`, `output`, `cache_read`, `cache_write`, `reasoning`)
when a turn answered it, and `cache` with the prompt cache on: `headers`
without `authorization`, `x-api-key` and `x-goog-api-key`, which `credentials` holds as SHA-256
hex digests only (so a test can check which key came and the log never holds one).

This module is the public face and the command line; the parts live in private modules of
`pith.testing`, one job each: `_script` (parsing the script), `_reply` (a served turn and its
usage), `_cache` (the prompt-cache model), `_openai_wire`, `_responses_wire`, `_anthropic_wire`
and `_gemini_wire` (the wire formats), `_state` (turn routing and the request log), `_http`
(the routes and the HTTP server), `_endpoints` (what a running server offers a test), `_server`
(`FakeServer`) and `_process` (`FakeServerProcess`).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from pith.testing._http import HOST, FakeHttpServer
from pith.testing._process import FakeServerProcess
from pith.testing._reply import Reply, Usage
from pith.testing._script import ScriptError, Turn, load_script
from pith.testing._server import FakeServer
from pith.testing._state import ServerState

__all__ = ["FakeServer", "FakeServerProcess", "Reply", "ScriptError", "Turn", "Usage", "main"]


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
        server = FakeHttpServer(
            ServerState(script, Path(args.log) if args.log else None), args.port
        )
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
