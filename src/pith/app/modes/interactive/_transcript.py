"""Session events → the transcript: what is final goes to the terminal's scroll-back once
(`write`), what is still changing (the reply's unfinished tail, running tools) is kept as the
live area above the editor and redrawn in place.

No terminal here: `write` receives ANSI text, `live()` returns it, so this is tested directly.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from rich.text import Text

from pith.agent import (
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from pith.ai import (
    AssistantMessage,
    TextDelta,
    ThinkingDelta,
    ThinkingEnd,
    ToolCallStart,
    UserMessage,
    content_text,
)
from pith.app.modes.interactive._format import (
    Painter,
    ToolView,
    guard_receipt,
    tool_block,
    tool_title,
)
from pith.app.modes.interactive._stream import MarkdownStream
from pith.app.session import (
    AgentSettled,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
    SessionEvent,
    format_tokens,
    retry_notice,
)

__all__ = ["Transcript", "message_text"]

_LIVE_MARKDOWN_CHARS = 4000
"""A tail longer than this is shown as its last raw lines (rendered once it is final)."""
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def message_text(content: object) -> str:
    """A message's or a tool result's text blocks, one per line."""
    return content_text(content, "\n")


@dataclass
class _Running:
    name: str
    args: Mapping[str, object]
    partial: str = ""


@dataclass
class _RunTally:
    """What one run (a prompt until the agent settles) took: for its closing line."""

    started: float = field(default_factory=time.monotonic)
    replies: int = 0
    tools: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0

    def line(self) -> str:
        seconds = time.monotonic() - self.started
        parts = [f"{seconds:.1f} s"]
        if self.tools:
            parts.append(f"{self.tools} tool call{'s' if self.tools != 1 else ''}")
        if self.input_tokens or self.output_tokens:
            parts.append(
                f"{format_tokens(self.input_tokens)} in / {format_tokens(self.output_tokens)} out"
            )
        if self.cost:
            parts.append(f"${self.cost:.4f}")
        return "· " + " · ".join(parts)


@dataclass
class Transcript:
    write: Callable[[str], None]
    painter: Painter
    cwd: str
    show_thinking: bool = True
    guard_threshold_ms: float = 10_000
    status: str = ""
    """What pith is doing (`Working…`, `Compacting…`); empty when idle."""
    last_tool: ToolView | None = None
    _stream: MarkdownStream = field(default_factory=MarkdownStream)
    _thinking: str = ""
    _thinking_shown: int = 0
    _preparing: str | None = None
    _running: dict[str, _Running] = field(default_factory=dict)
    _tail_cache: tuple[str, int, str] = ("", 0, "")
    _run: _RunTally | None = None
    _blocks: int = 0
    """Pieces of the current reply written so far."""
    _ends_blank: bool = False
    """Whether the last piece ended with a blank line."""

    # --- events -----------------------------------------------------------------------------

    def handle(self, event: SessionEvent) -> None:
        if isinstance(event, AgentStart):
            if self._run is None:  # a retry or a follow-up run belongs to the same prompt
                self._run = _RunTally()
        elif isinstance(event, AgentSettled):
            run, self._run = self._run, None
            if run is not None and run.replies:
                self.write(self.painter.render(Text(run.line(), style="dim")))
        elif isinstance(event, MessageStart):
            self._message_start(event)
        elif isinstance(event, MessageUpdate):
            self._update(event)
        elif isinstance(event, MessageEnd):
            self._message_end(event)
        elif isinstance(event, ToolExecutionStart):
            self._preparing = None
            self._running[event.tool_call_id] = _Running(event.tool_name, event.args)
        elif isinstance(event, ToolExecutionUpdate):
            running = self._running.get(event.tool_call_id)
            if running is not None:
                running.partial = message_text(event.partial_result.content)
        elif isinstance(event, ToolExecutionEnd):
            self._tool_end(event)
        elif isinstance(event, CompactionStart):
            self.status = (
                "Compacting the conversation…"
                if event.reason == "manual"
                else f"Compacting the conversation ({event.reason})…"
            )
        elif isinstance(event, CompactionEnd):
            self.status = ""
            self._compaction_end(event)
        elif isinstance(event, AutoRetryStart):
            self.notice(retry_notice(event), "warning")

    def _message_start(self, event: MessageStart) -> None:
        message = event.message
        if isinstance(message, UserMessage):
            self.user(message_text(message.content))
        elif isinstance(message, AssistantMessage):
            self._stream = MarkdownStream()
            self._blocks = 0
            self._thinking = ""
            self._thinking_shown = 0
        elif getattr(message, "role", None) == "custom" and getattr(message, "display", False):
            text = message_text(getattr(message, "content", ""))
            if text.strip():
                label = getattr(message, "custom_type", "")
                self.write(self.painter.render(Text(f"[{label}] {text}", style="dim")))
        elif getattr(message, "role", None) == "bashExecution":
            self.bash_execution(message)

    def _update(self, event: MessageUpdate) -> None:
        stream_event = event.event
        if isinstance(stream_event, TextDelta):
            self._flush_thinking(final=True)
            done = self._stream.append(stream_event.delta)
            if done:
                self._block(done)
        elif isinstance(stream_event, ThinkingDelta):
            self._thinking += stream_event.delta
        elif isinstance(stream_event, ThinkingEnd):
            self._flush_thinking(final=True)
        elif isinstance(stream_event, ToolCallStart):
            self._preparing = stream_event.tool_name

    def _block(self, text: str) -> None:
        """A finished piece of the reply; a blank line keeps it apart from the one before, as
        one Markdown rendering of the whole reply would."""
        rendered = self.painter.markdown(text)
        visible = _ANSI.sub("", rendered)
        lines = visible.removesuffix("\n").split("\n")
        if not any(line.strip() for line in lines):
            return
        # A code block comes with blank padding lines of its own: one blank line, not two.
        apart = self._blocks and not self._ends_blank and lines[0].strip()
        self.write(("\n" if apart else "") + rendered)
        self._blocks += 1
        self._ends_blank = not lines[-1].strip()

    def _flush_thinking(self, *, final: bool) -> None:
        if not final or self._thinking_shown >= len(self._thinking):
            return
        thought = self._thinking[self._thinking_shown :].strip()
        self._thinking_shown = len(self._thinking)
        if not thought:
            return
        if self.show_thinking:
            self.write(self.painter.render(Text(thought, style="dim italic")))
        else:
            words = len(thought.split())
            self.write(
                self.painter.render(
                    Text(f"∴ thought ({words} words; ctrl+t shows thinking)", style="dim italic")
                )
            )

    def _message_end(self, event: MessageEnd) -> None:
        message = event.message
        if not isinstance(message, AssistantMessage):
            return
        if self._run is not None:
            usage = message.usage
            self._run.replies += 1
            self._run.input_tokens += usage.input + usage.cache_read + usage.cache_write
            self._run.output_tokens += usage.output
            self._run.cost += float(usage.cost.total)
        self._flush_thinking(final=True)
        rest = self._stream.finish()
        if rest.strip():
            self._block(rest)
        self._preparing = None
        if message.stop_reason == "aborted":
            self.notice("Stopped.", "warning")
        elif message.stop_reason == "error":
            error = message.error_message if isinstance(message.error_message, str) else ""
            self.notice(error or "The request failed.", "error")
        elif message.stop_reason == "length":
            self.notice("The reply was cut: the model reached its output limit.", "warning")

    def _tool_end(self, event: ToolExecutionEnd) -> None:
        if self._run is not None:
            self._run.tools += 1
        running = self._running.pop(event.tool_call_id, None)
        args = running.args if running is not None else {}
        view = ToolView(
            event.tool_name,
            args,
            message_text(event.result.content),
            event.is_error,
            event.result.details,
        )
        self.last_tool = view
        block = tool_block(
            view, self.cwd, expanded=False, width=self.painter.width, keys=self.painter.keys
        )
        receipt = guard_receipt(event.result.details, self.guard_threshold_ms)
        if receipt is not None:
            block.append("\n")
            block.append_text(receipt)
        self.write(self.painter.render(block))

    def _compaction_end(self, event: CompactionEnd) -> None:
        result = event.result
        if event.aborted:
            self.notice("Compaction stopped.", "warning")
        elif result is not None and event.reason != "manual":  # /compact says it itself
            self.notice(
                f"Compacted: {result.tokens_before:,} tokens of conversation summarized.", "info"
            )
        elif event.error_message:
            self.notice(f"Compaction failed: {event.error_message}", "error")

    # --- direct output ----------------------------------------------------------------------

    def user(self, text: str) -> None:
        block = Text()
        for index, line in enumerate(text.rstrip("\n").split("\n")):
            if index:
                block.append("\n")
            block.append("› " if index == 0 else "  ", style="bold magenta")
            block.append(line, style="bold")
        self.write("\n" + self.painter.render(block))

    def bash_execution(self, message: object) -> None:
        command = str(getattr(message, "command", ""))
        output = str(getattr(message, "output", ""))
        code = getattr(message, "exit_code", None)
        view = ToolView("bash", {"command": command}, output, code not in (0, None))
        block = tool_block(
            view, self.cwd, expanded=False, width=self.painter.width, keys=self.painter.keys
        )
        if getattr(message, "exclude_from_context", False):
            block.append("\n  (not sent to the model)", style="dim")
        self.last_tool = view
        self.write(self.painter.render(block))

    def notice(self, text: str, level: str = "info") -> None:
        style = {"error": "bold red", "warning": "yellow"}.get(level, "cyan")
        self.write(self.painter.render(Text(text, style=style)))

    def expand_last(self) -> None:
        if self.last_tool is None:
            self.notice("No tool output to show yet.")
            return
        self.write(
            self.painter.render(
                tool_block(
                    self.last_tool,
                    self.cwd,
                    expanded=True,
                    width=self.painter.width,
                    keys=self.painter.keys,
                )
            )
        )

    # --- the live area ----------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return bool(self.status or self._running or self._stream.tail or self._preparing)

    def live(self, height: int) -> str:
        """ANSI text for the area above the editor, at most `height` lines."""
        painter = self.painter
        parts: list[str] = []
        if self._thinking_shown < len(self._thinking):
            thought = self._thinking[self._thinking_shown :].rstrip()
            last = thought.split("\n")[-2:] if self.show_thinking else ["thinking…"]
            parts.append(painter.render(Text("\n".join(last), style="dim italic")))
        tail = self._stream.tail
        if tail.strip():
            parts.append(self._render_tail(tail, height))
        spin = _SPINNER[int(time.monotonic() * 10) % len(_SPINNER)]
        if self._preparing is not None:
            parts.append(painter.render(Text(f"{spin} {self._preparing} …", style="cyan")))
        for running in self._running.values():
            line = Text(f"{spin} ", style="cyan")
            line.append_text(tool_title(running.name, running.args, self.cwd, painter.width - 2))
            if running.partial.strip():
                for partial in running.partial.rstrip().split("\n")[-3:]:
                    line.append("\n  " + partial[: painter.width - 2], style="dim")
            parts.append(painter.render(line))
        if self.status:
            parts.append(painter.render(Text(f"{spin} {self.status} (esc to stop)", style="dim")))
        text = "".join(parts).rstrip("\n")
        lines = text.split("\n")
        if len(lines) > height:
            lines = lines[-height:]
        return "\n".join(lines)

    def _render_tail(self, tail: str, height: int) -> str:
        width = self.painter.width
        if len(tail) > _LIVE_MARKDOWN_CHARS:
            # Too long to re-render on every delta (a long code block): its last lines, raw,
            # and no more characters than the area can show (one huge line stays cheap).
            recent = tail[-(height * width) :]
            lines = recent.rstrip("\n").split("\n")[-height:]
            return self.painter.render(Text("\n".join(lines)))
        cached_tail, cached_width, rendered = self._tail_cache
        if cached_tail == tail and cached_width == width:
            return rendered
        rendered = self.painter.markdown(tail)
        self._tail_cache = (tail, width, rendered)
        return rendered
