"""Applying compressed chains at render time (a range must resolve to exactly one
start and one end, or nothing is dropped)."""

from __future__ import annotations

import msgspec

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._protect import is_protected
from pith.ext.prune._records import ChainEntry
from pith.ext.prune.chains._detect import Chain, detect_chains
from pith.ext.prune.chains._render import apply_chains, resolve_range, synthetic_text

from .conftest import Convo, dump

CONFIG = PruneConfig()


def entry_for(chain: Chain, block: str = "b1", body: str = "3 tool calls") -> ChainEntry:
    return ChainEntry(
        block_id=block,
        start_user_timestamp=chain.start_timestamp,
        final_assistant_timestamp=chain.final_timestamp,
        dropped_tool_call_ids=list(chain.call_ids),
        dropped_occurrence_keys=list(chain.keys),
        protected_occurrence_keys=list(chain.protected_keys),
        tool_refs=[f"t{n}" for n in range(1, len(chain.keys) - len(chain.protected_keys) + 1)],
        compressed_at=5,
        body=body,
        body_source="deterministic",
    )


def chains(convo: Convo) -> list[Chain]:
    return detect_chains(convo.messages, lambda n, a: is_protected(n, a, CONFIG))


def two_tasks(convo: Convo) -> None:
    convo.user("task one")
    convo.turn(("read", {"path": "a.py"}, "A" * 50))
    convo.turn(("bash", {"command": "pytest"}, "B" * 50))
    convo.reply("done one")
    convo.user("task two")
    convo.turn(("read", {"path": "c.py"}, "C" * 50))
    convo.reply("done two")


def texts(messages: list[AgentMessage]) -> list[tuple[str, str]]:
    out = []
    for m in messages:
        if isinstance(m, UserMessage):
            text = m.content if isinstance(m.content, str) else m.content[0].text  # type: ignore[union-attr]
            out.append(("user", text))
        elif isinstance(m, AssistantMessage):
            out.append(("assistant", m.text() or ",".join(c.id for c in m.tool_calls())))
        elif isinstance(m, ToolResultMessage):
            out.append(("toolResult", m.tool_call_id))
        elif isinstance(m, CustomMessage):
            out.append(("custom", m.custom_type))
    return out


# --- resolution -----------------------------------------------------------------------------


def test_resolution_is_null_without_a_final(convo: Convo) -> None:
    two_tasks(convo)
    assert resolve_range(convo.messages, convo.messages[0].timestamp, None) is None


def test_resolution_is_null_when_two_user_messages_share_the_start(convo: Convo) -> None:
    two_tasks(convo)
    start = convo.messages[0].timestamp
    convo.messages.append(UserMessage(content="again", timestamp=start))
    assert resolve_range(convo.messages, start, convo.messages[6].timestamp) is None


def test_resolution_is_null_when_the_end_is_not_after_the_start(convo: Convo) -> None:
    two_tasks(convo)
    second_user = convo.messages[7].timestamp
    first_reply = convo.messages[6].timestamp
    assert resolve_range(convo.messages, second_user, first_reply) is None


def test_a_tool_result_sharing_the_final_timestamp_is_not_the_final(convo: Convo) -> None:
    convo.user()
    _, [result] = convo.turn(("read", {"path": "a.py"}, "A"))
    convo.reply()
    final = convo.messages[-1]
    convo.messages[2] = msgspec.structs.replace(result, timestamp=final.timestamp)
    assert resolve_range(convo.messages, convo.messages[0].timestamp, final.timestamp) == (0, 3)


# --- application ----------------------------------------------------------------------------


def test_the_chain_collapses_into_one_message_after_its_start(convo: Convo) -> None:
    two_tasks(convo)
    first, _ = chains(convo)
    out = apply_chains(convo.messages, [entry_for(first)])
    assert out.diagnostics == []
    assert texts(out.messages) == [
        ("user", "task one"),
        ("user", '<compressed-chain id="b1" tools="t1,t2">\n3 tool calls\n</compressed-chain>'),
        ("assistant", "done one"),
        ("user", "task two"),
        ("assistant", "call_3"),
        ("toolResult", "call_3"),
        ("assistant", "done two"),
    ]
    synthetic = out.messages[1]
    assert synthetic.timestamp == 5
    # byte-identical to the pinned rendering when there are no protected outputs
    assert dump(out.messages[1:2]) == (
        b'[{"role":"user","content":[{"type":"text","text":"<compressed-chain id=\\"b1\\" '
        b'tools=\\"t1,t2\\">\\n3 tool calls\\n</compressed-chain>"}],"timestamp":5}]'
    )


def test_no_entries_and_unchanged_input_give_the_same_list(convo: Convo) -> None:
    two_tasks(convo)
    assert apply_chains(convo.messages, []).messages is convo.messages


def test_reapplying_the_same_entries_is_a_no_op(convo: Convo) -> None:
    two_tasks(convo)
    first, _ = chains(convo)
    once = apply_chains(convo.messages, [entry_for(first)]).messages
    again = apply_chains(once, [entry_for(first)])
    assert again.messages is once


def test_a_live_turn_that_reuses_a_dropped_id_survives(convo: Convo) -> None:
    two_tasks(convo)
    first, _ = chains(convo)
    convo.user("task three")
    reused = AssistantMessage(
        content=[ToolCall(id="call_1", name="read", arguments={"path": "a.py"})],
        timestamp=convo.tick(),
    )
    result = ToolResultMessage(
        tool_call_id="call_1",
        tool_name="read",
        content=[TextContent(text="A again")],
        timestamp=convo.tick(),
    )
    convo.messages += [reused, result]
    out = apply_chains(convo.messages, [entry_for(first)]).messages
    assert out[-2:] == [reused, result]


def test_a_third_party_custom_message_inside_the_range_survives(convo: Convo) -> None:
    convo.user("task")
    convo.turn(("read", {"path": "a.py"}, "A"))
    note = CustomMessage(custom_type="todo-reminder", content="remember", timestamp=convo.tick())
    convo.messages.append(note)
    convo.turn(("read", {"path": "b.py"}, "B"))
    convo.reply()
    [chain] = chains(convo)
    out = apply_chains(convo.messages, [entry_for(chain)]).messages
    assert [m.role for m in out] == ["user", "user", "custom", "assistant"]
    assert out[2] is note


def summary(convo: Convo, keys: list[tuple[str, int | float]]) -> CustomMessage:
    refs = [
        {"shortId": f"t{n}", "toolCallId": call_id, "resultTimestamp": stamp}
        for n, (call_id, stamp) in enumerate(keys, start=1)
    ]
    return CustomMessage(
        custom_type="prune-summary",
        content="- t1: a",
        display=False,
        details={"toolCallRefs": refs, "toolNames": ["read"]},
        timestamp=convo.tick(),
    )


def test_a_per_batch_summary_after_the_range_is_suppressed(convo: Convo) -> None:
    convo.user("task one")
    _, [result] = convo.turn(("read", {"path": "a.py"}, "A"))
    convo.reply("done")
    convo.messages.append(summary(convo, [(result.tool_call_id, result.timestamp)]))
    unrelated = summary(convo, [("call_99", 1)])
    convo.messages.append(unrelated)
    convo.user("task two")
    [chain, *_] = chains(convo)
    out = apply_chains(convo.messages, [entry_for(chain)]).messages
    assert texts(out)[2:] == [
        ("assistant", "done"),
        ("custom", "prune-summary"),
        ("user", "task two"),
    ]
    assert out[3] is unrelated


def test_a_summary_inside_the_range_is_dropped(convo: Convo) -> None:
    convo.user("task")
    convo.turn(("read", {"path": "a.py"}, "A"))
    convo.messages.append(summary(convo, [("elsewhere", 1)]))
    convo.reply()
    [chain] = chains(convo)
    out = apply_chains(convo.messages, [entry_for(chain)]).messages
    assert [m.role for m in out] == ["user", "user", "assistant"]


def test_a_path_protected_call_is_relocated_verbatim_in_message_order(convo: Convo) -> None:
    skill = "---\nname: deploy\n---\n1. run the gate\n2. close the loop\n"
    rules = "# Rules\nAlways run the closing loop.\n"
    convo.user("deploy it")
    convo.turn(("read", {"path": "skills/deploy/SKILL.md"}, skill), ("read", {"path": "a.py"}, "A"))
    convo.turn(("bash", {"command": "make"}, "ok"))
    convo.turn(("read", {"path": "AGENTS.md"}, rules))
    convo.reply("deployed")
    [chain] = chains(convo)
    assert len(chain.protected_keys) == 2
    out = apply_chains(convo.messages, [entry_for(chain, body="2 tool calls")]).messages
    assert [m.role for m in out] == ["user", "user", "assistant"]
    synthetic = out[1]
    assert isinstance(synthetic, UserMessage)
    assert not isinstance(synthetic.content, str)
    assert synthetic.content[0].text == (  # type: ignore[union-attr]
        '<compressed-chain id="b1" tools="t1,t2">\n'
        "2 tool calls\n"
        f'<protected-output tool="read">\n{skill}\n</protected-output>\n'
        f'<protected-output tool="read">\n{rules}\n</protected-output>\n'
        "</compressed-chain>"
    )


def test_synthetic_text_without_protected_outputs() -> None:
    convo = Convo()
    two_tasks(convo)
    first, _ = chains(convo)
    assert synthetic_text(entry_for(first, body="body")) == (
        '<compressed-chain id="b1" tools="t1,t2">\nbody\n</compressed-chain>'
    )


def test_the_final_reply_loses_its_thinking_unless_configured(convo: Convo) -> None:
    convo.user("task")
    convo.turn(("read", {"path": "a.py"}, "A"))
    convo.messages.append(
        AssistantMessage(
            content=[ThinkingContent(thinking="hmm"), TextContent(text="done")],
            timestamp=convo.tick(),
        )
    )
    [chain] = chains(convo)
    stripped = apply_chains(convo.messages, [entry_for(chain)]).messages[-1]
    assert isinstance(stripped, AssistantMessage)
    assert stripped.content == [TextContent(text="done")]
    kept = apply_chains(convo.messages, [entry_for(chain)], strip_thinking=False).messages[-1]
    assert kept is convo.messages[-1]


def test_an_unresolvable_entry_drops_nothing_and_says_so(convo: Convo) -> None:
    two_tasks(convo)
    first, _ = chains(convo)
    lost = msgspec.structs.replace(entry_for(first), start_user_timestamp=1)
    out = apply_chains(convo.messages, [lost])
    assert out.messages is convo.messages
    assert out.diagnostics == [("unresolved-range", "b1: start or final message not found once")]


def test_an_entry_overlapping_an_applied_one_is_skipped(convo: Convo) -> None:
    two_tasks(convo)
    first, second = chains(convo)
    wide = msgspec.structs.replace(
        entry_for(first, "b2"), final_assistant_timestamp=second.final_timestamp
    )
    out = apply_chains(convo.messages, [entry_for(first), wide])
    assert out.diagnostics == [("overlap", "b2: overlaps another chain")]
    assert texts(out.messages)[3:] == texts(convo.messages)[6:]
