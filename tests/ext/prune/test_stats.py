"""`prune-stats`: the running totals, pure and end to end."""

from __future__ import annotations

from pathlib import Path

from pith.ai import Cost, Usage
from pith.ext.prune._stats import (
    STATS_TYPE,
    PruneStats,
    add_usage,
    format_stats,
    stats_from_entries,
)
from pith.session import SessionStore
from pith.testing import FakeServer

from .test_extension import FIRST_TASK, make_world
from .test_summarize import main, session_lines, summarizing_world, summary_turn


def test_add_usage_counts_cache_tokens_as_input_and_adds_the_cost() -> None:
    usage = Usage(input=100, output=20, cache_read=30, cache_write=5, cost=Cost(total=0.25))
    stats = add_usage(add_usage(PruneStats(), usage), usage)
    assert (stats.input_tokens, stats.output_tokens, stats.cost) == (270, 40, 0.5)


def test_the_last_stats_entry_wins_and_a_malformed_one_is_reported() -> None:
    entries = [
        (STATS_TYPE, {"inputTokens": 1}),
        ("prune-index", {}),
        (STATS_TYPE, {"inputTokens": 7, "summaries": 2}),
        (STATS_TYPE, {"inputTokens": "many"}),
    ]
    stats, problems = stats_from_entries(entries)
    assert stats == PruneStats(input_tokens=7, summaries=2)
    assert len(problems) == 1
    assert problems[0].startswith("a prune-stats entry is malformed")
    assert stats_from_entries([]) == (None, [])


def test_format_stats_names_every_total() -> None:
    text = format_stats(PruneStats(input_tokens=10, output_tokens=2, cost=0.01, summaries=1))
    assert text == (
        "summarizer: 10 input tokens, 2 output tokens, $0.0100\n"
        "summaries recorded: 1\n"
        "last pruning request: 0 batches masked, ~0 tokens saved\n"
        "chains compressed: 0 (0 with a fused summary)"
    )


def stats_entries(tmp_path: Path) -> list[dict[str, object]]:
    return [e["data"] for e in session_lines(tmp_path) if e.get("customType") == STATS_TYPE]


def test_a_session_that_never_prunes_writes_no_stats(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    with FakeServer({"turns": [FIRST_TASK, {"text": "read them"}]}) as server:
        world.run(server, "read", "/pruner stats")
    assert stats_entries(tmp_path) == []
    assert [e for e in session_lines(tmp_path) if e["type"] == "custom"] == []


def test_masking_writes_stats_once_and_pruner_stats_shows_them(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    script = {"turns": [FIRST_TASK, {"text": "read them"}, {"text": "ok"}, {"text": "ok"}]}
    with FakeServer(script) as server:
        world.run(server, "read", "again", "and again", "/pruner stats")
    [stats] = stats_entries(tmp_path)  # the same masking in the third request: not written again
    assert stats["batchesMasked"] == 1
    saved = stats["tokensSaved"]
    assert isinstance(saved, int)
    assert saved > 3000
    assert world.ui.notices[-1][1] == (
        "[prune] summarizer: 0 input tokens, 0 output tokens, $0.0000\n"
        "summaries recorded: 0\n"
        f"last pruning request: 1 batches masked, ~{saved} tokens saved\n"
        "chains compressed: 0 (0 with a fused summary)"
    )


def test_summarizer_usage_is_counted_and_read_back_on_resume(tmp_path: Path) -> None:
    world = summarizing_world(tmp_path)
    script = {
        "turns": [
            main(FIRST_TASK),
            main({"text": "read them"}),
            summary_turn(usage={"input": 1234, "output": 56}),
            main({"text": "ok"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read", "go on")
    # one after the summary, one when the next request stubbed the batch (tokens saved)
    first, stats = stats_entries(tmp_path)
    assert first["summaries"] == 1
    assert first.get("tokensSaved", 0) == 0
    assert isinstance(stats["tokensSaved"], int)
    assert stats["tokensSaved"] > 0
    assert (stats["inputTokens"], stats["outputTokens"], stats["summaries"]) == (1234, 56, 1)
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    with FakeServer({"turns": []}) as server:
        world.run(server, "/pruner stats", store=SessionStore.open(path))
    text = world.ui.notices[-1][1]
    assert text.startswith("[prune] summarizer: 1234 input tokens, 56 output tokens")
    assert "summaries recorded: 1" in text
    assert len(stats_entries(tmp_path)) == 2  # unchanged: nothing written on resume
