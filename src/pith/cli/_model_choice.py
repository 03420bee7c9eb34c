"""Which model a run uses: `--model` / `--provider`, the settings' defaults, the first with
credentials, or a local server's; whether its key is there; `--list-models`."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from pith.errors import InputError

if TYPE_CHECKING:
    from pathlib import Path

    from pith.ai import LocalServer, Model, ModelChoice, ModelRegistry

__all__ = ["choose_model", "list_models"]


async def choose_model(
    registry: ModelRegistry,
    pattern: str | None,
    provider: str | None,
    *,
    api_key: str | None,
    agent_dir: Path,
) -> ModelChoice:
    """The model `pattern` / `provider` name (or the first usable one, or a local server's),
    checked for a key: a missing key a provider needs stops the run; an `apiKey` variable that
    is unset for one that may go without is a warning."""
    asked: list[LocalServer] = []
    if pattern is None:
        asked = await _find_local_models(registry, provider)
    choice = _pick(registry, pattern, provider, _no_model_help(agent_dir, asked))
    model = choice.model
    if registry.api_key(model, api_key) is None:
        unresolved = registry.unresolved_key(model)
        if registry.needs_key(model):
            raise InputError(_missing_key_message(registry, model, unresolved))
        if unresolved is not None:
            print(f"pith: warning: {_without_key(unresolved, model)}", file=sys.stderr)
    return choice


async def list_models(registry: ModelRegistry) -> int:
    """`pith --list-models`: `*` usable, `?` usable but its key variable is unset (sent
    without a key), blank when a key it needs is missing; one warning per provider whose
    apiKey does not resolve. With nothing configured, a local server's models are listed."""
    await _find_local_models(registry, None, announce=False)
    usable = {model.key for model in registry.available()}
    unresolved: dict[str, str] = {}
    for model in registry.models:
        if model.provider not in unresolved and registry.api_key(model) is None:
            reason = registry.unresolved_key(model)
            if reason is not None:
                unresolved[model.provider] = reason
    for reason in unresolved.values():
        print(f"pith: warning: {reason}", file=sys.stderr)
    for model in sorted(registry.models, key=lambda m: m.key):
        mark = " "
        if model.key in usable:
            mark = "?" if model.provider in unresolved else "*"
        print(f"{mark} {model.key:<45} ctx {model.context_window:>9,}  out {model.max_tokens:>7,}")
    legend = "\n* = credentials found (or none needed)"
    if unresolved:
        legend += "; ? = its apiKey variable is unset, requests go without a key"
    print(legend, file=sys.stderr)
    return 0


async def _find_local_models(
    registry: ModelRegistry, provider: str | None, *, announce: bool = True
) -> list[LocalServer]:
    """With no model configured (none with credentials, or none of `provider`), ask the local
    servers (Ollama, LM Studio on 127.0.0.1) for theirs, add them, and (`announce`) say which
    is used. Returns the servers asked."""
    from pith.ai import find_local_models, local_servers

    if provider is None:
        if registry.available():
            return []
        servers = local_servers(os.environ)
    else:
        if any(model.provider == provider for model in registry.models):
            return []
        servers = [server for server in local_servers(os.environ) if server.provider == provider]
    found = await find_local_models(servers)
    for index, (server, ids) in enumerate(found):
        added = registry.add_local_models(server.provider, server.base_url, ids)
        if index == 0 and announce:
            others = f" (also there: {', '.join(ids[1:4])}{', ...' if len(ids) > 4 else ''})"
            print(
                f"pith: no model configured; found {server.name} at {server.url}, using "
                f"{added[0].key}{others if len(ids) > 1 else ''}. Choose with --model; give it "
                "its real context window in models.json (docs/providers.md)",
                file=sys.stderr,
            )
    return servers


_MODELS_JSON_EXAMPLE = (
    '{"providers": {"ollama": {"models": [{"id": "qwen3-coder:30b", "contextWindow": 32768}]}}}'
)


def _no_model_help(home: Path, asked: list[LocalServer]) -> str:
    """What to do when no model is configured and no local server answered."""
    where = " or ".join(f"{server.name} at {server.url}" for server in asked)
    answered = f"no {where} answered; " if asked else ""
    return (
        f"no model configured: {answered}set ANTHROPIC_API_KEY or OPENAI_API_KEY (or pass "
        f'--model provider/id and --api-key), set "defaultModel" in {home / "settings.json"}, '
        f"start Ollama or LM Studio, or write {home / 'models.json'}, e.g. "
        f"{_MODELS_JSON_EXAMPLE} (docs/providers.md)"
    )


def _pick(
    registry: ModelRegistry, pattern: str | None, provider: str | None, no_model: str
) -> ModelChoice:
    from pith.sdk import pick_model

    choice = pick_model(registry, pattern, provider)
    if choice is None:
        raise InputError(no_model)
    return choice


def _missing_key_message(registry: ModelRegistry, model: Model, unresolved: str | None) -> str:
    if unresolved is not None:
        return f"no API key for {model.key}: {unresolved}; set it, or pass --api-key"
    config = registry.providers.get(model.provider)
    names = ", ".join(config.env_keys) if config and config.env_keys else "an apiKey in models.json"
    return f"no API key for {model.key}: set {names}, or pass --api-key"


def _without_key(unresolved: str, model: Model) -> str:
    return (
        f"{unresolved}; requests to {model.provider} go without a key (set it, or drop "
        "apiKey if the server takes none)"
    )
