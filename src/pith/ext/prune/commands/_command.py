"""`/pruner` and its subcommands (docs/pruning.md, `/pruner`).

Reading a setting subcommand's value is pure (`parse_setting`): the settings key and its JSON
value, or a one-line error naming the expected form. Applying it (for the session, and saved
to the user's settings.json under `prune`) is `apply_setting`. `/pruner on` and `off` are a
switch for this process only; with `--save` they are saved like the settings.

`/pruner status` and `/pruner tree` describe the context as the next request would send it
(`PrunerControl.view`, the same rendering the `context` hook and `pith context` use), not what
this process happened to send last: a resumed session shows its stubs before its first request.

What the commands need from the pruner is `PrunerControl`; the extension provides it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pith.errors import PithError
from pith.ext.prune._config import ALWAYS_PROTECTED, BATCHING_MODES, THINKING, PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._render import RenderStats
from pith.ext.prune._settings import PrunerSettings
from pith.ext.prune._stats import PruneStats, format_stats, masked_batches
from pith.ext.prune.commands._menu import settings_menu
from pith.ext.prune.commands._settings_file import save_prune_setting
from pith.ext.prune.commands._tree import format_tree
from pith.extensions import ExtensionContext

__all__ = [
    "HELP",
    "SUBCOMMANDS",
    "PrunerControl",
    "Setting",
    "apply_setting",
    "complete",
    "parse_setting",
    "run_command",
    "status_text",
    "switch",
]

HELP = """/pruner — the context pruner (strategy summarize, or mask)
  /pruner status                     what is indexed, what the context masks now, protection
  /pruner stats                      summarizer tokens and cost, summaries, tokens saved
  /pruner on | off [--save]          prune or not, for this session only (until pith exits);
                                     --save also saves it: "prune": {"enabled": ...}
  /pruner strategy [mask|summarize|auto]
  /pruner model [provider/id[:thinking]|default]  the summarizer model (and its thinking)
  /pruner protected-tools [names|none]       comma- or space-separated
  /pruner protected-paths [globs|none]       comma- or space-separated
  /pruner min-batch-chars [n]                0: no minimum
  /pruner batching [turn|agent-message]      one summary per assistant turn, or per task
  /pruner thinking [level]                   the summarizer's reasoning effort (default: none)
  /pruner recovery-grace [n]                 user turns a recovered output stays (0: off)
  /pruner dedup [on|off|status]              identical re-reads point at the first read
  /pruner settings                   pick a setting to toggle, cycle or type (saved)
  /pruner tree                       the indexed calls per batch, and what each is now
  /pruner now                        index every finished batch not captured yet (and summarize)
  /pruner compact                    compress every closed chain now (the window is ignored)
  /pruner help                       this text
Without a value a setting subcommand shows it; with one it sets it for this session and saves
it in settings.json (on and off save only with --save). Pruned results read [pruned tN: …]
or [summarized tN: …]; the model gets them back with context_tree_query."""


class PrunerControl(Protocol):
    """What `/pruner` reads and drives."""

    @property
    def settings(self) -> PrunerSettings: ...

    @property
    def index(self) -> PruneIndex: ...

    @property
    def stats(self) -> PruneStats: ...

    @property
    def agent_dir(self) -> Path | None:
        """Where the user's settings.json lives (None: nowhere to save)."""

    @property
    def unwritten(self) -> int:
        """How many captured entries wait to be written."""

    @property
    def budget_fired(self) -> bool: ...

    @property
    def summarizer_key(self) -> str | None:
        """The summarizer model named in the settings (None: the session model)."""

    def view(self, ctx: ExtensionContext) -> RenderStats:
        """What the next request would mask."""

    def show_saved(self, ctx: ExtensionContext) -> None: ...

    def capture_pending(self, ctx: ExtensionContext) -> tuple[int, int]:
        """Index the branch's finished batches not captured yet: (batches, calls)."""

    def flush(self, ctx: ExtensionContext) -> None: ...

    async def summarize(self, ctx: ExtensionContext) -> int: ...

    async def compress(self, ctx: ExtensionContext, window: int, *, force: bool = False) -> int: ...


@dataclass(frozen=True)
class Setting:
    key: str
    """The settings.json key under `prune`."""
    form: str
    """The expected value, for errors and help."""
    show: Callable[[PruneConfig], str]
    values: tuple[str, ...] = ()
    """Fixed values offered as completions."""


def _names(items: tuple[str, ...]) -> str:
    return ", ".join(items) or "none"


SETTINGS: dict[str, Setting] = {
    "strategy": Setting(
        "strategy", "mask, summarize or auto", lambda c: c.strategy, ("mask", "summarize", "auto")
    ),
    "model": Setting(
        "summarizerModel", "provider/id or default", lambda c: c.summarizer_model, ("default",)
    ),
    "protected-tools": Setting(
        "protectedTools", "tool names or none", lambda c: _names(c.protected_tools), ("none",)
    ),
    "protected-paths": Setting(
        "protectedPaths",
        "globs or none",
        lambda c: _names(c.protected_paths) + f" (always: {', '.join(ALWAYS_PROTECTED)})",
        ("none",),
    ),
    "min-batch-chars": Setting(
        "minBatchChars", "a whole number >= 0", lambda c: str(c.min_batch_chars)
    ),
    "batching": Setting(
        "batchingMode", "turn or agent-message", lambda c: c.batching_mode, BATCHING_MODES
    ),
    "thinking": Setting(
        "summarizerThinking",
        "default, off, minimal, low, medium, high or xhigh",
        lambda c: c.summarizer_thinking,
        THINKING,
    ),
    "recovery-grace": Setting(
        "recoveryGraceTurns", "a whole number >= 0", lambda c: str(c.recovery_grace_turns)
    ),
    "dedup": Setting(
        "dedupByContentHash",
        "on, off or status",
        lambda c: "on" if c.dedup_by_content_hash else "off",
        ("on", "off", "status"),
    ),
}
_CHOICE = ("strategy", "batching", "thinking")

SUBCOMMANDS = (
    "status",
    "stats",
    "on",
    "off",
    *SETTINGS,
    "settings",
    "tree",
    "now",
    "compact",
    "help",
)


def parse_setting(name: str, text: str) -> tuple[str, object] | str:
    """The settings key and JSON value `/pruner <name> <text>` sets, or an error line."""
    setting = SETTINGS[name]
    value = text.strip()
    bad = f"/pruner {name}: expected {setting.form}, got {value!r}"
    if name in _CHOICE:
        return (setting.key, value) if value in setting.values else bad
    if name == "dedup":
        return (setting.key, value == "on") if value in ("on", "off") else bad
    if name == "model":
        provider, _, model_id = value.partition("/")
        ok = value == "default" or (provider and model_id and " " not in value)
        return (setting.key, value) if ok else bad
    if name in ("protected-tools", "protected-paths"):
        if value == "none":
            return setting.key, []
        items = [item for item in value.replace(",", " ").split() if item]
        return (setting.key, items) if items and "none" not in items else bad
    if value.isdigit():
        return setting.key, int(value)
    return bad


def _with_thinking(text: str) -> tuple[str, str] | None:
    """`provider/id:level` split in two when `level` is a thinking level (a model id may hold
    a colon of its own, `ollama/qwen3:8b`), else None."""
    model, colon, level = text.strip().rpartition(":")
    if colon and model and level in THINKING:
        return model, level
    return None


def complete(prefix: str) -> list[str]:
    """Completions for the text after `/pruner `: subcommands, then fixed values."""
    name, space, rest = prefix.partition(" ")
    if not space:
        return [word for word in SUBCOMMANDS if word.startswith(prefix)]
    if name in ("on", "off"):
        return [f"{name} --save"] if "--save".startswith(rest.strip()) else []
    setting = SETTINGS.get(name)
    if setting is None:
        return []
    return [f"{name} {value}" for value in setting.values if value.startswith(rest.strip())]


def apply_setting(
    pruner: PrunerControl,
    key: str,
    value: object,
    ctx: ExtensionContext,
    *,
    save: bool = True,
) -> Path | None:
    """Set `prune.<key>` for this process and, with `save`, in the user's settings.json; the
    file saved to, or None (a failed save is a warning: the value still applies to this
    session)."""
    pruner.settings.override(key, value, ctx)
    if not save:
        return None
    agent_dir = pruner.agent_dir
    if agent_dir is None:
        ctx.ui.notify("no agent directory: the setting applies to this session only", "warning")
        return None
    path = agent_dir / "settings.json"
    try:
        save_prune_setting(path, key, value)
    except PithError as error:
        ctx.ui.notify(f"{error}; the setting applies to this session only", "warning")
        return None
    return path


def switch(pruner: PrunerControl, word: str, rest: str, ctx: ExtensionContext) -> None:
    """`/pruner on|off [--save]`: for this process; `--save` also writes settings.json."""
    option = rest.strip()
    if option not in ("", "--save"):
        ctx.ui.notify(f"/pruner {word}: expected nothing or --save, got {option!r}", "warning")
        return
    on = word == "on"
    saved = apply_setting(pruner, "enabled", on, ctx, save=bool(option))
    pruner.show_saved(ctx)
    raw = "" if on else "; stored results show raw again"
    if saved is not None:
        ctx.ui.notify(f"pruning is {word}; saved in {saved}{raw}")
    elif not option:
        ctx.ui.notify(
            f"pruning is {word} for this session{raw} (`/pruner {word} --save` keeps it {word})"
        )
    else:
        ctx.ui.notify(f"pruning is {word} for this session{raw}")


async def run_command(pruner: PrunerControl, args: str, ctx: ExtensionContext) -> None:
    """Handle `/pruner <args>`."""
    word, _, rest = args.strip().partition(" ")
    word = word or "status"
    if word in ("on", "off"):
        switch(pruner, word, rest, ctx)
    elif word == "model" and _with_thinking(rest) is not None:
        model, level = _with_thinking(rest) or ("", "")
        parsed = parse_setting("model", model)
        if isinstance(parsed, str):
            ctx.ui.notify(parsed, "warning")
            return
        apply_setting(pruner, *parsed, ctx)
        apply_setting(pruner, SETTINGS["thinking"].key, level, ctx)
        ctx.ui.notify(f"model: {SETTINGS['model'].show(pruner.settings.config)}, thinking: {level}")
    elif word in SETTINGS:
        if not rest.strip() or (word == "dedup" and rest.strip() == "status"):
            ctx.ui.notify(f"{word}: {SETTINGS[word].show(pruner.settings.config)}")
            return
        parsed = parse_setting(word, rest)
        if isinstance(parsed, str):
            ctx.ui.notify(parsed, "warning")
            return
        apply_setting(pruner, *parsed, ctx)
        ctx.ui.notify(f"{word}: {SETTINGS[word].show(pruner.settings.config)}")
    elif word == "status":
        ctx.ui.notify(status_text(pruner, ctx))
    elif word == "stats":
        ctx.ui.notify(format_stats(pruner.stats))
    elif word == "tree":
        stubbed = set(pruner.view(ctx).stubbed)
        ctx.ui.notify(format_tree(pruner.index, pruner.settings.config, ctx.cwd, stubbed))
    elif word == "now":
        batches, calls = pruner.capture_pending(ctx)
        pruner.flush(ctx)
        ctx.ui.notify(f"indexed {batches} batches ({calls} tool results)")
        settings = pruner.settings
        if settings.active and settings.strategy(ctx) == "summarize":
            summaries = await pruner.summarize(ctx)
            ctx.ui.notify(f"summarized {summaries} batches")
        if settings.active and settings.config.chain_enabled:
            chains = await pruner.compress(ctx, settings.config.chain_window)
            if chains:
                ctx.ui.notify(f"compressed {chains} chains")
    elif word == "compact":
        if not pruner.settings.active:
            ctx.ui.notify("pruning is off: /pruner on first", "warning")
            return
        pruner.capture_pending(ctx)
        chains = await pruner.compress(ctx, 0, force=True)
        ctx.ui.notify(f"compressed {chains} chains")
    elif word == "settings":
        await settings_menu(
            lambda: pruner.settings.config,
            ctx,
            lambda key, value: apply_setting(pruner, key, value, ctx),
        )
    elif word == "help":
        ctx.ui.notify(HELP)
    else:
        ctx.ui.notify(f"/pruner {word}: unknown subcommand\n{HELP}", "warning")


def _strategy_name(pruner: PrunerControl) -> str:
    if pruner.settings.config.strategy == "mask":
        return "mask"
    model = pruner.summarizer_key or "the session model"
    return f"summarize with {model} (mask without a model)"


def _budget_status(config: PruneConfig, fired: bool) -> str:
    threshold, delta = config.auto_budget_threshold, config.budget_turn_delta
    if threshold is None and delta is None:
        return "budget triggers: off (the current task is never pruned)"
    parts = [
        f"threshold {threshold:g} of the window" if threshold is not None else "",
        f"delta {delta:g} per turn" if delta is not None else "",
    ]
    return f"budget triggers: {', '.join(p for p in parts if p)}; " + (
        "fired" if fired else "not fired"
    )


def _purge_status(config: PruneConfig) -> str:
    if not config.purge_errors_enabled:
        return "error purge: off"
    return (
        f"error purge: failed calls' arguments of {config.purge_errors_min_arg_chars}+ "
        f"chars, after {config.purge_errors_cooldown_turns} turns"
    )


def _chain_status(pruner: PrunerControl) -> str:
    config = pruner.settings.config
    done = len(pruner.index.chains)
    if not config.chain_enabled:
        return f"chain compression: off ({done} compressed; /pruner compact still works)"
    fuse = ", summaries fused" if config.chain_fuse else ""
    return (
        f"chain compression: on, the newest {config.chain_window} tasks kept{fuse}; "
        f"{done} compressed"
    )


def status_text(pruner: PrunerControl, ctx: ExtensionContext) -> str:
    """The `/pruner status` text."""
    settings, index = pruner.settings, pruner.index
    config = settings.config
    now = pruner.view(ctx)
    batches = masked_batches(index, now.stubbed)
    state = "on" if settings.active else "off"
    source = "set by /pruner" if "enabled" in settings.overrides else "settings"
    lines = [
        f"pruner: {state} ({source}), strategy {_strategy_name(pruner)}",
        f"indexed: {len(index.records)} results, {len(index.aliases)} identical re-reads",
        f"frontier: {index.frontier or 'none'}"
        + (f" ({pruner.unwritten} entries not written yet)" if pruner.unwritten else ""),
        f"context now: {now.masked} results replaced by stubs in {batches} "
        f"{'batch' if batches == 1 else 'batches'}, ~{now.tokens_saved} tokens saved",
        "protected paths: "
        + ", ".join((*config.protected_paths, *ALWAYS_PROTECTED, *settings.context_files)),
        "protected tools: " + (", ".join(config.protected_tools) or "none"),
        _budget_status(config, pruner.budget_fired),
        _purge_status(config),
        _chain_status(pruner),
        f"batching: {config.batching_mode}, summarizer thinking: {config.summarizer_thinking}",
    ]
    return "\n".join(lines)
