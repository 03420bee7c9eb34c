"""Chain detection and selection (what a chain is; the newest K stay raw)."""

from __future__ import annotations

from pith.ai import AssistantMessage, TextContent, ToolCall, UserMessage
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._protect import is_protected
from pith.ext.prune.chains._detect import Chain, detect_chains, select_chains

from .conftest import Convo

CONFIG = PruneConfig()


def protected(name: str, args: object) -> bool:
    return is_protected(name, args, CONFIG)


def chains_of(convo: Convo) -> list[Chain]:
    return detect_chains(convo.messages, protected)


def closed_chain(convo: Convo, calls: int = 1) -> None:
    convo.user()
    for n in range(calls):
        convo.turn(("read", {"path": f"f{n}.py"}, "x" * 10))
    convo.reply()


def test_a_closed_chain_runs_from_the_user_message_to_the_text_reply(convo: Convo) -> None:
    user = convo.user()
    _, results = convo.turn(("read", {"path": "a.py"}, "A"), ("grep", {"pattern": "x"}, "B"))
    convo.reply("found it")
    [chain] = chains_of(convo)
    assert chain.start == 0
    assert chain.start_timestamp == user.timestamp
    assert chain.end == 4
    assert chain.final_timestamp == convo.messages[4].timestamp
    assert chain.call_ids == ("call_1", "call_2")
    assert chain.keys == tuple(f"{r.tool_call_id}@{r.timestamp}" for r in results)
    assert chain.protected_keys == ()


def test_an_interrupted_chain_is_emitted_with_a_null_final(convo: Convo) -> None:
    convo.user("first")
    convo.turn(("read", {"path": "a.py"}, "A"))
    convo.user("stop, do this instead")
    convo.reply()
    first, second = chains_of(convo)
    assert first.final_timestamp is None
    assert first.end is None
    assert not first.closed
    assert first.call_ids == ("call_1",)
    assert second.closed
    assert second.call_ids == ()


def test_an_open_chain_at_the_end_is_not_emitted(convo: Convo) -> None:
    closed_chain(convo)
    convo.user()
    convo.turn(("read", {"path": "b.py"}, "B"))
    assert len(chains_of(convo)) == 1


def test_a_compressed_chain_message_is_a_passthrough(convo: Convo) -> None:
    convo.user("task")
    convo.messages.append(
        UserMessage(
            content=[
                TextContent(text='<compressed-chain id="b1" tools="t1">\nx\n</compressed-chain>')
            ],
            timestamp=convo.tick(),
        )
    )
    convo.turn(("read", {"path": "a.py"}, "A"))
    convo.reply()
    [chain] = chains_of(convo)
    assert chain.start == 0
    assert chain.call_ids == ("call_1",)


def test_protection_is_judged_on_the_call_and_does_not_leak_across_chains(
    convo: Convo,
) -> None:
    convo.user()
    _, [skill, _code] = convo.turn(
        ("read", {"path": "skills/deploy/SKILL.md"}, "steps"), ("read", {"path": "a.py"}, "A")
    )
    convo.reply()
    convo.user()
    convo.turn(("read", {"path": "a.py"}, "A again"))
    convo.reply()
    first, second = chains_of(convo)
    assert first.protected_keys == (f"{skill.tool_call_id}@{skill.timestamp}",)
    assert second.protected_keys == ()


def test_a_result_of_a_protected_tool_is_protected_by_name(convo: Convo) -> None:
    convo.user()
    _, [result] = convo.turn(("todo", {}, "- [ ] x"))
    convo.reply()
    [chain] = detect_chains(convo.messages, lambda name, args: False, ("todo",))
    assert chain.protected_keys == (f"{result.tool_call_id}@{result.timestamp}",)


def test_messages_before_the_first_user_message_start_nothing(convo: Convo) -> None:
    convo.messages.append(
        AssistantMessage(content=[ToolCall(id="x", name="read")], timestamp=convo.tick())
    )
    closed_chain(convo)
    [chain] = chains_of(convo)
    assert chain.start == 1


# --- selection (chain window) ---------------------------------------------------------------


def many(n: int) -> list[Chain]:
    convo = Convo()
    for _ in range(n):
        closed_chain(convo)
    return chains_of(convo)


def test_with_k_3_three_closed_chains_compress_none() -> None:
    assert select_chains(many(3), set(), 3) == []


def test_with_k_3_four_closed_chains_compress_the_oldest() -> None:
    chains = many(4)
    assert select_chains(chains, set(), 3) == chains[:1]


def test_with_k_3_six_closed_chains_compress_the_three_oldest_in_order() -> None:
    chains = many(6)
    assert select_chains(chains, set(), 3) == chains[:3]


def test_open_and_empty_middle_chains_are_never_selected_and_never_count(convo: Convo) -> None:
    closed_chain(convo)
    convo.user("hello")
    convo.reply("hi")  # empty middle
    convo.user("interrupted")
    convo.turn(("read", {"path": "x"}, "X"))
    for _ in range(3):
        closed_chain(convo)
    convo.user("open")
    convo.turn(("read", {"path": "y"}, "Y"))
    chains = chains_of(convo)
    assert len(chains) == 6
    assert select_chains(chains, set(), 3) == [chains[0]]
    assert select_chains(chains, set(), 0) == [chains[0], *chains[3:]]


def test_k_0_selects_every_chain_not_compressed_yet() -> None:
    chains = many(3)
    assert select_chains(chains, {chains[1].start_timestamp}, 0) == [chains[0], chains[2]]


def test_chains_already_compressed_do_not_count_toward_k() -> None:
    chains = many(5)
    done = {chains[0].start_timestamp}
    assert select_chains(chains, done, 3) == [chains[1]]


def test_a_deferred_chain_waits_without_shrinking_the_window() -> None:
    chains = many(6)
    waiting = chains[1]
    assert select_chains(chains, set(), 3, lambda c: c is waiting) == [chains[0], chains[2]]
