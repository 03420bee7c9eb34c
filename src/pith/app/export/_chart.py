"""The context-size chart of an export: inline SVG made here, so it needs no script. Pure.

One stacked bar per model request (system prompt, messages, tool outputs; what pruning kept
out drawn hatched above them), a dashed line where a compaction happened, and a table with the
same numbers below it. Every bar links to its assistant message in the page.
"""

from __future__ import annotations

from html import escape

from pith.app.export._usage import CompactionMark, ContextTimeline, RequestUsage

__all__ = ["render_chart"]

WIDTH = 1000
HEIGHT = 300
LEFT = 64
RIGHT = 12
TOP = 16
BOTTOM = 28

_SERIES = (
    ("system", "system prompt"),
    ("messages", "messages"),
    ("tools", "tool outputs"),
    ("pruned", "kept out by pruning (estimate)"),
)


def render_chart(timeline: ContextTimeline) -> str:
    """The chart section's HTML: legend, SVG and the numbers as a table."""
    if not timeline.requests:
        return '<p class="muted">No model request on this branch reported its usage.</p>'
    parts = [_legend(), _svg(timeline), _notes(timeline), _table(timeline)]
    return "\n".join(part for part in parts if part)


def _legend() -> str:
    items = "".join(
        f'<span class="key"><span class="swatch s-{name}"></span>{escape(text)}</span>'
        for name, text in _SERIES
    )
    return (
        f'<div class="legend">{items}<span class="key"><span class="swatch s-compaction">'
        "</span>compaction</span></div>"
    )


def _svg(timeline: ContextTimeline) -> str:
    requests = timeline.requests
    compacted = max((mark.tokens_before for mark in timeline.compactions), default=0)
    top = _nice_ceiling(max(timeline.peak, compacted, 1))
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    slot = plot_w / len(requests)
    bar = max(slot * 0.8, 0.5) if slot >= 2 else slot
    out = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-label="Context size per model request" xmlns="http://www.w3.org/2000/svg">',
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" class="hatch-bg"/>'
        '<line x1="0" y1="0" x2="0" y2="6" class="hatch-line"/></pattern></defs>',
    ]
    for step in range(5):
        value = top * step / 4
        y = TOP + plot_h - plot_h * step / 4
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="axis" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{_short(value)}</text>"
        )

    def height(tokens: int) -> float:
        return plot_h * tokens / top

    for index, request in enumerate(requests):
        x = LEFT + index * slot + (slot - bar) / 2
        y = TOP + plot_h
        out.append(f'<a href="#e-{escape(request.entry_id)}"><g class="bar">')
        out.append(f"<title>{escape(_tooltip(request))}</title>")
        for name, tokens in (
            ("system", request.system),
            ("messages", request.messages),
            ("tools", request.tool_outputs),
            ("pruned", request.pruned),
        ):
            if tokens <= 0:
                continue
            h = height(tokens)
            y -= h
            out.append(
                f'<rect class="s-{name}" x="{x:.2f}" y="{y:.2f}" width="{bar:.2f}" '
                f'height="{h:.2f}"/>'
            )
        out.append("</g></a>")
    for mark in timeline.compactions:
        x = LEFT + mark.after_requests * slot
        out.append(
            f'<g class="compaction"><title>{escape(_compaction_tooltip(mark))}</title>'
            f'<line x1="{x:.2f}" x2="{x:.2f}" y1="{TOP}" y2="{TOP + plot_h}"/>'
            f'<circle cx="{x:.2f}" cy="{TOP + plot_h - height(mark.tokens_before):.2f}" r="3.5"/>'
            "</g>"
        )
    for index in _tick_indexes(len(requests)):
        x = LEFT + index * slot + slot / 2
        out.append(
            f'<text class="axis" x="{x:.1f}" y="{HEIGHT - 8}" text-anchor="middle">'
            f"{index + 1}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def _notes(timeline: ContextTimeline) -> str:
    requests = timeline.requests
    last = requests[-1]
    pruned_total = sum(r.pruned for r in requests)
    lines = [
        f"{len(requests)} requests on this branch; the last one sent {last.reported:,} tokens "
        f"(system prompt {last.system:,}, messages {last.messages:,}, tool outputs "
        f"{last.tool_outputs:,}); {sum(r.reported for r in requests):,} input tokens in all."
    ]
    if pruned_total:
        lines.append(
            f"Pruning kept about {pruned_total:,} tokens out of these requests "
            f"(the most from one request: {max(r.pruned for r in requests):,})."
        )
    for mark in timeline.compactions:
        lines.append(
            f"Compaction after request {mark.after_requests}: {mark.tokens_before:,} tokens "
            f"summarized into about {mark.summary_tokens:,}."
        )
    stats = timeline.prune_stats
    if stats:
        described = ", ".join(
            f"{escape(str(key))} {escape(str(value))}" for key, value in stats.items()
        )
        lines.append(f"Pruner statistics: {described}.")
    if timeline.system_calibrated:
        lines.append(
            "This session does not store its system prompt: its size is what the first request "
            "reported beyond the estimated messages."
        )
    lines.append(
        "Each request's reported input is split in the proportions of pith's chars/4 estimate; "
        "pruning is estimated from the pruner's records."
    )
    return '<ul class="notes">' + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def _table(timeline: ContextTimeline) -> str:
    rows = [
        "<tr><th>#</th><th>entry</th><th>model</th><th>input</th><th>system</th>"
        "<th>messages</th><th>tool outputs</th><th>pruned</th></tr>"
    ]
    marks: dict[int, list[CompactionMark]] = {}
    for mark in timeline.compactions:
        marks.setdefault(mark.after_requests, []).append(mark)
    for request in timeline.requests:
        for mark in marks.get(request.number - 1, []):
            rows.append(_mark_row(mark))
        pruned = f"{request.pruned:,} ({request.pruned_results})" if request.pruned else ""
        rows.append(
            f"<tr><td>{request.number}</td>"
            f'<td><a href="#e-{escape(request.entry_id)}">{escape(request.entry_id)}</a></td>'
            f"<td>{escape(request.model)}</td><td>{request.reported:,}</td>"
            f"<td>{request.system:,}</td><td>{request.messages:,}</td>"
            f"<td>{request.tool_outputs:,}</td><td>{pruned}</td></tr>"
        )
    for mark in marks.get(len(timeline.requests), []):
        rows.append(_mark_row(mark))
    return (
        f'<details class="numbers"><summary>Numbers per request ({len(timeline.requests)})'
        f"</summary><table>{''.join(rows)}</table></details>"
    )


def _mark_row(mark: CompactionMark) -> str:
    return (
        f'<tr class="compaction-row"><td></td><td><a href="#e-{escape(mark.entry_id)}">'
        f'{escape(mark.entry_id)}</a></td><td colspan="6">compaction: '
        f"{mark.tokens_before:,} tokens before, summary ~{mark.summary_tokens:,}</td></tr>"
    )


def _tooltip(request: RequestUsage) -> str:
    text = (
        f"request {request.number} ({request.model}): {request.reported:,} input tokens\n"
        f"system prompt {request.system:,}\nmessages {request.messages:,}\n"
        f"tool outputs {request.tool_outputs:,}"
    )
    if request.pruned:
        text += f"\npruned ~{request.pruned:,} ({request.pruned_results} tool results)"
    return text


def _compaction_tooltip(mark: CompactionMark) -> str:
    return (
        f"compaction {mark.entry_id}: {mark.tokens_before:,} tokens before, "
        f"summary ~{mark.summary_tokens:,}"
    )


def _nice_ceiling(value: int) -> int:
    """The smallest 1, 2, 2.5 or 5 × 10^n at or above `value` (axis top)."""
    magnitude = 1
    while magnitude * 10 <= value:
        magnitude *= 10
    for factor in (1, 2, 2.5, 5, 10):
        if magnitude * factor >= value:
            return int(magnitude * factor)
    return magnitude * 10


def _short(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def _tick_indexes(count: int) -> list[int]:
    """At most ~10 request numbers under the axis, always the first and the last."""
    step = max(1, -(-count // 10))
    ticks = list(range(0, count, step))
    if ticks[-1] != count - 1:
        if count - 1 - ticks[-1] < step / 2:
            ticks.pop()
        ticks.append(count - 1)
    return ticks
