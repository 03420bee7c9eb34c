"""The `summarize` strategy end to end: the fake model server answers the summarizer's requests
(matched by its system prompt) and the conversation's (`unless` it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pith.ext.prune.summaries._jobs import SUMMARY_HEADER, SUMMARY_SYSTEM_PROMPT
from pith.session import SessionStore
from pith.testing import FakeServer

from .test_extension import FIRST_TASK, World, call, make_world, tool_texts

SUMMARIZER = SUMMARY_SYSTEM_PROMPT[:50]
SUMMARY = "- t1: app.py defines app_0 … app_149, each returning x * n.\n- t2: lib.py likewise."


def main(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn for the conversation, never for the summarizer."""
    return {**turn, "unless": [SUMMARIZER]}


def summary_turn(text: str = SUMMARY, **extra: Any) -> dict[str, Any]:
    return {"text": text, "match": [SUMMARIZER], **extra}


def summarizing_world(tmp_path: Path, **prune: object) -> World:
    world = make_world(tmp_path)
    world.settings(**prune)  # no strategy: summarize, since the session has a model
    return world


def session_lines(tmp_path: Path) -> list[dict[str, Any]]:
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def wire_text(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def test_a_summarized_batch_becomes_stubs_and_one_non_steering_summary_message(
    tmp_path: Path,
) -> None:
    world = summarizing_world(tmp_path)
    script = {
        "turns": [
            main(FIRST_TASK),
            main({"text": "read them"}),
            summary_turn(),
            main({"tool_calls": [call("context_tree_query", toolCallIds=["t1"])]}),
            main({"text": "recovered"}),
            main({"text": "bye"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read the skill and the code", "go on", "thanks")
        requests = [r["body"] for r in server.requests]
        raw = tool_texts(server, 1)
        after = tool_texts(server, 3)
        recovered = tool_texts(server, 4)["call_3_0"]
    assert len(requests) == 6  # no turn answers the summary
    # the footer said the summarizer was at work, then what pruning saved
    shown = [text for key, text in world.ui.statuses if key == "prune"]
    working = shown.index("pruner: summarizing 1 batch…")
    assert any(text and text.startswith("pruned −") for text in shown[working + 1 :])

    # the summarizer read the batch (protected reads left out), each result cut to 2000 chars
    asked = wire_text(requests[2]["messages"][-1])
    assert asked.startswith('<tool-call-batch>\nt1: read({\n  "path": "app.py"\n}) [ok]\n')
    assert "\n\n---\n\nt2: read(" in asked
    assert "more characters not shown]" in asked
    assert "SKILL.md" not in asked
    assert "AGENTS.md" not in asked

    # the results became stubs; protected reads stay verbatim
    app_id, lib_id = "call_0_1", "call_0_3"
    assert after[app_id] == (
        '[summarized t1: read(path="app.py") → 6.6KB, 300 lines, ok; see the pruner summary '
        'that names t1. Recover with context_tree_query(["t1"])]'
    )
    assert after[lib_id].startswith('[summarized t2: read(path="lib.py")')
    assert after["call_0_0"] == raw["call_0_0"]
    assert after["call_0_2"] == raw["call_0_2"]

    # the summary is a user-role message right before the new prompt, after the last reply
    roles = [(m["role"], wire_text(m)[:40]) for m in requests[3]["messages"][-3:]]
    assert roles == [
        ("assistant", "read them"),
        ("user", SUMMARY_HEADER[:40]),
        ("user", "go on"),
    ]
    summary = wire_text(requests[3]["messages"][-2])
    assert summary == (
        f"{SUMMARY_HEADER}\n\n{SUMMARY}\n\n"
        'Refs: t1, t2. context_tree_query(["t1", ...]) returns a result\'s full output.'
    )

    # stored as a hidden custom message before the user's prompt; the results stay raw on disk
    lines = session_lines(tmp_path)
    kinds = [
        e.get("customType") or e.get("message", {}).get("role")
        for e in lines
        if e["type"] in ("message", "custom_message")
    ]
    assert kinds[kinds.index("prune-summary") + 1] == "user"
    [entry] = [e for e in lines if e["type"] == "custom_message"]
    assert entry["display"] is False
    assert [r["shortId"] for r in entry["details"]["toolCallRefs"]] == ["t1", "t2"]
    assert entry["details"]["toolCallRefs"][0]["toolCallId"] == app_id
    assert entry["details"]["model"] == "fake/m"

    # byte-stable: later requests repeat the earlier ones' messages exactly
    bodies = [json.dumps(r["messages"]) for r in requests]
    assert bodies[4].startswith(bodies[3][:-1])
    assert bodies[5].startswith(bodies[4][:-1])

    # recovery still gives the raw bytes
    assert recovered.split("\n\n", 1)[1] == raw[app_id]


def notices(world: World, level: str) -> list[str]:
    return [text for lvl, text in world.ui.notices if lvl == level]


TWO_TASKS = [main(FIRST_TASK), main({"text": "read them"})]


def test_a_failing_summarizer_masks_the_batch_instead(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path)
    script = {
        "turns": [
            *TWO_TASKS,
            {"fault": {"status": 500}, "match": [SUMMARIZER]},
            main({"text": "ok"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        after = tool_texts(server, 3)
        last = server.requests[3]["body"]["messages"][-1]
    assert after["call_0_1"].startswith('[pruned t1: read(path="app.py") → 6.6KB')
    assert after["call_0_3"].startswith('[pruned t2: read(path="lib.py")')
    assert wire_text(last) == "again"  # no summary message
    [warning] = notices(world, "warning")
    assert warning.startswith("[prune] no summary for t1–t2 (fake/m: ")
    assert warning.endswith("; masked instead")
    [outcome] = world.entries("prune-summary-outcome")
    assert outcome["outcome"] == "masked"
    assert outcome["keys"][0].startswith("call_0_1@")


def test_a_silent_summarizer_times_out_and_the_batch_is_masked(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path, summarizerIdleTimeoutMs=200)
    script = {
        "turns": [
            *TWO_TASKS,
            summary_turn(fault={"firstByteDelay": 1.5}),
            main({"text": "ok"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        after = tool_texts(server, 3)
    assert after["call_0_1"].startswith("[pruned t1:")
    [warning] = notices(world, "warning")
    assert "fake/m: no response for 0.2 s" in warning


def test_a_summary_longer_than_the_results_keeps_them_raw(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path)
    script = {"turns": [*TWO_TASKS, summary_turn("- t1: " + "wordy " * 3000), main({"text": "ok"})]}
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        assert tool_texts(server, 3) == tool_texts(server, 1)
        assert wire_text(server.requests[3]["body"]["messages"][-1]) == "again"
    [outcome] = world.entries("prune-summary-outcome")
    assert outcome["outcome"] == "kept-raw"
    assert notices(world, "warning") == []


def test_an_unknown_summarizer_model_warns_and_the_session_model_summarizes(
    tmp_path: Path,
) -> None:
    world = summarizing_world(tmp_path, summarizerModel="nowhere/nothing")
    script = {"turns": [*TWO_TASKS, summary_turn(), main({"text": "ok"})]}
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        assert tool_texts(server, 3)["call_0_1"].startswith("[summarized t1:")
    [warning] = notices(world, "warning")
    assert warning.startswith(
        "[prune] settings \"prune.summarizerModel\" 'nowhere/nothing' is not a usable model"
    )
    assert warning.endswith("summarizing with the session model")
    [entry] = [e for e in session_lines(tmp_path) if e["type"] == "custom_message"]
    assert entry["details"]["model"] == "fake/m"


def test_a_failing_named_summarizer_falls_back_to_the_session_model(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path, summarizerModel="fake/small")
    script = {
        "turns": [
            *TWO_TASKS,
            {"fault": {"status": 500}, "match": [SUMMARIZER, '"model":"small"']},
            summary_turn(match=[SUMMARIZER, '"model":"m"']),
            main({"text": "ok"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        models = [r["body"]["model"] for r in server.requests]
        assert tool_texts(server, 4)["call_0_1"].startswith("[summarized t1:")
    assert models == ["m", "m", "small", "m", "m"]
    [warning] = notices(world, "warning")
    assert warning.startswith("[prune] summarizer fake/small: ")
    assert warning.endswith("; trying the session model")
    [entry] = [e for e in session_lines(tmp_path) if e["type"] == "custom_message"]
    assert entry["details"]["model"] == "fake/m"


def test_a_resumed_summarized_session_sends_the_same_bytes(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path)
    script = {"turns": [*TWO_TASKS, summary_turn(), main({"text": "ok"})]}
    with FakeServer(script) as server:
        world.run(server, "read", "again")
        first = json.dumps(server.requests[3]["body"]["messages"])
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    with FakeServer({"turns": [main({"text": "fine"})]}) as server:
        world.run(server, "more", store=SessionStore.open(path))
        body = json.dumps(server.requests[0]["body"]["messages"])
        assert len(server.requests) == 1  # nothing left to summarize: no summarizer request
    assert body.startswith(first[:-1])


def test_an_anthropic_summarizer_request_sends_no_cache_breakpoints(tmp_path: Path) -> None:
    # A batch is summarized once: a cache write (1.25x the input price) would be paid for a
    # prefix no later request reads. The conversation keeps its breakpoints.
    world = summarizing_world(tmp_path)
    world.api = "anthropic-messages"
    script = {
        "turns": [
            main(FIRST_TASK),
            main({"text": "read them"}),
            summary_turn(),
            main({"text": "ok"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read the skill and the code", "go on")
        assert server.problems() == []
        sent = [(r["turn"], json.dumps(r["body"])) for r in server.requests]
    assert [turn for turn, _ in sent] == [0, 1, 2, 3]
    assert '"cache_control"' not in sent[2][1]
    assert all('"cache_control"' in body for turn, body in sent if turn != 2)


def test_a_small_gain_asks_no_summarizer(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path, minGainTokens=100000)
    with FakeServer({"turns": [*TWO_TASKS, main({"text": "ok"})]}) as server:
        world.run(server, "read", "again")
        assert len(server.requests) == 3
        assert tool_texts(server, 2) == tool_texts(server, 1)
    assert world.entries("prune-index") == []


def test_mask_strategy_in_settings_asks_no_summarizer(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path, strategy="mask")
    with FakeServer({"turns": [*TWO_TASKS, main({"text": "ok"})]}) as server:
        world.run(server, "read", "again")
        assert len(server.requests) == 3
        assert tool_texts(server, 2)["call_0_1"].startswith("[pruned t1:")


def test_the_summary_is_asked_for_when_the_task_ends_and_recorded_at_the_next_prompt(
    tmp_path: Path,
) -> None:
    world = summarizing_world(tmp_path)
    script = {"turns": [*TWO_TASKS, summary_turn(), main({"text": "ok"})]}
    with FakeServer(script) as server:
        session = world.session(server)

        async def scenario() -> tuple[int, int, list[str]]:
            await session.start()
            try:
                await session.prompt("read")
                for _ in range(200):  # the summarizer is asked in the background
                    if len(server.requests) == 3:
                        break
                    await asyncio.sleep(0.05)
                asked = len(server.requests)
                stored = [e["type"] for e in session_lines(tmp_path)]
                await session.prompt("again")
                return asked, len(server.requests), stored
            finally:
                await session.shutdown()

        asked_before, count, stored_before = asyncio.run(scenario())
        assert tool_texts(server, 3)["call_0_1"].startswith("[summarized t1:")
    assert asked_before == 3  # asked for before the next prompt
    assert count == 4  # and that prompt used it: the summarizer was asked once
    assert "custom_message" not in stored_before  # nothing recorded until the next prompt
    assert [e["type"] for e in session_lines(tmp_path)].count("custom_message") == 1


def test_print_mode_asks_for_summaries_only_when_a_next_prompt_needs_them(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path)
    script = {"turns": [*TWO_TASKS, summary_turn(), main({"text": "ok"})]}
    with FakeServer(script) as server:
        session = world.session(server, mode="print")

        async def scenario() -> tuple[int, int]:
            await session.start()
            try:
                await session.prompt("read")
                await asyncio.sleep(0.3)  # nothing starts in the background
                asked = len(server.requests)
                await session.prompt("again")
                return asked, len(server.requests)
            finally:
                await session.shutdown()

        asked_after_first, total = asyncio.run(scenario())
    assert asked_after_first == 2  # the task's own requests only
    assert total == 4  # the next prompt asked the summarizer, then the model


def test_budget_masks_mid_task_and_those_stubs_stay_when_the_task_is_summarized(
    tmp_path: Path,
) -> None:
    from .test_extension import LONG_TASK

    world = summarizing_world(tmp_path, autoBudgetThreshold=0.05)
    for name in ("c", "d", "e"):
        (world.work / f"{name}.py").write_text("".join(f"{name}_{n} = {n}\n" for n in range(900)))
    script = {
        "turns": [main(turn) for turn in LONG_TASK["turns"]]
        + [summary_turn("- t5: e.py assigns e_0 … e_899."), main({"text": "next done"})]
    }
    with FakeServer(script) as server:
        world.run(server, "read all the modules", "next")
        asks = [SUMMARIZER in json.dumps(r["body"]) for r in server.requests]
        texts = [tool_texts(server, n) for n in range(len(server.requests))]
    ids = [f"call_{n}_0" for n in range(5)]
    # no summarizer call during the task (requests 0-5): the budget masked older turns instead
    assert asks == [False] * 6 + [True, False]
    assert texts[3][ids[0]].startswith('[pruned t1: read(path="app.py")')
    assert texts[3][ids[1]].startswith('[pruned t2: read(path="lib.py")')
    assert not texts[3][ids[2]].startswith("[pruned")
    assert texts[5][ids[2]].startswith('[pruned t3: read(path="c.py")')
    assert texts[5][ids[3]].startswith('[pruned t4: read(path="d.py")')
    # each firing is recorded as masked, so the next prompt summarizes only the newest turn
    # and the mid-task stubs stay the same bytes
    outcomes = world.entries("prune-summary-outcome")
    assert [(len(o["keys"]), o["outcome"], o["reason"]) for o in outcomes] == [
        (2, "masked", "budget trigger, mid-task"),
        (2, "masked", "budget trigger, mid-task"),
    ]
    last = texts[-1]
    assert [last[i] for i in ids[:4]] == [texts[5][i] for i in ids[:4]]
    assert last[ids[4]].startswith('[summarized t5: read(path="e.py")')
