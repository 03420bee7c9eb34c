"""Capture: batches, protection, trivial skips, dedup, the frontier, spill helpers."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pith.ext.prune import PruneConfig
from pith.ext.prune._capture import content_hash, pending_batches, plan_batch
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._records import FRONTIER_TYPE, Frontier
from pith.ext.prune._spill import preview, spill_path, write_spill
from tests.ext.prune.conftest import Convo, index_turn

BIG = "x" * 600


def test_protected_calls_never_enter_the_batch(convo: Convo) -> None:
    turn = convo.turn(
        ("read", {"path": "skills/deploy/SKILL.md"}, "steps " * 300),
        ("read", {"path": "a.py"}, BIG),
        ("read", {"path": "b.py"}, BIG),
    )
    plan = plan_batch(*turn, PruneIndex(), PruneConfig())
    assert plan.outcome == "indexed"
    assert [c.args["path"] for c in plan.calls] == ["a.py", "b.py"]


def test_a_batch_under_min_batch_chars_is_skipped_but_attempted(convo: Convo) -> None:
    turn = convo.turn(("read", {"path": "a.py"}, "small"))
    plan = plan_batch(*turn, PruneIndex(), PruneConfig())
    assert plan.outcome == "skipped-trivial"
    assert plan.calls == []
    assert plan.last_key == f"call_1@{turn[1][0].timestamp}"


def test_a_fully_protected_batch_is_nothing_to_do(convo: Convo) -> None:
    turn = convo.turn(("read", {"path": "AGENTS.md"}, BIG * 3))
    plan = plan_batch(*turn, PruneIndex(), PruneConfig())
    assert plan.outcome is None
    assert plan.calls == []


def test_an_identical_re_read_is_aliased_to_the_earlier_record(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("read", {"path": "a.py"}, "same\r\ntext  \n")))
    again = convo.turn(("read", {"path": "./a.py"}, "same\ntext\n"))
    plan = plan_batch(*again, index, PruneConfig())
    assert plan.outcome == "skipped-deduped"
    [alias] = plan.aliases
    assert alias.original_key == next(iter(index.records))
    assert alias.args == {"path": "./a.py"}


def test_dedup_can_be_turned_off(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(index, convo.turn(("read", {"path": "a.py"}, BIG * 2)))
    plan = plan_batch(
        *convo.turn(("read", {"path": "a.py"}, BIG * 2)),
        index,
        PruneConfig(dedup_by_content_hash=False),
    )
    assert plan.aliases == []
    assert plan.outcome == "indexed"


def test_the_hash_ignores_line_endings_and_trailing_blanks_but_not_case() -> None:
    assert content_hash("read", "a \r\nb\t\n\n") == content_hash("read", "a\nb")
    assert content_hash("read", "A") != content_hash("read", "a")
    assert content_hash("read", "a") != content_hash("bash", "a")


def test_the_first_result_for_an_id_wins_and_images_are_left_alone(convo: Convo) -> None:
    from pith.ai import ImageContent, TextContent, ToolResultMessage

    assistant, results = convo.turn(
        ("read", {"path": "a.png"}, "image"), ("read", {"path": "b"}, BIG * 2)
    )
    results[0] = ToolResultMessage(
        tool_call_id="call_1",
        tool_name="read",
        timestamp=results[0].timestamp,
        content=[TextContent(text="pic"), ImageContent(data="AAAA", mime_type="image/png")],
    )
    duplicate = ToolResultMessage(tool_call_id="call_2", tool_name="read", content=[], timestamp=9)
    plan = plan_batch(assistant, [*results, duplicate], PruneIndex(), PruneConfig())
    assert [c.tool_call_id for c in plan.calls] == ["call_2"]
    assert plan.calls[0].text == BIG * 2


def test_refs_follow_the_order_of_the_entries(convo: Convo) -> None:
    index = PruneIndex()
    index_turn(
        index, convo.turn(("read", {"path": "a"}, "1" * 900), ("read", {"path": "b"}, "2" * 900))
    )
    index_turn(index, convo.turn(("bash", {"command": "ls"}, "3" * 900)))
    assert list(index.refs.values()) == ["t1", "t2", "t3"]
    assert index.by_ref["t3"].startswith("call_3@")


def test_rescan_never_retries_what_the_frontier_passed(convo: Convo) -> None:
    first = convo.turn(("read", {"path": "a"}, "small"))
    convo.reply()
    convo.user()
    second = convo.turn(("read", {"path": "b"}, BIG))
    frontier = Frontier(
        last_tool_call_id="call_1",
        last_result_timestamp=first[1][0].timestamp,
        outcome="skipped-trivial",
    )
    index = PruneIndex.from_entries(
        [
            (
                FRONTIER_TYPE,
                {
                    "lastToolCallId": "call_1",
                    "lastResultTimestamp": frontier.last_result_timestamp,
                    "outcome": "skipped-trivial",
                },
            )
        ]
    )
    assert index.frontier == frontier.key
    batches = pending_batches(convo.messages, index.frontier)
    assert [b[0] for b in batches] == [second[0]]
    assert len(pending_batches(convo.messages, None)) == 2


def test_a_malformed_entry_is_reported_not_swallowed() -> None:
    index = PruneIndex.from_entries([("prune-index", {"assistantTimestamp": "x"}), ("other", 1)])
    assert len(index.problems) == 1
    assert index.problems[0].startswith("a prune-index entry is malformed")


def test_spill_paths_are_per_occurrence_and_sanitized(tmp_path: Path) -> None:
    one = spill_path(tmp_path, "sid", "bash_23@1150")
    two = spill_path(tmp_path, "sid", "bash_23@1151")
    assert one == tmp_path / "sid-blobs" / "bash_23_1150.txt"
    assert one != two
    assert spill_path(tmp_path, "sid", "../../etc@1").name == "_.._etc_1.txt"
    assert write_spill(one, "héllo") == 6
    assert one.read_bytes() == "héllo".encode()


def test_the_preview_keeps_whole_lines_within_its_byte_cap() -> None:
    text = "ab\ncd\nééé"
    assert preview(text, 100) == text
    assert preview(text, 7) == "ab\ncd"
    assert preview("éééé", 3) == "é"
    for cap in range(12):
        assert len(preview(text, cap).encode()) <= cap


@given(st.text(), st.integers(min_value=0, max_value=64))
def test_a_preview_never_exceeds_its_cap_and_is_a_prefix(text: str, cap: int) -> None:
    head = preview(text, cap)
    assert len(head.encode()) <= cap or head == text
    assert text.startswith(head)
