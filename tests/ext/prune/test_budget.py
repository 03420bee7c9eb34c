"""Budget and delta triggers: when the current task's older turns become maskable."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pith.ai import ToolResultMessage
from pith.ext.prune import PruneConfig
from pith.ext.prune._budget import budget_limit, check_budget, usage_fraction
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._render import render
from tests.ext.prune.conftest import Convo, dump, index_turn
from tests.ext.prune.test_render import BIG, CONFIG, text_of


def test_budget_limit_is_the_threshold_share_capped_at_300k() -> None:
    assert budget_limit(0.5, 200_000) == 100_000
    assert budget_limit(0.5, 1_000_000) == 300_000


def test_budget_limit_is_off_without_threshold_or_window_or_out_of_range() -> None:
    assert budget_limit(None, 200_000) is None
    assert budget_limit(0.5, 0) is None
    assert budget_limit(1.5, 200_000) is None
    assert budget_limit(0.0, 200_000) is None


def test_usage_fraction_uses_the_capped_window_and_is_not_clamped() -> None:
    assert usage_fraction(150_000, 1_000_000) == 0.5
    assert usage_fraction(400_000, 200_000) == 2.0
    assert usage_fraction(1, 0) is None


def test_the_threshold_fires_at_the_limit_and_not_below() -> None:
    config = PruneConfig(auto_budget_threshold=0.5)
    assert check_budget(100_000, 200_000, config, None).fire
    assert not check_budget(99_999, 200_000, config, None).fire


def test_the_delta_fires_on_a_big_jump_but_never_on_the_first_turn() -> None:
    config = PruneConfig(budget_turn_delta=0.1)
    first = check_budget(50_000, 100_000, config, None)
    assert not first.fire
    assert first.fraction == 0.5
    assert check_budget(60_000, 100_000, config, 0.5).fire
    assert not check_budget(59_000, 100_000, config, 0.5).fire


def test_unknown_tokens_never_fire_and_keep_the_previous_share() -> None:
    config = PruneConfig(auto_budget_threshold=0.1, budget_turn_delta=0.1)
    check = check_budget(None, 100_000, config, 0.3)
    assert not check.fire
    assert check.fraction == 0.3


def test_defaults_never_fire() -> None:
    assert not check_budget(10_000_000, 100_000, PruneConfig(), 0.0).fire


def long_task(convo: Convo, index: PruneIndex, turns: int) -> list[int | float]:
    """One user prompt, then `turns` turns each reading a different big file; the assistant
    timestamps."""
    convo.user("one long task")
    stamps = []
    for n in range(turns):
        turn = convo.turn(("read", {"path": f"f{n}.py"}, f"{n}\n" + BIG))
        index_turn(index, turn)
        stamps.append(turn[0].timestamp)
    return stamps


def test_without_a_cut_nothing_of_the_current_task_is_masked(convo: Convo) -> None:
    index = PruneIndex()
    long_task(convo, index, 3)
    out, _ = render(convo.messages, index, CONFIG)
    assert out is convo.messages


def test_a_budget_cut_masks_the_turns_before_it_and_keeps_the_newest_raw(convo: Convo) -> None:
    index = PruneIndex()
    stamps = long_task(convo, index, 3)
    out, stats = render(convo.messages, index, CONFIG, budget_cut=stamps[2])
    assert stats.masked == 2
    assert text_of(out[2]).startswith('[pruned t1: read(path="f0.py")')
    assert text_of(out[4]).startswith('[pruned t2: read(path="f1.py")')
    assert text_of(out[6]) == "2\n" + BIG  # the newest turn stays raw


def test_a_budget_cut_masks_rather_than_waits_for_a_summary(convo: Convo) -> None:
    index = PruneIndex()
    stamps = long_task(convo, index, 2)
    out, stats = render(convo.messages, index, CONFIG, "summarize", budget_cut=stamps[1])
    assert stats.masked == 1
    assert text_of(out[2]).startswith("[pruned t1:")


def test_a_budget_cut_still_needs_min_gain(convo: Convo) -> None:
    index = PruneIndex()
    stamps = long_task(convo, index, 2)
    config = PruneConfig(min_gain_tokens=10_000)
    out, _ = render(convo.messages, index, config, budget_cut=stamps[1])
    assert out is convo.messages


def test_mid_task_stubs_are_byte_stable_as_the_task_goes_on(convo: Convo) -> None:
    index = PruneIndex()
    stamps = long_task(convo, index, 2)
    first, _ = render(convo.messages, index, CONFIG, budget_cut=stamps[1])
    before = dump(first)
    index_turn(index, convo.turn(("read", {"path": "g.py"}, "g\n" + BIG)))
    second, _ = render(convo.messages, index, CONFIG, budget_cut=stamps[1])
    assert dump(second).startswith(before[:-1])


@given(turns=st.integers(min_value=1, max_value=5), cut=st.integers(min_value=0, max_value=6))
def test_the_newest_turn_stays_raw_whatever_the_cut(turns: int, cut: int) -> None:
    convo = Convo()
    index = PruneIndex()
    stamps = long_task(convo, index, turns)
    older = min(cut, turns - 1)  # the turns before the cut
    out, stats = render(convo.messages, index, CONFIG, budget_cut=stamps[older])
    assert text_of(out[-1]) == text_of(convo.messages[-1])
    assert stats.masked == older


def test_render_names_the_undecided_records_it_masked_mid_task(convo: Convo) -> None:
    index = PruneIndex()
    stamps = long_task(convo, index, 3)
    _, stats = render(convo.messages, index, CONFIG, budget_cut=stamps[2])
    first, second = convo.messages[2], convo.messages[4]  # the two older turns' results
    assert isinstance(first, ToolResultMessage)
    assert isinstance(second, ToolResultMessage)
    assert stats.budget_masked == (
        f"{first.tool_call_id}@{first.timestamp}",
        f"{second.tool_call_id}@{second.timestamp}",
    )
    index.decide(stats.budget_masked, "masked")
    _, again = render(convo.messages, index, CONFIG, budget_cut=stamps[2])
    assert again.masked == 2
    assert again.budget_masked == ()


def test_a_finished_task_reports_no_budget_masking(convo: Convo) -> None:
    index = PruneIndex()
    long_task(convo, index, 2)
    convo.user("next")
    _, stats = render(convo.messages, index, CONFIG)
    assert stats.masked == 2
    assert stats.budget_masked == ()
