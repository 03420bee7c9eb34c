"""A resumed conversation shown again: the end of the history, as it looked live."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from pith.ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pith.app.modes.interactive._format import ToolView, tool_block
from pith.app.modes.interactive._transcript import Transcript, message_text

__all__ = ["replay_messages"]


def replay_messages(transcript: Transcript, messages: Sequence[object]) -> None:
    calls: dict[str, ToolCall] = {}
    painter = transcript.painter
    for message in messages:
        if isinstance(message, UserMessage):
            transcript.user(message_text(message.content))
        elif isinstance(message, AssistantMessage):
            text = "\n\n".join(b.text for b in message.content if isinstance(b, TextContent))
            if text.strip():
                transcript.write(painter.markdown(text))
            for block in message.content:
                if isinstance(block, ToolCall):
                    calls[block.id] = block
        elif isinstance(message, ToolResultMessage):
            call = calls.get(message.tool_call_id)
            view = ToolView(
                message.tool_name,
                call.arguments if call is not None else {},
                message_text(message.content),
                message.is_error,
                message.details,
            )
            transcript.write(
                painter.render(
                    tool_block(view, transcript.cwd, expanded=False, width=painter.width)
                )
            )
        elif getattr(message, "role", "") == "bashExecution":
            transcript.bash_execution(message)
        elif getattr(message, "role", "") in ("compactionSummary", "branchSummary"):
            summary = str(getattr(message, "summary", ""))
            kind = "compaction" if message.role == "compactionSummary" else "branch summary"  # type: ignore[attr-defined]
            transcript.write(painter.render(Text(f"[{kind}] {summary[:300]}", style="dim")))
        elif getattr(message, "role", "") == "custom" and getattr(message, "display", False):
            content = message_text(getattr(message, "content", ""))
            transcript.write(painter.render(Text(content, style="dim")))
