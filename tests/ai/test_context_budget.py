"""Properties of the output-limit clamp (the values themselves are pinned to pi-ai in
tests/conformance/test_context_budget_conformance.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pith.ai import (
    AssistantMessage,
    Context,
    TextContent,
    ToolSpec,
    Usage,
    UserMessage,
    clamp_max_tokens,
    estimate_input_tokens,
)

windows = st.integers(min_value=1, max_value=2_000_000)
inputs = st.integers(min_value=0, max_value=2_000_000)
limits = st.integers(min_value=1, max_value=300_000)  # models.json: maxTokens > 0


@given(windows, inputs, limits)
def test_clamped_limit_is_between_1_and_the_wanted_limit(
    window: int, input_tokens: int, wanted: int
) -> None:
    clamped = clamp_max_tokens(wanted, context_window=window, input_tokens=input_tokens)
    assert 1 <= clamped <= wanted


@given(windows, inputs, limits)
def test_clamped_output_leaves_the_fixed_margin_free_unless_it_is_the_minimum(
    window: int, input_tokens: int, wanted: int
) -> None:
    clamped = clamp_max_tokens(wanted, context_window=window, input_tokens=input_tokens)
    assert clamped == 1 or input_tokens + clamped + 4096 <= window


@given(windows, inputs, inputs, limits)
def test_more_input_never_raises_the_limit(window: int, a: int, b: int, wanted: int) -> None:
    small, large = sorted((a, b))
    assert clamp_max_tokens(wanted, context_window=window, input_tokens=large) <= clamp_max_tokens(
        wanted, context_window=window, input_tokens=small
    )


@given(st.integers(max_value=0), inputs, limits)
def test_an_unknown_window_clamps_nothing(window: int, input_tokens: int, wanted: int) -> None:
    assert clamp_max_tokens(wanted, context_window=window, input_tokens=input_tokens) == max(
        1, wanted
    )


def test_the_tool_declarations_count_until_a_reply_reports_usage() -> None:
    tool = ToolSpec("lookup", "Look a word up.", {"type": "object", "properties": {}})
    question = UserMessage(content=[TextContent(text="hi")], timestamp=1)
    bare = Context("You are terse.", [question])
    with_tool = Context("You are terse.", [question], [tool])
    # '{"name":"lookup","description":"Look a word up.","parameters":{...}}' is 96 characters.
    assert estimate_input_tokens(with_tool) - estimate_input_tokens(bare) == 28
    reply = AssistantMessage(
        content=[TextContent(text="ok")], usage=Usage(total_tokens=500), timestamp=2
    )
    later = UserMessage(content=[TextContent(text="more")], timestamp=3)
    assert estimate_input_tokens(Context("You are terse.", [question, reply, later], [tool])) == (
        500 + 2
    )
