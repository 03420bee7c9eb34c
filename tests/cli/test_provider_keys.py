"""API keys that models.json names but the environment does not hold: said, never sent as if
nothing were wrong. Real pith processes; the fake model server where a request is made."""

from __future__ import annotations

from pathlib import Path

from pith.testing import FakeServer
from tests.cli.pith_process import run_pith, write_models


def vllm(base_url: str) -> dict[str, object]:
    return {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "$VLLM_API_KEY",
        "models": [{"id": "coder", "contextWindow": 32000, "maxTokens": 1000}],
    }


def test_an_unset_key_variable_of_a_server_you_added_is_a_warning(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "hello"}]}) as server:
        write_models(tmp_path / "agent", {"vllm": vllm(server.base_url)})
        result = run_pith(tmp_path, "-p", "--model", "vllm/coder", "hi")
        requests = len(server.requests)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"
    assert requests == 1
    warnings = [line for line in result.stderr.splitlines() if "VLLM_API_KEY" in line]
    assert len(warnings) == 1, result.stderr
    assert warnings[0].startswith("pith: warning: ")
    assert "models.json: providers.vllm.apiKey: $VLLM_API_KEY is not set" in warnings[0]


def test_a_set_key_variable_is_not_warned_about(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "hello"}]}) as server:
        write_models(tmp_path / "agent", {"vllm": vllm(server.base_url)})
        result = run_pith(tmp_path, "-p", "--model", "vllm/coder", "hi", VLLM_API_KEY="s3cret")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_an_unset_key_variable_of_a_hosted_provider_stops_before_any_request(
    tmp_path: Path,
) -> None:
    with FakeServer({"turns": [{"text": "hello"}]}) as server:
        proxy = {"baseUrl": server.anthropic_base_url, "apiKey": "$PROXY_KEY"}
        write_models(tmp_path / "agent", {"anthropic": proxy})
        # The provider's own variable is set: it must not be sent to the proxy instead.
        result = run_pith(
            tmp_path, "-p", "--model", "anthropic/claude-sonnet-4-5", "hi", ANTHROPIC_API_KEY="sk"
        )
        requests = len(server.requests)
    assert result.returncode == 2
    assert requests == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pith: no API key for anthropic/claude-sonnet-4-5: ")
    assert "providers.anthropic.apiKey: $PROXY_KEY is not set" in lines[0]


def list_marks(output: str) -> dict[str, str]:
    """`provider/id` -> the mark in the first column of `--list-models`' table."""
    marks = {}
    for line in output.splitlines()[1:]:
        provider, model = line[1:].split()[:2]
        marks[f"{provider}/{model}"] = line[0]
    return marks


def test_list_models_does_not_mark_a_model_whose_key_variable_is_unset(tmp_path: Path) -> None:
    write_models(
        tmp_path / "agent",
        {
            "vllm": vllm("http://gpu-box:8000/v1"),
            "anthropic": {"apiKey": "$PROXY_KEY"},
            "ollama": {"models": [{"id": "qwen3:8b"}]},
        },
    )
    result = run_pith(tmp_path, "--list-models", ANTHROPIC_API_KEY="sk")
    assert result.returncode == 0, result.stderr
    marks = list_marks(result.stdout)
    assert marks["ollama/qwen3:8b"] == "*"
    assert marks["anthropic/claude-sonnet-4-5"] == " "
    assert marks["vllm/coder"] == "?"
    warnings = [line for line in result.stderr.splitlines() if line.startswith("pith: warning:")]
    assert len(warnings) == 2, result.stderr
    assert any("$VLLM_API_KEY is not set" in line for line in warnings)
    assert any("$PROXY_KEY is not set" in line for line in warnings)
    assert "? = " in result.stderr
