"""Each local server's models.json snippet in docs/providers.md, taken from the docs text itself,
sends the request body that server takes. The snippet's `baseUrl` is pointed at the fake model
server; a real pith process makes the request; its body is compared with the recorded shape."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pith.testing import FakeServer, subprocess_env

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"

# What each server is sent besides the conversation (`messages`) and the tool list (`tools`):
# the token-limit field its API documents, no `store` where the API has none, and
# `reasoning_effort` only where the server takes it per request.
GOLDEN: dict[str, dict[str, object]] = {
    "Ollama": {
        "model": "qwen3-coder:30b",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 8192,
    },
    "LM Studio": {
        "model": "qwen/qwen3-coder-30b",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 8192,
    },
    "vLLM": {
        "model": "Qwen/Qwen3-Coder-30B-A3B-Instruct",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 16384,
    },
    "llama.cpp server": {
        "model": "local",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 4096,
    },
}


def snippet(heading: str) -> dict[str, object]:
    """The first ```json block under `### heading` in docs/providers.md."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n### {heading}\n", 1)[1].split("\n### ", 1)[0]
    match = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert match is not None, f"no json block under {heading}"
    data: dict[str, object] = json.loads(match.group(1))
    return data


@pytest.mark.parametrize("heading", list(GOLDEN))
def test_each_server_snippet_sends_what_that_server_takes(tmp_path: Path, heading: str) -> None:
    models = snippet(heading)
    providers = models["providers"]
    assert isinstance(providers, dict)
    assert len(providers) == 1
    [(provider, config)] = providers.items()
    model_id = config["models"][0]["id"]
    agent, work = tmp_path / "agent", tmp_path / "work"
    agent.mkdir()
    work.mkdir()
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        config["baseUrl"] = server.base_url
        (agent / "models.json").write_text(json.dumps(models))
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pith",
                "--no-session",
                "-p",
                "--model",
                f"{provider}/{model_id}",
                "hi",
            ],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=60,
            env=subprocess_env(agent, VLLM_API_KEY="k"),
        )
        body = server.requests[0]["body"]
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert isinstance(body, dict)
    assert body["messages"][0]["role"] == "system"
    assert isinstance(body["tools"], list)
    assert body["tools"]
    shape = {key: value for key, value in body.items() if key not in ("messages", "tools")}
    assert shape == GOLDEN[heading]


def test_a_model_listed_under_the_built_in_ollama_gets_its_fields_without_compat(
    tmp_path: Path,
) -> None:
    agent, work = tmp_path / "agent", tmp_path / "work"
    agent.mkdir()
    work.mkdir()
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        models = {"providers": {"ollama": {"baseUrl": server.base_url, "models": [{"id": "q"}]}}}
        (agent / "models.json").write_text(json.dumps(models))
        result = subprocess.run(
            [sys.executable, "-m", "pith", "--no-session", "-p", "--model", "ollama/q", "hi"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=60,
            env=subprocess_env(agent),
        )
        body = server.requests[0]["body"]
    assert result.returncode == 0, result.stderr
    assert isinstance(body, dict)
    assert "max_tokens" in body
    assert "max_completion_tokens" not in body
    assert "store" not in body
