"""Compaction settings as the policy needs them, and the threshold predicate (docs/compaction.md).

`pith.resources` owns `settings.json`; this layer may not import it, so it states what it reads
as small protocols that `pith.resources.CompactionSettings` satisfies, and resolves the
per-model overrides (`compaction.modelOverrides["provider/id"]`) into plain numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import msgspec

__all__ = [
    "DEFAULT_COMPACTION_SETTINGS",
    "DEFAULT_KEEP_RECENT_TOKENS",
    "DEFAULT_RESERVE_TOKENS",
    "CompactionSettingsLike",
    "CompactionSettingsSource",
    "ResolvedCompactionSettings",
    "resolve_compaction_settings",
    "should_compact",
]

DEFAULT_RESERVE_TOKENS = 16384
DEFAULT_KEEP_RECENT_TOKENS = 20000


class CompactionSettingsLike(Protocol):
    """What the threshold and the cut point read."""

    @property
    def enabled(self) -> bool: ...

    @property
    def reserve_tokens(self) -> int: ...

    @property
    def keep_recent_tokens(self) -> int: ...


class CompactionSettingsSource(CompactionSettingsLike, Protocol):
    """The `compaction` settings with their per-model overrides (keys `"provider/modelId"`,
    values `{"reserveTokens": n, "keepRecentTokens": n}`)."""

    @property
    def model_overrides(self) -> Mapping[str, Mapping[str, int]]: ...


class ResolvedCompactionSettings(msgspec.Struct, rename="camel", frozen=True, kw_only=True):
    """Compaction settings for one model: every value is a plain number (Pi's
    `CompactionSettings`, as handed to `prepareCompaction` and to extensions)."""

    enabled: bool = True
    reserve_tokens: int = DEFAULT_RESERVE_TOKENS
    keep_recent_tokens: int = DEFAULT_KEEP_RECENT_TOKENS


DEFAULT_COMPACTION_SETTINGS = ResolvedCompactionSettings()


def _override(entry: Mapping[str, object] | None, field: str) -> int | None:
    if entry is None:
        return None
    value = entry.get(field)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def resolve_compaction_settings(
    settings: CompactionSettingsSource | CompactionSettingsLike | None,
    provider: str | None = None,
    model_id: str | None = None,
) -> ResolvedCompactionSettings:
    """The settings for `provider/model_id`: each token value separately from the model's
    override, else the ordinary setting, else Pi's default. Without a model, no override."""
    if settings is None:
        return DEFAULT_COMPACTION_SETTINGS
    entry: Mapping[str, object] | None = None
    if provider is not None and model_id is not None:
        overrides = getattr(settings, "model_overrides", None)
        if isinstance(overrides, Mapping):
            found = overrides.get(f"{provider}/{model_id}")
            entry = found if isinstance(found, Mapping) else None
    reserve = _override(entry, "reserveTokens")
    keep = _override(entry, "keepRecentTokens")
    return ResolvedCompactionSettings(
        enabled=bool(settings.enabled),
        reserve_tokens=settings.reserve_tokens if reserve is None else reserve,
        keep_recent_tokens=settings.keep_recent_tokens if keep is None else keep,
    )


def should_compact(
    context_tokens: int, context_window: int, settings: CompactionSettingsLike
) -> bool:
    """True when the context has grown past the window minus the reserve (strictly greater).

    Never for disabled compaction, and never for a model whose window is unknown (`<= 0`):
    Pi's between-turn check skips those models; pith applies that guard everywhere.
    """
    if not settings.enabled or context_window <= 0:
        return False
    return context_tokens > context_window - settings.reserve_tokens
