"""The footer line: model, thinking, context use, cost, compactions, extension statuses."""

from __future__ import annotations

from pith.ai import AssistantMessage, Cost, TextContent, Usage, UserMessage
from pith.app.modes.interactive._footer import (
    FooterData,
    compaction_totals,
    footer_text,
    format_tokens,
    session_cost,
)
from pith.session import SessionStore


def full_footer() -> FooterData:
    return FooterData(
        model="fake/m",
        thinking="high",
        context_tokens=12_345,
        context_window=200_000,
        cost=0.0123,
        compactions=2,
        compacted_tokens=45_000,
        statuses={"prune": "pruned 3.1k", "a-first": "indexing"},
        session_name="refactor",
    )


def test_the_footer_names_everything_in_order() -> None:
    assert footer_text(full_footer(), 200) == (
        "refactor · fake/m · thinking high · ctx 12k/200k (6%) · $0.012 · "
        "compacted 2× (45k summarized) · indexing · pruned 3.1k"
    )


def test_a_quiet_footer_leaves_out_what_is_not_there() -> None:
    data = FooterData(model="fake/m", context_tokens=None, context_window=128_000)
    assert footer_text(data, 80) == "fake/m · ctx ?/128k · $0.000"
    assert footer_text(FooterData(), 80) == "no model · $0.000"


def test_a_footer_wider_than_the_terminal_is_cut_with_an_ellipsis() -> None:
    line = footer_text(full_footer(), 40)
    assert len(line) == 40
    assert line.endswith("…")
    assert line.startswith("refactor · fake/m · thinking high")


def test_token_counts_read_short() -> None:
    assert [format_tokens(n) for n in (999, 1_234, 12_345, 999_000, 2_500_000)] == [
        "999",
        "1.2k",
        "12k",
        "999k",
        "2.5M",
    ]


def priced(total: float) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text="ok")], usage=Usage(cost=Cost(total=total)))


def test_the_session_cost_adds_every_reply_on_every_branch() -> None:
    store = SessionStore.create("/work", None)
    first = store.append_message(UserMessage(content="q")).id
    store.append_message(priced(0.25))
    store.branch(first)
    store.append_message(priced(0.5))
    assert session_cost(store.entries) == 0.75
    assert session_cost(store.get_branch()) == 0.5


def test_compaction_totals_count_the_compactions_of_the_branch() -> None:
    store = SessionStore.create("/work", None)
    store.append_message(UserMessage(content="q"))
    kept = store.append_message(priced(0.0)).id
    store.append_compaction("summary one", kept, 10_000)
    store.append_message(UserMessage(content="again"))
    store.append_compaction("summary two", None, 2_500)
    assert compaction_totals(store.get_branch()) == (2, 12_500)
    assert compaction_totals([]) == (0, 0)
