"""Opening a big session and building its context, and appending to it.

    python bench/session_open.py [ENTRIES]

A ~50 MB, 20 000-entry session is written with pith's own store (user messages, assistant
messages calling tools, tool results from a few hundred bytes to 100 KB, model and thinking
changes, three abandoned branches, one with a summary, and a compaction near the end; the
content is the same on every run, only ids and timestamps differ). Timed, best of several runs:
`SessionStore.open` and `store.projection()`. Baseline: Pi's `SessionManager.open(file)` and
`buildSessionContext()` timed inside Node in the same run (Pi 1.6 and its Node from the folder
`PITH_PI_ORACLE` names, see tests/conformance/README.md), on a copy of the file. Target: pith
at most 0.7x Pi.

Appending must not depend on the session's size: 1000 appends to the 50 MB session against
1000 appends to a fresh one (ratio close to 1).
"""

from __future__ import annotations

import gc
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PI_NODE, PI_PACKAGE, best_of, oracle_available, summary
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pith.session import SessionStore

ENTRIES = 20_000
REPEAT = 5
APPENDS = 1000
SEED = 1129

PI_TIMER = r"""
const [pkg, file, repeat] = process.argv.slice(1);
const { SessionManager } = await import("file://" + pkg + "/dist/index.js");
const best = { open: Infinity, context: Infinity, total: Infinity };
let messages = 0;
for (let i = 0; i < Number(repeat); i++) {
  const t0 = performance.now();
  const manager = SessionManager.open(file);
  const t1 = performance.now();
  const context = manager.buildSessionContext();
  const t2 = performance.now();
  best.open = Math.min(best.open, t1 - t0);
  best.context = Math.min(best.context, t2 - t1);
  best.total = Math.min(best.total, t2 - t0);
  messages = context.messages.length;
}
console.log(JSON.stringify({
  open: best.open / 1000, context: best.context / 1000, total: best.total / 1000, messages,
}));
"""

VOCABULARY = (
    "the function returns a list of parsed entries and raises when the header is missing "
    "so callers check the version first then read each line into a struct é ✓"
)
WORDS = VOCABULARY.split()
CODE_LINE = "    for index, line in enumerate(lines, start=1):  # walk the file once\n"
MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5")


def prose(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def tool_output(rng: random.Random) -> str:
    """Mostly small, sometimes a whole file, rarely a huge log."""
    roll = rng.random()
    if roll < 0.78:
        size = rng.randint(100, 2_000)
    elif roll < 0.98:
        size = rng.randint(2_000, 10_000)
    else:
        size = rng.randint(20_000, 100_000)
    return (CODE_LINE * (size // len(CODE_LINE) + 1))[:size]


def assistant(rng: random.Random, model: str, calls: list[ToolCall]) -> AssistantMessage:
    content: list[TextContent | ThinkingContent | ToolCall] = []
    if rng.random() < 0.3:
        content.append(ThinkingContent(thinking=prose(rng, rng.randint(100, 1_500))))
    content.append(TextContent(text=prose(rng, rng.randint(40, 800))))
    content.extend(calls)
    return AssistantMessage(
        content=content,
        api="anthropic-messages",
        provider="anthropic",
        model=model,
        usage=Usage(input=rng.randint(1_000, 150_000), output=rng.randint(10, 4_000)),
        stop_reason="toolUse" if calls else "stop",
    )


def turn(rng: random.Random, model: str, first_call: int) -> Iterator[AgentMessage]:
    """One user turn: the prompt, 1-6 rounds of tool calls and results, a final answer."""
    yield UserMessage(content=[TextContent(text=prose(rng, rng.randint(50, 600)))])
    number = first_call
    for _ in range(rng.randint(1, 6)):
        calls = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            number += 1
            arguments: dict[str, object] = {"command": prose(rng, rng.randint(20, 400))}
            if rng.random() < 0.15:
                arguments = {"path": "src/app.py", "content": tool_output(rng)}
            calls.append(ToolCall(id=f"toolu_{number:06d}", name="bash", arguments=arguments))
        yield assistant(rng, model, calls)
        for call in calls:
            yield ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=[TextContent(text=tool_output(rng))],
                is_error=rng.random() < 0.05,
            )
    yield assistant(rng, model, [])


def generate(directory: Path, entries: int) -> Path:
    """The benchmark session (see the module docstring), exactly `entries` entries long."""
    rng = random.Random(SEED)
    store = SessionStore.create("/work/project", directory)
    model = MODELS[0]
    branch_points = [entries * 3 // 10, entries * 5 // 10, entries * 7 // 10]
    model_changes = list(range(entries // 8, entries, entries // 8))
    compaction_at = entries * 95 // 100
    turns = 0
    while len(store.entries) < entries:
        count = len(store.entries)
        if branch_points and count >= branch_points[0]:
            # Abandon the last 60 entries of the path; the last time with a summary (/tree).
            branch_points.pop(0)
            target = store.get_branch()[-60].id
            if branch_points:
                store.branch(target)
            else:
                store.branch_with_summary(target, prose(rng, 1_500))
        elif model_changes and count >= model_changes[0]:
            model_changes.pop(0)
            model = rng.choice(MODELS)
            store.append_model_change("anthropic", model)
            store.append_thinking_level_change(rng.choice(["off", "low", "medium", "high"]))
        elif compaction_at and count >= compaction_at:
            compaction_at = 0
            store.append_compaction(prose(rng, 6_000), store.get_branch()[-300].id, 160_000)
        turns += 1
        for message in turn(rng, model, turns * 100):
            if len(store.entries) >= entries:
                break
            store.append_message(message)
    store.close()
    assert store.path is not None
    return store.path


def time_appends(store: SessionStore) -> float:
    """Seconds for APPENDS appends of a short user message (best of 3 batches)."""
    message = UserMessage(content=[TextContent(text="one more small step")])

    def batch() -> None:
        for _ in range(APPENDS):
            store.append_message(message)

    return best_of(batch, 3)


def pi_times(path: Path, repeat: int) -> dict[str, float] | None:
    if not oracle_available():
        return None
    completed = subprocess.run(
        [
            str(PI_NODE),
            "--input-type=module",
            "-e",
            PI_TIMER,
            str(PI_PACKAGE),
            str(path),
            str(repeat),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return {key: float(value) for key, value in json.loads(completed.stdout).items()}


def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else ENTRIES
    with tempfile.TemporaryDirectory(prefix="pith-bench-session-") as temporary:
        root = Path(temporary)
        started = time.perf_counter()
        path = generate(root / "sessions", entries)
        generated = time.perf_counter() - started
        size_mb = path.stat().st_size / 1e6
        pi_copy = root / "pi" / path.name
        pi_copy.parent.mkdir()
        shutil.copyfile(path, pi_copy)

        # Each figure is taken with no other big session alive in this process (a second
        # copy of 20 000 entries in memory makes every garbage collection pass slower).
        def open_close() -> None:
            SessionStore.open(path).close()

        def open_and_project() -> None:
            with SessionStore.open(path) as opened:
                opened.projection()

        gc.collect()
        ours = {"open": best_of(open_close, REPEAT), "total": best_of(open_and_project, REPEAT)}
        with SessionStore.open(path) as store:
            ours["context"] = best_of(store.projection, REPEAT)
            messages = len(store.projection().messages)
            count = len(store.entries)
        del store
        gc.collect()
        theirs = pi_times(pi_copy, REPEAT)

        with SessionStore.open(path) as big:
            append_big = time_appends(big)
        del big
        gc.collect()
        small = SessionStore.create("/work/project", root / "small")
        small.append_message(UserMessage(content=[TextContent(text="start")]))
        append_small = time_appends(small)
        small.close()

    print(f"session: {count} entries, {size_mb:.1f} MB, {messages} messages in context")
    print(f"(generated in {generated:.1f} s)")
    print(f"{'case':<22} {'pith ms':>10} {'pi ms':>10} {'ratio':>8}")
    for key in ("open", "context", "total"):
        pi_seconds = theirs.get(key) if theirs else None
        pi_text = f"{pi_seconds * 1000:10.1f}" if pi_seconds else f"{'-':>10}"
        ratio_text = f"{ours[key] / pi_seconds:8.3f}" if pi_seconds else f"{'-':>8}"
        label = "open + context" if key == "total" else key
        print(f"{label:<22} {ours[key] * 1000:10.1f} {pi_text} {ratio_text}")
    append_ratio = append_big / append_small
    big_label = f"{APPENDS} appends, {size_mb:.0f} MB"
    fresh_label = f"{APPENDS} appends, fresh"
    print(f"{big_label:<22} {append_big * 1000:10.1f}")
    print(f"{fresh_label:<22} {append_small * 1000:10.1f} {'':>10} {append_ratio:8.3f}")

    figures: dict[str, object] = {
        "entries": count,
        "size_mb": round(size_mb, 1),
        "open_ms": round(ours["open"] * 1000, 1),
        "context_ms": round(ours["context"] * 1000, 1),
        "total_ms": round(ours["total"] * 1000, 1),
    }
    if theirs:
        figures["pi_total_ms"] = round(theirs["total"] * 1000, 1)
        figures["ratio"] = round(ours["total"] / theirs["total"], 3)
        figures["target"] = "<=0.7"
        if int(theirs["messages"]) != messages:
            figures["pi_messages"] = int(theirs["messages"])  # a mismatch worth a look
    else:
        figures["pi"] = "oracle-not-installed"
    figures["append_big_ms"] = round(append_big * 1000, 1)
    figures["append_fresh_ms"] = round(append_small * 1000, 1)
    figures["append_ratio"] = round(append_ratio, 2)
    print(summary("session_open", **figures))


if __name__ == "__main__":
    main()
