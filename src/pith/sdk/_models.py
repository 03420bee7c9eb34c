"""Which model a session uses, decided the same way for the `pith` command and for a Python
program: the model asked for, else the settings' default, else the first with credentials,
else one a local server (Ollama, LM Studio on 127.0.0.1) offers; then whether its key is
there. Only the wording of the messages differs, naming the caller's own options."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from pith.ai import LocalServer, Model, ModelChoice, ModelRegistry, find_local_models, local_servers
from pith.errors import InputError
from pith.resources import Settings

__all__ = [
    "COMMAND_LINE",
    "PYTHON",
    "Wording",
    "add_local_models",
    "assumed_defaults_note",
    "choose_model",
    "no_model_hint",
    "pick_model",
]

Say = Callable[[str], None]


@dataclass(frozen=True)
class Wording:
    """How the caller names its choices, for the messages that tell the user what to change."""

    model: str
    api_key: str
    approve: str


COMMAND_LINE = Wording(model="--model", api_key="--api-key", approve="pass --approve")
PYTHON = Wording(model="model=", api_key="api_key=", approve="pass trust_project=True")

_PREFERRED = (
    "anthropic/claude-sonnet-4-5",
    "openai/gpt-5",
    "openai/gpt-4.1",
    "openrouter/anthropic/claude-sonnet-4.5",
)

_MODELS_JSON_EXAMPLE = (
    '{"providers": {"ollama": {"models": [{"id": "qwen3-coder:30b", "contextWindow": 32768}]}}}'
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


async def choose_model(
    registry: ModelRegistry,
    model: str | Model | None,
    provider: str | None,
    settings: Settings,
    *,
    api_key: str | None,
    agent_dir: Path,
    warn: Say,
    tell: Say,
    wording: Wording = PYTHON,
    environ: Mapping[str, str] | None = None,
) -> ModelChoice:
    """The model of a session: `model` (a `Model`, or `provider/id[:thinking]`) and
    `provider` as asked, else the settings' `defaultModel` / `defaultProvider`, else the first
    with credentials, else a local server's (`tell` says which was found; `environ` holds
    `PITH_LOCAL_SERVERS`, default the process's environment). Then its key: one the provider
    needs and nobody gave raises `InputError`; an `apiKey` variable that is unset for a
    provider that may go without is a warning. Raises `InputError` saying how to configure a
    model when there is none."""
    if isinstance(model, Model):
        choice = ModelChoice(model, None)
    else:
        values = settings.values
        pattern = model or (None if provider else values.default_model)
        provider = provider or (None if model else values.default_provider)
        asked: list[LocalServer] = []
        if pattern is None:
            env = os.environ if environ is None else environ
            asked = await add_local_models(registry, provider, env, tell=tell, wording=wording)
        found = pick_model(registry, pattern, provider)
        if found is None:
            raise InputError(_no_model_help(agent_dir, asked, wording))
        choice = found
    chosen = choice.model
    if choice.assumed:
        warn(assumed_defaults_note(chosen))
    if registry.api_key(chosen, api_key) is None:
        unresolved = registry.unresolved_key(chosen)
        if registry.needs_key(chosen):
            raise InputError(_missing_key_message(registry, chosen, unresolved, wording))
        if unresolved is not None:
            warn(
                f"{unresolved}; requests to {chosen.provider} go without a key (set it, or "
                "drop apiKey if the server takes none)"
            )
    return choice


async def add_local_models(
    registry: ModelRegistry,
    provider: str | None,
    environ: Mapping[str, str],
    *,
    tell: Say | None = None,
    wording: Wording = PYTHON,
) -> list[LocalServer]:
    """With no model configured (none with credentials, or none of `provider`), ask the local
    servers `environ` names (`PITH_LOCAL_SERVERS`, else Ollama and LM Studio at their default
    ports) for their models and add them to `registry`; `tell` hears which one is used.
    Returns the servers asked (none when a model is configured)."""
    if provider is None:
        if registry.available():
            return []
        servers = local_servers(environ)
    else:
        if any(model.provider == provider for model in registry.models):
            return []
        servers = [server for server in local_servers(environ) if server.provider == provider]
    found = await find_local_models(servers)
    for index, (server, ids) in enumerate(found):
        added = registry.add_local_models(server.provider, server.base_url, ids)
        if index == 0 and tell is not None:
            shown = f"{', '.join(ids[1:4])}{', ...' if len(ids) > 4 else ''}"
            others = f" (also there: {shown})" if len(ids) > 1 else ""
            tell(
                f"no model configured; found {server.name} at {server.url}, using "
                f"{added[0].key}{others}. Choose with {wording.model}; give it its real "
                "context window in models.json (docs/providers.md)"
            )
    return servers


def assumed_defaults_note(model: Model) -> str:
    """One line for a model the catalog does not list: the defaults it runs with, and where
    to set the real values."""
    images = "text and images" if model.supports_images() else "text only"
    thinking = "reasons" if model.reasoning else "no reasoning"
    return (
        f"{model.key} is not in pith's model list; assuming a {model.context_window:,}-token "
        f"context window, {model.max_tokens:,} output tokens, {images}, {thinking}, no prices "
        f"(set contextWindow, maxTokens, input, reasoning, cost under "
        f"providers.{model.provider}.models in models.json, docs/providers.md)"
    )


def no_model_hint(agent_dir: Path) -> str:
    """How to give pith a model, for when it has none."""
    return (
        "pass --model provider/id and an API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, "
        f'--api-key), set "defaultModel" in {agent_dir / "settings.json"}, start Ollama or '
        f"LM Studio, or add a provider to {agent_dir / 'models.json'} (see docs/providers.md)"
    )


def _no_model_help(home: Path, asked: list[LocalServer], wording: Wording) -> str:
    """What to do when no model is configured and no local server answered."""
    where = " or ".join(f"{server.name} at {server.url}" for server in asked)
    answered = f"no {where} answered; " if asked else ""
    return (
        f"no model configured: {answered}set ANTHROPIC_API_KEY or OPENAI_API_KEY or save a "
        f"key with `pith auth login PROVIDER` (or pass "
        f'{wording.model} provider/id and {wording.api_key}), set "defaultModel" in '
        f"{home / 'settings.json'}, start Ollama or LM Studio, or write "
        f"{home / 'models.json'}, e.g. {_MODELS_JSON_EXAMPLE} (docs/providers.md)"
    )


def _missing_key_message(
    registry: ModelRegistry, model: Model, unresolved: str | None, wording: Wording
) -> str:
    if unresolved is not None:
        return f"no API key for {model.key}: {unresolved}; set it, or pass {wording.api_key}"
    config = registry.providers.get(model.provider)
    names = ", ".join(config.env_keys) if config and config.env_keys else "an apiKey in models.json"
    return (
        f"no API key for {model.key}: set {names}, save one with "
        f"`pith auth login {model.provider}`, or pass {wording.api_key}"
    )


def _no_model(provider: str) -> NoReturn:
    raise InputError(
        f"provider {provider!r} has no models; pass --model or add models to models.json"
    )
