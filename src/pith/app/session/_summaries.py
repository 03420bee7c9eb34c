"""Who writes a session's summaries (compactions, branch summaries), and how one is stopped."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from pith.agent import AbortSignal, Agent
from pith.ai import RetryPolicy
from pith.app.session._aborts import AbortScopes
from pith.app.session._credentials import Credentials
from pith.app.session._summarizer import Summarizer
from pith.errors import InputError
from pith.extensions import NoticeLevel
from pith.resources import Settings

__all__ = ["Notify", "Summaries"]

Notify = Callable[[str, NoticeLevel], None]


class Summaries:
    """Summary requests for one session: `settings` and `retry` are read when a summary
    starts (both may change while the session lives)."""

    def __init__(
        self,
        agent: Agent,
        credentials: Credentials,
        aborts: AbortScopes,
        settings: Callable[[], Settings],
        retry: Callable[[], RetryPolicy],
        notify: Notify,
    ) -> None:
        self._agent = agent
        self._credentials = credentials
        self._aborts = aborts
        self._settings = settings
        self._retry = retry
        self._notify = notify

    def summarizer(self) -> Summarizer:
        """Who writes summaries: `compaction.model` when set, else the session's model."""
        model = self._agent.model
        named = self._settings().values.compaction.model
        if named:
            try:
                model = self._credentials.registry.find(named).model
            except InputError:
                self._notify(
                    f"compaction.model {named!r} is not a known model; using {model.key}",
                    "warning",
                )
        credentials = self._credentials
        return Summarizer(
            model, credentials.api_key, credentials.headers, self._agent.thinking, self._retry()
        )

    @property
    def busy(self) -> bool:
        """Whether a summary is being written outside a run."""
        return self._aborts.active("summary")

    @contextlib.contextmanager
    def signal(self) -> Iterator[AbortSignal]:
        """The signal a summary request listens to: the run's while a run is going, else one
        the session's `abort()` fires (so `/compact` and a tree move can be stopped while
        idle)."""
        running = self._agent.signal
        if running is not None:
            yield running
            return
        if self.busy:
            raise InputError("a summary is already being written; wait or abort first")
        with self._aborts.scope("summary") as signal:
            yield signal
