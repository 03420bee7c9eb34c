"""Orphan sweep, the render's last step (docs/pruning.md): tool results that answer no open
call leave the outgoing messages. Pure.

One forward pass. Each assistant message *replaces* the set of open calls with its own tool
call ids; a tool result consumes its open call, or is removed when its call is not open (a
duplicate result, a result whose call was dropped, a result after an id's earlier valid use).
Any other message that reaches the model between a call and its result — a user message, an
extension's message, a summary — is a **barrier**: it closes every open call, so a result
after it is removed (providers reject a result that does not directly follow its call).
System messages and a user's `!!command` (kept out of the context) are not sent as messages
there, so they are no barrier.

Nothing removed: the very same list comes back.
"""

from __future__ import annotations

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    SystemMessage,
    ToolResultMessage,
)

__all__ = ["sweep_orphans"]


def _transparent(message: AgentMessage) -> bool:
    return isinstance(message, SystemMessage) or (
        isinstance(message, BashExecutionMessage) and message.exclude_from_context is True
    )


def sweep_orphans(messages: list[AgentMessage]) -> tuple[list[AgentMessage], list[str]]:
    """`messages` without orphan tool results, and the removed results' tool call ids."""
    open_calls: set[str] = set()
    removed: list[int] = []
    for position, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            open_calls = {call.id for call in message.tool_calls()}
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id in open_calls:
                open_calls.discard(message.tool_call_id)
            else:
                removed.append(position)
        elif not _transparent(message):
            open_calls = set()
    if not removed:
        return messages, []
    gone = set(removed)
    ids = []
    for position in removed:
        result = messages[position]
        assert isinstance(result, ToolResultMessage)
        ids.append(result.tool_call_id)
    return [m for n, m in enumerate(messages) if n not in gone], ids
