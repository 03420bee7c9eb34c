"""Session files for the export tests, written through pith's own session store."""

from __future__ import annotations

from pathlib import Path

from pith.ai import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pith.session import SessionStore

HOSTILE = '<script>alert("x")</script><img src=x onerror="alert(1)">&amp;'


def user(text: str, timestamp: int = 0) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp or 1)


def reply(
    *blocks: TextContent | ThinkingContent | ToolCall, input_tokens: int = 0, stamp: int = 1
) -> AssistantMessage:
    return AssistantMessage(
        content=list(blocks),
        api="openai-completions",
        provider="fake",
        model="m",
        usage=Usage(input=input_tokens, output=10, total_tokens=input_tokens + 10),
        stop_reason="toolUse" if any(isinstance(b, ToolCall) for b in blocks) else "stop",
        timestamp=stamp,
    )


def result(call_id: str, text: str, stamp: int, *, error: bool = False) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id,
        tool_name="bash",
        content=[TextContent(text=text)],
        is_error=error,
        timestamp=stamp,
    )


def rich_session(directory: Path) -> Path:
    """A session file with every kind of entry, two branches, labels, a compaction and pruner
    records; its last line (the leaf on reload) is on the main branch."""
    store = SessionStore.create(str(directory), directory)
    store.append_model_change("fake", "m")
    store.append_thinking_level_change("high")
    store.append_session_info("export demo")
    first = store.append_message(user("count the lines " + HOSTILE))
    store.append_message(
        reply(
            ThinkingContent(thinking="I should run wc"),
            ToolCall(id="call_1", name="bash", arguments={"command": "wc -l " + HOSTILE}),
            input_tokens=1200,
            stamp=10,
        )
    )
    store.append_message(result("call_1", "line\n" * 6000 + HOSTILE, 11))
    answer = store.append_message(reply(TextContent(text="6000 lines"), input_tokens=9000))
    store.append_label(answer.id, "counted " + HOSTILE)
    store.append_message(user("now something else", 20))
    store.append_custom(
        "prune-index",
        {
            "assistantTimestamp": 10,
            "toolCalls": [{"toolCallId": "call_1", "resultTimestamp": 11, "toolName": "bash"}],
        },
    )
    store.append_custom("prune-stats", {"batchesMasked": 1, "tokensSaved": 7400})
    store.append_message(reply(TextContent(text="done " + HOSTILE), input_tokens=1500))
    store.append_message(
        BashExecutionMessage(command="ls " + HOSTILE, output="a\nb\n", exit_code=1, timestamp=30)
    )
    store.append_custom_message("note " + HOSTILE, "a custom message " + HOSTILE, display=True)
    store.append_compaction("Summary of the work " + HOSTILE, None, 9100)
    store.append_message(user("after the compaction", 40))
    fresh = store.append_message(reply(TextContent(text="fresh start"), input_tokens=1300))
    # Another branch from the first question, with a summary of the branch left behind.
    store.branch_with_summary(first.id, "explored counting words " + HOSTILE)
    store.append_message(user("count the words instead", 50))
    store.append_message(reply(TextContent(text="many words"), input_tokens=1250))
    # Back to the main line: the last line of the file (the leaf on reload) is a label there.
    store.branch(fresh.id)
    store.append_label(fresh.id, "finished")
    store.close()
    assert store.path is not None
    return store.path
