"""Keystroke-to-screen latency of the interactive editor, and streaming speed over a long reply.

    python bench/tui_latency.py

`pith` runs in a pseudo-terminal (80×24, xterm-256color) against the fake model server, as a
user would run it:

- **typing**: a session of 2 000 messages (user prompts, replies with tool calls, tool results
  of about 500 bytes; built with `SessionStore`) is opened with `pith --session FILE`; once the
  resumed conversation is on screen and pith is idle, 120 characters are typed one at a time,
  each sent when the previous one has echoed. The time from writing a key to the pty until
  that character comes back in pith's output is one sample. Baseline, in the same run: the
  same with an empty session. Target: p95 <= 50 ms with the 2 000-message session.
- **streaming**: the fake server streams a reply of 10 000 tokens (one token = one 4-character
  delta, no delay between frames, so pith's own work sets the pace) in paragraphs; a marker
  closes every 1 000-token slice. The time at which each marker reaches the terminal gives the
  time per slice. Rendering only what changed means a late slice costs what an early one does:
  the ratio of the last three slices to slices 2-4 should stay near 1 (target <= 1.5), in the
  2 000-message session as in the empty one.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import summary
from pith.ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

MESSAGES = 2000
KEYS = 120
WARMUP_KEYS = 10
TOKENS = 10_000
SLICE = 1_000
TOKEN_CHARS = 4
WAIT = 60.0
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r")


# --- the session and the reply --------------------------------------------------------------


def build_session(work: Path, directory: Path, size: int) -> Path:
    """A stored session of `size` messages: tasks of a prompt, turns of a tool call and its
    result, and a closing reply."""
    store = SessionStore.create(str(work), directory)
    count = 0
    clock = 1_700_000_000_000
    number = 0
    while count < size:
        clock += 1000
        store.append_message(UserMessage(content=f"task {count}: look into module {count % 37}"))
        count += 1
        for _ in range(4):
            if count + 3 > size:
                break
            number += 1
            call = ToolCall(id=f"c{number}", name="bash", arguments={"command": f"cat m{number}"})
            store.append_message(
                AssistantMessage(content=[TextContent(text="Reading it."), call], timestamp=clock)
            )
            output = "\n".join(f"line {k} of module {number}: value = {k * 7}" for k in range(12))
            store.append_message(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name="bash",
                    content=[TextContent(text=output)],
                    timestamp=clock,
                )
            )
            count += 2
        if count < size:
            text = f"Done with task {count}: the **module** is fine.\n\n- one\n- two"
            store.append_message(AssistantMessage(content=[TextContent(text=text)]))
            count += 1
    assert store.path is not None
    store.close()
    return store.path


def marker(index: int) -> str:
    return f"slice{index:02d}end"


def long_reply() -> str:
    """About TOKENS tokens of Markdown paragraphs (40 words each); slice k (1-based) ends with
    `marker(k)`, the last word of its last paragraph."""
    parts: list[str] = []
    for index in range(1, TOKENS // SLICE + 1):
        size = 0
        words: list[str] = []
        while size < SLICE * TOKEN_CHARS - 20:
            word = f"w{(index * 7919 + len(words)) % 9973}"
            words.append(word)
            size += len(word) + 1
            if len(words) % 40 == 0:
                words[-1] += "\n\n"
                size += 1
        words.append(marker(index) + "\n\n")
        parts.append(" ".join(words).replace("\n\n ", "\n\n"))
    return "".join(parts) + "end of the reply."


# --- the terminal ---------------------------------------------------------------------------


class Pty:
    def __init__(self, work: Path, agent: Path, *args: str) -> None:
        env = subprocess_env(
            agent,
            TERM="xterm-256color",
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
            PROMPT_TOOLKIT_NO_CPR="1",  # pexpect cannot answer cursor position requests
        )
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "pith", "--model", "fake/m", *args],
            cwd=str(work),
            env=env,
            dimensions=(24, 80),
            encoding="utf-8",
            codec_errors="replace",
            timeout=WAIT,
        )
        self.child.delaybeforesend = None  # pexpect sleeps 50 ms before each send by default
        self.raw = ""
        self.plain = ""
        self._held = ""
        self._mark = 0

    def read(self, timeout: float) -> str:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return ""
        self.raw += data
        # The text without escapes, kept as it grows; an escape cut off at the end of a read
        # waits for the next one.
        pending = self._held + data
        cut = pending.rfind("\x1b")
        if cut >= 0 and len(pending) - cut < 24 and not _ESCAPES.match(pending, cut):
            self._held, pending = pending[cut:], pending[:cut]
        else:
            self._held = ""
        self.plain += _ESCAPES.sub("", pending)
        return data

    def wait_text(self, text: str) -> float:
        """Wait until `text` is in the output after the previous wait's match; when it came."""
        deadline = time.monotonic() + WAIT
        while (found := self.plain.find(text, self._mark)) < 0:
            if time.monotonic() > deadline:
                tail = self.plain[self._mark :][-1500:]
                raise SystemExit(f"tui_latency: {text!r} never appeared; the output ends:\n{tail}")
            self.read(0.02)
        self._mark = found + len(text)
        return time.perf_counter()

    def settle(self, quiet: float = 0.5) -> None:
        while True:
            size = len(self.raw)
            end = time.monotonic() + quiet
            while time.monotonic() < end:
                self.read(0.05)
            if len(self.raw) == size:
                return

    def close(self) -> None:
        self.settle(0.3)
        self.child.sendcontrol("d")
        try:
            self.child.expect(pexpect.EOF, timeout=30)
        except pexpect.TIMEOUT:
            self.child.terminate(force=True)
        self.child.close()


def type_keys(pty: Pty) -> list[float]:
    """Milliseconds from each key written to its echo."""
    samples = []
    letters = "abcdefghijklmnopqrstuvwxyz"
    for index in range(WARMUP_KEYS + KEYS):
        key = letters[index % len(letters)]
        mark = len(pty.raw)
        started = time.perf_counter()
        pty.child.send(key)
        while key not in _ESCAPES.sub("", pty.raw[mark:]):
            if not pty.read(5.0) and time.perf_counter() - started > WAIT:
                raise SystemExit(f"tui_latency: the key {key!r} never echoed")
        elapsed = (time.perf_counter() - started) * 1000
        if index >= WARMUP_KEYS:
            samples.append(elapsed)
    pty.child.send("\x15")  # Ctrl+U: the editor is empty again
    pty.settle(0.3)
    return samples


def stream_slices(pty: Pty) -> list[float]:
    """Seconds per 1 000-token slice of the streamed reply."""
    pty.child.send("stream the long reply\r")
    times = [pty.wait_text("› stream the long reply")]
    for index in range(1, TOKENS // SLICE + 1):
        times.append(pty.wait_text(marker(index)))
    pty.wait_text("end of the reply.")
    return [later - earlier for earlier, later in itertools.pairwise(times)]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def run(root: Path, label: str, size: int) -> tuple[list[float], list[float], float]:
    """(key latencies ms, slice seconds, seconds until the editor was up)."""
    work = root / label / "work"
    work.mkdir(parents=True)
    reply = long_reply()
    script = {"turns": [{"text": reply, "chunk": TOKEN_CHARS}]}
    with FakeServer(script) as server:
        agent = configure_agent_dir(root / label / "agent", server, contextWindow=1_000_000)
        (agent / "settings.json").write_text(json.dumps({"compaction": {"enabled": False}}))
        args: list[str] = []
        if size:
            path = build_session(work, root / label / "sessions", size)
            args = ["--session", str(path)]
        started = time.perf_counter()
        pty = Pty(work, agent, *args)
        try:
            pty.wait_text("Ctrl+D quits")
            if size:
                pty.wait_text(f"{size - 30} earlier messages (/tree to browse)")
            pty.settle()
            startup = time.perf_counter() - started
            keys = type_keys(pty)
            slices = stream_slices(pty)
            pty.settle()
        finally:
            pty.close()
        if server.problems():
            turns = [r.get("turn") for r in server.requests]
            raise SystemExit(f"tui_latency: fake server: {server.problems()}, turns {turns}")
    return keys, slices, startup


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="pith-bench-tui-"))
    try:
        results = {
            "empty": run(root, "empty", 0),
            f"{MESSAGES} msgs": run(root, "long", MESSAGES),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"pith in an 80x24 pty; {KEYS} keys typed one at a time; {TOKENS:,} tokens streamed")
    print(
        f"{'session':<11} {'start s':>8} {'key p50':>8} {'key p95':>8} {'key max':>8} "
        f"{'slice 2-4 s':>12} {'slice 8-10 s':>13} {'late/early':>11}"
    )
    figures: dict[str, object] = {}
    for label, (keys, slices, startup) in results.items():
        early = statistics.mean(slices[1:4])
        late = statistics.mean(slices[-3:])
        print(
            f"{label:<11} {startup:8.2f} {statistics.median(keys):8.1f} "
            f"{percentile(keys, 0.95):8.1f} {max(keys):8.1f} {early:12.3f} {late:13.3f} "
            f"{late / early:11.2f}"
        )
        key = "empty" if label == "empty" else "long"
        figures[f"{key}_p50_ms"] = round(statistics.median(keys), 1)
        figures[f"{key}_p95_ms"] = round(percentile(keys, 0.95), 1)
        figures[f"{key}_stream_late_early"] = round(late / early, 2)
        figures[f"{key}_stream_s"] = round(sum(slices), 2)
    empty_keys = results["empty"][0]
    long_keys = results[f"{MESSAGES} msgs"][0]
    ratio = percentile(long_keys, 0.95) / percentile(empty_keys, 0.95)
    print(
        f"slice seconds ({MESSAGES} msgs): "
        + " ".join(f"{s:.2f}" for s in results[f"{MESSAGES} msgs"][1])
    )
    figures["p95_vs_empty"] = round(ratio, 2)
    figures["target"] = "long_p95<=50ms,late/early<=1.5"
    print(summary("tui_latency", **figures))


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    main()
