"""The summarizer's outage fallback (docs/pruning.md). Pure, with an injectable clock.

Only when `summarizerModel` names a model other than the session model: a *transient* failure
of that model (a failed stream, a timeout, an error reply) retries the request once on the
session model, and a success there makes the fallback **sticky** — later requests go to the
session model straight away. After `COOLDOWN_S` (10 minutes) one request *probes* the named
model again: a success ends the fallback, a transient failure starts another 10 minutes (and
that request is retried on the session model). Refused credentials and unusable replies (cut
by the output limit, a tool call, a blank reply) never trip it: they are no outage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["COOLDOWN_S", "Fallback", "Route"]

COOLDOWN_S = 600.0

Route = Literal["primary", "probe", "session"]


@dataclass
class Fallback:
    clock: Callable[[], float] = field(default=time.monotonic)
    since: float | None = None
    """When the fallback last tripped (clock seconds); None: the named model is in use."""
    probing: bool = False

    @property
    def active(self) -> bool:
        return self.since is not None

    def route(self) -> Route:
        """Where the next request goes. At most one request probes at a time."""
        if self.since is None:
            return "primary"
        if not self.probing and self.clock() - self.since >= COOLDOWN_S:
            self.probing = True
            return "probe"
        return "session"

    def primary_ok(self, route: Route) -> None:
        """The named model answered."""
        if route == "probe":
            self.probing = False
            self.since = None

    def primary_failed(self, route: Route) -> None:
        """The named model failed (the probe, if it was one, is over)."""
        if route == "probe":
            self.probing = False

    def fell_back(self) -> None:
        """The session model answered a request the named model failed transiently: from
        now on (again) the session model, for `COOLDOWN_S`."""
        self.since = self.clock()

    def reset(self) -> None:
        self.since = None
        self.probing = False
