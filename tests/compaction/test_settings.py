"""Compaction settings per model, and the threshold predicate."""

from __future__ import annotations

import msgspec

from pith.compaction import (
    DEFAULT_COMPACTION_SETTINGS,
    ResolvedCompactionSettings,
    resolve_compaction_settings,
    should_compact,
)
from pith.resources._settings import CompactionSettings


def _settings(**raw: object) -> CompactionSettings:
    return msgspec.convert(raw, CompactionSettings)


def test_without_settings_the_defaults_are_pis() -> None:
    resolved = resolve_compaction_settings(None)
    assert resolved == ResolvedCompactionSettings(
        enabled=True, reserve_tokens=16384, keep_recent_tokens=20000
    )
    assert resolved == DEFAULT_COMPACTION_SETTINGS


def test_a_model_override_replaces_only_the_values_it_names() -> None:
    settings = _settings(
        reserveTokens=9000,
        keepRecentTokens=15000,
        modelOverrides={"anthropic/claude-x": {"keepRecentTokens": 4000}},
    )
    resolved = resolve_compaction_settings(settings, "anthropic", "claude-x")
    assert resolved.keep_recent_tokens == 4000
    assert resolved.reserve_tokens == 9000


def test_an_override_for_another_model_is_ignored() -> None:
    settings = _settings(modelOverrides={"anthropic/claude-x": {"reserveTokens": 1}})
    assert resolve_compaction_settings(settings, "openai", "claude-x").reserve_tokens == 16384
    assert resolve_compaction_settings(settings, "anthropic", "claude-y").reserve_tokens == 16384


def test_without_a_model_no_override_applies() -> None:
    settings = _settings(modelOverrides={"a/b": {"reserveTokens": 1}})
    assert resolve_compaction_settings(settings).reserve_tokens == 16384


def test_an_override_of_zero_is_used() -> None:
    settings = _settings(modelOverrides={"a/b": {"reserveTokens": 0, "keepRecentTokens": 0}})
    resolved = resolve_compaction_settings(settings, "a", "b")
    assert (resolved.reserve_tokens, resolved.keep_recent_tokens) == (0, 0)


def test_disabled_settings_stay_disabled_under_an_override() -> None:
    settings = _settings(enabled=False, modelOverrides={"a/b": {"reserveTokens": 5}})
    assert resolve_compaction_settings(settings, "a", "b").enabled is False


def test_the_threshold_is_strictly_greater_than_window_minus_reserve() -> None:
    settings = ResolvedCompactionSettings(reserve_tokens=1000)
    assert should_compact(9000, 10000, settings) is False
    assert should_compact(9001, 10000, settings) is True


def test_disabled_compaction_never_triggers() -> None:
    settings = ResolvedCompactionSettings(enabled=False)
    assert should_compact(10**9, 10000, settings) is False


def test_an_unknown_window_never_triggers() -> None:
    settings = ResolvedCompactionSettings(reserve_tokens=0)
    assert should_compact(10**9, 0, settings) is False
    assert should_compact(10**9, -1, settings) is False


def test_the_settings_file_type_is_accepted_directly() -> None:
    settings = _settings(reserveTokens=100)
    assert should_compact(950, 1000, settings) is True
