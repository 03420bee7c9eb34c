"""Orphan sweep: results that answer no open call leave the request (docs/pruning.md)."""

from __future__ import annotations

from pith.ai import (
    AssistantMessage,
    CustomMessage,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
)
from pith.ext.prune._sweep import sweep_orphans

from .conftest import Convo


def result(convo: Convo, call_id: str) -> ToolResultMessage:
    message = ToolResultMessage(
        tool_call_id=call_id,
        tool_name="read",
        content=[TextContent(text="x")],
        timestamp=convo.tick(),
    )
    convo.messages.append(message)
    return message


def test_complete_cycles_give_the_same_list(convo: Convo) -> None:
    convo.user()
    convo.turn(("read", {"path": "a"}, "A"), ("read", {"path": "b"}, "B"))
    convo.reply()
    out, removed = sweep_orphans(convo.messages)
    assert out is convo.messages
    assert removed == []


def test_an_id_used_validly_earlier_does_not_license_a_later_orphan(convo: Convo) -> None:
    convo.user()
    convo.turn(("read", {"path": "a"}, "A"))  # call_1, answered
    convo.turn(("read", {"path": "b"}, "B"))  # call_2
    orphan = result(convo, "call_1")
    out, removed = sweep_orphans(convo.messages)
    assert orphan not in out
    assert len(out) == len(convo.messages) - 1
    assert removed == ["call_1"]


def test_a_duplicate_result_for_one_call_is_swept(convo: Convo) -> None:
    convo.user()
    _, [first] = convo.turn(("read", {"path": "a"}, "A"))
    duplicate = result(convo, "call_1")
    out, removed = sweep_orphans(convo.messages)
    assert first in out
    assert duplicate not in out
    assert removed == ["call_1"]


def test_a_foreign_message_between_a_call_and_its_result_is_a_barrier(convo: Convo) -> None:
    convo.user()
    convo.messages.append(
        AssistantMessage(content=[ToolCall(id="c1", name="read")], timestamp=convo.tick())
    )
    convo.messages.append(CustomMessage(custom_type="x", content="hi", timestamp=convo.tick()))
    late = result(convo, "c1")
    out, removed = sweep_orphans(convo.messages)
    assert late not in out
    assert removed == ["c1"]


def test_a_trailing_barrier_after_a_completed_cycle_returns_the_same_list(
    convo: Convo,
) -> None:
    convo.user()
    convo.turn(("read", {"path": "a"}, "A"))
    convo.messages.append(CustomMessage(custom_type="x", content="hi", timestamp=convo.tick()))
    convo.user("next")
    out, removed = sweep_orphans(convo.messages)
    assert out is convo.messages
    assert removed == []


def test_a_system_message_is_no_barrier(convo: Convo) -> None:
    convo.user()
    convo.messages.append(
        AssistantMessage(content=[ToolCall(id="c1", name="read")], timestamp=convo.tick())
    )
    convo.messages.append(SystemMessage(content="tools changed", timestamp=convo.tick()))
    result(convo, "c1")
    out, _ = sweep_orphans(convo.messages)
    assert out is convo.messages


def test_a_result_before_any_call_is_swept(convo: Convo) -> None:
    convo.user()
    stray = result(convo, "nowhere")
    out, removed = sweep_orphans(convo.messages)
    assert stray not in out
    assert removed == ["nowhere"]
