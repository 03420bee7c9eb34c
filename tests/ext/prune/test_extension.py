"""The pruner end to end: the fake model server over real HTTP, real sessions on disk."""

from __future__ import annotations

import asyncio
import errno
import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from pith.ai import AssistantMessage, ModelRegistry, TextContent, UserMessage
from pith.app import AgentSession, SessionOptions, build_agent_session
from pith.ext.prune import register
from pith.ext.prune._records import CHAIN_TYPE, ChainEntry
from pith.extensions import ExtensionRunner, ExtensionSpec, Mode, NoticeLevel, load_extensions
from pith.resources import load_settings
from pith.session import SessionStore
from pith.testing import FakeServer, configure_agent_dir

SKILL = "---\nname: deploy\ndescription: Deploys.\n---\n" + "".join(
    f"{n}. step {n}: run the gate and check it twice\n" for n in range(1, 40)
)
RULES = "# Project rules\n" + "Always run the closing loop.\n" * 40


def source(name: str) -> str:
    return "".join(f"def {name}_{n}(x):\n    return x * {n}  # line {n}\n" for n in range(150))


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


@dataclass
class NoticeUI:
    notices: list[tuple[str, str]] = field(default_factory=list)
    statuses: list[tuple[str, str | None]] = field(default_factory=list)
    """Every footer status set, in order (`ctx.ui.set_status`)."""

    def set_status(self, key: str, text: str | None) -> None:
        self.statuses.append((key, text))

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


@dataclass
class World:
    tmp_path: Path
    ui: NoticeUI = field(default_factory=NoticeUI)
    api: str = "openai-completions"
    clock: Callable[[], float] | None = None
    """The summarizer fallback's clock (None: the real one)."""

    def settings(self, **prune: object) -> None:
        """Write the agent's settings.json with these `prune` values."""
        self.agent.mkdir(parents=True, exist_ok=True)
        (self.agent / "settings.json").write_text(json.dumps({"prune": prune}))

    @property
    def work(self) -> Path:
        return self.tmp_path / "work"

    @property
    def agent(self) -> Path:
        return self.tmp_path / "agent"

    def session(
        self, server: FakeServer, store: SessionStore | None = None, mode: Mode = "interactive"
    ) -> AgentSession:
        agent = configure_agent_dir(self.agent, server, api=self.api)
        runner = ExtensionRunner(str(self.work), agent_dir=agent)
        loaded = register if self.clock is None else functools.partial(register, clock=self.clock)
        spec = ExtensionSpec("prune", "builtin", "<prune>", lambda: loaded)
        asyncio.run(load_extensions(runner, [spec]))
        registry = ModelRegistry.load(agent)
        return build_agent_session(
            cwd=str(self.work),
            store=store or SessionStore.create(str(self.work), self.tmp_path / "sessions"),
            registry=registry,
            model=registry.find("fake/m").model,
            thinking="off",
            options=SessionOptions(),
            extensions=runner,
            mode=mode,
            ui=self.ui,
            settings=load_settings(agent),
        )

    def run(
        self, server: FakeServer, *prompts: str, store: SessionStore | None = None
    ) -> AgentSession:
        session = self.session(server, store)

        async def scenario() -> None:
            await session.start()
            try:
                for text in prompts:
                    await session.prompt(text)
            finally:
                await session.shutdown()

        asyncio.run(scenario())
        return session

    def entries(self, custom_type: str) -> list[dict[str, Any]]:
        [path] = (self.tmp_path / "sessions").glob("*.jsonl")
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        return [e["data"] for e in lines if e.get("customType") == custom_type]


def tool_texts(server: FakeServer, n: int) -> dict[str, str]:
    """tool_call_id -> the text the model got, in the `n`-th request."""
    out = {}
    for message in server.requests[n]["body"]["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            text = content if isinstance(content, str) else "".join(p["text"] for p in content)
            out[message["tool_call_id"]] = text
    return out


def make_world(tmp_path: Path) -> World:
    world = World(tmp_path)
    skill = world.work / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (world.work / "AGENTS.md").write_text(RULES)
    (world.work / "app.py").write_text(source("app"))
    (world.work / "lib.py").write_text(source("lib"))
    world.settings(strategy="mask")
    return world


FIRST_TASK = {
    "tool_calls": [
        call("read", path="skills/deploy/SKILL.md"),
        call("read", path="app.py"),
        call("read", path="AGENTS.md"),
        call("read", path="lib.py"),
    ]
}


def test_a_finished_batch_is_masked_protected_reads_stay_and_outputs_come_back(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    script = {
        "turns": [
            FIRST_TASK,
            {"text": "read them"},
            {"tool_calls": [call("context_tree_query", toolCallIds=["t1"])]},
            {"text": "recovered"},
            {"text": "bye"},
        ]
    }
    with FakeServer(script) as server:
        session = world.run(server, "read the skill and the code", "go on", "thanks")
        raw = tool_texts(server, 1)
        masked = tool_texts(server, 2)
        after_query = tool_texts(server, 3)
        bodies = [json.dumps(r["body"]["messages"]) for r in server.requests]
        tools = [[t["function"]["name"] for t in r["body"]["tools"]] for r in server.requests]
    skill_id, app_id, agents_id, lib_id = "call_0_0", "call_0_1", "call_0_2", "call_0_3"
    assert "step 39: run the gate" in raw[skill_id]
    assert "def app_149" in raw[app_id]

    # (a) one index entry for the batch, (b) without the protected reads
    entry, query_entry = world.entries("prune-index")  # the query's output is a batch too
    assert [r["toolCallId"] for r in entry["toolCalls"]] == [app_id, lib_id]
    assert [r["toolName"] for r in query_entry["toolCalls"]] == ["context_tree_query"]
    assert entry["toolCalls"][0]["args"] == {"path": "app.py"}
    assert isinstance(entry["assistantTimestamp"], int)
    assert "resultText" not in entry["toolCalls"][0]

    # (c) the skill and AGENTS.md are verbatim in the next request, (d) the others are stubs
    assert masked[skill_id] == raw[skill_id]
    assert masked[agents_id] == raw[agents_id]
    assert masked[app_id] == (
        '[pruned t1: read(path="app.py") → 6.6KB, 300 lines, ok. '
        'Recover with context_tree_query(["t1"])]'
    )
    assert masked[lib_id] == (
        '[pruned t2: read(path="lib.py") → 6.6KB, 300 lines, ok. '
        'Recover with context_tree_query(["t2"])]'
    )
    # the recovery tool is offered from the first request that has a stub, not before
    assert "context_tree_query" not in tools[1]
    assert tools[2][-1] == "context_tree_query"

    # (e) the recovery tool gives the original bytes back
    recovered = after_query["call_2_0"]
    header, body = recovered.split("\n\n", 1)
    assert header.startswith("## toolRef: t1\nTool: read\n")
    assert body == raw[app_id]

    # stubs are byte-stable: each later request repeats the earlier one's messages exactly
    assert bodies[3].startswith(bodies[2][:-1])
    assert bodies[4].startswith(bodies[3][:-1])
    # the recovered output stays verbatim while in grace
    assert tool_texts(server, 4)["call_2_0"] == recovered
    # the history itself was never changed (pith's own extensions get it uncopied)
    kept = {
        m.tool_call_id: "".join(b.text for b in m.content if hasattr(b, "text"))
        for m in session.agent.messages
        if m.role == "toolResult"
    }
    assert kept[app_id] == raw[app_id]


def test_nothing_is_masked_when_the_gain_is_small(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(minGainTokens=100000, strategy="mask")
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        assert tool_texts(server, 2) == tool_texts(server, 1)
    assert world.entries("prune-index") == []  # captured, but nothing is written until it matters


def test_off_in_settings_then_on_and_now_indexes_the_past(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(enabled=False, strategy="mask")
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "/pruner on", "/pruner now", "/pruner status", "again")
        masked = tool_texts(server, 2)
    assert masked["call_0_1"].startswith("[pruned t1:")
    assert masked["call_0_0"].startswith("---\nname: deploy")
    texts = [message for _, message in world.ui.notices]
    assert "[prune] indexed 1 batches (2 tool results)" in texts
    status = next(t for t in texts if t.startswith("[prune] pruner: on (set by /pruner)"))
    assert "indexed: 2 results" in status
    assert "budget triggers: off (the current task is never pruned)" in status
    assert "error purge: failed calls' arguments of 500+ chars, after 2 turns" in status


def test_pruner_off_shows_everything_raw_again(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "/pruner off", "again")
        assert tool_texts(server, 2) == tool_texts(server, 1)


def test_the_footer_shows_what_pruning_saved_and_clears_when_it_is_off(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(strategy="mask")
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "again", "/pruner off", "once more")
    shown = [text for key, text in world.ui.statuses if key == "prune"]
    saved = [text for text in shown if text is not None]
    assert saved, shown
    assert saved[-1].startswith("pruned −")
    assert saved[-1].endswith(" tok")
    assert float(saved[-1].removeprefix("pruned −").removesuffix("k tok")) > 2
    assert shown[-1] is None  # /pruner off: nothing saved any more, nothing shown


def test_a_trivial_batch_is_skipped_and_remembered(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    (world.work / "tiny.txt").write_text("tiny\n")
    script = {"turns": [{"tool_calls": [call("read", path="tiny.txt")]}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "/pruner now", "/pruner now")
    assert world.entries("prune-index") == []
    [frontier] = world.entries("prune-frontier")
    assert frontier["lastToolCallId"] == "call_0_0"
    assert frontier["outcome"] == "skipped-trivial"
    texts = [m for _, m in world.ui.notices]
    assert texts.count("[prune] indexed 0 batches (0 tool results)") == 2


def test_a_huge_result_is_spilled_and_recovered_from_its_file(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(spillThreshold=4000, strategy="mask")
    script = {
        "turns": [
            {"tool_calls": [call("read", path="app.py"), call("read", path="lib.py")]},
            {"text": "ok"},
            {"tool_calls": [call("context_tree_query", toolCallIds=["t2"])]},
            {"text": "ok"},
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        raw = tool_texts(server, 1)["call_0_1"]
        masked = tool_texts(server, 2)["call_0_1"]
        recovered = tool_texts(server, 3)["call_2_0"]
    entry = world.entries("prune-index")[0]
    spilled = Path(entry["toolCalls"][1]["spillPath"])
    assert spilled.parent.name.endswith("-blobs")
    assert spilled.read_text() == raw
    assert f"full output in {spilled}" in masked
    assert recovered.split("\n\n", 1)[1] == raw


def test_moving_in_the_tree_drops_the_records_of_the_branch_left_behind(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    script = {
        "turns": [
            FIRST_TASK,
            {"text": "read them"},
            {"tool_calls": [call("read", path="lib.py"), call("read", path="app.py")]},
            {"text": "read again"},
            {"text": "ok"},
        ]
    }
    with FakeServer(script) as server:
        session = world.session(server)

        async def scenario() -> None:
            await session.start()
            try:
                await session.prompt("read")
                await session.prompt("/pruner status")
                await session.navigate_tree(None)
                await session.prompt("/pruner status")
                await session.prompt("read lib first")
                await session.prompt("more")
            finally:
                await session.shutdown()

        asyncio.run(scenario())
        masked = tool_texts(server, 4)
    statuses = [m for _, m in world.ui.notices if m.startswith("[prune] pruner:")]
    assert "indexed: 2 results" in statuses[0]
    assert "indexed: 0 results" in statuses[1]
    assert masked["call_2_0"].startswith('[pruned t1: read(path="lib.py")')
    assert masked["call_2_1"].startswith('[pruned t2: read(path="app.py")')


def test_unknown_subcommands_get_the_help_and_completions_offer_the_known_ones(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": []}) as server:
        command = world.run(server, "/pruner frobnicate").extensions.commands["pruner"]
    [(level, text)] = world.ui.notices
    assert level == "warning"
    assert text.startswith(
        "[prune] /pruner frobnicate: unknown subcommand\n/pruner — the context pruner"
    )
    assert command.get_argument_completions is not None
    assert list(command.get_argument_completions("o")) == ["on", "off"]


def test_a_resumed_session_captures_again_what_was_never_written(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": [FIRST_TASK, {"text": "read them"}]}) as server:
        world.run(server, "read")
    assert world.entries("prune-index") == []  # nothing was masked: nothing written
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    with FakeServer({"turns": [{"text": "ok"}]}) as server:
        world.run(server, "again", store=SessionStore.open(path))
        masked = tool_texts(server, 0)
    assert masked["call_0_1"].startswith('[pruned t1: read(path="app.py")')
    assert masked["call_0_3"].startswith('[pruned t2: read(path="lib.py")')
    [entry] = world.entries("prune-index")
    assert [r["toolCallId"] for r in entry["toolCalls"]] == ["call_0_1", "call_0_3"]


def test_a_resumed_session_sends_the_same_stubs(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}]}) as server:
        world.run(server, "read", "again")
        before = tool_texts(server, 2)
        first_body = json.dumps(server.requests[2]["body"]["messages"])
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    with FakeServer({"turns": [{"text": "fine"}]}) as server:
        world.run(server, "more", store=SessionStore.open(path))
        after = tool_texts(server, 0)
        body = json.dumps(server.requests[0]["body"]["messages"])
    assert after == before
    assert body.startswith(first_body[:-1])
    assert len(world.entries("prune-index")) == 1


def test_a_failed_write_with_a_big_content_is_purged_two_turns_later(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    content = "line of a file that could not be written\n" * 40
    script = {
        "turns": [
            {"tool_calls": [call("write", path="app.py/out.txt", content=content)]},
            {"text": "the write failed"},
            {"text": "noted"},
            {"text": "still here"},
            {"text": "bye"},
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "write it", "and?", "go on", "thanks")
        bodies = [r["body"] for r in server.requests]
    texts = [json.dumps(b["messages"]) for b in bodies]

    def arguments(n: int) -> object:
        [assistant] = [m for m in bodies[n]["messages"] if m.get("tool_calls")]
        assert assistant["tool_calls"][0]["function"]["name"] == "write"
        return json.loads(assistant["tool_calls"][0]["function"]["arguments"])

    # the error result follows assistant turn 1: raw in the turns 2 and 3 requests
    error = tool_texts(server, 1)["call_0_0"]
    assert "app.py" in error
    assert arguments(1) == {"path": "app.py/out.txt", "content": content}
    assert arguments(2) == {"path": "app.py/out.txt", "content": content}
    # two assistant turns later: the marker, still a JSON object (a valid tool call)
    size = len(json.dumps({"path": "app.py/out.txt", "content": content}, separators=(",", ":")))
    assert arguments(3) == {"_purged": f"[arguments of a failed call removed: {size} chars]"}
    [assistant] = [m for m in bodies[3]["messages"] if m.get("tool_calls")]
    assert assistant["tool_calls"] == [
        {
            "id": "call_0_0",
            "type": "function",
            "function": {
                "name": "write",
                "arguments": json.dumps(
                    {"_purged": f"[arguments of a failed call removed: {size} chars]"}
                ),
            },
        }
    ]
    assert content not in texts[3]
    # the error result itself is kept, and the purge is byte-stable from then on
    assert tool_texts(server, 3)["call_0_0"] == error
    assert texts[4].startswith(texts[3][:-1])
    # the stored session still has the real arguments
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    assert json.dumps(content)[1:-1] in path.read_text()


LONG_TASK = {
    "turns": [
        {"tool_calls": [call("read", path=f"{name}.py")]} for name in ("app", "lib", "c", "d", "e")
    ]
    + [{"text": "all read"}]
}


def long_task_world(tmp_path: Path, **prune: object) -> World:
    world = make_world(tmp_path)
    for name in ("c", "d", "e"):
        (world.work / f"{name}.py").write_text(source(name))
    world.settings(strategy="mask", **prune)
    return world


def test_a_long_single_task_past_the_budget_prunes_its_earlier_turns(tmp_path: Path) -> None:
    # 5% of the fake model's 128k window: 6400 tokens, passed after the third 6.6KB read
    world = long_task_world(tmp_path, autoBudgetThreshold=0.05)
    with FakeServer(LONG_TASK) as server:
        world.run(server, "read all the modules")
        texts = [tool_texts(server, n) for n in range(len(server.requests))]
        bodies = [json.dumps(r["body"]["messages"]) for r in server.requests]
    app, lib, c, d, e = (f"call_{n}_0" for n in range(5))
    # up to the trigger, the task's results go out raw
    assert all(not text.startswith("[pruned") for n in range(3) for text in texts[n].values())
    # after the third turn: the two turns before it are masked, the newest stays raw
    assert texts[3][app].startswith('[pruned t1: read(path="app.py")')
    assert texts[3][lib].startswith('[pruned t2: read(path="lib.py")')
    assert "def c_149" in texts[3][c]
    # the stubs freed enough to be under the budget again: later turns stay raw, and each
    # later request repeats the earlier one's messages exactly (no cache miss per turn)
    assert "def c_149" in texts[5][c]
    assert "def d_149" in texts[5][d]
    assert "def e_149" in texts[5][e]
    assert bodies[4].startswith(bodies[3][:-1])
    assert bodies[5].startswith(bodies[4][:-1])


def test_a_long_single_task_with_the_defaults_is_never_pruned_mid_task(tmp_path: Path) -> None:
    world = long_task_world(tmp_path)
    with FakeServer(LONG_TASK) as server:
        world.run(server, "read all the modules")
        last = tool_texts(server, len(server.requests) - 1)
    assert len(last) == 5
    assert all(not text.startswith("[pruned") for text in last.values())


def test_a_jump_in_usage_prunes_the_current_task_too(tmp_path: Path) -> None:
    # each 6.6KB read raises the usage by ~1.3% of the window; the first turn never fires
    world = long_task_world(tmp_path, budgetTurnDelta=0.01)
    with FakeServer(LONG_TASK) as server:
        world.run(server, "read all the modules")
        texts = [tool_texts(server, n) for n in range(len(server.requests))]
    app, lib, c = (f"call_{n}_0" for n in range(3))
    assert all(not text.startswith("[pruned") for n in range(3) for text in texts[n].values())
    assert texts[3][app].startswith('[pruned t1: read(path="app.py")')
    assert texts[3][lib].startswith('[pruned t2: read(path="lib.py")')
    assert "def c_149" in texts[3][c]


def test_the_purge_marker_is_a_valid_anthropic_tool_use_input(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.api = "anthropic-messages"
    content = "x" * 700
    script = {
        "turns": [
            {"tool_calls": [call("write", path="app.py/out.txt", content=content)]},
            {"text": "the write failed"},
            {"text": "noted"},
            {"text": "bye"},
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "write it", "and?", "thanks")
        bodies = [r["body"] for r in server.requests]

    def tool_use(n: int) -> dict[str, Any]:
        blocks = [
            block
            for message in bodies[n]["messages"]
            if message["role"] == "assistant" and isinstance(message["content"], list)
            for block in message["content"]
            if block["type"] == "tool_use"
        ]
        assert len(blocks) == 1
        return blocks[0]

    assert tool_use(2)["input"] == {"path": "app.py/out.txt", "content": content}
    size = len(json.dumps(tool_use(2)["input"], separators=(",", ":")))
    assert tool_use(3) == {
        "type": "tool_use",
        "id": "toolu_0_0",
        "name": "write",
        "input": {"_purged": f"[arguments of a failed call removed: {size} chars]"},
    }


def test_a_diagnostic_whose_write_failed_is_written_on_a_later_request(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    store = SessionStore.create(str(world.work), tmp_path / "sessions")
    store.append_message(UserMessage(content="earlier", timestamp=1))
    store.append_message(AssistantMessage(content=[TextContent(text="ok")], timestamp=2))
    # A compressed chain whose prompt is not on the branch: every render reports it.
    lost = ChainEntry(
        block_id="b1",
        start_user_timestamp=999,
        final_assistant_timestamp=1000,
        dropped_tool_call_ids=[],
        dropped_occurrence_keys=[],
        compressed_at=3,
        body="lost",
        body_source="deterministic",
    )
    store.append_custom(CHAIN_TYPE, msgspec.to_builtins(lost))
    disk = store._file
    assert disk is not None
    write = disk.append
    failures: list[bytes] = []

    def full_disk_once(line: bytes) -> None:
        if b'"prune-diagnostic"' in line and not failures:
            failures.append(line)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(line)

    disk.append = full_disk_once  # type: ignore[method-assign]
    with FakeServer({"turns": [{"text": "one"}, {"text": "two"}, {"text": "three"}]}) as server:
        world.run(server, "first", "second", "third", store=store)
    assert len(failures) == 1
    assert any("cannot record a pruner diagnostic" in m for _, m in world.ui.notices)
    assert world.entries("prune-diagnostic") == [
        {"kind": "unresolved-range", "detail": "b1: start or final message not found once"}
    ]
