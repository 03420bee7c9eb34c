"""The state of one RPC connection: the session, the way out to the client, and the run the
last prompt started. Session events pass through here on their way to the client."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine

from pith.agent import AgentStart
from pith.app.modes.rpc._ui import RpcUI
from pith.app.modes.rpc._views import message_text
from pith.app.session import (
    AgentSession,
    CompactionEnd,
    CompactionStart,
    SessionEvent,
    event_to_json,
)

__all__ = ["RpcContext", "Write"]

Write = Callable[[dict[str, object]], None]


class RpcContext:
    """What every command handler works with."""

    def __init__(self, session: AgentSession, write: Write, ui: RpcUI) -> None:
        self.session = session
        self.write = write
        self.ui = ui
        self.run_task: asyncio.Task[object] | None = None
        """The run the latest accepted prompt started (with its retries and compactions)."""
        self.side_tasks: set[asyncio.Task[object]] = set()
        """Commands typed while a run was going (`/name`), running beside it."""
        self.announce: Callable[[], None] | None = None
        """Called once when the next run starts, before its first event is written: the
        prompt's response goes out first."""
        self.compacting = False
        self.closing = False
        """pith is stopping (a signal, or the client stopped reading): no new run starts."""
        self._queues: tuple[list[str], list[str]] = ([], [])

    # --- runs -------------------------------------------------------------------------------

    def busy(self) -> bool:
        """Whether the agent is working (a prompt's run, a command's run, a summary)."""
        running = self.run_task is not None and not self.run_task.done()
        return running or self.session.agent.is_running or self.session.summarizing

    def start_run(self, work: Coroutine[object, object, object]) -> asyncio.Task[object]:
        task = asyncio.create_task(work)
        self.run_task = task
        task.add_done_callback(_report_failure)
        return task

    def start_side(self, work: Coroutine[object, object, object]) -> asyncio.Task[object]:
        task = asyncio.create_task(work)
        self.side_tasks.add(task)
        task.add_done_callback(self.side_tasks.discard)
        task.add_done_callback(_report_failure)
        return task

    def running(self) -> list[asyncio.Task[object]]:
        """The runs and side commands not finished yet."""
        tasks = (self.run_task, *self.side_tasks)
        return [task for task in tasks if task is not None and not task.done()]

    async def wait_for_runs(self) -> None:
        tasks = self.running()
        if tasks:
            await asyncio.wait(tasks)
        await self.session.wait_for_idle()

    # --- events -----------------------------------------------------------------------------

    def on_event(self, event: SessionEvent) -> None:
        """Write one session event (after the queue change or prompt response it implies)."""
        if isinstance(event, AgentStart) and self.announce is not None:
            announce, self.announce = self.announce, None
            announce()
        if isinstance(event, CompactionStart):
            self.compacting = True
        elif isinstance(event, CompactionEnd):
            self.compacting = False
        self.sync_queue()
        self.write(event_to_json(event, will_retry=self.session.will_retry))

    def sync_queue(self) -> None:
        """Write `queue_update` when the queued steering or follow-up messages changed."""
        steering, follow_up = self.session.agent.queued()
        now = ([message_text(m) for m in steering], [message_text(m) for m in follow_up])
        if now != self._queues:
            self._queues = now
            self.write({"type": "queue_update", "steering": now[0], "followUp": now[1]})


def _report_failure(task: asyncio.Task[object]) -> None:
    """A run that failed after its prompt was accepted: the client has its answer already, so
    the problem goes to standard error (one line)."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None:
        print(f"pith: rpc: the run failed: {type(error).__name__}: {error}", file=sys.stderr)
