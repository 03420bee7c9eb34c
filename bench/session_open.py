"""Opening a big session and building its context, and appending to it.

    python bench/session_open.py [ENTRIES] [--quick]

A ~50 MB, 20 000-entry session is written with pith's own store (user messages, assistant
messages calling tools, tool results from a few hundred bytes to 100 KB, model and thinking
changes, three abandoned branches, one with a summary, and a compaction near the end; the
content is the same on every run, only ids and timestamps differ). `--quick`: 4 000 entries,
fewer runs (a smoke test).

Timed, best of several runs, each against Pi 1.6 timed inside Node in the same run on a copy
of the file (Pi and its Node from the folder `PITH_PI_ORACLE` names, see
tests/conformance/README.md; without it Pi's keys are left out):

- `open`: `SessionStore.open` and close, against `SessionManager.open(file)`.
- `open_context`: open, then build the context (`projection()`), against `open` then
  `buildSessionContext()`. Target: at most 0.7x Pi.
- `first_context`: the first `projection()` of a session just opened, against Pi's first
  `buildSessionContext()`.
- `context`: `projection()` of an opened session, asked again and again (pith keeps the
  active path and its projection until the tree changes; Pi builds it on every call).
  Target: at most 1.0x Pi.
- `check`: the compaction policy's full threshold check, as Pi makes it before every model
  call (`buildSessionProjection`, `estimateProjectedContextTokens` of it and the branch,
  `shouldCompact`), against pith's same three steps. Target: at most 1.0x Pi.

Appending must not depend on the session's size: 1000 appends to the 50 MB session against
1000 appends to a fresh one (ratio close to 1).
"""

from __future__ import annotations

import functools
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
from pith.compaction import (
    ResolvedCompactionSettings,
    estimate_projected_context_tokens,
    should_compact,
)
from pith.session import SessionStore

ENTRIES = 20_000
QUICK_ENTRIES = 4_000
REPEAT = 5
APPENDS = 1000
SEED = 1129
WINDOW = 200_000
ROWS = ("open", "open_context", "first_context", "context", "check")

PI_TIMER = r"""
const [pkg, file, repeat] = process.argv.slice(1);
const url = (rel) => "file://" + pkg + "/dist/" + rel;
const { SessionManager, shouldCompact } = await import(url("index.js"));
const { estimateProjectedContextTokens } = await import(url("core/compaction/compaction.js"));
const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };
const best = { open: Infinity, open_context: Infinity, first_context: Infinity };
let messages = 0;
for (let i = 0; i < Number(repeat); i++) {
  const t0 = performance.now();
  const manager = SessionManager.open(file);
  const t1 = performance.now();
  const context = manager.buildSessionContext();
  const t2 = performance.now();
  best.open = Math.min(best.open, t1 - t0);
  best.first_context = Math.min(best.first_context, t2 - t1);
  best.open_context = Math.min(best.open_context, t2 - t0);
  messages = context.messages.length;
}
const manager = SessionManager.open(file);
function fastest(fn, n) {
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}
best.context = fastest(() => manager.buildSessionContext(), Number(repeat) * 4);
best.check = fastest(() => {
  const projection = manager.buildSessionProjection();
  const tokens = estimateProjectedContextTokens(projection, manager.getBranch()).tokens;
  return shouldCompact(tokens, 200000, settings);
}, Number(repeat) * 4);
const seconds = Object.fromEntries(Object.entries(best).map(([k, v]) => [k, v / 1000]));
console.log(JSON.stringify({ ...seconds, messages }));
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


def full_check(store: SessionStore) -> bool:
    """The compaction threshold check made from scratch, as Pi makes it."""
    projection = store.projection()
    tokens = estimate_projected_context_tokens(projection, store.get_branch()).tokens
    return should_compact(tokens, WINDOW, ResolvedCompactionSettings())


def pith_times(path: Path, repeat: int) -> tuple[dict[str, float], int, int]:
    """Seconds per row (see the module docstring), the context's messages, the entries."""

    # Each figure is taken with no other big session alive in this process (a second copy of
    # 20 000 entries in memory makes every garbage collection pass slower).
    def open_close() -> None:
        SessionStore.open(path).close()

    def open_and_project() -> None:
        with SessionStore.open(path) as opened:
            opened.projection()

    def first_projection() -> float:
        with SessionStore.open(path) as opened:
            started = time.perf_counter()
            opened.projection()
            return time.perf_counter() - started

    gc.collect()
    ours = {"open": best_of(open_close, repeat), "open_context": best_of(open_and_project, repeat)}
    ours["first_context"] = min(first_projection() for _ in range(repeat))
    with SessionStore.open(path) as store:
        ours["context"] = best_of(store.projection, repeat * 4)
        ours["check"] = best_of(functools.partial(full_check, store), repeat * 4)
        messages = len(store.projection().messages)
        count = len(store.entries)
    del store
    gc.collect()
    return ours, messages, count


def main() -> None:
    arguments = [argument for argument in sys.argv[1:] if argument != "--quick"]
    quick = len(arguments) < len(sys.argv) - 1
    entries = int(arguments[0]) if arguments else QUICK_ENTRIES if quick else ENTRIES
    repeat = 2 if quick else REPEAT
    with tempfile.TemporaryDirectory(prefix="pith-bench-session-") as temporary:
        root = Path(temporary)
        started = time.perf_counter()
        path = generate(root / "sessions", entries)
        generated = time.perf_counter() - started
        size_mb = path.stat().st_size / 1e6
        pi_copy = root / "pi" / path.name
        pi_copy.parent.mkdir()
        shutil.copyfile(path, pi_copy)

        ours, messages, count = pith_times(path, repeat)
        theirs = pi_times(pi_copy, repeat)

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
    figures: dict[str, object] = {"entries": count, "size_mb": round(size_mb, 1)}
    for row in ROWS:
        pi_seconds = theirs.get(row) if theirs else None
        pi_text = f"{pi_seconds * 1000:10.2f}" if pi_seconds else f"{'-':>10}"
        ratio_text = f"{ours[row] / pi_seconds:8.3f}" if pi_seconds else f"{'-':>8}"
        print(f"{row:<22} {ours[row] * 1000:10.2f} {pi_text} {ratio_text}")
        figures[f"{row}_pith_ms"] = round(ours[row] * 1000, 3)
        if pi_seconds:
            figures[f"{row}_pi_ms"] = round(pi_seconds * 1000, 3)
            figures[f"{row}_ratio"] = round(ours[row] / pi_seconds, 3)
    append_ratio = append_big / append_small
    big_label = f"{APPENDS} appends, {size_mb:.0f} MB"
    fresh_label = f"{APPENDS} appends, fresh"
    print(f"{big_label:<22} {append_big * 1000:10.1f}")
    print(f"{fresh_label:<22} {append_small * 1000:10.1f} {'':>10} {append_ratio:8.3f}")

    if theirs:
        figures["target"] = "open_context<=0.7,context<=1.0,check<=1.0"
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
