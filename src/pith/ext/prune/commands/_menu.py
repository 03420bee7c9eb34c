"""`/pruner settings`: pick a setting, and it is toggled, cycled or asked for; again until
`done`. Each change applies at once and is saved like the other `/pruner` settings. Without a
UI (print, json) it shows the settings in force.

What each row shows and what choosing it sets is pure (`menu_rows`, `next_value`,
`parse_typed`); asking and saving is `settings_menu`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pith.ext.prune._config import BATCHING_MODES, STRATEGIES, THINKING, PruneConfig
from pith.extensions import ExtensionContext

__all__ = [
    "DONE",
    "Row",
    "menu_rows",
    "next_value",
    "parse_typed",
    "settings_menu",
    "settings_text",
]

DONE = "done"
BUDGET_PRESETS: tuple[float | None, ...] = (None, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class Row:
    name: str
    key: str
    """The `prune` key it sets."""
    kind: str
    """`toggle`, `cycle` or `number` (asked for)."""
    show: Callable[[PruneConfig], str]
    choices: tuple[object, ...] = ()
    minimum: int = 0


def _chain(config: PruneConfig, **change: object) -> dict[str, object]:
    """The whole `chainCompression` object with `change` (it is saved as one value)."""
    return {
        "enabled": config.chain_enabled,
        "rollingWindow": config.chain_window,
        "stripFinalAssistantThinking": config.chain_strip_thinking,
        "fuseRangeSummary": config.chain_fuse,
        **change,
    }


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def _budget(value: float | None) -> str:
    return "off" if value is None else f"{value:.0%}"


def menu_rows() -> list[Row]:
    return [
        Row("pruning", "enabled", "toggle", lambda c: _on(c.enabled)),
        Row("strategy", "strategy", "cycle", lambda c: c.strategy, STRATEGIES),
        Row("batching", "batchingMode", "cycle", lambda c: c.batching_mode, BATCHING_MODES),
        Row("thinking", "summarizerThinking", "cycle", lambda c: c.summarizer_thinking, THINKING),
        Row("dedup", "dedupByContentHash", "toggle", lambda c: _on(c.dedup_by_content_hash)),
        Row(
            "chain compression",
            "chainCompression.enabled",
            "toggle",
            lambda c: _on(c.chain_enabled),
        ),
        Row(
            "chain window",
            "chainCompression.rollingWindow",
            "number",
            lambda c: str(c.chain_window),
            minimum=1,
        ),
        Row(
            "fuse chain summaries",
            "chainCompression.fuseRangeSummary",
            "toggle",
            lambda c: _on(c.chain_fuse),
        ),
        Row(
            "auto budget",
            "autoBudgetThreshold",
            "cycle",
            lambda c: _budget(c.auto_budget_threshold),
            BUDGET_PRESETS,
        ),
        Row("min-batch-chars", "minBatchChars", "number", lambda c: str(c.min_batch_chars)),
        Row("min gain tokens", "minGainTokens", "number", lambda c: str(c.min_gain_tokens)),
        Row(
            "recovery-grace",
            "recoveryGraceTurns",
            "number",
            lambda c: str(c.recovery_grace_turns),
        ),
    ]


def _current(row: Row, config: PruneConfig) -> object:
    if row.key == "autoBudgetThreshold":
        return config.auto_budget_threshold
    return row.show(config)


def _split(row: Row, config: PruneConfig, value: object) -> tuple[str, object]:
    """The top-level key and value to save (a `chainCompression.x` row saves the object)."""
    group, dot, sub = row.key.partition(".")
    if dot:
        return group, _chain(config, **{sub: value})
    return row.key, value


def next_value(row: Row, config: PruneConfig) -> tuple[str, object]:
    """What choosing a toggle or cycle row sets: (key, value)."""
    if row.kind == "toggle":
        return _split(row, config, row.show(config) != "on")
    current = _current(row, config)
    position = row.choices.index(current) if current in row.choices else -1
    return _split(row, config, row.choices[(position + 1) % len(row.choices)])


def parse_typed(row: Row, config: PruneConfig, text: str) -> tuple[str, object] | str:
    """What a typed number sets, or a one-line error."""
    value = text.strip()
    if not value.isdigit() or int(value) < row.minimum:
        return f"{row.name}: expected a whole number >= {row.minimum}, got {value!r}"
    return _split(row, config, int(value))


def settings_text(config: PruneConfig) -> str:
    """Every row as `name: value`, one per line."""
    return "\n".join(f"{row.name}: {row.show(config)}" for row in menu_rows())


Apply = Callable[[str, object], object]
"""Sets and saves one `prune` key (what it returns is ignored)."""

Current = Callable[[], PruneConfig]
"""The settings in force now (they change as the menu applies them)."""


async def settings_menu(current: Current, ctx: ExtensionContext, apply: Apply) -> None:
    """The loop: pick a row (its label shows the value in force), it changes, pick again;
    `done` or no answer ends it."""
    if not ctx.has_ui:
        ctx.ui.notify(settings_text(current()))
        return
    while True:
        rows = {f"{row.name}: {row.show(current())}": row for row in menu_rows()}
        picked = await ctx.ui.select("pruner settings", [*rows, DONE])
        if picked is None or picked == DONE or picked not in rows:
            return
        row = rows[picked]
        if row.kind == "number":
            typed = await ctx.ui.input(f"{row.name} (now {row.show(current())})")
            if typed is None:
                continue
            parsed = parse_typed(row, current(), typed)
            if isinstance(parsed, str):
                ctx.ui.notify(parsed, "warning")
                continue
            apply(*parsed)
        else:
            apply(*next_value(row, current()))
