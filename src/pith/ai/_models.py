"""Models: what pith knows about each one (window, output cap, prices) and how to reach it.

The built-in ones come from the catalog (`_catalog`), their providers from `_builtin_providers`.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from pith.ai._wire import UNSET, UnsetType, WireStruct

__all__ = [
    "THINKING_LEVELS",
    "Model",
    "ModelCost",
    "ThinkingLevel",
    "as_thinking_level",
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
