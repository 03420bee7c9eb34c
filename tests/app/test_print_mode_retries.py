"""What `pith -p` tells the user while a provider fails: each retry, and where it could not
connect. A real pith process against a port nothing listens on, and the fake model server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

from pith.testing import FakeServer, subprocess_env


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def write_agent_dir(agent: Path, base_url: str, *, retries: int = 2) -> None:
    agent.mkdir(parents=True, exist_ok=True)
    models = {
        "providers": {
            "local": {
                "baseUrl": base_url,
                "api": "openai-completions",
                "models": [{"id": "m", "contextWindow": 32000, "maxTokens": 1000}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models))
    settings = {"retry": {"maxRetries": retries, "baseDelayMs": 10}}
    (agent / "settings.json").write_text(json.dumps(settings))


def run_pith(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "pith", "--model", "local/m", "--no-session", *args],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
        env=subprocess_env(tmp_path / "agent"),
    )


def test_each_retry_is_told_on_stderr_and_the_error_names_the_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    write_agent_dir(tmp_path / "agent", url, retries=2)
    result = run_pith(tmp_path, "-p", "hi")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    retries = [line for line in lines if "retrying" in line]
    assert len(retries) == 2, result.stderr
    for attempt, line in enumerate(retries, start=1):
        assert line.startswith("pith: warning: ")
        assert f"attempt {attempt} of 2" in line
        assert f"{url}/chat/completions" in line
    assert "0.01 s" in retries[0]
    assert "0.02 s" in retries[1]
    final = lines[-1]
    assert final.startswith("pith: Connection error"), result.stderr
    assert "provider local" in final
    assert f"{url}/chat/completions" in final
    assert "after 2 retries" in final


def test_json_mode_tells_retries_on_stderr_too(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    write_agent_dir(tmp_path / "agent", url, retries=1)
    result = run_pith(tmp_path, "--mode", "json", "hi")
    assert result.returncode == 1
    retries = [line for line in result.stderr.splitlines() if "retrying" in line]
    assert len(retries) == 1, result.stderr
    assert "attempt 1 of 1" in retries[0]
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["attempt"] for e in events if e["type"] == "auto_retry_start"] == [1]


def test_a_retry_that_succeeds_is_told_once_and_the_answer_printed(tmp_path: Path) -> None:
    script = {
        "turns": [
            {"fault": {"status": 503, "message": "Service Unavailable"}},
            {"text": "Worked on the second try."},
        ]
    }
    with FakeServer(script) as server:
        write_agent_dir(tmp_path / "agent", server.base_url, retries=3)
        result = run_pith(tmp_path, "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Worked on the second try.\n"
    retries = [line for line in result.stderr.splitlines() if "retrying" in line]
    assert len(retries) == 1, result.stderr
    assert "503 Service Unavailable" in retries[0]
    assert "attempt 1 of 3" in retries[0]
