"""Start-up time: `pith --version`, and `pith -p` until its first request reaches the model.

    python bench/startup.py

Both run as fresh processes, best of several runs. The first request is timed at the fake
model server (its receive time minus the moment the process was started). Baseline: a bare
`python -c pass` in the same minute. Targets: `--version` at most 150 ms, first request at most
800 ms.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import summary
from pith.testing import FakeServer

RUNS = 7


def best(command: list[str], env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return min(times)


def first_request(api: str) -> float:
    script = {"turns": [{"text": "ok"} for _ in range(RUNS)]}
    with FakeServer(script) as server, tempfile.TemporaryDirectory() as directory:
        agent = Path(directory) / "agent"
        agent.mkdir()
        base = server.base_url if api == "openai-completions" else server.anthropic_base_url
        models = {
            "providers": {
                "fake": {
                    "baseUrl": base,
                    "api": api,
                    "apiKey": "k",
                    "models": [{"id": "fake-model"}],
                }
            }
        }
        (agent / "models.json").write_text(json.dumps(models))
        env = dict(os.environ, PITH_AGENT_DIR=str(agent))
        delays = []
        for index in range(RUNS):
            started = time.time()
            subprocess.run(
                [sys.executable, "-m", "pith", "-p", "--model", "fake/fake-model", "hi"],
                env=env,
                capture_output=True,
                check=True,
                cwd=directory,
            )
            delays.append(server.timings()[index][0] - started)
        return min(delays)


def main() -> None:
    python = best([sys.executable, "-c", "pass"])
    version = best([sys.executable, "-m", "pith", "--version"])
    openai_first = first_request("openai-completions")
    anthropic_first = first_request("anthropic-messages")
    rows = [
        ("python -c pass", python),
        ("pith --version", version),
        ("pith -p → 1st request (openai)", openai_first),
        ("pith -p → 1st request (anthropic)", anthropic_first),
    ]
    for name, seconds in rows:
        print(f"{name:<36} {seconds * 1000:8.1f} ms")
    print(
        summary(
            "startup",
            python_ms=round(python * 1000, 1),
            version_ms=round(version * 1000, 1),
            first_request_openai_ms=round(openai_first * 1000, 1),
            first_request_anthropic_ms=round(anthropic_first * 1000, 1),
            targets="version<=150,first_request<=800",
        )
    )


if __name__ == "__main__":
    main()
