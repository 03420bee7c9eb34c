"""Which model a run uses when the command line names none: the settings, else a known good
model that has credentials, else the first one that has."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pith.errors import InputError

if TYPE_CHECKING:
    from pith.ai import ModelChoice, ModelRegistry

__all__ = ["choose_model", "no_model_hint"]

_PREFERRED = (
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-5",
    "openai/gpt-4.1",
    "openrouter/anthropic/claude-sonnet-4.5",
)


def no_model_hint(agent_dir: Path) -> str:
    """How to give pith a model, for when it has none."""
    return (
        "pass --model provider/id and an API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, "
        f'--api-key), set "defaultModel" in {agent_dir / "settings.json"}, or add a provider '
        f"to {agent_dir / 'models.json'} (see docs/providers.md)"
    )


def choose_model(
    registry: ModelRegistry, pattern: str | None, provider: str | None
) -> ModelChoice | None:
    """The model for `pattern` (`--model` or the `defaultModel` setting) or `provider`; without
    either, the first preferred model with credentials, else the first with credentials. None
    when nothing is configured: no pattern, no provider, no model with credentials."""
    from pith.ai import ModelChoice

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


def _no_model(provider: str) -> NoReturn:
    raise InputError(
        f"provider {provider!r} has no models; pass --model or add models to models.json"
    )
