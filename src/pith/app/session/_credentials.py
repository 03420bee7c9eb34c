"""The keys and headers a session's requests carry."""

from __future__ import annotations

from pith.ai import Model, ModelRegistry

__all__ = ["Credentials"]


class Credentials:
    """The registry's credentials, with the key given on the command line (`--api-key`) first."""

    def __init__(self, registry: ModelRegistry, override: str | None = None) -> None:
        self.registry = registry
        self._override = override

    def api_key(self, model: Model) -> str | None:
        """The key requests to `model` carry (`--api-key`, then models.json, then the
        environment, then auth.json)."""
        return self.registry.api_key(model, self._override)

    def missing(self, model: Model) -> bool:
        """Whether `model` needs a key and none is known."""
        return self.registry.needs_key(model) and self.api_key(model) is None

    def headers(self, model: Model) -> dict[str, str]:
        headers = self.registry.request_headers(model)
        key = self.api_key(model)
        if key and self.registry.needs_bearer_header(model):
            headers.setdefault("Authorization", f"Bearer {key}")
        return headers
