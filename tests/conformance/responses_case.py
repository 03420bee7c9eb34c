"""The conversation `record_responses.py` runs through Pi and `test_responses_conformance.py`
through pith: the model, the fake server's script, the prompts, how a request is compared."""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "FIRST_PROMPT",
    "MODEL",
    "SCRIPT",
    "SECOND_PROMPT",
    "VARYING_FIELDS",
    "models_json",
    "replay_items",
]

MODEL: dict[str, Any] = {
    "id": "fake-gpt",
    "reasoning": True,
    "input": ["text", "image"],
    "contextWindow": 400000,
    "maxTokens": 8192,
    "cost": {"input": 1.25, "output": 10, "cacheRead": 0.125, "cacheWrite": 0},
}
SCRIPT: dict[str, Any] = {
    "turns": [
        {
            "thinking": "Check the notes first.",
            "text": "Reading them.",
            "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
            "usage": {"input": 900, "output": 40, "cacheRead": 3000, "reasoning": 25},
        },
        {"text": "They say: buy milk."},
        {"text": "You're welcome."},
    ]
}
FIRST_PROMPT = "What do my notes say?"
SECOND_PROMPT = "Thanks."
VARYING_FIELDS = frozenset({"input", "tools", "prompt_cache_key"})
"""Request fields not compared: the prompt text and tool wording differ, the cache key is the
session id."""


def models_json(base_url: str) -> str:
    """`models.json` (Pi's and pith's schema) with the one model on the fake server."""
    provider = {"baseUrl": base_url, "api": "openai-responses", "apiKey": "fake-key"}
    return json.dumps({"providers": {"fake": {**provider, "models": [MODEL]}}})


def replay_items(body: dict[str, Any]) -> list[Any]:
    """The `input` items after the instructions (the system prompts differ)."""
    items: list[Any] = body["input"]
    return [item for item in items if item.get("role") not in ("developer", "system")]
