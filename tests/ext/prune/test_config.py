"""The `prune` settings: defaults, values, and one warning per bad value."""

from __future__ import annotations

from pith.ext.prune import PruneConfig, read_config


def test_no_settings_gives_the_defaults_with_pruning_on() -> None:
    config, problems = read_config(None)
    assert config == PruneConfig()
    assert config.enabled
    assert config.strategy == "auto"
    assert config.protected_paths == ("**/skills/**/*.md",)
    assert (config.min_batch_chars, config.min_gain_tokens) == (1000, 2000)
    assert (config.spill_threshold, config.spill_preview_bytes) == (65536, 2048)
    assert problems == []


def test_values_are_read_and_an_empty_list_wins() -> None:
    config, problems = read_config(
        {"enabled": False, "minBatchChars": 0, "protectedPaths": [], "strategy": "summarize"}
    )
    assert problems == []
    assert not config.enabled
    assert config.min_batch_chars == 0
    assert config.protected_paths == ()
    assert config.strategy == "summarize"


def test_each_bad_value_is_named_and_defaulted() -> None:
    config, problems = read_config(
        {
            "minGainTokens": -1,
            "enabled": "yes",
            "protectedTools": "read",
            "strategy": "x",
            "spillThreshold": 0,
            "colour": 1,
        }
    )
    assert config == PruneConfig()
    assert len(problems) == 6
    assert problems[0].startswith('settings "prune.minGainTokens" must be a whole number >= 0')
    assert any('"prune.enabled" must be true or false' in p for p in problems)
    assert any('"prune.colour" is not a pruner setting' in p for p in problems)


def test_a_section_that_is_not_an_object_is_one_warning() -> None:
    config, problems = read_config(["mask"])
    assert config == PruneConfig()
    assert problems == [
        'settings "prune" must be an object, e.g. {"enabled": true}; using defaults'
    ]


def test_purge_errors_and_budget_settings_are_read() -> None:
    config, problems = read_config(
        {
            "purgeErrors": {"enabled": False, "cooldownTurns": 3, "minArgChars": 0},
            "autoBudgetThreshold": 0.5,
            "budgetTurnDelta": 0.1,
        }
    )
    assert problems == []
    assert not config.purge_errors_enabled
    assert (config.purge_errors_cooldown_turns, config.purge_errors_min_arg_chars) == (3, 0)
    assert (config.auto_budget_threshold, config.budget_turn_delta) == (0.5, 0.1)


def test_purge_errors_and_budget_defaults() -> None:
    config = PruneConfig()
    assert config.purge_errors_enabled
    assert (config.purge_errors_cooldown_turns, config.purge_errors_min_arg_chars) == (2, 500)
    assert config.auto_budget_threshold is None
    assert config.budget_turn_delta is None


def test_bad_purge_and_budget_values_are_named_and_defaulted() -> None:
    config, problems = read_config(
        {
            "purgeErrors": {"cooldownTurns": 0, "minArgChars": -1, "enabled": "yes", "x": 1},
            "autoBudgetThreshold": 1.5,
            "budgetTurnDelta": True,
        }
    )
    assert config == PruneConfig()
    assert problems == [
        'settings "prune.purgeErrors.cooldownTurns" must be a whole number >= 1; got 0, '
        "using the default",
        'settings "prune.purgeErrors.minArgChars" must be a whole number >= 0; got -1, '
        "using the default",
        "settings \"prune.purgeErrors.enabled\" must be true or false; got 'yes', "
        "using the default",
        'settings "prune.purgeErrors.x" is not a pruner setting (ignored)',
        'settings "prune.autoBudgetThreshold" must be a number in (0, 1] or null; got 1.5, '
        "using the default",
        'settings "prune.budgetTurnDelta" must be a number in (0, 1] or null; got True, '
        "using the default",
    ]
    _, problems = read_config({"purgeErrors": 3})
    assert problems == [
        'settings "prune.purgeErrors" must be an object, e.g. {"enabled": true}; '
        "got 3, using the defaults"
    ]
