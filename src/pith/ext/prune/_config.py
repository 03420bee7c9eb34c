"""The `prune` settings: checked one key at a time, a bad value warned about and defaulted.

Keys (settings.json, `"prune": {...}`), as docs/pruning.md lists them:

| key | default | meaning |
|---|---|---|
| `enabled` | true | master switch (`/pruner off` turns it off for the session) |
| `strategy` | auto | `summarize` (LLM summary per batch), `mask` (stub, no model call), `auto` |
| `summarizerModel` | `"default"` | `provider/id` of the summarizer; `default`: session model |
| `summarizerIdleTimeoutMs` | 20000 | give up a summary after this much stream silence (0: never) |
| `summarizerMaxTimeoutMs` | 180000 | give up a summary after this long in all (0: never) |
| `minBatchChars` | 1000 | a batch with fewer raw chars is not indexed (0: no minimum) |
| `minGainTokens` | 2000 | no pruning that frees fewer estimated tokens (chars/4) |
| `keepRecentTurns` | 0 | also keep this many user turns before the current one raw |
| `recoveryGraceTurns` | 3 | user turns a `context_tree_query` output stays verbatim (0: off) |
| `protectedTools` | [] | tool names never pruned |
| `protectedPaths` | ["**/skills/**/*.md"] | globs on `args.path` never pruned |
| `dedupByContentHash` | true | an identical re-read aliases the earlier record |
| `spillThreshold` | 65536 | chars of one result that go to a sidecar file |
| `spillPreviewBytes` | 2048 | head preview of a spilled result kept in its stub |
| `purgeErrors.enabled` | true | replace old failed calls' large arguments by a marker |
| `purgeErrors.cooldownTurns` | 2 | assistant turns after a failed call before its purge (>= 1) |
| `purgeErrors.minArgChars` | 500 | only purge argument JSON at least this long |
| `autoBudgetThreshold` | null | share of the window (0, 1] past which the current task prunes too |
| `budgetTurnDelta` | null | rise of the usage share in one turn (0, 1] that does the same |
| `batchingMode` | `"turn"` | `turn`: one summary per assistant turn; `agent-message`: per task |
| `summarizerThinking` | `"default"` | reasoning effort of the summarizer (`default`, `off`, …) |
| `chainCompression.enabled` | true | compress closed user→final-reply chains older than K |
| `chainCompression.rollingWindow` | 3 | K: the newest closed chains kept as they are (>= 1) |
| `chainCompression.stripFinalAssistantThinking` | true | drop a compressed chain's final thinking |
| `chainCompression.fuseRangeSummary` | true | one summarizer call fuses a chain's summaries |

An unset `strategy` means `summarize` when the session has a model, `mask` otherwise.

`**/AGENTS.md`, `**/CLAUDE.md` and the session's loaded context files are always protected,
whatever `protectedPaths` says.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

__all__ = ["ALWAYS_PROTECTED", "PruneConfig", "read_config"]

ALWAYS_PROTECTED = ("**/AGENTS.md", "**/CLAUDE.md")
"""Standing instructions: protected even when `protectedPaths` is emptied."""

STRATEGIES = ("mask", "summarize", "auto")
BATCHING_MODES = ("turn", "agent-message")
THINKING = ("default", "off", "minimal", "low", "medium", "high", "xhigh")


@dataclass(frozen=True)
class PruneConfig:
    enabled: bool = True
    strategy: str = "auto"
    """`mask`, `summarize`, or `auto` (not set: `summarize` when there is a model)."""
    summarizer_model: str = "default"
    summarizer_idle_timeout_ms: int = 20000
    summarizer_max_timeout_ms: int = 180000
    min_batch_chars: int = 1000
    min_gain_tokens: int = 2000
    keep_recent_turns: int = 0
    recovery_grace_turns: int = 3
    protected_tools: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = ("**/skills/**/*.md",)
    dedup_by_content_hash: bool = True
    spill_threshold: int = 65536
    spill_preview_bytes: int = 2048
    purge_errors_enabled: bool = True
    purge_errors_cooldown_turns: int = 2
    purge_errors_min_arg_chars: int = 500
    auto_budget_threshold: float | None = None
    budget_turn_delta: float | None = None
    batching_mode: str = "turn"
    summarizer_thinking: str = "default"
    chain_enabled: bool = True
    chain_window: int = 3
    chain_strip_thinking: bool = True
    chain_fuse: bool = True
    context_files: frozenset[str] = field(default_factory=frozenset)
    """Absolute paths of the AGENTS.md / CLAUDE.md files loaded into the system prompt."""

    def effective_strategy(self, has_model: bool) -> str:
        """The strategy in force: `auto` is `summarize` with a model, `mask` without; an
        explicit `summarize` without a model is `mask` too (nothing to ask)."""
        if self.strategy == "mask" or not has_model:
            return "mask"
        return "summarize"

    def with_context_files(self, paths: frozenset[str]) -> PruneConfig:
        return replace(self, context_files=paths)


# key -> (attribute, kind, minimum)
_INTS = {
    "minBatchChars": ("min_batch_chars", 0),
    "minGainTokens": ("min_gain_tokens", 0),
    "keepRecentTurns": ("keep_recent_turns", 0),
    "recoveryGraceTurns": ("recovery_grace_turns", 0),
    "spillThreshold": ("spill_threshold", 1),
    "spillPreviewBytes": ("spill_preview_bytes", 0),
    "summarizerIdleTimeoutMs": ("summarizer_idle_timeout_ms", 0),
    "summarizerMaxTimeoutMs": ("summarizer_max_timeout_ms", 0),
}
_BOOLS = {"enabled": "enabled", "dedupByContentHash": "dedup_by_content_hash"}
_LISTS = {"protectedTools": "protected_tools", "protectedPaths": "protected_paths"}

_FRACTIONS = {
    "autoBudgetThreshold": "auto_budget_threshold",
    "budgetTurnDelta": "budget_turn_delta",
}
_CHOICES = {
    "batchingMode": ("batching_mode", BATCHING_MODES),
    "summarizerThinking": ("summarizer_thinking", THINKING),
}
# purgeErrors key -> (attribute, minimum); `enabled` is the one bool
_PURGE_INTS = {
    "cooldownTurns": ("purge_errors_cooldown_turns", 1),
    "minArgChars": ("purge_errors_min_arg_chars", 0),
}


# chainCompression key -> attribute (bools) or (attribute, minimum) (ints)
_CHAIN_BOOLS = {
    "enabled": "chain_enabled",
    "stripFinalAssistantThinking": "chain_strip_thinking",
    "fuseRangeSummary": "chain_fuse",
}
_CHAIN_INTS = {"rollingWindow": ("chain_window", 1)}
_PURGE_BOOLS = {"enabled": "purge_errors_enabled"}


def _read_group(
    group: str,
    raw: object,
    values: dict[str, object],
    bools: dict[str, str],
    ints: dict[str, tuple[str, int]],
) -> list[str]:
    """Read the object `prune.<group>` into `values`; one line per value that was ignored."""
    if not isinstance(raw, Mapping):
        return [
            f'settings "prune.{group}" must be an object, e.g. {{"enabled": true}}; '
            f"got {raw!r}, using the defaults"
        ]
    problems: list[str] = []
    for key, value in raw.items():
        name = str(key)
        where = f'settings "prune.{group}.{name}"'
        if name in bools:
            if isinstance(value, bool):
                values[bools[name]] = value
            else:
                problems.append(f"{where} must be true or false; got {value!r}, using the default")
        elif name in ints:
            attribute, minimum = ints[name]
            if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
                values[attribute] = value
            else:
                problems.append(
                    f"{where} must be a whole number >= {minimum}; got {value!r}, using the default"
                )
        else:
            problems.append(f"{where} is not a pruner setting (ignored)")
    return problems


def read_config(raw: object) -> tuple[PruneConfig, list[str]]:
    """The `prune` settings over the defaults, and one line per value that was ignored."""
    config = PruneConfig()
    problems: list[str] = []
    if raw is None:
        return config, problems
    if not isinstance(raw, Mapping):
        return config, [
            'settings "prune" must be an object, e.g. {"enabled": true}; using defaults'
        ]
    values: dict[str, object] = {}
    for key, value in raw.items():
        name = str(key)
        where = f'settings "prune.{name}"'
        if name in _BOOLS:
            if isinstance(value, bool):
                values[_BOOLS[name]] = value
            else:
                problems.append(f"{where} must be true or false; got {value!r}, using the default")
        elif name in _INTS:
            attribute, minimum = _INTS[name]
            if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
                values[attribute] = value
            else:
                problems.append(
                    f"{where} must be a whole number >= {minimum}; got {value!r}, using the default"
                )
        elif name in _LISTS:
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                values[_LISTS[name]] = tuple(value)
            else:
                problems.append(
                    f"{where} must be a list of strings; got {value!r}, using the default"
                )
        elif name in _FRACTIONS:
            if value is None or (
                isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1
            ):
                values[_FRACTIONS[name]] = None if value is None else float(value)
            else:
                problems.append(
                    f"{where} must be a number in (0, 1] or null; got {value!r}, using the default"
                )
        elif name == "purgeErrors":
            problems.extend(_read_group(name, value, values, _PURGE_BOOLS, _PURGE_INTS))
        elif name == "chainCompression":
            problems.extend(_read_group(name, value, values, _CHAIN_BOOLS, _CHAIN_INTS))
        elif name in _CHOICES:
            attribute, choices = _CHOICES[name]
            if value in choices:
                values[attribute] = value
            else:
                listed = ", ".join(f'"{c}"' for c in choices)
                problems.append(
                    f"{where} must be one of {listed}; got {value!r}, using the default"
                )
        elif name == "strategy":
            if value in STRATEGIES:
                values["strategy"] = value
            else:
                problems.append(
                    f'{where} must be "mask", "summarize" or "auto"; got {value!r}, '
                    "using the default"
                )
        elif name == "summarizerModel":
            if isinstance(value, str) and value.strip():
                values["summarizer_model"] = value.strip()
            else:
                problems.append(
                    f'{where} must be "default" or "provider/model-id"; got {value!r}, '
                    "using the session model"
                )
        else:
            problems.append(f"{where} is not a pruner setting (ignored)")
    return replace(config, **values), problems  # type: ignore[arg-type]
