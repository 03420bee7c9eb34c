"""Properties of chain compression on generated conversations (hypothesis): compressing
never leaves a result without its call, is idempotent, and keeps every user message."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pith.ai import CustomMessage, UserMessage
from pith.ext.prune._config import PruneConfig
from pith.ext.prune._protect import is_protected
from pith.ext.prune._records import ChainEntry
from pith.ext.prune._sweep import sweep_orphans
from pith.ext.prune.chains._detect import detect_chains, is_synthetic, select_chains
from pith.ext.prune.chains._render import apply_chains

from .conftest import Convo

CONFIG = PruneConfig()
PATHS = ("a.py", "skills/x/SKILL.md", "AGENTS.md", "b.py")

# one step of a conversation: a prompt, a turn with 1-3 calls, a text reply, a foreign message
steps = st.lists(
    st.one_of(
        st.just(("user",)),
        st.tuples(st.just("turn"), st.lists(st.sampled_from(PATHS), min_size=1, max_size=3)),
        st.just(("reply",)),
        st.just(("custom",)),
    ),
    max_size=40,
)


def build(plan: list[tuple[object, ...]]) -> Convo:
    convo = Convo()
    convo.user("start")
    for step in plan:
        if step[0] == "user":
            convo.user()
        elif step[0] == "turn":
            paths = step[1]
            assert isinstance(paths, list)
            convo.turn(*(("read", {"path": p}, f"text of {p}") for p in paths))
        elif step[0] == "reply":
            convo.reply()
        else:
            convo.messages.append(
                CustomMessage(custom_type="note", content="n", timestamp=convo.tick())
            )
    return convo


def entries(convo: Convo, window: int) -> list[ChainEntry]:
    chains = detect_chains(convo.messages, lambda n, a: is_protected(n, a, CONFIG))
    return [
        ChainEntry(
            block_id=f"b{n}",
            start_user_timestamp=c.start_timestamp,
            final_assistant_timestamp=c.final_timestamp,
            dropped_tool_call_ids=list(c.call_ids),
            dropped_occurrence_keys=list(c.keys),
            protected_occurrence_keys=list(c.protected_keys),
            tool_refs=[],
            compressed_at=10**9 + n,
            body=f"body {n}",
            body_source="deterministic",
        )
        for n, c in enumerate(select_chains(chains, set(), window), start=1)
    ]


@given(steps, st.integers(min_value=0, max_value=3))
def test_compression_leaves_no_orphan_is_idempotent_and_keeps_users(
    plan: list[tuple[object, ...]], window: int
) -> None:
    convo = build(plan)
    chosen = entries(convo, window)
    out = apply_chains(convo.messages, chosen)
    assert out.diagnostics == []
    swept_before, _ = sweep_orphans(convo.messages)
    swept_after, removed = sweep_orphans(out.messages)
    # compression removes no call without its result and no result without its call
    assert len(removed) == len(sweep_orphans(convo.messages)[1])
    assert (swept_before is convo.messages) == (swept_after is out.messages)
    again = apply_chains(out.messages, chosen)
    assert again.messages is out.messages
    users = [m for m in convo.messages if isinstance(m, UserMessage)]
    kept = [m for m in out.messages if isinstance(m, UserMessage) and not is_synthetic(m)]
    assert kept == users
    assert sum(is_synthetic(m) for m in out.messages) == len(chosen)
