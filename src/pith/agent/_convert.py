"""Agent messages to what a provider understands (as Pi's `convertToLlm` does).

The coding-agent roles become user messages with fixed wrapper texts, exactly as Pi sends them,
so a session continued in either agent gives the model the same words.
"""

from __future__ import annotations

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    Message,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "bash_execution_text",
    "convert_to_llm",
]

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n"
    "<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUMMARY_SUFFIX = "</summary>"


def bash_execution_text(message: BashExecutionMessage) -> str:
    """How a user's `!command` run reads to the model."""
    text = f"Ran `{message.command}`\n"
    text += f"```\n{message.output}\n```" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif isinstance(message.exit_code, int) and message.exit_code != 0:
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and isinstance(message.full_output_path, str):
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def _user(content: str | list[UserContent], timestamp: int | float) -> UserMessage:
    blocks: list[UserContent] = [TextContent(text=content)] if isinstance(content, str) else content
    return UserMessage(content=blocks, timestamp=timestamp)


def convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """The provider-facing messages for `messages`, in order."""
    out: list[Message] = []
    for message in messages:
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage | SystemMessage):
            out.append(message)
        elif isinstance(message, BashExecutionMessage):
            if message.exclude_from_context is not True:
                out.append(_user(bash_execution_text(message), message.timestamp))
        elif isinstance(message, CustomMessage):
            out.append(_user(message.content, message.timestamp))
        elif isinstance(message, CompactionSummaryMessage):
            text = COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX
            out.append(_user(text, message.timestamp))
        elif isinstance(message, BranchSummaryMessage):
            text = BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX
            out.append(_user(text, message.timestamp))
    return out
