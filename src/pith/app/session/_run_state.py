"""The state of the agent's current run, in one object the run's parts share."""

from __future__ import annotations

from dataclasses import dataclass

from pith.ai import AgentMessage, AssistantMessage, UserMessage

__all__ = ["RunState", "ends_recovery"]


@dataclass
class RunState:
    """What a run has been through. `begin` starts a run afresh; the rest outlives a run:
    a compaction asked for from inside a run is carried out when it ends, and an overflow is
    recovered from once per user turn, which may span runs."""

    latest_reply: AssistantMessage | None = None
    """The run's newest reply (kept even when a retry or a recovery takes it out of the
    history)."""
    aborted: bool = False
    retry_attempt: int = 0
    will_retry: bool = False
    """Whether the run that just ended is about to be retried (for `agent_end`)."""
    compact_after: bool = False
    compact_instructions: str | None = None
    overflow_recovery_attempted: bool = False

    def begin(self) -> None:
        self.latest_reply = None
        self.aborted = False
        self.retry_attempt = 0

    def take_compaction(self) -> tuple[bool, str | None]:
        """Whether a compaction was asked for during the run (and with which instructions);
        the request is used up."""
        requested, instructions = self.compact_after, self.compact_instructions
        self.compact_after, self.compact_instructions = False, None
        return requested, instructions


def ends_recovery(message: AgentMessage) -> bool:
    """Whether recording `message` starts a new turn for overflow recovery: a user message, or
    a reply that finished (neither failed nor cut by the output limit)."""
    return isinstance(message, UserMessage) or (
        isinstance(message, AssistantMessage) and message.stop_reason not in ("error", "length")
    )
