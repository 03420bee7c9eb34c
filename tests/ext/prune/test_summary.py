"""The `summarize` strategy's pure half: which batches are summarized, what the summarizer
reads, the summary text, and how decided records render."""

from __future__ import annotations

from pith.ext.prune import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._render import render
from pith.ext.prune.summaries._jobs import (
    INPUT_CAP,
    SUMMARY_HEADER,
    finish_summary,
    plan_jobs,
    serialize_batch,
)
from tests.ext.prune.conftest import Convo, dump, index_turn
from tests.ext.prune.test_render import BIG, finished_task, text_of

CONFIG = PruneConfig(min_gain_tokens=1000)


def big(n: int) -> str:
    """A distinct large output (identical ones would be dedup aliases)."""
    return f"output {n}\n" + BIG


def test_a_finished_task_is_one_job_per_batch_before_the_next_prompt(convo: Convo) -> None:
    index = PruneIndex()
    convo.user("task")
    index_turn(
        index, convo.turn(("read", {"path": "a.py"}, big(1)), ("bash", {"command": "ls"}, big(2)))
    )
    index_turn(index, convo.turn(("read", {"path": "b.py"}, big(3))))
    convo.reply()
    jobs = plan_jobs(convo.messages, index, CONFIG)
    assert [job.refs for job in jobs] == [("t1", "t2"), ("t3",)]
    assert jobs[0].texts == (big(1), big(2))
    assert jobs[0].raw_chars == 2 * len(big(1))


def test_keep_recent_turns_leaves_the_last_tasks_out(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, big(4)))
    finished_task(convo, index, ("read", {"path": "b.py"}, big(5)))
    config = PruneConfig(min_gain_tokens=1000, keep_recent_turns=1)
    assert [job.refs for job in plan_jobs(convo.messages, index, config)] == [("t1",)]


def test_decided_spilled_and_now_protected_records_are_not_summarized(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, big(6)))
    finished_task(convo, index, ("read", {"path": "b.py"}, big(7)))
    convo.user("task")  # indexed while skills were not protected
    unprotected = PruneConfig(min_batch_chars=0, protected_paths=())
    index_turn(index, convo.turn(("read", {"path": "docs/skills/x/NOTES.md"}, big(8))), unprotected)
    convo.reply()
    finished_task(convo, index, ("read", {"path": "d.py"}, big(9)))
    index.decide([next(iter(index.records))], "summarized")
    index.records[index.by_ref["t4"]].spill_path = "/tmp/spilled.txt"
    jobs = plan_jobs(convo.messages, index, CONFIG)  # t3 is under the default skills glob
    assert [job.refs for job in jobs] == [("t2",)]


def test_nothing_is_summarized_when_the_gain_is_small(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, big(10)))
    assert plan_jobs(convo.messages, index, PruneConfig(min_gain_tokens=100000)) == []


def test_the_summarizer_reads_each_result_cut_to_the_cap(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG), ("bash", {"command": "ls"}, "x"))
    [job] = plan_jobs(convo.messages, index, PruneConfig(min_gain_tokens=10))
    text = serialize_batch(job)
    head = '<tool-call-batch>\nt1: read({\n  "path": "a.py"\n}) [ok]\n'
    assert text.startswith(head + BIG[:INPUT_CAP] + " …[8000 more characters not shown]\n")
    assert text.endswith('\n\n---\n\nt2: bash({\n  "command": "ls"\n}) [ok]\nx\n</tool-call-batch>')


def test_a_summary_gets_the_header_and_a_refs_footer_and_a_blank_one_is_none() -> None:
    assert finish_summary("  - t1: read a.py\n", ["t1", "t2"]) == (
        f"{SUMMARY_HEADER}\n\n- t1: read a.py\n\n"
        'Refs: t1, t2. context_tree_query(["t1", ...]) returns a result\'s full output.'
    )
    assert finish_summary(" \n", ["t1"]) is None


def test_summarized_records_render_as_summary_stubs_whatever_the_gain(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, big(12)))
    convo.user("next")
    index.decide(list(index.records), "summarized")
    config = PruneConfig(min_gain_tokens=100000)
    out, stats = render(convo.messages, index, config, strategy="summarize")
    assert text_of(out[2]) == (
        '[summarized t1: read(path="a.py") → 9.8KB, 1002 lines, ok; see the pruner summary '
        'that names t1. Recover with context_tree_query(["t1"])]'
    )
    assert stats.masked == 1
    again, _ = render(convo.messages, index, config, strategy="summarize")
    assert dump(again) == dump(out)  # byte-stable


def test_a_record_waiting_for_its_summary_stays_raw(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, big(13)))
    convo.user("next")
    out, _ = render(convo.messages, index, CONFIG, strategy="summarize")
    assert out is convo.messages
    masked, _ = render(convo.messages, index, CONFIG, strategy="mask")
    assert text_of(masked[2]).startswith("[pruned t1:")


def test_kept_raw_stays_raw_and_masked_is_masked_in_any_strategy(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, big(14)))
    finished_task(convo, index, ("read", {"path": "b.py"}, big(15)))
    convo.user("next")
    first, second = list(index.records)
    index.decide([first], "kept-raw")
    index.decide([second], "masked")
    for strategy in ("mask", "summarize"):
        out, _ = render(convo.messages, index, PruneConfig(min_gain_tokens=0), strategy=strategy)
        assert text_of(out[2]) == big(14)
        assert text_of(out[6]).startswith("[pruned t2:")


def test_a_summarized_record_whose_path_is_now_protected_is_raw_again(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "notes/a.md"}, big(16)))
    convo.user("next")
    index.decide(list(index.records), "summarized")
    config = PruneConfig(min_gain_tokens=0, protected_paths=("notes/*.md",))
    out, _ = render(convo.messages, index, config, strategy="summarize")
    assert out is convo.messages


def test_decisions_are_rebuilt_from_the_entries() -> None:
    entries: list[tuple[str, object]] = [
        (
            "prune-summary",
            {
                "toolCallRefs": [{"shortId": "t1", "toolCallId": "c1", "resultTimestamp": 5}],
                "toolNames": ["read"],
            },
        ),
        ("prune-summary-outcome", {"keys": ["c2@6"], "outcome": "kept-raw"}),
        ("prune-summary-outcome", {"keys": ["c3@7"], "outcome": "lost"}),
    ]
    index = PruneIndex.from_entries(entries)
    assert index.decisions == {"c1@5": "summarized", "c2@6": "kept-raw"}
    assert len(index.problems) == 1


def test_auto_strategy_is_summarize_with_a_model_and_mask_without() -> None:
    assert PruneConfig().effective_strategy(has_model=True) == "summarize"
    assert PruneConfig().effective_strategy(has_model=False) == "mask"
    assert PruneConfig(strategy="mask").effective_strategy(has_model=True) == "mask"
    assert PruneConfig(strategy="summarize").effective_strategy(has_model=False) == "mask"
