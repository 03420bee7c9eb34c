"""Headers the official OpenAI clients send besides the key (pure)."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["account_headers"]


def account_headers(environ: Mapping[str, str]) -> dict[str, str]:
    """The organization and project headers the official clients send when
    `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID` are set."""
    headers = {}
    if environ.get("OPENAI_ORG_ID"):
        headers["openai-organization"] = environ["OPENAI_ORG_ID"]
    if environ.get("OPENAI_PROJECT_ID"):
        headers["openai-project"] = environ["OPENAI_PROJECT_ID"]
    return headers
