"""One session entry as HTML for the export page. Pure.

Everything that came from the session is escaped; nothing in it is ever markup. Long texts
(tool outputs, file contents in arguments, summaries) are capped: the head and the tail are
shown with a note of how much was cut from the middle, so a session with multi-megabyte outputs
still gives a page a browser opens quickly. Images are inlined only when they are small and
their data is plain base64 of a known image type.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from html import escape

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UnsetType,
    Usage,
    UserMessage,
    to_builtins,
)
from pith.session import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
)

__all__ = ["EntryMarks", "cap_text", "render_entry"]

TEXT_CAP = 20_000
"""Characters shown of one text (a message, an output, arguments); the rest is cut."""
DATA_CAP = 4_000
"""Characters shown of an extension's state (custom entries)."""
IMAGE_CAP = 2_000_000
"""Base64 characters of an image inlined in the page; larger ones are named, not shown."""

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


@dataclass(frozen=True)
class EntryMarks:
    """What the page knows about an entry besides itself."""

    on_path: bool = False
    leaf: bool = False
    label: str | None = None


def cap_text(text: str, cap: int = TEXT_CAP) -> str:
    """`text` escaped, its middle cut (with a note of how much) when longer than `cap`."""
    if len(text) <= cap:
        return escape(text)
    head = text[: cap * 3 // 4]
    tail = text[len(text) - cap // 4 :]
    cut = text[len(head) : len(text) - len(tail)]
    note = (
        f"\n[… {len(cut):,} characters ({cut.count(chr(10)) + 1:,} lines) cut here; "
        f"the full text is in the session file …]\n"
    )
    return f'{escape(head)}<span class="cut">{escape(note)}</span>{escape(tail)}'


def render_entry(entry: SessionEntry, marks: EntryMarks) -> str:
    """The entry's block: a header line (kind, id, time, labels) and its content."""
    kind, css, body = _describe(entry)
    classes = ["entry", css, "on-path" if marks.on_path else "off-path"]
    if marks.leaf:
        classes.append("leaf")
    badges = ""
    if marks.label:
        badges += f'<span class="badge label">{escape(marks.label)}</span>'
    if marks.leaf:
        badges += '<span class="badge leaf">current leaf</span>'
    anchor = escape(entry.id)
    return (
        f'<div class="{" ".join(c for c in classes if c)}" id="e-{anchor}">'
        f'<div class="meta"><span class="kind">{kind}</span>'
        f'<a class="id" href="#e-{anchor}">{anchor}</a>'
        f"<time>{escape(_time(entry.timestamp))}</time>{badges}</div>{body}</div>"
    )


def _describe(entry: SessionEntry) -> tuple[str, str, str]:
    """(kind shown, CSS class, body HTML)."""
    if isinstance(entry, MessageEntry):
        return _message(entry.message)
    if isinstance(entry, RawEntry):
        if entry.message is not None:
            kind, css, body = _message(entry.message)
            return kind, css, body + _note("some content of this entry pith cannot show")
        data = _json(entry.raw, DATA_CAP)
        return f"unknown entry: {escape(entry.type or '?')}", "minor", _data("entry", data)
    if isinstance(entry, CompactionEntry):
        kept = entry.first_kept_entry_id
        where = (
            "nothing kept"
            if kept == entry.id
            else f'kept from <a href="#e-{escape(kept)}">{escape(kept)}</a>'
        )
        body = (
            f'<div class="muted">{entry.tokens_before:,} tokens before; {where}</div>'
            f'<div class="text">{cap_text(entry.summary)}</div>'
        )
        return "compaction", "e-summary", body
    if isinstance(entry, BranchSummaryEntry):
        origin = (
            f'<a href="#e-{escape(entry.from_id)}">{escape(entry.from_id)}</a>'
            if entry.from_id != "root"
            else "root"
        )
        body = (
            f'<div class="muted">summary of the branch left at {origin}</div>'
            f'<div class="text">{cap_text(entry.summary)}</div>'
        )
        return "branch summary", "e-summary", body
    if isinstance(entry, CustomMessageEntry):
        hidden = "" if entry.display else ' <span class="muted">(not displayed)</span>'
        body = _content(entry.content) + _details_data(entry.details)
        return f"custom message: {escape(entry.custom_type)}{hidden}", "e-custom", body
    if isinstance(entry, CustomEntry):
        data = _json(_plain(entry.data), DATA_CAP)
        return f"extension state: {escape(entry.custom_type)}", "minor", _data("data", data)
    return _minor(entry)


def _minor(entry: SessionEntry) -> tuple[str, str, str]:
    if isinstance(entry, ModelChangeEntry):
        return f"model → {escape(entry.provider)}/{escape(entry.model_id)}", "minor", ""
    if isinstance(entry, ThinkingLevelChangeEntry):
        return f"thinking → {escape(entry.thinking_level)}", "minor", ""
    if isinstance(entry, LabelEntry):
        target = f'<a href="#e-{escape(entry.target_id)}">{escape(entry.target_id)}</a>'
        if isinstance(entry.label, str) and entry.label:
            return f"label “{escape(entry.label)}” on {target}", "minor", ""
        return f"label cleared on {target}", "minor", ""
    if isinstance(entry, SessionInfoEntry):
        name = entry.name if isinstance(entry.name, str) else ""
        return (f"session named “{escape(name)}”" if name else "session name cleared"), "minor", ""
    if isinstance(entry, UsageEntry):
        usage = entry.usage
        text = f"usage ({escape(entry.kind)}): {escape(entry.provider)}/{escape(entry.model)}"
        return text, "minor", f'<div class="muted">{_usage_line(usage)}</div>'
    if isinstance(entry, ContextEditEntry):
        target = f'<a href="#e-{escape(entry.target_id)}">{escape(entry.target_id)}</a>'
        if entry.replacement is None:
            return f"context edit: {target} hidden from the model", "minor", ""
        body = _content(entry.replacement.content)
        return f"context edit: {target} replaced", "minor", body
    return escape(type(entry).__name__), "minor", ""


def _message(message: AgentMessage) -> tuple[str, str, str]:
    if isinstance(message, UserMessage):
        return "user", "e-user", _content(message.content)
    if isinstance(message, AssistantMessage):
        return _assistant(message)
    if isinstance(message, ToolResultMessage):
        return _tool_result(message)
    if isinstance(message, BashExecutionMessage):
        return _bash(message)
    if isinstance(message, CustomMessage):
        return f"custom: {escape(message.custom_type)}", "e-custom", _content(message.content)
    if isinstance(message, SystemMessage):
        content = message.content
        text = content if isinstance(content, str) else "\n".join(b.text for b in content)
        sections = message.sections if isinstance(message.sections, dict) else {}
        pieces = [text, *(f"[{name}]\n{value}" for name, value in sections.items() if value)]
        tools = len(message.tools_added) if isinstance(message.tools_added, list) else 0
        summary = f"system prompt · {len(sections)} sections · {tools} tools added"
        body = f'<details class="output"><summary>{escape(summary)}</summary>'
        body += f"<pre>{cap_text(chr(10).join(p for p in pieces if p))}</pre></details>"
        return "system", "minor", body
    assert isinstance(message, BranchSummaryMessage | CompactionSummaryMessage)
    return "summary", "e-summary", f'<div class="text">{cap_text(message.summary)}</div>'


def _assistant(message: AssistantMessage) -> tuple[str, str, str]:
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append(f'<div class="text">{cap_text(block.text)}</div>')
        elif isinstance(block, ThinkingContent):
            if block.redacted is True:
                parts.append('<div class="muted">(redacted thinking)</div>')
                continue
            parts.append(
                f'<details class="thinking"><summary>thinking · {len(block.thinking):,} '
                f'characters</summary><div class="text">{cap_text(block.thinking)}</div>'
                "</details>"
            )
        elif isinstance(block, ToolCall):
            parts.append(_tool_call(block))
    if isinstance(message.error_message, str) and message.error_message:
        parts.append(f'<div class="text error-text">{cap_text(message.error_message)}</div>')
    model = f"{message.provider}/{message.model}" if message.provider else message.model
    stop = message.stop_reason
    facts = [escape(model)] if model else []
    if stop not in ("stop", "toolUse"):
        facts.append(f'<span class="badge error">{escape(stop)}</span>')
    facts.append(_usage_line(message.usage))
    meta = f'<div class="muted">{" · ".join(facts)}</div>'
    return "assistant", "e-assistant", "".join(parts) + meta


def _tool_call(call: ToolCall) -> str:
    arguments = _json(call.arguments, TEXT_CAP)
    problem = ""
    if isinstance(call.arguments_error, str) and call.arguments_error:
        problem = f'<div class="error-text">{cap_text(call.arguments_error)}</div>'
    return (
        f'<div class="tool-call"><span class="tool-name">{escape(call.name)}</span> '
        f'<span class="muted mono">{escape(call.id)}</span>{problem}<pre>{arguments}</pre></div>'
    )


def _tool_result(message: ToolResultMessage) -> tuple[str, str, str]:
    text = "".join(block.text for block in message.content if isinstance(block, TextContent))
    images = "".join(_image(block) for block in message.content if isinstance(block, ImageContent))
    lines = text.count("\n") + 1 if text else 0
    state = " error" if message.is_error else ""
    summary = f"output · {lines:,} lines · {len(text):,} characters"
    if message.is_error:
        summary += " · error"
    body = (
        f'<details class="output{state}"><summary>{escape(summary)}</summary>'
        f"<pre>{cap_text(text)}</pre>{images}</details>"
    )
    kind = f"tool result: {escape(message.tool_name)}"
    if message.is_error:
        kind += ' <span class="badge error">error</span>'
    return kind, "e-tool", body


def _bash(message: BashExecutionMessage) -> tuple[str, str, str]:
    facts = []
    if message.cancelled:
        facts.append("cancelled")
    elif isinstance(message.exit_code, int):
        facts.append(f"exit code {message.exit_code}")
    if message.truncated:
        where = message.full_output_path if isinstance(message.full_output_path, str) else ""
        facts.append(f"truncated (full output: {where})" if where else "truncated")
    if message.exclude_from_context is True:
        facts.append("not sent to the model")
    lines = message.output.count("\n") + 1 if message.output else 0
    summary = " · ".join([f"output · {lines:,} lines", *facts])
    failed = " error" if (message.exit_code not in (0, None) or message.cancelled) else ""
    body = (
        f'<pre class="command">$ {cap_text(message.command)}</pre>'
        f'<details class="output{failed}"><summary>{escape(summary)}</summary>'
        f"<pre>{cap_text(message.output)}</pre></details>"
    )
    return "user shell command", "e-tool", body


def _content(content: object) -> str:
    if isinstance(content, str):
        return f'<div class="text">{cap_text(content)}</div>'
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, TextContent):
            parts.append(f'<div class="text">{cap_text(block.text)}</div>')
        elif isinstance(block, ImageContent):
            parts.append(_image(block))
    return "".join(parts)


def _image(block: ImageContent) -> str:
    size = len(block.data) * 3 // 4
    name = f"image ({escape(block.mime_type)}, {size:,} bytes)"
    if (
        block.mime_type in _IMAGE_TYPES
        and len(block.data) <= IMAGE_CAP
        and _BASE64.match(block.data) is not None
    ):
        return (
            f'<img class="attached" alt="{name}" src="data:{block.mime_type};base64,{block.data}">'
        )
    return f'<div class="muted">[{name}, not shown]</div>'


def _plain(value: object) -> object:
    """JSON-ready builtins of a value read from the session (absent → None)."""
    return None if isinstance(value, UnsetType) else to_builtins(value)


def _details_data(details: object) -> str:
    built = _plain(details)
    if built is None or (isinstance(built, dict | list) and not built):
        return ""
    return _data("details", _json(built, DATA_CAP))


def _data(title: str, html: str) -> str:
    return f'<details class="data"><summary>{title}</summary><pre>{html}</pre></details>'


def _json(value: object, cap: int) -> str:
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return cap_text(text, cap)


def _usage_line(usage: object) -> str:
    if not isinstance(usage, Usage):
        return ""
    text = f"in {usage.input:,} · out {usage.output:,}"
    if usage.cache_read or usage.cache_write:
        text += f" · cache read {usage.cache_read:,} · cache write {usage.cache_write:,}"
    if usage.cost.total:
        text += f" · ${float(usage.cost.total):.4f}"
    return escape(text)


def _note(text: str) -> str:
    return f'<div class="muted">({escape(text)})</div>'


def _time(timestamp: str) -> str:
    try:
        parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp
    return parsed.strftime("%Y-%m-%d %H:%M:%S")
