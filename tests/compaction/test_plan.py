"""The summarizer requests of a compaction: Pi's when they fit, chunked when they do not."""

from __future__ import annotations

from pith.ai import AgentMessage, ToolCall, ToolResultMessage
from pith.compaction import (
    NO_PRIOR_HISTORY,
    SPLIT_TURN_SEPARATOR,
    FileLists,
    history_request_text,
    plan_summary_requests,
    serialize_conversation,
    summary_output_reserve,
    turn_prefix_request_text,
)
from tests.compaction.sessions import assistant, result, user


def _turns(count: int, size: int) -> list[AgentMessage]:
    messages: list[AgentMessage] = []
    for index in range(count):
        call = ToolCall(id=f"c{index}", name="read", arguments={"path": f"f{index}.py"})
        messages += [user(size), assistant([call], size), result(call, size), assistant([], size)]
    return messages


def test_without_a_window_the_plan_is_one_history_request() -> None:
    messages = _turns(3, 100)
    plan = plan_summary_requests(messages)
    assert len(plan.history) == 1
    assert plan.turn_prefix is None
    assert not plan.chunked
    step = plan.history[0]
    assert step.request_text(None) == history_request_text(serialize_conversation(messages))


def test_a_split_turn_adds_a_turn_prefix_request_after_the_history() -> None:
    history, prefix = _turns(2, 50), _turns(1, 50)[:3]
    plan = plan_summary_requests(history, prefix, is_split_turn=True, custom_instructions="focus")
    assert [step.kind for step in plan.steps] == ["history", "turn_prefix"]
    assert plan.turn_prefix is not None
    assert plan.turn_prefix.request_text("ignored") == turn_prefix_request_text(
        serialize_conversation(prefix), "focus"
    )


def test_a_split_turn_with_no_history_asks_only_for_the_prefix() -> None:
    plan = plan_summary_requests([], _turns(1, 50)[:3], is_split_turn=True)
    assert [step.kind for step in plan.steps] == ["turn_prefix"]
    files = FileLists()
    assert plan.summary(None, "P", files) == f"{NO_PRIOR_HISTORY}{SPLIT_TURN_SEPARATOR}P"
    with_previous = plan_summary_requests(
        [], _turns(1, 50)[:3], is_split_turn=True, previous_summary="OLD"
    )
    assert with_previous.summary("OLD", "P", files) == f"OLD{SPLIT_TURN_SEPARATOR}P"


def test_the_first_step_updates_the_previous_summary() -> None:
    plan = plan_summary_requests(_turns(1, 50), previous_summary="## Goal\nOld")
    text = plan.history[0].request_text(plan.previous_summary)
    assert "<previous-summary>\n## Goal\nOld\n</previous-summary>" in text


def test_requests_that_fit_are_not_chunked() -> None:
    messages = _turns(3, 100)
    plan = plan_summary_requests(messages, context_window=100_000, output_reserve_tokens=8000)
    assert not plan.chunked
    assert len(plan.history) == 1
    assert plan.input_budget_tokens == 92_000


def test_a_history_too_big_for_the_summarizer_is_cut_into_updates() -> None:
    messages = _turns(40, 400)
    plan = plan_summary_requests(messages, context_window=6000, output_reserve_tokens=1000)
    assert plan.chunked
    assert len(plan.history) > 2
    assert [m for step in plan.history for m in step.messages] == messages
    for step in plan.history:
        assert not isinstance(step.messages[0], ToolResultMessage)
        assert not step.oversized
    first = plan.history[0].request_text(None)
    later = plan.history[1].request_text("## Goal\nsummary of chunk one")
    assert "<previous-summary>" not in first
    assert "<previous-summary>\n## Goal\nsummary of chunk one\n</previous-summary>" in later


def test_one_message_bigger_than_the_budget_is_planned_alone_and_marked() -> None:
    messages: list[AgentMessage] = [user(100), user(40_000), user(100)]
    plan = plan_summary_requests(messages, context_window=4000, output_reserve_tokens=500)
    assert [len(step.messages) for step in plan.history] == [1, 1, 1]
    assert [step.oversized for step in plan.history] == [False, True, False]


def test_a_turn_prefix_too_big_gives_its_head_to_the_history() -> None:
    call_turns = _turns(30, 400)
    prefix = call_turns[:-1]  # one long turn, cut before its last answer
    plan = plan_summary_requests(
        [], prefix, is_split_turn=True, context_window=6000, output_reserve_tokens=1000
    )
    assert plan.chunked
    assert plan.turn_prefix is not None
    assert plan.history
    moved = [m for step in plan.history for m in step.messages]
    assert moved + list(plan.turn_prefix.messages) == prefix
    assert not isinstance(plan.turn_prefix.messages[0], ToolResultMessage)
    assert plan.turn_prefix.estimated_input_tokens <= 5000


def test_the_output_reserve_is_the_model_limit_but_at_most_half_the_window() -> None:
    assert summary_output_reserve(200_000, 32_000) == 32_000
    assert summary_output_reserve(200_000, 128_000) == 100_000
    assert summary_output_reserve(8000, None) == 4000
