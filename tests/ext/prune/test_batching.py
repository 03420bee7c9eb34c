"""`batchingMode`: one summary per assistant turn (`turn`) or per task (`agent-message`)."""

from __future__ import annotations

import json
from pathlib import Path

from pith.ext.prune.summaries._jobs import SummaryJob, merge_spans
from pith.testing import FakeServer

from .test_extension import call, make_world, tool_texts
from .test_summarize import SUMMARIZER, main, summary_turn, wire_text

TWO_TURNS = [
    main({"tool_calls": [call("read", path="app.py")]}),
    main({"tool_calls": [call("read", path="lib.py")]}),
    main({"text": "read both"}),
]


def summarizer_inputs(server: FakeServer) -> list[str]:
    return [
        wire_text(r["body"]["messages"][-1])
        for r in server.requests
        if SUMMARIZER in json.dumps(r["body"])
    ]


def test_agent_message_batching_asks_one_summary_for_the_whole_task(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(batchingMode="agent-message")
    script = {
        "turns": [*TWO_TURNS, summary_turn("- t1: app.py.\n- t2: lib.py."), main({"text": "ok"})]
    }
    with FakeServer(script) as server:
        world.run(server, "read app and lib", "again")
        [asked] = summarizer_inputs(server)
        after = tool_texts(server, 4)
    assert asked.startswith("<tool-call-batch>\nt1: read(")
    assert "\n\n---\n\nt2: read(" in asked
    assert after["call_0_0"].startswith("[summarized t1:")
    assert after["call_1_0"].startswith("[summarized t2:")


def test_turn_batching_asks_one_summary_per_assistant_turn(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings()
    script = {
        "turns": [
            *TWO_TURNS,
            summary_turn("- t1: app.py."),
            summary_turn("- t2: lib.py."),
            main({"text": "ok"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read app and lib", "again")
        asked = summarizer_inputs(server)
    assert len(asked) == 2
    assert all("---" not in text for text in asked)


def job(*keys: str) -> SummaryJob:
    return SummaryJob(keys, (), keys, tuple("x" for _ in keys))  # type: ignore[arg-type]


def test_merge_spans_joins_consecutive_jobs_of_one_user_turn_only() -> None:
    jobs = [job("a"), job("b"), job("c"), job("d")]
    merged = merge_spans(jobs, {"a": 1, "b": 1, "c": 2, "d": 1})
    assert [m.keys for m in merged] == [("a", "b"), ("c",), ("d",)]
