"""Running the agent: one run from the first request until the agent (and any automatic
retries, overflow recoveries and queued messages) settle, and the one way to stop it."""

from __future__ import annotations

import asyncio

from pith.agent import Agent, AgentEnd, AgentEvent, MessageEnd, MessageStart
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    RetryPolicy,
    is_retryable_error,
    retry_delay_seconds,
)
from pith.app.session._aborts import AbortScopes
from pith.app.session._compaction import CompactionOutcome, Compactor, Emit
from pith.app.session._events import AgentSettled, AutoRetryEnd, AutoRetryStart
from pith.app.session._history import History
from pith.app.session._run_state import RunState, ends_recovery
from pith.app.session._user_shell import UserShell
from pith.extensions import ExtensionRunner

__all__ = ["RunController"]


class RunController:
    """The runs of one conversation. `state` is what the current run has been through;
    `abort` stops the run and everything stoppable beside it (`aborts`: a retry wait, the
    user's command, a summary written while idle)."""

    def __init__(
        self,
        *,
        agent: Agent,
        history: History,
        compactor: Compactor,
        shell: UserShell,
        extensions: ExtensionRunner,
        aborts: AbortScopes,
        emit: Emit,
        retry: RetryPolicy,
    ) -> None:
        self._agent = agent
        self._history = history
        self._compactor = compactor
        self._shell = shell
        self._extensions = extensions
        self._aborts = aborts
        self._emit = emit
        self.retry = retry
        self.state = RunState()
        self.runs = 0
        """How many runs started (a command may start some itself)."""

    async def run(self, messages: list[AgentMessage]) -> AssistantMessage | None:
        """Run the agent on `messages`; the newest reply of the run (even one that a retry or
        an overflow recovery has since taken out of the history), if any."""
        self.runs += 1
        state = self.state
        state.begin()
        agent = self._agent
        try:
            await agent.prompt(messages)
            await self._after_run()
            while any(agent.queued()) and not state.aborted:
                await agent.continue_()  # queued by handlers after the run ended
                await self._after_run()
        finally:
            self._shell.flush()
        requested, instructions = state.take_compaction()
        if requested:
            await self.compact(instructions)
        await self._emit(AgentSettled(aborted=state.aborted))
        return state.latest_reply

    async def _after_run(self) -> None:
        """Retries for transient errors, then compaction (an overflow compacts and runs again,
        once per user turn)."""
        await self._retry_loop()
        state = self.state
        if state.aborted:
            return
        compactor = self._compactor
        if await compactor.check_after_reply(self._history.last_reply(), state):
            await self._agent.continue_()
            await self._retry_loop()
            if not state.aborted:
                await compactor.check_after_reply(self._history.last_reply(), state)

    async def compact(self, custom_instructions: str | None = None) -> CompactionOutcome:
        """`/compact [instructions]`: stop the run, then compact now (never retries)."""
        if self._agent.is_running:
            self.abort()
            await self._agent.wait_for_idle()
        return await self._compactor.manual(custom_instructions)

    def request_compaction(self, custom_instructions: str | None = None) -> None:
        """Stop the run and compact once it has stopped (asked from inside the run, where
        waiting for the run to end would wait for itself)."""
        self.state.compact_after = True
        self.state.compact_instructions = custom_instructions
        self.abort()

    def abort(self) -> None:
        """Stop the run, any retry wait, a user command, the tools in flight, and a summary
        being written while idle."""
        self.state.aborted = True
        self._agent.abort()
        self._aborts.stop_all()

    def abort_retry(self) -> None:
        """Stop waiting for the next automatic retry; the failed reply stands."""
        self._aborts.stop("retry")

    # --- what the agent says ----------------------------------------------------------------

    async def forward(self, event: AgentEvent) -> None:
        """An event of the agent: recorded (a message that ended), shown to extensions, then
        to the session's listeners."""
        if isinstance(event, MessageEnd):
            self.record(event.message)  # extensions saw it already: they may replace it
            if isinstance(event.message, AssistantMessage):
                self.state.latest_reply = event.message
        else:
            if isinstance(event, AgentEnd):
                self.state.will_retry = self.should_retry()
            if self._extensions.has_handlers(event.type):
                await self._extensions.emit(event)
        await self._emit(event)

    def record(self, message: AgentMessage) -> None:
        self._history.record(message)
        if ends_recovery(message):
            self.state.overflow_recovery_attempted = False

    async def add_idle(self, message: AgentMessage) -> None:
        """Add a message outside a run, with the message events a run would give it."""
        start = MessageStart(message)
        if self._extensions.has_handlers(start.type):
            await self._extensions.emit(start)
        await self._emit(start)
        replaced = await self._extensions.emit(MessageEnd(message))
        if replaced is not None and replaced.role == message.role:
            message = replaced
        self.record(message)
        self._agent.messages.append(message)
        await self._emit(MessageEnd(message))

    # --- automatic retries ------------------------------------------------------------------

    def should_retry(self) -> bool:
        reply = self._history.last_reply()
        return (
            self.retry.enabled
            and reply is not None
            and is_retryable_error(reply)
            and self.state.retry_attempt < self.retry.max_retries
            and not self.state.aborted
        )

    async def _retry_loop(self) -> None:
        state = self.state
        while self.should_retry():
            reply = self._history.last_reply()
            assert reply is not None
            state.retry_attempt += 1
            delay = retry_delay_seconds(
                self.retry, state.retry_attempt, self._agent.last_retry_after
            )
            message = reply.error_message if isinstance(reply.error_message, str) else "error"
            await self._emit(
                AutoRetryStart(
                    state.retry_attempt, self.retry.max_retries, round(delay * 1000), message
                )
            )
            self._history.hide_last()
            if not await self._sleep(delay):
                await self._emit(AutoRetryEnd(False, state.retry_attempt, "aborted"))
                return
            await self._agent.continue_()
            final = self._history.last_reply()
            if final is not None and final.stop_reason != "error":
                await self._emit(AutoRetryEnd(True, state.retry_attempt))
                return
        if state.retry_attempt and not state.aborted:
            reply = self._history.last_reply()
            error = (
                reply.error_message
                if reply is not None and isinstance(reply.error_message, str)
                else None
            )
            await self._emit(AutoRetryEnd(False, state.retry_attempt, error))

    async def _sleep(self, seconds: float) -> bool:
        """Wait `seconds`; False when an abort cut the wait short."""
        with self._aborts.scope("retry") as signal:
            try:
                await asyncio.wait_for(signal.wait(), seconds)
            except TimeoutError:
                return True
        return False
