"""The context pruner on a replayed 150-tool-call session, and the `context` hook's cost.

    python bench/prune.py

A project fixture is built from real files (pith's own sources, 4-40 KB each), per-suite test
logs in pytest -v format (one with a failure and its traceback), a `skills/debug/SKILL.md` and
an `AGENTS.md`. A scripted session of six tasks (six user prompts) and 150 tool calls — file
reads, test runs, greps, `ls`, `find`, `wc` through the real `read` and `bash` tools, a few
identical re-reads — is replayed through the fake model server over real HTTP three times, with
automatic compaction off so the pruner is measured alone:

- no pruning (`prune.enabled: false`): the baseline, run in the same process;
- `prune.strategy: mask`;
- `prune.strategy: summarize`: the summarizer's own requests go to the same server (they get
  scripted summaries: the agent's turns only answer requests that declare the `bash` tool) and
  are counted in the total; the row reads "not built yet" when pith says the strategy falls
  back to mask.

Measured per run: the total input tokens the server received (chars/4 of each request body,
the figure the fake server itself bills as `usage.input`) and the largest request. Checked per
run: the SKILL.md and AGENTS.md reads are byte-identical in every later request, and every
pruned output named by a stub comes back byte-identical from `context_tree_query` (the session
is resumed and the model asks for every ref). Target: total input tokens at least 50 % below
the unpruned run for both strategies.

The `context` hook: stored sessions of 400 and of 5 000 messages (a task every 40 messages,
reads of the fixture's files up to 12 KB each, every earlier task indexed) are opened with the
pruner (strategy mask) and with the pruner off; the runner's `emit` of a `context` event
(every context handler, plus the defensive copy of the messages the runner makes unless every
handler promised never to change one in place, as the pruner does) is timed per request, the
two sessions alternating. "pruner own" is the difference of the medians.
Target: p50 <= 5 ms at 400 messages.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import summary
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    ModelRegistry,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.ext.prune import register
from pith.extensions import ExtensionRunner, ExtensionSpec, NoticeLevel, load_extensions
from pith.extensions.events import ContextEvent
from pith.resources import load_settings
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir

ROOT = Path(__file__).resolve().parent.parent
SEED = 10
CALLS = 150
TASKS = 6
HOOK_SIZES = (400, 5000)
HOOK_REPEAT = 60
AGENT_MARK = '"function":{"name":"bash"'
"""Only the agent's own requests declare the bash tool: a summarizer request never gets an
agent turn, and an agent request never gets a summary turn."""
SKILL_PATH = "skills/debug/SKILL.md"
AGENTS_PATH = "AGENTS.md"
STUB_REF = re.compile(r'context_tree_query\(\["(t\d+)"\]\)')

SKILL = """---
name: debug
description: How to find the cause of a failing test in this project before changing code.
---

# Debugging a failing test

1. Run only the failing test: `scripts/test.sh tests/<dir>` and read the first failure.
2. Read the test, then the function it calls; do not guess from the name.
3. Grep for every caller of the function before changing its signature.
4. Reproduce the failure with the smallest input; write it down as a new test.
5. Fix the cause, not the symptom: a retry or a sleep is never the fix.
6. Run the directory's tests again, then the whole suite.
7. Note in the commit message what was wrong and why the test did not catch it before.
"""
AGENTS = """# Rules for agents in this repository

- Python >= 3.11, `ruff check`, `ruff format`, `mypy --strict` on src/ before any commit.
- Tests mirror src/; one behaviour per test, named for it. Real components, no mocks of our
  own layers; the fake model server over real HTTP for anything that talks to a model.
- Public surface in each package's `__init__.py` `__all__`; private modules start with `_`.
- User-facing failures are PithError subclasses with what happened, where and what to do.
- Never commit generated files, never `git stash`, never force-push.
- Docs: one page per part in docs/, each with a runnable example; CHANGELOG per change.
"""


# --- the fixture ------------------------------------------------------------------------------


def build_fixture(work: Path) -> dict[str, list[str]]:
    """The project: real source files, per-suite test logs, the skill and AGENTS.md. Returns
    the readable files and the test suites."""
    sources = sorted(
        p for p in (ROOT / "src" / "pith").rglob("*.py") if 4_000 <= p.stat().st_size <= 40_000
    )
    files = []
    for path in sources:
        relative = path.relative_to(ROOT)
        target = work / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        files.append(str(relative))
    suites = []
    logs = work / ".testlogs"
    logs.mkdir(parents=True)
    for directory in sorted(p for p in (ROOT / "tests").iterdir() if p.is_dir()):
        names = []
        for test_file in sorted(directory.rglob("test_*.py")):
            text = test_file.read_text()
            for match in re.finditer(r"^(?:async )?def (test_\w+)", text, re.M):
                names.append(f"{test_file.relative_to(ROOT)}::{match.group(1)}")
        if len(names) < 20:
            continue
        suite = str(directory.relative_to(ROOT))
        suites.append(suite)
        (logs / f"{directory.name}.log").write_text(
            test_log(suite, names, failing=len(suites) == 2)
        )
    scripts = work / "scripts"
    scripts.mkdir()
    (scripts / "test.sh").write_text(
        '#!/bin/sh\ncat ".testlogs/$(basename "${1:-tests/app}").log"\n'
        'grep -q "FAILED" ".testlogs/$(basename "${1:-tests/app}").log" && exit 1\nexit 0\n'
    )
    skill = work / SKILL_PATH
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    (work / AGENTS_PATH).write_text(AGENTS)
    return {"files": files, "suites": suites}


def test_log(suite: str, names: list[str], *, failing: bool) -> str:
    """A pytest -v log: the header, one line per test with its percentage, a failure with a
    traceback when `failing`, the summary line."""
    rng = random.Random(suite)
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0 -- /work/.venv/bin/python",
        "cachedir: .pytest_cache",
        "rootdir: /work/project",
        "configfile: pyproject.toml",
        "plugins: xdist-3.6.1, inline-snapshot-0.13.3, hypothesis-6.112.1, anyio-4.6.0",
        f"collecting ... collected {len(names)} items",
        "",
    ]
    failed = rng.randrange(len(names)) if failing else -1
    for position, name in enumerate(names):
        status = "FAILED" if position == failed else "PASSED"
        percent = f"[{(position + 1) * 100 // len(names):>3}%]"
        lines.append(f"{name} {status}".ljust(76) + percent)
    if failing:
        name = names[failed]
        lines += [
            "",
            "=================================== FAILURES ===================================",
            f"_{' ' + name.split('::')[1] + ' ':_^78}_",
            "",
            "tmp_path = PosixPath('/tmp/pytest-of-dev/pytest-41/test_0')",
            "",
            f"    def {name.split('::')[1]}(tmp_path: Path) -> None:",
            "        world = make_world(tmp_path)",
            '        script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}',
            "        with FakeServer(script) as server:",
            '            world.run(server, "read", "again")',
            ">           assert tool_texts(server, 2) == tool_texts(server, 1)",
            "E           AssertionError: assert {'call_0_0': '---\\nname: deploy...' } == {...}",
            "E             Differing items:",
            "E             {'call_0_1': '[pruned t1: read(path=\"app.py\") → 6.6KB, 300 lines'}",
            "E             Full diff:",
            "E               {",
            "E             -     'call_0_1': 'def app_0(x):\\n    return x * 0  # line 0\\n...'",
            "E             +     'call_0_1': '[pruned t1: read(path=\"app.py\") → 6.6KB...'",
            "E               }",
            "",
            f"{name.split('::')[0]}:142: AssertionError",
            "=========================== short test summary info ============================",
            f"FAILED {name} - AssertionError: assert {{...}} == {{...}}",
            f"=================== 1 failed, {len(names) - 1} passed in 7.84s ===================",
        ]
    else:
        lines.append(f"{' ' + str(len(names)) + ' passed in 5.12s ':=^80}")
    return "\n".join(lines) + "\n"


# --- the scripted session ---------------------------------------------------------------------


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def session_script(fixture: dict[str, list[str]]) -> tuple[list[str], list[list[dict[str, Any]]]]:
    """Six task prompts and, per task, the turns the model plays: 150 tool calls in all, each
    turn 1-4 calls, a final text reply per task."""
    rng = random.Random(SEED)
    files, suites = fixture["files"], fixture["suites"]
    directories = sorted({str(Path(f).parent) for f in files})
    words = ["def ", "class ", "async def", "PithError", "msgspec", "__all__", "return None"]
    prompts = [
        "The pruner test in tests/ext fails after my change; find out why and fix it.",
        "Add a --json flag to `pith context` that prints the report as one object.",
        "Why does resuming a session re-send every tool result? Investigate the store.",
        "Tidy the tool modules: list every public function that lacks a docstring.",
        "The bash tool truncates in the middle of a UTF-8 character; find where.",
        "Summarize what changed in the agent loop and run the whole test suite.",
    ]
    per_task = CALLS // TASKS
    tasks: list[list[dict[str, Any]]] = []
    reread = rng.sample(files, 3)
    counter = 0
    for number in range(TASKS):
        calls: list[dict[str, Any]] = []
        if number == 0:
            calls.append(call("read", path=SKILL_PATH))
            calls.append(call("bash", command=f"sh scripts/test.sh {suites[1]}"))
        if number == 1:
            calls.append(call("read", path=AGENTS_PATH))
        if number in (3, 4):  # identical re-reads of files read in the first task
            calls.append(call("read", path=reread[number - 3]))
        if number == 0:
            calls += [call("read", path=path) for path in reread]
        while len(calls) < per_task:
            kind = rng.random()
            if kind < 0.5:
                calls.append(call("read", path=rng.choice(files)))
            elif kind < 0.65:
                word = rng.choice(words)
                where = rng.choice(directories)
                calls.append(call("bash", command=f'grep -rn "{word}" {where} | head -150'))
            elif kind < 0.75:
                calls.append(call("bash", command=f"sh scripts/test.sh {rng.choice(suites)}"))
            elif kind < 0.85:
                calls.append(call("bash", command=f"ls -la {rng.choice(directories)}"))
            elif kind < 0.92:
                path = rng.choice(files)
                calls.append(call("read", path=path, offset=20, limit=60))
            else:
                where = rng.choice(directories)
                calls.append(call("bash", command=f"find {where} -name '*.py' | xargs wc -l"))
        turns: list[dict[str, Any]] = []
        for spec in calls:
            counter += 1
            spec["id"] = f"c{counter}"
        while calls:
            size = min(len(calls), rng.randint(1, 4))
            batch, calls = calls[:size], calls[size:]
            turns.append(
                {
                    "text": "Let me look at " + ", ".join(describe(c) for c in batch) + ".",
                    "tool_calls": batch,
                    "match": [AGENT_MARK],
                }
            )
        turns.append(
            {
                "text": f"Done with task {number + 1}: the cause is in the code I read last; "
                "the change is small and the tests pass.",
                "match": [AGENT_MARK],
            }
        )
        tasks.append(turns)
    return prompts, tasks


def describe(spec: dict[str, Any]) -> str:
    arguments = spec["arguments"]
    return str(arguments.get("path") or arguments.get("command"))


SUMMARY_TURNS = [
    {
        "text": "Read and ran what the task needed: the outputs showed the relevant functions, "
        "their callers and a passing suite; nothing in them is needed verbatim.",
        "unless": [AGENT_MARK],
    }
    for _ in range(400)
]


# --- running ----------------------------------------------------------------------------------


@dataclass
class NoticeUI:
    notices: list[tuple[str, str]] = field(default_factory=list)

    def notify(self, message: str, level: NoticeLevel = "info") -> None:
        self.notices.append((level, message))

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None) -> bool:
        return False

    async def select(self, title: str, options: Any, *, timeout: float | None = None) -> None:
        return None

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None
    ) -> None:
        return None


def open_session(
    root: Path, work: Path, server: FakeServer, prune: dict[str, object], store: SessionStore
) -> tuple[AgentSession, NoticeUI]:
    agent = configure_agent_dir(root / "agent", server)
    settings = {"prune": prune, "compaction": {"enabled": False}}
    (agent / "settings.json").write_text(json.dumps(settings))
    runner = ExtensionRunner(str(work), agent_dir=agent)
    spec = ExtensionSpec("prune", "builtin", "<prune>", lambda: register)  # type: ignore[arg-type,return-value]
    asyncio.run(load_extensions(runner, [spec]))
    registry = ModelRegistry.load(agent)
    ui = NoticeUI()
    session = build_agent_session(
        cwd=str(work),
        store=store,
        registry=registry,
        model=registry.find("fake/m").model,
        thinking="off",
        options=SessionOptions(),
        extensions=runner,
        mode="interactive",
        ui=ui,
        settings=load_settings(agent),
    )
    return session, ui


def play(session: AgentSession, prompts: list[str]) -> None:
    async def scenario() -> None:
        await session.start()
        try:
            for text in prompts:
                await session.prompt(text)
        finally:
            await session.shutdown()

    asyncio.run(scenario())


def tool_texts(body: dict[str, Any]) -> dict[str, str]:
    """tool_call_id -> the text of its result in one request body."""
    out = {}
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            content = message["content"]
            text = content if isinstance(content, str) else "".join(p["text"] for p in content)
            out[message["tool_call_id"]] = text
    return out


def body_tokens(body: object) -> int:
    return math.ceil(len(json.dumps(body, separators=(",", ":"), ensure_ascii=False)) / 4)


@dataclass
class Run:
    label: str
    total: int = 0
    largest: int = 0
    requests: int = 0
    summarizer_requests: int = 0
    summarizer_tokens: int = 0
    protected_ok: bool = True
    protected_checked: int = 0
    stubbed_ids: dict[str, str] = field(default_factory=dict)
    """ref -> the tool call id whose stub names it first."""
    raw_stayed: list[str] = field(default_factory=list)
    """Results of earlier tasks still raw in the last request."""
    raw_texts: dict[str, str] = field(default_factory=dict)
    recovered: int = 0
    recover_failed: list[str] = field(default_factory=list)
    not_built: bool = False
    problems: list[str] = field(default_factory=list)
    chains: int = 0
    """`prune-chain` entries written (tasks compressed into one message)."""
    relocated: int = 0
    """Protected outputs found verbatim inside a `<compressed-chain>` message, per request."""


def session_results(path: Path) -> dict[str, str]:
    """tool_call_id -> the raw text of its result, as stored."""
    out = {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "toolResult":
            text = "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")
            out[message["toolCallId"]] = text
    return out


def replay(
    root: Path,
    fixture: dict[str, list[str]],
    label: str,
    prune: dict[str, object],
) -> Run:
    work = root / "work"
    prompts, tasks = session_script(fixture)
    turns = [turn for task in tasks for turn in task] + SUMMARY_TURNS
    store = SessionStore.create(str(work), root / f"sessions-{label}")
    run = Run(label)
    with FakeServer({"turns": turns}) as server:
        session, ui = open_session(root, work, server, prune, store)
        play(session, prompts)
        requests: list[dict[str, Any]] = [
            r for r in server.requests if str(r["path"]).endswith("/chat/completions")
        ]
        problems = server.state()["problems"]
        run.problems += [str(p) for p in problems] if isinstance(problems, list) else []
    run.not_built = any("not built yet" in text for _, text in ui.notices)
    raw = session_results(store.path) if store.path else {}
    if store.path is not None:
        entries = [json.loads(line) for line in store.path.read_text().splitlines()]
        run.chains = sum(e.get("customType") == "prune-chain" for e in entries)
    run.raw_texts = raw
    protected = {
        spec["id"]
        for task in tasks
        for turn in task
        for spec in turn.get("tool_calls", [])
        if spec["arguments"].get("path") in (SKILL_PATH, AGENTS_PATH)
    }
    for request in requests:
        body = request["body"]
        tokens = body_tokens(body)
        run.total += tokens
        run.largest = max(run.largest, tokens)
        if AGENT_MARK not in json.dumps(body, separators=(",", ":"), ensure_ascii=False):
            run.summarizer_requests += 1
            run.summarizer_tokens += tokens
            continue
        run.requests += 1
        texts = tool_texts(body)
        blocks = [
            m["content"]
            if isinstance(m["content"], str)
            else "".join(p["text"] for p in m["content"])
            for m in body["messages"]
            if m["role"] == "user"
        ]
        blocks = [text for text in blocks if text.startswith("<compressed-chain")]
        for call_id in protected:
            if call_id in texts:
                run.protected_checked += 1
                if texts[call_id] != raw.get(call_id):
                    run.protected_ok = False
            elif any(f">\n{raw.get(call_id)}\n</protected-output>" in text for text in blocks):
                run.relocated += 1
        for call_id, text in texts.items():
            for ref in STUB_REF.findall(text):
                run.stubbed_ids.setdefault(ref, call_id)
    last = tool_texts(requests[-1]["body"]) if requests else {}
    last_task_ids = {c["id"] for turn in tasks[-1] for c in turn.get("tool_calls", [])}
    run.raw_stayed = [
        i for i, text in last.items() if text == raw.get(i) and i not in last_task_ids
    ]
    if run.stubbed_ids and store.path is not None:
        recover(root, work, run, store.path, raw, prune)
    return run


def recover(
    root: Path, work: Path, run: Run, path: Path, raw: dict[str, str], prune: dict[str, object]
) -> None:
    """Resume the session and ask for every ref a stub named; compare with the stored raw."""
    refs = sorted(run.stubbed_ids, key=lambda r: int(r[1:]))
    turns: list[dict[str, Any]] = []
    for start in range(0, len(refs), 8):
        group = refs[start : start + 8]
        turns.append(
            {
                "tool_calls": [
                    {**call("context_tree_query", toolCallIds=[ref]), "id": f"rec_{start}_{k}"}
                    for k, ref in enumerate(group)
                ],
                "match": [AGENT_MARK],
            }
        )
    turns.append({"text": "recovered", "match": [AGENT_MARK]})
    asked: dict[str, str] = {}  # recovery call id -> ref
    for turn in turns[:-1]:
        for spec in turn["tool_calls"]:
            asked[spec["id"]] = spec["arguments"]["toolCallIds"][0]
    store = SessionStore.open(path)
    before = set(session_results(path))
    with FakeServer({"turns": turns + SUMMARY_TURNS}) as server:
        session, _ = open_session(root, work, server, prune, store)
        play(session, ["Give me back every pruned output."])
    after = session_results(path)
    for call_id, ref in asked.items():
        if call_id in before:
            continue
        text = after.get(call_id)
        original = raw.get(run.stubbed_ids[ref])
        body = text.split("\n\n", 1)[1] if text and "\n\n" in text else None
        if body is not None and body == original:
            run.recovered += 1
        else:
            run.recover_failed.append(ref)


# --- the context hook ------------------------------------------------------------------------


def stored_session(directory: Path, work: Path, size: int, sources: list[str]) -> SessionStore:
    """A session of `size` messages: tasks of 40 messages (a prompt, turns of two reads and
    their results, a reply), the reads' text taken from the fixture's files."""
    rng = random.Random(size)
    store = SessionStore.create(str(work), directory)
    clock = 1_000_000
    count = 0
    number = 0

    def add(message: AgentMessage) -> None:
        nonlocal count
        store.append_message(message)
        count += 1

    while count < size:
        clock += 10
        add(UserMessage(content=f"task {count}: look at the code", timestamp=clock))
        for _ in range(9):
            if count + 4 > size:
                break
            number += 1
            paths = rng.sample(sources, 2)
            calls = [
                ToolCall(id=f"h{number}_{k}", name="read", arguments={"path": p})
                for k, p in enumerate(paths)
            ]
            clock += 10
            add(AssistantMessage(content=[TextContent(text="Reading."), *calls], timestamp=clock))
            for tool_call, p in zip(calls, paths, strict=True):
                clock += 10
                text = (work / p).read_text()[:12_000]
                add(
                    ToolResultMessage(
                        tool_call_id=tool_call.id,
                        tool_name="read",
                        content=[TextContent(text=text)],
                        timestamp=clock,
                    )
                )
        if count < size:
            clock += 10
            add(AssistantMessage(content=[TextContent(text="Done.")], timestamp=clock))
    return store


def hook_times(root: Path, work: Path, size: int, sources: list[str]) -> tuple[float, float]:
    """Median milliseconds per `context` emit on a `size`-message session, with the
    pruner (strategy mask) and with the pruner off, calls alternating so both see the same
    machine."""
    store_on = stored_session(root / f"hook-{size}-on", work, size, sources)
    store_off = stored_session(root / f"hook-{size}-off", work, size, sources)
    with FakeServer({"turns": []}) as server:
        on, _ = open_session(root, work, server, {"strategy": "mask"}, store_on)
        off, _ = open_session(root, work, server, {"enabled": False}, store_off)

        async def measure() -> tuple[float, float]:
            await on.start()
            await off.start()
            messages_on = list(on.agent.messages)
            messages_off = list(off.agent.messages)
            out = await on.extensions.emit(ContextEvent(messages_on))  # writes the index once
            assert out is not messages_on, "nothing was masked: the hook was not exercised"
            times: dict[bool, list[float]] = {True: [], False: []}
            gc.collect()
            gc.disable()
            try:
                for _ in range(HOOK_REPEAT):
                    for enabled, session, messages in (
                        (True, on, messages_on),
                        (False, off, messages_off),
                    ):
                        started = time.perf_counter()
                        await session.extensions.emit(ContextEvent(messages))
                        times[enabled].append((time.perf_counter() - started) * 1000)
            finally:
                gc.enable()
            await on.shutdown()
            await off.shutdown()
            return statistics.median(times[True]), statistics.median(times[False])

        return asyncio.run(measure())


# --- report -------------------------------------------------------------------------------


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="pith-bench-prune-") as temporary:
        root = Path(temporary)
        fixture = build_fixture(root / "work")
        runs = [
            replay(root, fixture, "none", {"enabled": False}),
            replay(root, fixture, "mask", {"strategy": "mask"}),
            replay(root, fixture, "summarize", {"strategy": "summarize"}),
        ]
        hooks: dict[int, tuple[float, float]] = {}
        for size in HOOK_SIZES:
            hooks[size] = hook_times(root, root / "work", size, fixture["files"])

    base = runs[0]
    print(f"session: {TASKS} tasks, {CALLS} tool calls, {len(fixture['files'])} source files")
    print(
        f"{'strategy':<11} {'requests':>8} {'total tok':>10} {'vs none':>8} {'largest':>9} "
        f"{'protected':>10} {'stubbed':>8} {'recovered':>10}"
    )
    figures: dict[str, object] = {"calls": CALLS, "none_tokens": base.total}
    for run in runs:
        if run.not_built and run.label == "summarize":
            print(f"{run.label:<11} not built yet (prune.strategy summarize falls back to mask)")
            figures["summarize"] = "not-built-yet"
            continue
        saving = 1 - run.total / base.total if base.total else 0.0
        protected = f"{'ok' if run.protected_ok else 'CHANGED'} ({run.protected_checked})"
        recovered = f"{run.recovered}/{len(run.stubbed_ids)}" if run.label != "none" else "-"
        print(
            f"{run.label:<11} {run.requests:>8} {run.total:>10,} {f'-{saving:.0%}':>8} "
            f"{run.largest:>9,} {protected:>10} {len(run.stubbed_ids):>8} {recovered:>10}"
        )
        if run.summarizer_requests:
            print(
                f"  + {run.summarizer_requests} summarizer requests, "
                f"~{run.summarizer_tokens:,} tokens (in the total)"
            )
        if run.label != "none":
            figures[f"{run.label}_tokens"] = run.total
            figures[f"{run.label}_saving"] = f"{saving:.1%}"
            figures[f"{run.label}_largest"] = run.largest
            figures[f"{run.label}_protected_verbatim"] = run.protected_ok
            figures[f"{run.label}_recovered"] = f"{run.recovered}/{len(run.stubbed_ids)}"
        else:
            figures["none_largest"] = run.largest
        for problem in run.problems[:3]:
            print(f"  problem: {problem}")
        if run.label != "none" and run.raw_stayed:
            sizes = sum(len(run.raw_texts[i]) for i in run.raw_stayed)
            print(
                f"  earlier tasks' results still raw in the last request: {len(run.raw_stayed)} "
                f"({sizes:,} chars; protected reads, batches under minBatchChars, re-reads)"
            )
        if run.chains:
            print(
                f"  {run.chains} tasks compressed into one message each; protected outputs "
                f"found verbatim inside them {run.relocated} times"
            )
            figures[f"{run.label}_chains"] = run.chains
        if run.recover_failed:
            print(
                f"  not recovered byte-identical: {', '.join(run.recover_failed[:10])} "
                "(outputs over read's 50KB cap come back cut, by design)"
            )
    print()
    print(f"{'context hook p50 (ms)':<24} {'pruner on':>10} {'pruner off':>11} {'pruner own':>11}")
    for size, (on, off) in hooks.items():
        print(f"{f'{size} messages':<24} {on:10.2f} {off:11.2f} {on - off:11.2f}")
        figures[f"hook_{size}_p50_ms"] = round(on, 2)
        figures[f"hook_{size}_off_p50_ms"] = round(off, 2)
        figures[f"hook_{size}_own_ms"] = round(on - off, 2)
    figures["target"] = "saving>=50%,hook_400_p50<=5ms"
    print(summary("prune", **figures))


if __name__ == "__main__":
    main()
