"""Interactive start beside Pi's, keystroke-to-screen latency, and streaming over a long reply.

    python bench/tui_latency.py [--quick] [--only start]

`pith` runs in a pseudo-terminal (80×24, xterm-256color) against the fake model server, as a
user would run it:

- **start**: from the process start until the editor takes a keystroke, pith against Pi 1.6
  in the same run (Pi and its Node from the folder `PITH_PI_ORACLE` names, see
  tests/conformance/README.md; without it Pi's keys are left out). Each side starts in a
  scratch project with its own empty home and an agent folder holding only `models.json`
  (the fake server's model); one key (`ж`, which neither screen shows otherwise) is written to
  the pty right after the spawn, with the pty's own echo off, so it waits as typeahead until
  the editor reads it: the time until it appears in the output is one sample. Both editors
  keep typeahead (should one drop it, the key is written again every 250 ms after 5 s, so the
  run still ends). Best of several fresh processes after a warm-up (bytecode, Node's compile
  cache). Target: pith/Pi at most 0.7. pith draws its editor's line before the session is
  built and keeps what is typed, so its key shows long before the rest: **start_full** times
  the whole interface too, until pith's footer is drawn with its real editor (Pi draws its
  editor with everything else, so for Pi it is the same moment as the key). Target: at most
  1.0, no later than Pi.

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

`--quick`: fewer start-up runs, a 200-message session, 30 keys, 2 000 tokens (a smoke test).
`--only start`: the start row alone. The last line is the summary (`start_pith_ms`,
`start_pi_ms`, `start_ratio`, then the typing and streaming figures).
"""

from __future__ import annotations

import argparse
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

from _common import ORACLE_DIR, PI_NODE, PI_PACKAGE, oracle_available, summary
from pith.ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir, subprocess_env

MESSAGES = 2000
KEYS = 120
WARMUP_KEYS = 10
TOKENS = 10_000
QUICK = {"messages": 200, "keys": 30, "tokens": 4_000}
SLICE = 1_000
TOKEN_CHARS = 4
WAIT = 60.0
START_KEY = "ж"
START_RUNS = 9
QUICK_START_RUNS = 3
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


def long_reply(tokens: int) -> str:
    """About `tokens` tokens of Markdown paragraphs (40 words each); slice k (1-based) ends with
    `marker(k)`, the last word of its last paragraph."""
    parts: list[str] = []
    for index in range(1, tokens // SLICE + 1):
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


def type_keys(pty: Pty, keys: int) -> list[float]:
    """Milliseconds from each key written to its echo."""
    samples = []
    letters = "abcdefghijklmnopqrstuvwxyz"
    for index in range(WARMUP_KEYS + keys):
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


def stream_slices(pty: Pty, tokens: int) -> list[float]:
    """Seconds per 1 000-token slice of the streamed reply."""
    pty.child.send("stream the long reply\r")
    times = [pty.wait_text("› stream the long reply")]
    for index in range(1, tokens // SLICE + 1):
        times.append(pty.wait_text(marker(index)))
    pty.wait_text("end of the reply.")
    return [later - earlier for earlier, later in itertools.pairwise(times)]


# --- the interactive start, pith and Pi --------------------------------------------------


def start_commands(root: Path, base_url: str) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Each side's command and environment: a shared scratch project, an empty home and an
    agent folder per side holding only `models.json` with the fake server's model."""
    models = {
        "providers": {
            "fake": {
                "baseUrl": base_url,
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "m"}],
            }
        }
    }
    base = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    for key in ("PITH_SESSION_DIR", "PYTHONDONTWRITEBYTECODE", "NO_COLOR"):
        base.pop(key, None)
    base.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    sides: dict[str, tuple[list[str], dict[str, str]]] = {}
    beside = Path(sys.executable).parent / "pith"
    pith = [str(beside)] if beside.exists() else [sys.executable, "-m", "pith"]
    plans = [("pith", [*pith, "--model", "fake/m"])]
    if oracle_available():
        cli = str(PI_PACKAGE / "dist" / "bundle" / "cli.js")
        plans.append(("pi", [str(PI_NODE), cli, "--provider", "fake", "--model", "m"]))
    for side, command in plans:
        home, agent = root / side / "home", root / side / "agent"
        home.mkdir(parents=True)
        agent.mkdir()
        (agent / "models.json").write_text(json.dumps(models))
        env = dict(base, HOME=str(home))
        if side == "pith":
            env.update(PITH_AGENT_DIR=str(agent), PROMPT_TOOLKIT_NO_CPR="1")
        else:
            tools = ORACLE_DIR / ".tools" / "bin"  # rg and fd, so Pi never fetches them
            env.update(
                PI_CODING_AGENT_DIR=str(agent),
                PI_OFFLINE="1",
                PI_SKIP_VERSION_CHECK="1",
                PI_TELEMETRY="0",
                PATH=f"{tools}{os.pathsep}{env.get('PATH', '')}",
            )
        sides[side] = (command, env)
    return sides


def keystroke_ready(
    command: list[str], env: dict[str, str], work: Path, ready: str | None = None
) -> tuple[float, float]:
    """Seconds from the spawn until the editor shows `START_KEY`, written as typeahead, and
    until the whole interface is up: the text `ready` on screen too (None: the key is it)."""
    started = time.perf_counter()
    child = pexpect.spawn(
        command[0],
        command[1:],
        cwd=str(work),
        env=env,
        dimensions=(24, 80),
        encoding="utf-8",
        codec_errors="replace",
        echo=False,  # only the program may show the key, never the pty's line discipline
    )
    child.delaybeforesend = None
    try:
        child.send(START_KEY)
        output = ""
        resend = started + 5.0
        shown: float | None = None
        while shown is None or (ready is not None and ready not in _ESCAPES.sub("", output)):
            if shown is None and START_KEY in output:
                shown = time.perf_counter() - started
                continue
            try:
                output += child.read_nonblocking(65536, timeout=0.005)
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                tail = _ESCAPES.sub("", output)[-800:]
                raise SystemExit(f"tui_latency: {command[0]} exited at start:\n{tail}") from None
            now = time.perf_counter()
            if now > started + WAIT:
                raise SystemExit(f"tui_latency: {command[0]} never showed a typed key")
            if now > resend and shown is None:
                child.send(START_KEY)
                resend = now + 0.25
        return shown, time.perf_counter() - started
    finally:
        child.terminate(force=True)
        child.close()


FULL_READY = {"pith": "fake/m · ctx"}
"""What shows that the whole interface is up: pith's footer (its real editor is drawn with it;
the line drawn before it only keeps typing). Pi draws its editor with everything else, so for
Pi the typed key showing is the whole interface being up."""

Times = dict[str, list[float]]


def start_times(root: Path, runs: int) -> tuple[Times, Times]:
    """Seconds to keystroke-ready and to the whole interface, by side (`pith`, and `pi` with
    the oracle), taken in turns so that both sides see the same load; one warm-up each first."""
    work = root / "work"
    work.mkdir(parents=True)
    with FakeServer({"turns": []}) as server:
        sides = start_commands(root, server.base_url)
        keys: Times = {side: [] for side in sides}
        full: Times = {side: [] for side in sides}
        for index in range(runs + 1):
            for side, (command, env) in sides.items():
                key, whole = keystroke_ready(command, env, work, FULL_READY.get(side))
                if index:
                    keys[side].append(key)
                    full[side].append(whole)
    return keys, full


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def run(
    root: Path, label: str, size: int, keys: int, tokens: int
) -> tuple[list[float], list[float], float]:
    """(key latencies ms, slice seconds, seconds until the resumed screen had settled)."""
    work = root / label / "work"
    work.mkdir(parents=True)
    reply = long_reply(tokens)
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
            latencies = type_keys(pty, keys)
            slices = stream_slices(pty, tokens)
            pty.settle()
        finally:
            pty.close()
        if server.problems():
            turns = [r.get("turn") for r in server.requests]
            raise SystemExit(f"tui_latency: fake server: {server.problems()}, turns {turns}")
    return latencies, slices, startup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, for a smoke test")
    parser.add_argument("--only", choices=["start"], help="measure this row alone")
    options = parser.parse_args()
    sizes = QUICK if options.quick else {"messages": MESSAGES, "keys": KEYS, "tokens": TOKENS}
    messages, keys, tokens = sizes["messages"], sizes["keys"], sizes["tokens"]
    root = Path(tempfile.mkdtemp(prefix="pith-bench-tui-"))
    try:
        starts = start_times(root / "start", QUICK_START_RUNS if options.quick else START_RUNS)
        results = {}
        if options.only is None:
            results = {
                "empty": run(root, "empty", 0, keys, tokens),
                f"{messages} msgs": run(root, "long", messages, keys, tokens),
            }
    finally:
        shutil.rmtree(root, ignore_errors=True)
    figures: dict[str, object] = {}
    print("interactive start, process start to a keystroke in the editor (80x24 pty)")
    print(f"{'row':<11} {'pith ms':>9} {'Pi ms':>9} {'pith/Pi':>8}   (best; median beside)")
    key_times, full_times = starts
    with_pi = bool(key_times.get("pi"))
    for row, times in (("start", key_times), ("start_full", full_times)):
        pith_times, pi_times = times["pith"], times.get("pi", [])
        line = f"{row:<11} {min(pith_times) * 1000:9.1f}"
        if pi_times:
            line += f" {min(pi_times) * 1000:9.1f} {min(pith_times) / min(pi_times):8.2f}"
        line += f"   median pith {statistics.median(pith_times) * 1000:.1f}"
        if pi_times:
            line += f", Pi {statistics.median(pi_times) * 1000:.1f}"
        print(line)
        figures[f"{row}_pith_ms"] = round(min(pith_times) * 1000, 1)
        figures[f"{row}_pith_median_ms"] = round(statistics.median(pith_times) * 1000, 1)
        if pi_times:
            figures[f"{row}_pi_ms"] = round(min(pi_times) * 1000, 1)
            figures[f"{row}_pi_median_ms"] = round(statistics.median(pi_times) * 1000, 1)
            figures[f"{row}_ratio"] = round(min(pith_times) / min(pi_times), 2)
    print("start: the typed key shows; start_full: the whole interface is up (pith's footer)")
    if not with_pi:
        figures["pi"] = "oracle-not-installed"
    if results:
        print()
        print(f"pith in an 80x24 pty; {keys} keys typed one at a time; {tokens:,} tokens streamed")
        print(
            f"{'session':<11} {'resumed s':>9} {'key p50':>8} {'key p95':>8} {'key max':>8} "
            f"{'slice 2-4 s':>12} {'last 3 s':>9} {'late/early':>11}"
        )
        for label, (latencies, slices, startup) in results.items():
            early = statistics.mean(slices[1:4])
            late = statistics.mean(slices[-3:])
            print(
                f"{label:<11} {startup:9.2f} {statistics.median(latencies):8.1f} "
                f"{percentile(latencies, 0.95):8.1f} {max(latencies):8.1f} {early:12.3f} "
                f"{late:9.3f} {late / early:11.2f}"
            )
            key = "empty" if label == "empty" else "long"
            figures[f"{key}_p50_ms"] = round(statistics.median(latencies), 1)
            figures[f"{key}_p95_ms"] = round(percentile(latencies, 0.95), 1)
            figures[f"{key}_stream_late_early"] = round(late / early, 2)
            figures[f"{key}_stream_s"] = round(sum(slices), 2)
        empty_keys = results["empty"][0]
        long_keys = results[f"{messages} msgs"][0]
        ratio = percentile(long_keys, 0.95) / percentile(empty_keys, 0.95)
        print(
            f"slice seconds ({messages} msgs): "
            + " ".join(f"{s:.2f}" for s in results[f"{messages} msgs"][1])
        )
        figures["p95_vs_empty"] = round(ratio, 2)
    figures["target"] = "start_ratio<=0.7,long_p95<=50ms,late/early<=1.5"
    print(summary("tui_latency", **figures))


if __name__ == "__main__":
    os.environ.pop("NO_COLOR", None)
    main()
