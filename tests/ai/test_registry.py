"""Model registry: models.json in Pi's schema, credentials, and how `--model` patterns resolve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pith.ai import ModelRegistry, resolve_value
from pith.errors import ConfigError, InputError


def registry_with(tmp_path: Path, data: object) -> ModelRegistry:
    (tmp_path / "models.json").write_text(json.dumps(data) if not isinstance(data, str) else data)
    return ModelRegistry.load(tmp_path)


def test_a_custom_openai_compatible_provider_with_pi_defaults(tmp_path: Path) -> None:
    registry = registry_with(
        tmp_path,
        {
            "providers": {
                "local": {
                    "baseUrl": "http://localhost:8000/v1",
                    "api": "openai-completions",
                    "apiKey": "$LOCAL_KEY",
                    "models": [{"id": "coder"}],
                }
            }
        },
    )
    model = registry.find("local/coder").model
    assert (model.api, model.base_url) == ("openai-completions", "http://localhost:8000/v1")
    assert (model.context_window, model.max_tokens, model.input) == (128_000, 16_384, ["text"])
    assert registry.api_key(model, environ={"LOCAL_KEY": "s3cret"}) == "s3cret"
    assert registry.api_key(model, environ={}) is None


def test_key_precedence_flag_then_models_json_then_environment(tmp_path: Path) -> None:
    registry = registry_with(tmp_path, {"providers": {"openai": {"apiKey": "from-file"}}})
    model = registry.find("openai/gpt-4.1").model
    env = {"OPENAI_API_KEY": "from-env"}
    assert registry.api_key(model, "from-flag", environ=env) == "from-flag"
    assert registry.api_key(model, environ=env) == "from-file"
    plain = ModelRegistry.load(None)
    assert plain.api_key(plain.find("openai/gpt-4.1").model, environ=env) == "from-env"


def test_value_forms() -> None:
    env = {"TOKEN": "abc"}
    assert resolve_value("$TOKEN", env) == "abc"
    assert resolve_value("${TOKEN}", env) == "abc"
    assert resolve_value("literal-key", env) == "literal-key"
    assert resolve_value("$$dollar", env) == "$dollar"
    assert resolve_value("$!bang", env) == "!bang"
    assert resolve_value("!printf from-command", env) == "from-command"


def test_a_failing_key_command_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="exited with code 3"):
        resolve_value("!exit 3", {})


def test_setting_only_base_url_routes_a_builtin_provider_through_a_proxy(tmp_path: Path) -> None:
    registry = registry_with(
        tmp_path, {"providers": {"anthropic": {"baseUrl": "https://proxy.test"}}}
    )
    model = registry.find("claude-sonnet-4-5").model
    assert model.base_url == "https://proxy.test"
    assert model.api == "anthropic-messages"


def test_model_overrides_merge_cost_field_by_field(tmp_path: Path) -> None:
    registry = registry_with(
        tmp_path,
        {
            "providers": {
                "openai": {"modelOverrides": {"gpt-4.1": {"cost": {"input": 1}, "maxTokens": 8000}}}
            }
        },
    )
    model = registry.find("openai/gpt-4.1").model
    assert (model.cost.input, model.cost.output, model.max_tokens) == (1, 8, 8000)


def test_patterns_with_thinking_suffix_names_and_unknown_ids() -> None:
    registry = ModelRegistry.load(None)
    choice = registry.find("openai/o3:high")
    assert (choice.model.key, choice.thinking) == ("openai/o3", "high")
    assert registry.find("Claude Sonnet 4.5").model.name == "Claude Sonnet 4.5"
    # A colon that is not a thinking level belongs to the id (Ollama tags).
    assert registry.find("ollama/qwen3:8b").model.id == "qwen3:8b"
    # An id the catalog lacks, on a provider pith knows, gets default limits.
    assert registry.find("openai/gpt-7-preview").model.context_window == 128_000


def test_unknown_models_and_providers_are_input_errors_with_hints() -> None:
    registry = ModelRegistry.load(None)
    with pytest.raises(InputError, match="unknown provider 'nope'"):
        registry.find("gpt", provider="nope")
    with pytest.raises(InputError, match=r"did you mean one of: .*claude"):
        registry.find("claude")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"providers": {', r"models\.json:1:\d+: not valid JSON"),
        ('{"providers": []}', 'expected {"providers": {...}}'),
        (
            '{"providers": {"x": {"api": "openai-completions"}}}',
            "providers.x: a new provider needs `baseUrl`",
        ),
        (
            '{"providers": {"x": {"baseUrl": "u", "api": "smoke-signals"}}}',
            "providers.x.api: 'smoke-signals'",
        ),
        (
            '{"providers": {"x": {"baseUrl": "u", "api": "openai-completions", '
            '"models": [{"id": "m", "contextWindow": "big"}]}}}',
            r"providers\.x\.models\[0\]\.contextWindow: expected `int`, got `str`; fix that field",
        ),
        (
            '{"providers": {"x": {"baseUrl": "u", "api": "openai-completions", "models": [{}]}}}',
            r"models\[0\]\.id: required",
        ),
    ],
)
def test_a_bad_models_json_names_the_file_and_field(
    tmp_path: Path, content: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        registry_with(tmp_path, content)
    assert str(tmp_path / "models.json") in str(caught.value)


def test_pi_fields_pith_does_not_use_are_accepted_with_a_warning(tmp_path: Path) -> None:
    registry = registry_with(
        tmp_path,
        {
            "providers": {
                "x": {
                    "baseUrl": "u",
                    "api": "openai-completions",
                    "models": [{"id": "m", "thinkingLevelMap": {"high": "max"}}],
                }
            }
        },
    )
    assert registry.find("x/m").model.id == "m"
    assert any("thinkingLevelMap" in warning for warning in registry.warnings)


def test_a_models_json_model_without_an_api_follows_the_catalog_s_rule(tmp_path: Path) -> None:
    entries = [{"id": "gpt-6-codex"}, {"id": "gpt-4.2"}, {"id": "o5", "api": "openai-completions"}]
    registry = registry_with(
        tmp_path,
        {
            "providers": {
                "openai": {"models": entries},
                "proxy": {"baseUrl": "http://p/v1", "api": "openai-completions"},
                "groq": {"models": [{"id": "gpt-5-oss"}]},
            }
        },
    )
    apis = {model.key: model.api for model in registry.models}
    # The same api `--model openai/<id>` gives an id nobody listed.
    assert apis["openai/gpt-6-codex"] == "openai-responses"
    assert registry.find("openai/gpt-5.9-unlisted").model.api == "openai-responses"
    assert apis["openai/gpt-4.2"] == "openai-completions"
    assert apis["openai/o5"] == "openai-completions"  # an api of its own wins
    assert apis["groq/gpt-5-oss"] == "openai-completions"  # only OpenAI's own models
    assert registry.find("proxy/gpt-5").model.api == "openai-completions"
