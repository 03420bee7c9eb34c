"""An agent dir whose `models.json` points a provider at a fake server, for tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Protocol

__all__ = ["configure_agent_dir", "subprocess_env"]


class _Server(Protocol):
    @property
    def base_url(self) -> str: ...

    @property
    def anthropic_base_url(self) -> str: ...

    @property
    def gemini_base_url(self) -> str: ...


def configure_agent_dir(
    agent: Path,
    server: _Server,
    *,
    provider: str = "fake",
    model: str = "m",
    api: str = "openai-completions",
    **model_fields: object,
) -> Path:
    """Write `agent/models.json` with provider `provider` serving `model` from `server`
    (`--model fake/m` by default); returns `agent`."""
    agent.mkdir(parents=True, exist_ok=True)
    bases = {
        "anthropic-messages": server.anthropic_base_url,
        "google-generative-ai": server.gemini_base_url,
    }
    base = bases.get(api, server.base_url)
    entry = {
        "baseUrl": base,
        "api": api,
        "apiKey": "k",
        "models": [{"id": model, **model_fields}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {provider: entry}}))
    return agent


def subprocess_env(agent: Path, **extra: str) -> dict[str, str]:
    """The environment of a `pith` subprocess using `agent`, without real API keys."""
    env = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    env.pop("PITH_SESSION_DIR", None)
    env["PITH_AGENT_DIR"] = str(agent)
    env.update(extra)
    return env
