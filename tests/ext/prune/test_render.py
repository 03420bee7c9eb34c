"""Render-time masking: which results become stubs, and when nothing changes at all."""

from __future__ import annotations

from pith.ai import TextContent, ToolResultMessage
from pith.ext.prune import PruneConfig
from pith.ext.prune._index import PruneIndex
from pith.ext.prune._render import render
from tests.ext.prune.conftest import Convo, dump, index_turn

BIG = "data line\n" * 1000  # 10 000 chars, ~2500 tokens
CONFIG = PruneConfig(min_gain_tokens=1000)


def text_of(message: object) -> str:
    assert isinstance(message, ToolResultMessage)
    return "".join(b.text for b in message.content if isinstance(b, TextContent))


def finished_task(
    convo: Convo, index: PruneIndex, *calls: tuple[str, dict[str, object], str]
) -> None:
    convo.user("task")
    index_turn(index, convo.turn(*calls))
    convo.reply()


def test_a_finished_task_is_masked_once_a_new_prompt_arrives(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG))
    convo.user("next")
    out, stats = render(convo.messages, index, CONFIG)
    assert out is not convo.messages
    assert text_of(out[2]) == (
        '[pruned t1: read(path="a.py") → 9.8KB, 1001 lines, ok. '
        'Recover with context_tree_query(["t1"])]'
    )
    assert stats.masked == 1
    assert stats.tokens_saved > 2000
    assert text_of(convo.messages[2]) == BIG  # the input is not touched


def test_the_current_task_stays_raw(convo: Convo) -> None:
    index = PruneIndex()
    convo.user("task")
    index_turn(index, convo.turn(("read", {"path": "a.py"}, BIG)))
    index_turn(index, convo.turn(("read", {"path": "b.py"}, BIG)))
    out, stats = render(convo.messages, index, CONFIG)
    assert out is convo.messages
    assert stats.masked == 0


def test_keep_recent_turns_keeps_earlier_tasks_raw_too(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG))
    finished_task(convo, index, ("read", {"path": "b.py"}, BIG))
    convo.user("next")
    out, _ = render(convo.messages, index, PruneConfig(min_gain_tokens=1000, keep_recent_turns=1))
    assert text_of(out[2]).startswith("[pruned t1:")
    assert text_of(out[6]) == BIG


def test_a_small_gain_returns_the_very_same_list(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, "y" * 4000))
    convo.user("next")
    out, stats = render(convo.messages, index, PruneConfig())  # 2000 tokens needed
    assert out is convo.messages
    assert stats.masked == 0


def test_results_the_index_does_not_know_stay_raw(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG))
    convo.user("task")
    convo.turn(("read", {"path": "c.py"}, BIG))  # never captured
    convo.reply()
    convo.user("next")
    out, _ = render(convo.messages, index, CONFIG)
    assert text_of(out[2]).startswith("[pruned t1:")
    assert text_of(out[6]) == BIG


def test_a_record_whose_path_became_protected_is_shown_raw_again(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(
        convo, index, ("read", {"path": "docs/guide.md"}, BIG), ("read", {"path": "a"}, BIG)
    )
    convo.user("next")
    out, _ = render(convo.messages, index, CONFIG)
    assert text_of(out[2]).startswith("[pruned t1:")
    now = PruneConfig(min_gain_tokens=1000, protected_paths=("docs/*.md",))
    out, _ = render(convo.messages, index, now)
    assert text_of(out[2]) == BIG
    assert text_of(out[3]).startswith("[pruned t2:")


def test_the_same_conversation_renders_byte_identically(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG), ("bash", {"command": "ls"}, BIG))
    convo.user("next")
    first, _ = render(convo.messages, index, CONFIG)
    second, _ = render(list(convo.messages), index, CONFIG)
    assert dump(first) == dump(second)


def test_an_identical_re_read_is_stubbed_with_the_original_ref(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG))
    finished_task(convo, index, ("read", {"path": "./a.py"}, BIG))
    convo.user("next")
    out, _ = render(convo.messages, index, CONFIG)
    assert text_of(out[6]).startswith('[pruned: read(path="./a.py") → 9.8KB')
    assert 'identical to t1. Recover with context_tree_query(["t1"])]' in text_of(out[6])


def test_a_recovered_output_stays_raw_for_the_grace_turns(convo: Convo) -> None:
    index = PruneIndex()
    finished_task(convo, index, ("read", {"path": "a.py"}, BIG))
    finished_task(convo, index, ("context_tree_query", {"toolCallIds": ["t1"]}, BIG + "!"))
    position = 6
    for _ in range(2):  # 1 and 2 user turns later: in grace (K=2)
        convo.user("more")
        out, _ = render(
            convo.messages, index, PruneConfig(min_gain_tokens=1, recovery_grace_turns=2)
        )
        assert text_of(out[position]) == BIG + "!"
    convo.user("more")  # 3 turns later: out of grace
    out, _ = render(convo.messages, index, PruneConfig(min_gain_tokens=1, recovery_grace_turns=2))
    assert text_of(out[position]).startswith("[pruned t2: context_tree_query(")


def test_an_empty_index_is_a_no_op(convo: Convo) -> None:
    convo.user()
    convo.turn(("read", {"path": "a"}, BIG))
    out, _ = render(convo.messages, PruneIndex(), CONFIG)
    assert out is convo.messages
