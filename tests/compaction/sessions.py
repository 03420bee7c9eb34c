"""Session paths for the compaction tests: built with pith's own in-memory `SessionStore`,
from plain op lists that hypothesis draws (so a failing case shrinks to a short list)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from pith.ai import (
    AssistantMessage,
    BashExecutionMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pith.session import MessageEntry, SessionEntry, SessionStore

WORD = "lorem ipsum dolor sit amet é 😀 "


def text(size: int) -> str:
    return (WORD * (size // len(WORD) + 1))[:size]


def user(size: int = 40, image: bool = False) -> UserMessage:
    content: list[TextContent | ImageContent] = [TextContent(text=text(size))]
    if image:
        content.append(ImageContent(data="AAAA", mime_type="image/png"))
    return UserMessage(content=content)


def assistant(
    calls: list[ToolCall], size: int = 40, usage: int = 0, stop: str | None = None
) -> AssistantMessage:
    content: list[TextContent | ToolCall] = [TextContent(text=text(size)), *calls]
    return AssistantMessage(
        content=content,  # type: ignore[arg-type]
        api="openai-completions",
        provider="fake",
        model="fake-1",
        usage=Usage(
            input=usage, output=10 if usage else 0, total_tokens=usage + 10 if usage else 0
        ),
        stop_reason=stop or ("toolUse" if calls else "stop"),  # type: ignore[arg-type]
    )


def result(call: ToolCall, size: int = 80) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=[TextContent(text=text(size))]
    )


@dataclass(frozen=True)
class Turn:
    prompt: int
    rounds: tuple[tuple[int, ...], ...]
    """Per round, the sizes of the tool results (one call per result)."""
    answer: int
    usage: int


Op = Turn | tuple[str, int]

sizes = st.integers(min_value=0, max_value=3000)
turns = st.builds(
    Turn,
    prompt=sizes,
    rounds=st.lists(st.lists(sizes, min_size=1, max_size=3).map(tuple), max_size=4).map(tuple),
    answer=sizes,
    usage=st.sampled_from([0, 0, 1200, 50_000]),
)
other_ops = st.tuples(
    st.sampled_from(
        ["bash", "custom", "meta", "system", "compact", "hide", "replace", "summary", "failed"]
    ),
    st.integers(min_value=0, max_value=40),
)
ops = st.lists(st.one_of(turns, turns, other_ops), min_size=1, max_size=14)


def build(op_list: list[Op]) -> SessionStore:
    """An in-memory session from an op list."""
    store = SessionStore.create("/work/demo", None)
    calls = 0
    for op in op_list:
        if isinstance(op, Turn):
            store.append_message(user(op.prompt, image=op.prompt % 7 == 0))
            for round_sizes in op.rounds:
                round_calls = []
                for _ in round_sizes:
                    calls += 1
                    round_calls.append(
                        ToolCall(
                            id=f"c{calls}", name="read", arguments={"path": f"f{calls % 5}.py"}
                        )
                    )
                store.append_message(assistant(round_calls, 30, op.usage))
                for call, size in zip(round_calls, round_sizes, strict=True):
                    store.append_message(result(call, size))
            store.append_message(assistant([], op.answer, op.usage))
            continue
        kind, n = op
        path = store.get_branch()
        if kind == "bash":
            store.append_message(
                BashExecutionMessage(command="ls", output=text(n * 20), exit_code=0)
            )
        elif kind == "custom":
            store.append_custom_message("note", text(n * 10))
        elif kind == "meta":
            store.append_model_change("fake", f"m{n}")
        elif kind == "system":
            store.append_message(SystemMessage(content=text(n * 5), sections={"cwd": "x"}))
        elif kind == "compact" and path:
            keep = path[-1 - n % len(path)].id if n % 3 else None
            store.append_compaction(text(200), keep, 1000)
        elif kind in ("hide", "replace") and path:
            targets = [e for e in path if isinstance(e, MessageEntry)]
            if targets:
                target = targets[n % len(targets)]
                store.append_context_edit(target.id, None if kind == "hide" else text(30))
        elif kind == "summary" and path:
            store.branch_with_summary(path[n % len(path)].id, text(n * 10))
        elif kind == "failed":
            store.append_message(user(20))
            failed = store.append_message(assistant([], 10, 0, stop="error"))
            if n % 2:
                store.append_context_edit(failed.id, None)
    return store


def path_of(op_list: list[Op]) -> tuple[SessionStore, list[SessionEntry]]:
    store = build(op_list)
    return store, store.get_branch()
