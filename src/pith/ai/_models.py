"""Models: what pith knows about each one (window, output cap, prices) and how to reach it."""

from __future__ import annotations

from typing import Literal

import msgspec

from pith.ai._wire import UNSET, UnsetType, WireStruct

__all__ = [
    "BUILTIN_PROVIDERS",
    "THINKING_LEVELS",
    "Model",
    "ModelCost",
    "ProviderInfo",
    "ThinkingLevel",
    "as_thinking_level",
    "builtin_models",
    "default_api_for",
]

ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = (
    "off",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
)


def as_thinking_level(value: object, default: ThinkingLevel = "off") -> ThinkingLevel:
    """`value` when it names a thinking level, else `default`."""
    for level in THINKING_LEVELS:
        if level == value:
            return level
    return default


class ModelCost(WireStruct):
    """Prices in US dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class Model(WireStruct):
    """One model on one provider. Field names and defaults follow Pi's `models.json`."""

    id: str
    provider: str
    api: str
    """Wire protocol: `openai-completions`, `openai-responses`, `anthropic-messages`,
    `google-generative-ai` or `faux`."""
    name: str = ""
    base_url: str = ""
    reasoning: bool = False
    input: list[str] = msgspec.field(default_factory=lambda: ["text"])
    cost: ModelCost = msgspec.field(default_factory=ModelCost)
    context_window: int = 128_000
    max_tokens: int = 16_384
    headers: dict[str, str] | UnsetType = UNSET
    compat: dict[str, object] | UnsetType = UNSET
    sampling_params: dict[str, object] | UnsetType = UNSET

    @property
    def key(self) -> str:
        """`provider/id`, how people name a model on the command line."""
        return f"{self.provider}/{self.id}"

    def supports_images(self) -> bool:
        return "image" in self.input


class ProviderInfo(msgspec.Struct, frozen=True):
    """A provider pith knows without configuration."""

    id: str
    api: str
    base_url: str
    env_keys: tuple[str, ...]
    """Environment variables holding its API key, first found wins."""
    needs_key: bool = True
    compat: dict[str, object] = msgspec.field(default_factory=dict)
    """`compat` flags its server needs; models.json's own flags win over them."""


_LOCAL_SERVER_COMPAT: dict[str, object] = {"maxTokensField": "max_tokens", "supportsStore": False}
"""Ollama's and LM Studio's OpenAI-compatible APIs list `max_tokens` (not
`max_completion_tokens`) and have no `store`."""


BUILTIN_PROVIDERS: dict[str, ProviderInfo] = {
    info.id: info
    for info in (
        ProviderInfo(
            "openai", "openai-completions", "https://api.openai.com/v1", ("OPENAI_API_KEY",)
        ),
        ProviderInfo(
            "anthropic", "anthropic-messages", "https://api.anthropic.com", ("ANTHROPIC_API_KEY",)
        ),
        ProviderInfo(
            "google",
            "google-generative-ai",
            "https://generativelanguage.googleapis.com/v1beta",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        ),
        ProviderInfo(
            "openrouter",
            "openai-completions",
            "https://openrouter.ai/api/v1",
            ("OPENROUTER_API_KEY",),
        ),
        ProviderInfo(
            "groq", "openai-completions", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",)
        ),
        ProviderInfo("xai", "openai-completions", "https://api.x.ai/v1", ("XAI_API_KEY",)),
        ProviderInfo(
            "deepseek", "openai-completions", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",)
        ),
        ProviderInfo(
            "mistral", "openai-completions", "https://api.mistral.ai/v1", ("MISTRAL_API_KEY",)
        ),
        ProviderInfo(
            "cerebras", "openai-completions", "https://api.cerebras.ai/v1", ("CEREBRAS_API_KEY",)
        ),
        ProviderInfo(
            "ollama",
            "openai-completions",
            "http://localhost:11434/v1",
            (),
            needs_key=False,
            compat=_LOCAL_SERVER_COMPAT,
        ),
        ProviderInfo(
            "lmstudio",
            "openai-completions",
            "http://localhost:1234/v1",
            (),
            needs_key=False,
            compat=_LOCAL_SERVER_COMPAT,
        ),
    )
}


_OPENAI_REASONING_FAMILIES = ("gpt-5", "o1", "o3", "o4", "codex")


def default_api_for(provider: str, model_id: str, reasoning: bool) -> str:
    """The api a built-in model is spoken to with: OpenAI's own reasoning models (GPT-5, the
    o-series, Codex) use `openai-responses`, whose encrypted reasoning items carry their
    thinking from one turn to the next; everything else its provider's api."""
    name = model_id.rsplit("/", 1)[-1]
    if provider == "openai" and (
        name.startswith(_OPENAI_REASONING_FAMILIES) or (reasoning and "codex" in name)
    ):
        return "openai-responses"
    return BUILTIN_PROVIDERS[provider].api


def _model(
    provider: str,
    model_id: str,
    name: str,
    window: int,
    max_tokens: int,
    prices: tuple[float, float, float, float],
    *,
    reasoning: bool = False,
    images: bool = True,
) -> Model:
    info = BUILTIN_PROVIDERS[provider]
    return Model(
        id=model_id,
        provider=provider,
        api=default_api_for(provider, model_id, reasoning),
        name=name,
        base_url=info.base_url,
        reasoning=reasoning,
        input=["text", "image"] if images else ["text"],
        cost=ModelCost(
            input=prices[0], output=prices[1], cache_read=prices[2], cache_write=prices[3]
        ),
        context_window=window,
        max_tokens=max_tokens,
    )


def builtin_models() -> list[Model]:
    """Well-known models with their windows, output caps and list prices (USD per 1M tokens).

    Anything else is one `models.json` entry away (see docs/providers.md).
    """
    return [
        _model("openai", "gpt-5", "GPT-5", 400_000, 128_000, (1.25, 10, 0.125, 0), reasoning=True),
        _model(
            "openai",
            "gpt-5-mini",
            "GPT-5 mini",
            400_000,
            128_000,
            (0.25, 2, 0.025, 0),
            reasoning=True,
        ),
        _model(
            "openai",
            "gpt-5-nano",
            "GPT-5 nano",
            400_000,
            128_000,
            (0.05, 0.4, 0.005, 0),
            reasoning=True,
        ),
        _model("openai", "gpt-4.1", "GPT-4.1", 1_047_576, 32_768, (2, 8, 0.5, 0)),
        _model("openai", "gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, (0.4, 1.6, 0.1, 0)),
        _model("openai", "gpt-4o", "GPT-4o", 128_000, 16_384, (2.5, 10, 1.25, 0)),
        _model("openai", "gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, (0.15, 0.6, 0.075, 0)),
        _model("openai", "o3", "o3", 200_000, 100_000, (2, 8, 0.5, 0), reasoning=True),
        _model(
            "openai", "o4-mini", "o4-mini", 200_000, 100_000, (1.1, 4.4, 0.275, 0), reasoning=True
        ),
        _model(
            "anthropic",
            "claude-opus-4-1",
            "Claude Opus 4.1",
            200_000,
            32_000,
            (15, 75, 1.5, 18.75),
            reasoning=True,
        ),
        _model(
            "anthropic",
            "claude-sonnet-4-5",
            "Claude Sonnet 4.5",
            200_000,
            64_000,
            (3, 15, 0.3, 3.75),
            reasoning=True,
        ),
        _model(
            "anthropic",
            "claude-sonnet-4-0",
            "Claude Sonnet 4",
            200_000,
            64_000,
            (3, 15, 0.3, 3.75),
            reasoning=True,
        ),
        _model(
            "anthropic",
            "claude-haiku-4-5",
            "Claude Haiku 4.5",
            200_000,
            64_000,
            (1, 5, 0.1, 1.25),
            reasoning=True,
        ),
        _model(
            "anthropic",
            "claude-3-5-haiku-latest",
            "Claude Haiku 3.5",
            200_000,
            8_192,
            (0.8, 4, 0.08, 1),
        ),
        _model(
            "google",
            "gemini-2.5-pro",
            "Gemini 2.5 Pro",
            1_048_576,
            65_536,
            (1.25, 10, 0.125, 0),
            reasoning=True,
        ),
        _model(
            "google",
            "gemini-2.5-flash",
            "Gemini 2.5 Flash",
            1_048_576,
            65_536,
            (0.3, 2.5, 0.03, 0),
            reasoning=True,
        ),
        _model(
            "google",
            "gemini-2.5-flash-lite",
            "Gemini 2.5 Flash-Lite",
            1_048_576,
            65_536,
            (0.1, 0.4, 0.01, 0),
            reasoning=True,
        ),
        _model(
            "deepseek",
            "deepseek-chat",
            "DeepSeek V3",
            128_000,
            8_192,
            (0.27, 1.1, 0.07, 0),
            images=False,
        ),
        _model(
            "deepseek",
            "deepseek-reasoner",
            "DeepSeek R1",
            128_000,
            64_000,
            (0.55, 2.19, 0.14, 0),
            reasoning=True,
            images=False,
        ),
        _model("xai", "grok-4", "Grok 4", 256_000, 64_000, (3, 15, 0.75, 0), reasoning=True),
        _model(
            "mistral",
            "devstral-medium-latest",
            "Devstral Medium",
            128_000,
            32_000,
            (0.4, 2, 0, 0),
            images=False,
        ),
    ]
