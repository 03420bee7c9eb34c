"""`pith context`: what the next request would contain, block by block, with token estimates.

The report is built from the same `Agent.next_context()` the next request uses, so what it
shows is what the model will get (system prompt, tools and their schemas, every message after
the context hooks), with a chars/4 estimate per block and the total against the window.

Tool results a `context` hook replaced (the pruner's stubs) are listed with the call they
stand for and the tokens before and after: found by comparing the history before the hooks
with the messages after them, by tool call id and timestamp, so any extension's replacement
shows up and `pith.app` needs nothing from the extension itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pith.ai import (
    UNSET,
    AgentMessage,
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    Model,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    to_builtins,
)
from pith.app.session._context_tools import (
    SEARCH_TOOL,
    McpToolGroup,
    group_lines,
    groups_to_json,
    mcp_tool_groups,
)
from pith.app.session._system_prompt import PromptSection
from pith.compaction import (
    ResolvedCompactionSettings,
    estimate_text_tokens,
    estimate_tokens,
    estimate_tool_tokens,
)
from pith.extensions import ExtensionRunner
from pith.session import CompactionEntry, SessionEntry, SessionStore

__all__ = ["ContextReport", "build_report", "render_report", "report_to_json"]


@dataclass
class MessageLine:
    index: int
    role: str
    summary: str
    tokens: int


@dataclass
class SectionLine:
    name: str
    text: str
    tokens: int
    sources: list[str]


@dataclass
class CompactionLine:
    """Where the latest compaction cut and what it left: the summary stands in for the
    entries before `first_kept_entry_id`, which `kept_from` numbers among the messages."""

    entry: CompactionEntry
    summary_tokens: int
    kept_from: int | None


@dataclass
class PrunedLine:
    """A tool result the context hooks replaced in this request (a pruner stub)."""

    index: int
    """Its number among the listed messages."""
    ref: str | None
    """The recovery ref the stub names (`t12`), if it names one."""
    tool_call_id: str
    tool_name: str
    arguments: dict[str, object]
    """The arguments of the call whose result was replaced ({} when the call is not found)."""
    tokens_before: int
    tokens_after: int


_STUB_REF = re.compile(r'context_tree_query\(\["([^"]+)"\]\)')
"""How a pruner stub names its ref: `Recover with context_tree_query(["t12"])`."""


@dataclass
class ContextReport:
    model: Model | None
    """The model the request would go to; None when no model is configured (then there is no
    window to compare with)."""
    session: SessionStore
    context: Context
    system_tokens: int
    tool_tokens: dict[str, int]
    messages: list[MessageLine] = field(default_factory=list)
    source: str | None = None
    """The session file the report was made from."""
    sections: list[SectionLine] = field(default_factory=list)
    """The system prompt's sections, with where each comes from."""
    templates: list[str] = field(default_factory=list)
    """Prompt templates the user can invoke (`/name`)."""
    compaction: CompactionLine | None = None
    """The latest compaction on the active branch, if any."""
    compactions: int = 0
    """How many compactions the active branch holds."""
    threshold: int | None = None
    """Above this many context tokens pith compacts on its own (None: it never does)."""
    pruned: list[PrunedLine] = field(default_factory=list)
    """Tool results the context hooks replaced, in message order."""
    fresh: bool = False
    """No session yet: this is the first request a new session would send."""
    no_model_hint: str = ""
    """How to configure a model, said when `model` is None."""
    mcp_groups: list[McpToolGroup] = field(default_factory=list)
    """MCP tools by server, declared and deferred (`_context_tools`)."""

    @property
    def tokens_saved(self) -> int:
        return sum(line.tokens_before - line.tokens_after for line in self.pruned)

    @property
    def total(self) -> int:
        return (
            self.system_tokens
            + sum(self.tool_tokens.values())
            + sum(m.tokens for m in self.messages)
        )


def _preview(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _summary(message: Message) -> str:
    if isinstance(message, UserMessage | ToolResultMessage):
        content = message.content
        texts = (
            [content]
            if isinstance(content, str)
            else [b.text for b in content if isinstance(b, TextContent)]
        )
        images = (
            0 if isinstance(content, str) else sum(isinstance(b, ImageContent) for b in content)
        )
        prefix = f"[{message.tool_name}] " if isinstance(message, ToolResultMessage) else ""
        error = "error: " if isinstance(message, ToolResultMessage) and message.is_error else ""
        extra = f" (+{images} image{'s' if images > 1 else ''})" if images else ""
        return prefix + error + repr(_preview(" ".join(texts))) + extra
    if isinstance(message, AssistantMessage):
        parts = []
        text = message.text()
        if text:
            parts.append(repr(_preview(text, 40)))
        thinking = sum(isinstance(b, ThinkingContent) for b in message.content)
        if thinking:
            parts.append("thinking")
        calls = [b for b in message.content if isinstance(b, ToolCall)]
        if calls:
            parts.append("calls " + ", ".join(call.name for call in calls))
        return " + ".join(parts) or "(empty)"
    assert isinstance(message, SystemMessage)
    return repr(_preview(message.content if isinstance(message.content, str) else ""))


def build_report(
    model: Model | None,
    session: SessionStore,
    context: Context,
    source: str | None = None,
    sections: Sequence[PromptSection] = (),
    templates: Sequence[str] = (),
    rules: ResolvedCompactionSettings | None = None,
    history: Sequence[AgentMessage] | None = None,
    *,
    fresh: bool = False,
    no_model_hint: str = "",
    extensions: ExtensionRunner | None = None,
) -> ContextReport:
    """The report on `context`; `history` is the agent's messages before the context hooks
    ran, to list the tool results they replaced. `fresh`: `session` is a new one, not saved.
    `extensions`: where the MCP tools not declared yet are registered."""
    tool_tokens = {tool.name: estimate_tool_tokens(tool) for tool in context.tools}
    report = ContextReport(
        model=model,
        session=session,
        context=context,
        system_tokens=estimate_text_tokens(context.system_prompt),
        tool_tokens=tool_tokens,
        source=source,
        sections=[
            SectionLine(part.name, part.text, estimate_text_tokens(part.text), part.sources)
            for part in sections
        ],
        templates=list(templates),
        fresh=fresh,
        no_model_hint=no_model_hint,
        mcp_groups=mcp_tool_groups(context, extensions),
    )
    for index, message in enumerate(context.messages, start=1):
        report.messages.append(
            MessageLine(index, message.role, _summary(message), estimate_tokens(message))
        )
    branch = session.get_branch()
    compactions = [entry for entry in branch if isinstance(entry, CompactionEntry)]
    report.compactions = len(compactions)
    if compactions:
        latest = compactions[-1]
        report.compaction = CompactionLine(
            latest, estimate_text_tokens(latest.summary), _kept_from(branch, latest, context)
        )
    if rules is not None and rules.enabled and model is not None and model.context_window > 0:
        report.threshold = model.context_window - rules.reserve_tokens
    if history is not None:
        report.pruned = replaced_results(history, context.messages)
    return report


def replaced_results(
    history: Sequence[AgentMessage], messages: Sequence[Message]
) -> list[PrunedLine]:
    """The tool results of `messages` whose content differs from the same result (same tool
    call id and timestamp) in `history`, with the call each answered."""
    originals: dict[tuple[str, float], ToolResultMessage] = {}
    calls: dict[str, ToolCall] = {}
    for message in history:
        if isinstance(message, ToolResultMessage):
            originals[(message.tool_call_id, float(message.timestamp))] = message
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ToolCall):
                    calls[block.id] = block
    lines = []
    for index, message in enumerate(messages, start=1):
        if not isinstance(message, ToolResultMessage):
            continue
        original = originals.get((message.tool_call_id, float(message.timestamp)))
        if original is None or original.content == message.content:
            continue
        text = "".join(b.text for b in message.content if isinstance(b, TextContent))
        found = _STUB_REF.search(text)
        call = calls.get(message.tool_call_id)
        lines.append(
            PrunedLine(
                index=index,
                ref=found.group(1) if found else None,
                tool_call_id=message.tool_call_id,
                tool_name=message.tool_name,
                arguments=dict(call.arguments) if call is not None else {},
                tokens_before=estimate_tokens(original),
                tokens_after=estimate_tokens(message),
            )
        )
    return lines


def _call_text(line: PrunedLine) -> str:
    arguments = ", ".join(
        f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in line.arguments.items()
    )
    return f"{line.tool_name}({arguments})"


def _kept_from(
    branch: Sequence[SessionEntry], compaction: CompactionEntry, context: Context
) -> int | None:
    """The number (1-based, as listed) of the first message kept after `compaction`: the
    first message equal to the kept entry's message."""
    kept = next((e for e in branch if e.id == compaction.first_kept_entry_id), None)
    message = getattr(kept, "message", None)
    if message is None:
        return None
    wanted = to_builtins(message)
    for index, candidate in enumerate(context.messages, start=1):
        if to_builtins(candidate) == wanted:
            return index
    return None


def render_report(report: ContextReport) -> str:
    """The report as text for a terminal."""
    session = report.session
    lines = [
        *_heading(report),
        "",
        f"{'system prompt':<48} ~{report.system_tokens:>8,} tokens",
        *_section_lines(report.sections),
        f"{'tools (' + str(len(report.tool_tokens)) + '): ' + ', '.join(report.tool_tokens):<48.48}"
        f" ~{sum(report.tool_tokens.values()):>8,} tokens",
        *_mcp_lines(report),
        f"messages ({len(report.messages)})",
    ]
    for line in report.messages:
        lines.append(f"  {line.index:>4}. {line.role:<10} {line.summary:<60.60} ~{line.tokens:>7,}")
    if report.templates:
        lines.append(f"prompt templates ({len(report.templates)}): {', '.join(report.templates)}")
    window = report.model.context_window if report.model is not None else 0
    share = f" ({report.total / window:.1%} of the window)" if window else ""
    lines += ["", f"total ~{report.total:,} tokens{share}"]
    lines += _pruned_lines(report)
    if report.model is not None:  # the threshold follows from the model's window
        lines += _compaction_lines(report)
    if session.warnings:
        lines += ["", *(f"warning: {warning}" for warning in session.warnings)]
    return "\n".join(lines)


def _mcp_lines(report: ContextReport) -> list[str]:
    search = report.tool_tokens.get(SEARCH_TOOL) if report.mcp_groups else None
    return group_lines(report.mcp_groups, search)


def _heading(report: ContextReport) -> list[str]:
    """Which model the request is for, and which session it comes from."""
    model, session = report.model, report.session
    if model is not None:
        heading = [f"Next request for {model.key} (window {model.context_window:,} tokens)"]
    else:
        what = "Next request of a new session here" if report.fresh else "Next request"
        heading = [
            f"{what}; no model configured, so no window to compare with",
            f"  to set one: {report.no_model_hint}",
        ]
    if report.fresh:
        where = f"No session here yet: the first request of a new session in {session.cwd}"
    else:
        saved = report.source or (
            str(session.path)
            if session.path is not None and session.persisted
            else "(not saved yet)"
        )
        where = f"Session {session.id} {saved}"
    return [*heading, where]


def _pruned_lines(report: ContextReport) -> list[str]:
    if not report.pruned:
        return []
    count = len(report.pruned)
    lines = [
        f"pruned: {count} tool result{'s' if count > 1 else ''} replaced by stubs, "
        f"~{report.tokens_saved:,} tokens saved"
    ]
    for line in report.pruned:
        ref = line.ref or "-"
        lines.append(
            f"  {ref:>5}  message {line.index:<5} {_preview(_call_text(line), 50):<50} "
            f"~{line.tokens_before:>7,} → ~{line.tokens_after:,}"
        )
    return lines


def _compaction_lines(report: ContextReport) -> list[str]:
    if report.threshold is not None:
        lines = [f"compacts above ~{report.threshold:,} tokens (window minus reserveTokens)"]
    else:
        lines = ["automatic compaction is off"]
    found = report.compaction
    if found is None:
        return lines
    entry = found.entry
    count = f" (the latest of {report.compactions})" if report.compactions > 1 else ""
    kept = (
        f"kept from message {found.kept_from} on"
        if found.kept_from is not None
        else f"kept from entry {entry.first_kept_entry_id} on"
    )
    return [
        *lines,
        f"compacted {entry.timestamp}{count}: ~{entry.tokens_before:,} tokens before, "
        f"summary ~{found.summary_tokens:,} tokens; {kept}",
        f"  summary: {_preview(entry.summary, 90)}",
    ]


def _section_lines(sections: Sequence[SectionLine]) -> list[str]:
    lines = []
    for part in sections:
        shown = part.sources[:3]
        more = f" (+{len(part.sources) - 3} more)" if len(part.sources) > 3 else ""
        origin = ", ".join(shown) + more
        lines.append(f"  {part.name:<17} ~{part.tokens:>6,}  {origin}")
    return lines


def report_to_json(report: ContextReport) -> dict[str, object]:
    """Everything, for tools and scripts: texts, schemas, messages and estimates."""
    context = report.context
    return {
        "model": report.model.key if report.model is not None else None,
        "contextWindow": report.model.context_window if report.model is not None else None,
        "session": {
            "id": None if report.fresh else report.session.id,
            "path": str(report.session.path) if report.session.path else None,
            "new": report.fresh,
        },
        "systemPrompt": {
            "text": context.system_prompt,
            "tokens": report.system_tokens,
            "sections": [
                {
                    "name": part.name,
                    "text": part.text,
                    "tokens": part.tokens,
                    "sources": part.sources,
                }
                for part in report.sections
            ],
        },
        "promptTemplates": report.templates,
        "tools": [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "tokens": report.tool_tokens[tool.name],
            }
            for tool in context.tools
        ],
        "messages": [
            {"tokens": line.tokens, "message": to_builtins(message)}
            for line, message in zip(report.messages, context.messages, strict=True)
        ],
        "mcpTools": groups_to_json(report.mcp_groups),
        "totalTokens": report.total,
        "pruned": {
            "results": [
                {
                    "ref": line.ref,
                    "message": line.index,
                    "toolCallId": line.tool_call_id,
                    "toolName": line.tool_name,
                    "arguments": line.arguments,
                    "tokensBefore": line.tokens_before,
                    "tokensAfter": line.tokens_after,
                }
                for line in report.pruned
            ],
            "tokensSaved": report.tokens_saved,
        },
        "compaction": _compaction_json(report),
    }


def _compaction_json(report: ContextReport) -> dict[str, object]:
    found = report.compaction
    latest: dict[str, object] | None = None
    if found is not None:
        entry = found.entry
        latest = {
            "id": entry.id,
            "timestamp": entry.timestamp,
            "firstKeptEntryId": entry.first_kept_entry_id,
            "keptFromMessage": found.kept_from,
            "tokensBefore": entry.tokens_before,
            "summary": entry.summary,
            "summaryTokens": found.summary_tokens,
            "details": None if entry.details in (None, UNSET) else to_builtins(entry.details),
        }
    return {"threshold": report.threshold, "count": report.compactions, "latest": latest}
