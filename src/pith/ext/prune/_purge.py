"""Error purge: the large arguments of old failed tool calls, replaced by a marker. Pure.

A failed `write` or `edit` often carries a whole file in its arguments; once the model has
seen the error and moved on, those bytes only cost tokens. After `purgeErrors.cooldownTurns`
assistant messages have followed the one that made the call, the call's `arguments` in the
outgoing request become `{"_purged": "[arguments of a failed call removed: N chars]"}` when
their JSON (`JSON.stringify` length, N) is at least `purgeErrors.minArgChars` long.

- The marker is an object, so the request stays valid: OpenAI-style providers send
  `json.dumps(arguments)` as the function arguments string, Anthropic sends it as `input`.
- The marker depends only on N, so the same history renders the same bytes every request.
- The error result itself is never touched: it says what went wrong.
- Calls on protected tools or paths (`_protect`) are never purged; the stored session is
  never changed (this runs on the `context` event's copy).
- Nothing to purge: the very same list comes back.
"""

from __future__ import annotations

import msgspec

from pith.ai import AgentMessage, AssistantMessage, ToolCall, ToolResultMessage, js_stringify
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._protect import is_protected

__all__ = ["PURGED_KEY", "purge_errors", "purged_arguments"]

PURGED_KEY = "_purged"


def purged_arguments(size: int) -> dict[str, object]:
    """The arguments that stand in for a failed call's `size` characters of argument JSON."""
    return {PURGED_KEY: f"[arguments of a failed call removed: {size} chars]"}


def _error_turns(messages: list[AgentMessage]) -> dict[str, int]:
    """tool call id -> how many assistant messages came up to its failed result."""
    turns = 0
    failed: dict[str, int] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            turns += 1
        elif isinstance(message, ToolResultMessage) and message.is_error:
            failed[message.tool_call_id] = turns
    return failed


def purge_errors(
    messages: list[AgentMessage], config: PruneConfig, cwd: str = ""
) -> list[AgentMessage]:
    """`messages` with the old failed calls' large arguments replaced by the marker;
    `messages` itself (the same object) when nothing is purged or the purge is off."""
    if not config.purge_errors_enabled:
        return messages
    failed = _error_turns(messages)
    if not failed:
        return messages
    current = sum(isinstance(m, AssistantMessage) for m in messages)
    out: list[AgentMessage] | None = None
    for position, message in enumerate(messages):
        if not isinstance(message, AssistantMessage):
            continue
        content = list(message.content)
        changed = False
        for slot, block in enumerate(content):
            if not isinstance(block, ToolCall) or block.id not in failed:
                continue
            if current - failed[block.id] < config.purge_errors_cooldown_turns:
                continue
            size = len(js_stringify(block.arguments))
            if size < config.purge_errors_min_arg_chars:
                continue
            if is_protected(block.name, block.arguments, config, cwd):
                continue
            content[slot] = msgspec.structs.replace(block, arguments=purged_arguments(size))
            changed = True
        if changed:
            if out is None:
                out = list(messages)
            out[position] = msgspec.structs.replace(message, content=content)
    return messages if out is None else out
