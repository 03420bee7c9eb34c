"""A fresh machine with a local Ollama or LM Studio and no models.json: pith finds the server
(only on 127.0.0.1, only when no model is configured) and says so; with none running, the error
shows the models.json to write. Real pith processes; the fake model server plays the local
server, on ports given through PITH_LOCAL_SERVERS."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

from pith.ai import ModelRegistry, chat_model_ids
from pith.testing import FakeServer, configure_agent_dir
from tests.cli import pith_process


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def run_pith(tmp_path: Path, servers: str, *args: str) -> subprocess.CompletedProcess[str]:
    """pith asking the local servers `servers` (`PITH_LOCAL_SERVERS`) when it has no model."""
    return pith_process.run_pith(tmp_path, *args, PITH_LOCAL_SERVERS=servers)


def test_a_local_ollama_is_used_when_no_model_is_configured(tmp_path: Path) -> None:
    script = {"model": "qwen3:8b", "turns": [{"text": "hello from ollama"}]}
    with FakeServer(script) as server:
        port = server.port
        result = run_pith(tmp_path, f"ollama={port}", "-p", "hi")
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from ollama\n"
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pith: no model configured; found Ollama at ")
    assert f"http://127.0.0.1:{port}" in lines[0]
    assert "using ollama/qwen3:8b" in lines[0]
    assert [r["path"] for r in requests] == ["/v1/models", "/v1/chat/completions"]
    body = requests[1]["body"]
    assert isinstance(body, dict)
    assert body["model"] == "qwen3:8b"
    assert "max_tokens" in body
    assert "max_completion_tokens" not in body


def test_lm_studio_is_used_when_ollama_does_not_answer(tmp_path: Path) -> None:
    script = {"model": "qwen/qwen3-coder-30b", "turns": [{"text": "hello from lm studio"}]}
    with FakeServer(script) as server:
        servers = f"ollama={closed_port()},lmstudio={server.port}"
        result = run_pith(tmp_path, servers, "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from lm studio\n"
    assert "found LM Studio at " in result.stderr
    assert "using lmstudio/qwen/qwen3-coder-30b" in result.stderr


def test_no_server_is_asked_when_a_model_is_configured(tmp_path: Path) -> None:
    with FakeServer({"turns": [{"text": "configured"}]}) as configured, FakeServer({}) as local:
        configure_agent_dir(tmp_path / "agent", configured)
        result = run_pith(tmp_path, f"ollama={local.port}", "-p", "hi")
        asked = len(local.requests)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "configured\n"
    assert asked == 0


def test_without_a_local_server_the_error_shows_the_models_json_to_write(tmp_path: Path) -> None:
    port = closed_port()
    result = run_pith(tmp_path, f"ollama={port}", "-p", "hi")
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("pith: no model configured")
    assert f"127.0.0.1:{port}" in line
    assert str(tmp_path / "agent" / "models.json") in line
    # The file the message shows is one pith accepts, with a model in it.
    start = line.index('{"providers"')
    shown, _ = json.JSONDecoder().raw_decode(line[start:])
    (tmp_path / "agent" / "models.json").write_text(json.dumps(shown))
    registry = ModelRegistry.load(tmp_path / "agent")
    assert [m.key for m in registry.available()] == ["ollama/qwen3-coder:30b"]


def test_a_server_that_never_answers_counts_as_none(tmp_path: Path) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections are accepted by the kernel; nothing is ever sent back
        result = run_pith(tmp_path, f"ollama={silent.getsockname()[1]}", "-p", "hi")
    assert result.returncode == 2
    assert result.stderr.startswith("pith: no model configured")


def test_a_malformed_server_list_is_a_one_line_error(tmp_path: Path) -> None:
    result = run_pith(tmp_path, "ollama=example.com:11434", "-p", "hi")
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("pith: PITH_LOCAL_SERVERS: ")
    assert "'ollama=example.com:11434'" in lines[0]


def test_embedding_models_are_not_chosen_to_chat() -> None:
    listing = {
        "data": [
            {"id": "nomic-embed-text:latest"},
            {"id": "text-embedding-nomic-embed-text-v1.5"},
            {"id": "qwen3:8b"},
            {"name": "no id"},
        ]
    }
    assert chat_model_ids(listing) == ["qwen3:8b"]
    assert chat_model_ids({"data": "nope"}) == []
    assert chat_model_ids([1, 2]) == []


def test_list_models_shows_the_models_a_local_server_has(tmp_path: Path) -> None:
    with FakeServer({"model": "qwen3:8b"}) as server:
        result = run_pith(tmp_path, f"ollama={server.port}", "--list-models")
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert any(row[:3] == ["*", "ollama", "qwen3:8b"] for row in rows), result.stdout
    assert any(
        row[:3] == ["*", "ollama", "qwen3:8b"] and row[-2:] == ["local", "server"] for row in rows
    )
