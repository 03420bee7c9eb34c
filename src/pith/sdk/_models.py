"""Which model a session uses when the caller names one, or leaves it to the settings."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

from pith.ai import Model, ModelChoice, ModelRegistry
from pith.errors import InputError
from pith.resources import Settings

__all__ = ["no_model_hint", "pick_model", "resolve_model"]

_PREFERRED = (
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-5",
    "openai/gpt-4.1",
    "openrouter/anthropic/claude-sonnet-4.5",
)


def pick_model(
    registry: ModelRegistry, pattern: str | None, provider: str | None
) -> ModelChoice | None:
    """The model for `pattern` (`--model` or the `defaultModel` setting) or `provider`; without
    either, the first preferred model with credentials, else the first with credentials. None
    when nothing is configured (no local server is asked)."""
    if pattern:
        return registry.find(pattern, provider)
    available = registry.available()
    if provider is not None:
        for model in available:
            if model.provider == provider:
                return ModelChoice(model, None)
        for model in registry.models:
            if model.provider == provider:
                return ModelChoice(model, None)
        _no_model(provider)
    for key in _PREFERRED:
        for model in available:
            if model.key == key:
                return ModelChoice(model, None)
    if available:
        return ModelChoice(available[0], None)
    return None


def resolve_model(
    registry: ModelRegistry, model: str | Model | None, settings: Settings, agent_dir: Path
) -> ModelChoice:
    """The model a program asked for (a `Model`, or `provider/id[:thinking]` as on the command
    line), else the settings' default, else the first with credentials. Raises `InputError`
    saying how to configure one when there is none."""
    if isinstance(model, Model):
        return ModelChoice(model, None)
    values = settings.values
    choice = pick_model(
        registry,
        model or values.default_model,
        None if model else values.default_provider,
    )
    if choice is None:
        raise InputError(f"no model configured: {no_model_hint(agent_dir)}")
    return choice


def no_model_hint(agent_dir: Path) -> str:
    """How to give pith a model, for when it has none."""
    return (
        "pass --model provider/id and an API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, "
        f'--api-key), set "defaultModel" in {agent_dir / "settings.json"}, start Ollama or '
        f"LM Studio, or add a provider to {agent_dir / 'models.json'} (see docs/providers.md)"
    )


def _no_model(provider: str) -> NoReturn:
    raise InputError(
        f"provider {provider!r} has no models; pass --model or add models to models.json"
    )
