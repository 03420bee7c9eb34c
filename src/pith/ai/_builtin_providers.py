"""The providers pith knows without configuration: where each one is, which api it speaks, and
the environment variables that hold its key (the same names as Pi where Pi has the provider).

Also the one rule that says which api a model of a built-in provider is spoken to with: the
catalog generator (`scripts/gen_models.py`) uses it for every model it writes, and the
registry for an id the catalog does not list.
"""

from __future__ import annotations

import msgspec

__all__ = ["BUILTIN_PROVIDERS", "ProviderInfo", "default_api_for"]


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
    name: str = ""
    """How people write its name (`OpenRouter`, `Z.AI`), for tables and messages."""


_LOCAL_SERVER_COMPAT: dict[str, object] = {"maxTokensField": "max_tokens", "supportsStore": False}
"""The local servers' OpenAI-compatible APIs (Ollama, LM Studio, vLLM, llama.cpp) know
`max_tokens` (not `max_completion_tokens`) and have no `store`."""

_COMPLETIONS = "openai-completions"


def _hosted(
    provider: str, name: str, base_url: str, *keys: str, api: str = _COMPLETIONS
) -> ProviderInfo:
    return ProviderInfo(provider, api, base_url, keys, name=name)


def _local(provider: str, name: str, port: int) -> ProviderInfo:
    return ProviderInfo(
        provider,
        _COMPLETIONS,
        f"http://localhost:{port}/v1",
        (),
        needs_key=False,
        compat=_LOCAL_SERVER_COMPAT,
        name=name,
    )


BUILTIN_PROVIDERS: dict[str, ProviderInfo] = {
    info.id: info
    for info in (
        _hosted("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY"),
        _hosted(
            "anthropic",
            "Anthropic",
            "https://api.anthropic.com",
            "ANTHROPIC_API_KEY",
            api="anthropic-messages",
        ),
        _hosted(
            "google",
            "Google Gemini",
            "https://generativelanguage.googleapis.com/v1beta",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            api="google-generative-ai",
        ),
        _hosted("xai", "xAI", "https://api.x.ai/v1", "XAI_API_KEY"),
        _hosted("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
        _hosted("mistral", "Mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        _hosted("groq", "Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        _hosted("cerebras", "Cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"),
        _hosted("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        _hosted("together", "Together AI", "https://api.together.ai/v1", "TOGETHER_API_KEY"),
        _hosted(
            "fireworks", "Fireworks", "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"
        ),
        # Z.AI's coding plan, as Pi's `zai` is: a pay-as-you-go key goes to
        # https://api.z.ai/api/paas/v4 (a `baseUrl` in models.json).
        _hosted("zai", "Z.AI", "https://api.z.ai/api/coding/paas/v4", "ZAI_API_KEY"),
        _hosted("moonshotai", "Moonshot AI", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"),
        _hosted(
            "minimax",
            "MiniMax",
            "https://api.minimax.io/anthropic",
            "MINIMAX_API_KEY",
            api="anthropic-messages",
        ),
        _hosted("huggingface", "Hugging Face", "https://router.huggingface.co/v1", "HF_TOKEN"),
        _local("ollama", "Ollama", 11434),
        _local("lmstudio", "LM Studio", 1234),
        _local("vllm", "vLLM", 8000),
        _local("llamacpp", "llama.cpp", 8080),
    )
}


_OPENAI_REASONING_FAMILIES = ("gpt-5", "o1", "o3", "o4", "codex")


def default_api_for(provider: str, model_id: str) -> str:
    """The api a model of a built-in provider is spoken to with: OpenAI's own reasoning models
    (GPT-5, the o-series, Codex) use `openai-responses`, whose encrypted reasoning items carry
    their thinking from one turn to the next; everything else its provider's api."""
    name = model_id.rsplit("/", 1)[-1]
    if provider == "openai" and (name.startswith(_OPENAI_REASONING_FAMILIES) or "codex" in name):
        return "openai-responses"
    return BUILTIN_PROVIDERS[provider].api
