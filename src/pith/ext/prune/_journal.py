"""What the pruner writes to the session, and when.

The pruner writes lazily: entries captured while nothing is masked wait in `pending` and are
written when they first matter (a request masks something, `/pruner now`, a summary or a chain
that names them), so a session the pruner never changes holds exactly what it would without
it. Capture is a function of the branch, so what was not written is captured again on load.
A write the session refuses is a one-line warning, never an error for the user's turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from pith.errors import PithError
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._records import DIAGNOSTIC_TYPE, OUTCOME_TYPE, SummaryOutcome
from pith.extensions import ExtensionContext

__all__ = ["Append", "Journal"]

Append = Callable[[str, object], object]
"""Appends one custom entry (`customType`, JSON-ready data) to the session; raises
`PithError` when the session refuses (what it returns is ignored)."""


class Journal:
    """The pruner's entries: those waiting to be written, and whether any was written."""

    def __init__(self, append: Append) -> None:
        self._append = append
        self.pending: list[tuple[str, object]] = []
        """Entries captured but not written yet, in capture order (the order refs are counted
        in)."""
        self.written = False
        """Whether the branch holds any pruner entry: stats and diagnostics are written only
        after one."""
        self._diagnosed: set[tuple[str, str]] = set()
        """(kind, detail) already written in this process."""

    def reset(self, *, written: bool) -> None:
        """A new branch: nothing pending; `written` says whether it holds pruner entries."""
        self.pending = []
        self.written = written

    def queue(self, custom_type: str, data: object) -> None:
        self.pending.append((custom_type, data))

    def flush(self, ctx: ExtensionContext) -> None:
        """Write the pending entries in order; stop at the first the session refuses."""
        while self.pending:
            custom_type, data = self.pending[0]
            if not self.write(custom_type, data, ctx, "cannot record the pruner's index"):
                return
            self.pending.pop(0)

    def write(self, custom_type: str, data: object, ctx: ExtensionContext, failure: str) -> bool:
        """Append one entry now; False (with the warning `failure: why`) when refused."""
        try:
            self._append(custom_type, data)
        except PithError as error:
            ctx.ui.notify(f"{failure}: {error}", "warning")
            return False
        self.written = True
        return True

    def decide(
        self,
        index: PruneIndex,
        keys: Sequence[str],
        outcome: Literal["masked", "kept-raw"],
        reason: str,
        ctx: ExtensionContext,
    ) -> None:
        """Persist that the records `keys` get no summary: masked (the summarizer failed, or a
        budget trigger masked them mid-task, so a reload renders them as stubs without the
        in-memory cut and they are not summarized later) or kept raw."""
        entry = SummaryOutcome(keys=list(keys), outcome=outcome, reason=reason)
        data = msgspec.to_builtins(entry)
        if self.write(OUTCOME_TYPE, data, ctx, "cannot record the pruner's index"):
            index.decide(keys, outcome)

    def diagnose(self, found: Sequence[tuple[str, str]], ctx: ExtensionContext) -> None:
        """Record each new (kind, detail) once per process as a `prune-diagnostic` entry (only
        in a session the pruner already wrote to: diagnostics never start the pruner's
        entries). It counts as recorded only once written: one that could not be written yet
        (a failed write, or no pruner entry so far) is tried again at the next request."""
        for kind, detail in found:
            if (kind, detail) in self._diagnosed or not self.written:
                continue
            data = {"kind": kind, "detail": detail}
            if self.write(DIAGNOSTIC_TYPE, data, ctx, "cannot record a pruner diagnostic"):
                self._diagnosed.add((kind, detail))
