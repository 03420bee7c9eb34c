"""Which provider implementation speaks a model's `api` (imported only when first used)."""

from __future__ import annotations

from pith.ai._models import Model
from pith.ai._registry import KNOWN_APIS
from pith.ai._stream import Provider
from pith.errors import ConfigError

__all__ = ["provider_for"]

_CACHE: dict[str, Provider] = {}


def provider_for(model: Model) -> Provider:
    """The provider for `model.api`; raises `ConfigError` for an API pith cannot speak."""
    api = model.api
    if api in _CACHE:
        return _CACHE[api]
    provider: Provider
    if api == "openai-completions":
        from pith.ai._openai_compat import OpenAICompatProvider

        provider = OpenAICompatProvider()
    elif api == "anthropic-messages":
        from pith.ai._anthropic import AnthropicProvider

        provider = AnthropicProvider()
    elif api == "google-generative-ai":
        from pith.ai._google import GoogleProvider

        provider = GoogleProvider()
    elif api == "openai-responses":
        from pith.ai._openai_responses import OpenAIResponsesProvider

        provider = OpenAIResponsesProvider()
    elif api == "faux":
        from pith.ai._faux import FauxProvider

        provider = FauxProvider()
    else:
        raise ConfigError(
            f"model {model.key} uses api {api!r}, which pith does not speak; "
            f"use one of {', '.join(KNOWN_APIS)}"
        )
    _CACHE[api] = provider
    return provider
