"""Session events → the transcript: what is written to the scroll-back and what stays live."""

from __future__ import annotations

from pith.agent import (
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResult,
)
from pith.ai import AssistantMessage, TextContent, TextDelta, ToolCallStart, UserMessage
from pith.app.modes.interactive._format import Painter
from pith.app.modes.interactive._transcript import Transcript


class Screen:
    """What the transcript wrote, in order."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def __call__(self, text: str) -> None:
        self.written.append(text)

    @property
    def text(self) -> str:
        return "".join(self.written)


def transcript() -> tuple[Transcript, Screen]:
    screen = Screen()
    return Transcript(write=screen, painter=Painter(80, color=False), cwd="/p"), screen


def stream_reply(t: Transcript, deltas: list[str]) -> AssistantMessage:
    message = AssistantMessage()
    t.handle(MessageStart(message))
    for delta in deltas:
        message.content = [TextContent(text=(message.text() + delta))]
        t.handle(MessageUpdate(message, TextDelta(0, delta, message)))
    return message


def test_a_user_message_is_written_with_its_marker() -> None:
    t, screen = transcript()
    t.handle(MessageStart(UserMessage(content="fix the bug\nplease")))
    assert screen.text == "\n› fix the bug\n  please\n"


def test_streamed_paragraphs_are_written_once_they_are_final() -> None:
    t, screen = transcript()
    message = stream_reply(t, ["# Plan", "\n\nFirst **bold**", " step.\n", "\nSecond"])
    assert "Plan" in screen.text
    assert "First bold step." in screen.text
    assert "Second" not in screen.text
    assert "Second" in t.live(10)
    assert t.busy
    t.handle(MessageEnd(message))
    assert screen.text.count("First bold step.") == 1
    assert screen.text.rstrip().endswith("Second")
    assert t.live(10) == ""
    assert not t.busy


def test_markdown_is_rendered_not_shown_raw() -> None:
    t, screen = transcript()
    t.handle(MessageEnd(stream_reply(t, ["- **one**\n- `two`\n"])))
    assert "**" not in screen.text
    assert "`" not in screen.text
    assert "one" in screen.text
    assert "two" in screen.text


def bash_end(output: str, *, call_id: str = "c1", error: bool = False) -> ToolExecutionEnd:
    return ToolExecutionEnd(
        call_id, "bash", ToolResult(content=[TextContent(text=output)]), is_error=error
    )


def test_a_running_tool_is_live_and_its_end_writes_a_collapsed_block() -> None:
    t, screen = transcript()
    message = stream_reply(t, [])
    t.handle(MessageUpdate(message, ToolCallStart(0, "c1", "bash", message)))
    assert "bash …" in t.live(10)
    t.handle(ToolExecutionStart("c1", "bash", {"command": "seq 20"}))
    partial = ToolResult(content=[TextContent(text="1\n2\n3")])
    t.handle(ToolExecutionUpdate("c1", "bash", {"command": "seq 20"}, partial))
    live = t.live(10)
    assert "$ seq 20" in live
    assert "3" in live
    assert screen.text == ""
    t.handle(bash_end("\n".join(str(n) for n in range(1, 21))))
    assert screen.text.split("\n")[:7] == [
        "● $ seq 20",
        "  1",
        "  2",
        "  3",
        "  4",
        "  5",
        "  … 15 more lines (ctrl+o shows the whole output)",
    ]
    assert t.live(10) == ""


def test_expand_last_writes_the_last_output_in_full() -> None:
    t, screen = transcript()
    t.handle(ToolExecutionStart("c1", "bash", {"command": "seq 20"}))
    t.handle(bash_end("\n".join(str(n) for n in range(1, 21))))
    screen.written.clear()
    t.expand_last()
    lines = screen.text.rstrip("\n").split("\n")
    assert lines == ["● $ seq 20"] + [f"  {n}" for n in range(1, 21)]


def test_expand_last_without_a_tool_says_so() -> None:
    t, screen = transcript()
    t.expand_last()
    assert screen.text == "No tool output to show yet.\n"


def test_an_aborted_reply_keeps_its_text_and_says_stopped() -> None:
    t, screen = transcript()
    message = stream_reply(t, ["Half an ans"])
    message.stop_reason = "aborted"
    t.handle(MessageEnd(message))
    assert screen.text == "Half an ans\nStopped.\n"


def test_a_failed_request_writes_its_error() -> None:
    t, screen = transcript()
    message = stream_reply(t, [])
    message.stop_reason = "error"
    message.error_message = "429 rate limited"
    t.handle(MessageEnd(message))
    assert screen.text == "429 rate limited\n"


def test_a_reply_cut_at_the_output_limit_says_so() -> None:
    t, screen = transcript()
    message = stream_reply(t, ["partial"])
    message.stop_reason = "length"
    t.handle(MessageEnd(message))
    assert screen.text.endswith("The reply was cut: the model reached its output limit.\n")


def test_a_tool_error_block_is_written_even_without_a_start_event() -> None:
    t, screen = transcript()
    t.handle(bash_end("no such file", error=True))
    lines = screen.text.rstrip("\n").split("\n")
    assert lines[0].startswith("● bash")
    assert lines[1:] == ["  no such file"]


def test_a_finished_run_gets_one_closing_line_with_its_tally() -> None:
    from pith.agent import AgentStart
    from pith.ai import Cost, Usage
    from pith.app.session._events import AgentSettled

    t, screen = transcript()
    t.handle(AgentStart())
    first = AssistantMessage(
        content=[TextContent(text="Looking.")],
        usage=Usage(input=1000, output=200, cache_read=500, cost=Cost(total=0.0123)),
    )
    t.handle(MessageEnd(first))
    t.handle(ToolExecutionStart("c1", "bash", {"command": "ls"}))
    t.handle(ToolExecutionEnd("c1", "bash", ToolResult([TextContent(text="a")]), False))
    t.handle(AgentStart())  # the follow-up run of the same prompt counts with it
    second = AssistantMessage(
        content=[TextContent(text="Done.")], usage=Usage(input=1800, output=50)
    )
    t.handle(MessageEnd(second))
    t.handle(AgentSettled(aborted=False))
    last = screen.written[-1].strip()
    assert last.startswith("· ")
    assert " s · 1 tool call · 3.3k in / 250 out · $0.0123" in last
    t.handle(AgentSettled(aborted=False))  # settling again with no run writes nothing
    assert screen.written[-1].strip() == last


def test_finished_pieces_of_a_reply_are_one_blank_line_apart() -> None:
    t, screen = transcript()
    message = stream_reply(
        t, ["# Done\n\nThe file says hi.\n\n", "```python\nprint(1)\n```\n\nAnything else?"]
    )
    t.handle(MessageEnd(message))
    text = "\n".join(line.rstrip() for line in screen.text.split("\n"))
    assert "Done\n\nThe file says hi.\n\n" in text
    assert "print(1)\n\nAnything else?\n" in text
    assert "\n\n\n" not in text


def test_a_huge_unfinished_line_is_shown_by_its_end_only() -> None:
    t, _ = transcript()
    stream_reply(t, ["{" + '"k": 1, ' * 20_000])  # 160 KB on one line, still streaming
    live = t.live(5)
    assert len(live.split("\n")) <= 5
    assert len(live) <= 5 * 81
    assert live.rstrip().endswith('"k": 1,')
