"""The fake server's state: which turn answers each request, and the request log.

Every request is logged, in memory and (when given a path) as one JSON line in a file; a model
request gets the first unused turn whose `match` and `unless` hold. Expectation misses,
exhausted-script requests and unknown routes are recorded as problems.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import threading
from collections.abc import Mapping
from pathlib import Path

from pith.testing._cache import PromptCache, bill
from pith.testing._reply import Usage, usage_for
from pith.testing._script import Script, Turn

__all__ = ["ServerState"]

JsonObject = dict[str, object]

_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key"})


def _digest(value: str) -> str:
    """A credential header's SHA-256, so a test can tell which key came without the log
    holding it."""
    return hashlib.sha256(value.encode()).hexdigest()


class ServerState:
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
        self.cache = PromptCache()
        """The modelled prompt cache, used when the script sets `promptCache`."""

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
            cached = self._bill_cache(route, body, headers, turn)
            entry: JsonObject = {
                "n": n,
                "method": method,
                "path": path,
                "headers": {
                    k.lower(): v for k, v in headers.items() if k.lower() not in _SECRET_HEADERS
                },
                "credentials": {
                    k.lower(): _digest(v)
                    for k, v in headers.items()
                    if k.lower() in _SECRET_HEADERS
                },
                "body": body,
                "turn": None if turn is None else turn.index,
                "problems": problems,
            }
            if cached is not None:
                entry["cache"] = cached
            if turn is not None:
                entry["usage"] = dataclasses.asdict(usage_for(turn, len(text), cached))
            self.requests.append(entry)
            self.problems += [f"request {n}: {problem}" for problem in problems]
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return entry, turn

    @staticmethod
    def usage_of(entry: JsonObject) -> Usage:
        """The usage a logged request was (or is being) answered with."""
        usage = entry["usage"]
        assert isinstance(usage, dict)
        return Usage(**usage)

    def _bill_cache(
        self, route: str | None, body: object, headers: Mapping[str, str], turn: Turn | None
    ) -> dict[str, int] | None:
        """`{"read", "write"}` cached tokens of a request the turn answers, when the script
        models the cache; a turn that fails the request (a status, an overflow) caches nothing."""
        if not self.script.prompt_cache or turn is None or route is None:
            return None
        if turn.fault.status is not None or turn.fault.overflow:
            return None
        used = bill(self.cache, route, body, headers)
        return None if used is None else {"read": used.read, "write": used.write}

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
