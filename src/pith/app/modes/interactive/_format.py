"""What the interactive mode prints: pure functions from messages and tool results to rich
renderables (one place for colours and layout; `Painter` turns them into terminal text)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

from rich.console import Console, RenderableType
from rich.text import Text

__all__ = [
    "Painter",
    "diff_text",
    "guard_receipt",
    "preview_lines",
    "tool_block",
    "tool_title",
]

PREVIEW_LINES = 5
"""Lines of a tool's output shown under its call until it is expanded."""


class Painter:
    """Renders to ANSI text at a given width (or plain text when colour is off)."""

    def __init__(self, width: int = 80, *, color: bool = True, keys: bool = True) -> None:
        self.width = max(20, width)
        self.color = color
        self.keys = keys
        """Whether the terminal UI's keys work (not in the plain `TERM=dumb` mode), so hints
        may name them."""

    def render(self, renderable: RenderableType) -> str:
        buffer = io.StringIO()
        console = Console(
            file=buffer,
            width=self.width,
            force_terminal=self.color,
            no_color=not self.color,
            color_system="256" if self.color else None,
            highlight=False,
            emoji=False,
            legacy_windows=False,
        )
        console.print(renderable, soft_wrap=False)
        text = buffer.getvalue()
        if not self.color:  # rich pads every line to the width; plain text need not
            text = "\n".join(line.rstrip(" ") for line in text.split("\n"))
        return text

    def markdown(self, text: str) -> str:
        if not text.strip():
            return ""
        from pith.app.modes.interactive._markdown import markdown  # with the first reply

        return self.render(markdown(text))


def _short(text: str, width: int) -> str:
    line = text.replace("\t", "  ")
    first, _, rest = line.partition("\n")
    more = " …" if rest.strip() else ""
    if len(first) + len(more) > width:
        return first[: max(1, width - 1)] + "…"
    return first + more


def _rel(path: object, cwd: str) -> str:
    if not isinstance(path, str):
        return "?"
    if os.path.isabs(path) and cwd:
        try:
            relative = os.path.relpath(path, cwd)
        except ValueError:
            return path
        if not relative.startswith(".."):
            return relative
    return path


def tool_title(name: str, args: Mapping[str, object], cwd: str, width: int = 100) -> Text:
    """One line naming a tool call: `$ command` for bash, `read path:10-40`, ..."""
    title = Text()
    if name == "bash" and isinstance(args.get("command"), str):
        title.append("$ ", style="bold green")
        title.append(_short(str(args["command"]), width - 2), style="bold")
        return title
    title.append(name, style="bold cyan")
    detail = ""
    path = args.get("path")
    if name == "read":
        detail = _rel(path, cwd)
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"{start + limit - 1}" if isinstance(limit, int) else ""
            detail += f":{start}-{end}"
    elif name in ("write", "edit"):
        detail = _rel(path, cwd)
        content = args.get("content")
        if name == "write" and isinstance(content, str):
            detail += f" ({content.count(chr(10)) + (0 if content.endswith(chr(10)) else 1)} lines)"
    elif name in ("grep", "find"):
        pattern = args.get("pattern")
        detail = json.dumps(pattern, ensure_ascii=False) if isinstance(pattern, str) else ""
        if isinstance(path, str):
            detail += f" in {_rel(path, cwd)}"
    elif name == "ls":
        detail = _rel(path, cwd) if isinstance(path, str) else "."
    else:
        detail = json.dumps(dict(args), ensure_ascii=False, default=str)
    if detail:
        title.append(" ")
        title.append(_short(detail, max(10, width - len(name) - 1)))
    return title


def preview_lines(text: str, limit: int) -> tuple[list[str], int]:
    """The first `limit` lines of `text` and how many more there are."""
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    if limit < 0 or len(lines) <= limit:
        return lines, 0
    return lines[:limit], len(lines) - limit


def diff_text(diff: str, limit: int = -1) -> tuple[Text, int]:
    """Pi's display diff (`+12 new`, `-12 old`, ` 12 same`) in colour; lines hidden."""
    shown, hidden = preview_lines(diff, limit)
    text = Text()
    for index, line in enumerate(shown):
        marker = line.lstrip(" ")[:1]
        style = "green" if marker == "+" else "red" if marker == "-" else "dim"
        if index:
            text.append("\n")
        text.append(line, style=style)
    return text, hidden


@dataclass(frozen=True)
class ToolView:
    """A finished tool call as the transcript shows it."""

    name: str
    args: Mapping[str, object]
    output: str
    is_error: bool
    details: object = None


def tool_block(
    view: ToolView, cwd: str, *, expanded: bool, width: int = 100, keys: bool = True
) -> Text:
    """The call's title, then its output: a few lines, or all of it when `expanded`."""
    block = Text()
    block.append("● ", style="red" if view.is_error else "green")
    block.append_text(tool_title(view.name, view.args, cwd, width - 2))
    details = view.details if isinstance(view.details, Mapping) else {}
    limit = -1 if expanded else PREVIEW_LINES
    diff = details.get("diff")
    if view.name == "edit" and isinstance(diff, str) and not view.is_error:
        body, hidden = diff_text(diff, -1 if expanded else 12)
        block.append("\n")
        block.append_text(_indent(body))
        _more(block, hidden, keys)
        return block
    if view.name == "write" and not view.is_error and isinstance(view.args.get("content"), str):
        lines, hidden = preview_lines(str(view.args["content"]), -1 if expanded else PREVIEW_LINES)
        body = Text("\n".join(f"+ {line}" for line in lines), style="green")
        if lines:
            block.append("\n")
            block.append_text(_indent(body))
        _more(block, hidden, keys)
        return block
    lines, hidden = preview_lines(view.output, limit)
    if lines:
        block.append("\n")
        block.append_text(_indent(Text("\n".join(lines), style="red" if view.is_error else "dim")))
    _more(block, hidden, keys)
    return block


def _indent(text: Text) -> Text:
    out = Text()
    for index, line in enumerate(text.split("\n", allow_blank=True)):
        if index:
            out.append("\n")
        out.append("  ")
        out.append_text(line)
    return out


def _more(block: Text, hidden: int, keys: bool) -> None:
    if hidden:
        how = "ctrl+o shows the whole output" if keys else "/export shows the whole output"
        block.append(
            f"\n  … {hidden} more {'line' if hidden == 1 else 'lines'} ({how})",
            style="dim italic",
        )


def guard_receipt(details: object, fast_threshold_ms: float) -> Text | None:
    """The tool guard's receipt for a slow command whose view changed its output: how long
    the command ran, what the view kept, where the full output is (`details.guard`)."""
    if not isinstance(details, Mapping):
        return None
    guard = details.get("guard")
    if not isinstance(guard, Mapping) or guard.get("outcome") != "projection-applied":
        return None
    timing = guard.get("timing")
    projection = guard.get("projection")
    if not isinstance(timing, Mapping):
        return None
    command_ms = timing.get("commandMs")
    if not isinstance(command_ms, int | float) or command_ms < fast_threshold_ms:
        return None
    if isinstance(projection, Mapping):
        before, after = projection.get("linesBefore"), projection.get("linesAfter")
        if before == after and projection.get("bytesBefore") == projection.get("bytesAfter"):
            return None  # a no-op projection: nothing to tell
        counts = f": {before} → {after} lines"
    else:
        counts = ": the output was too long to count"  # the command's output was truncated
    extractor_ms = timing.get("extractorMs")
    receipt = Text("  guard: ", style="yellow")
    receipt.append(
        f"ran `{guard.get('cleanedCommand')}` in {command_ms / 1000:.1f} s, then "
        f"`| {guard.get('removedPipeline')}`"
    )
    if isinstance(extractor_ms, int | float):
        receipt.append(f" ({extractor_ms:.0f} ms)")
    receipt.append(counts)
    path = guard.get("fullOutputPath")
    if isinstance(path, str):
        receipt.append(f"; full output in {path}", style="dim")
    return receipt
