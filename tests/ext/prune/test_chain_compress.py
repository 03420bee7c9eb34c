"""Chain compression end to end: the fake model server over real HTTP, real sessions on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pith.ext.prune.chains._body import RANGE_SYSTEM_PROMPT
from pith.session import SessionStore
from pith.testing import FakeServer

from .test_extension import SKILL, call, make_world, tool_texts
from .test_summarize import SUMMARIZER, main, session_lines, summary_turn, wire_text

FUSER = RANGE_SYSTEM_PROMPT[:50]


def messages(server: FakeServer, n: int) -> list[dict[str, Any]]:
    return [m for m in server.requests[n]["body"]["messages"] if m["role"] != "system"]


def user_texts(server: FakeServer, n: int) -> list[str]:
    return [wire_text(m) for m in messages(server, n) if m["role"] == "user"]


def upto(found: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The messages before the user message `text`."""
    end = next(n for n, m in enumerate(found) if m["role"] == "user" and wire_text(m) == text)
    return found[:end]


def task(*calls: dict[str, Any], reply: str) -> list[dict[str, Any]]:
    return [{"tool_calls": list(calls)}, {"text": reply}]


FOUR_TASKS = [
    *task(call("read", path="skills/deploy/SKILL.md"), call("read", path="app.py"), reply="one"),
    *task(call("read", path="lib.py"), reply="two"),
    *task(call("read", path="app.py", offset=2), reply="three"),
    *task(call("read", path="lib.py", offset=2), reply="four"),
]
PROMPTS = ("task one", "task two", "task three", "task four")


def test_the_oldest_chain_past_the_window_becomes_one_message_with_its_skill_verbatim(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    world.settings(strategy="mask", minGainTokens=1)
    script = {"turns": [*FOUR_TASKS, {"text": "five"}, {"text": "six"}]}
    with FakeServer(script) as server:
        world.run(server, *PROMPTS, "task five", "task six")
        before = messages(server, 7)  # task four's last request: nothing compressed yet
        fifth = messages(server, 8)
        sixth = messages(server, 9)
    assert not any("<compressed-chain" in wire_text(m) for m in before if m["role"] == "user")
    # task one (user, 2 calls, results, reply) is now: user, compressed chain, reply
    assert [m["role"] for m in fifth[:3]] == ["user", "user", "assistant"]
    assert wire_text(fifth[0]) == "task one"
    assert wire_text(fifth[2]) == "one"
    synthetic = wire_text(fifth[1])
    assert synthetic.startswith('<compressed-chain id="b1" tools="t1">\n1 tool call over ')
    assert 'first: t1 read({"path":"app.py"})\n' in synthetic
    # the protected skill read left its turn but kept its bytes, inside the block
    assert f'<protected-output tool="read">\n{SKILL}\n</protected-output>\n' in synthetic
    assert synthetic.endswith("</compressed-chain>")
    assert "call_0_0" not in json.dumps(fifth)
    assert "call_0_1" not in json.dumps(fifth)
    # tasks two and three go out as they did in the request before
    assert upto(fifth, "task four")[3:] == upto(before, "task four")[5:]
    assert wire_text(fifth[3]) == "task two"
    # byte-stable: the next request repeats this one exactly
    assert json.dumps(sixth).startswith(json.dumps(fifth)[:-1])

    [chain] = world.entries("prune-chain")
    assert chain["blockId"] == "b1"
    assert chain["bodySource"] == "deterministic"
    assert chain["toolRefs"] == ["t1"]
    assert chain["droppedToolCallIds"] == ["call_0_0", "call_0_1"]
    assert [k.split("@")[0] for k in chain["protectedOccurrenceKeys"]] == ["call_0_0"]
    assert chain["finalAssistantTimestamp"] > chain["startUserTimestamp"]


def test_a_resumed_session_renders_the_same_compressed_chain(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(strategy="mask", minGainTokens=1)
    with FakeServer({"turns": [*FOUR_TASKS, {"text": "five"}]}) as server:
        world.run(server, *PROMPTS, "task five")
        fifth = json.dumps(messages(server, 8))
    [path] = (tmp_path / "sessions").glob("*.jsonl")
    with FakeServer({"turns": [{"text": "six"}]}) as server:
        world.run(server, "task six", store=SessionStore.open(path))
        resumed = json.dumps(messages(server, 0))
    assert resumed.startswith(fifth[:-1])
    assert len(world.entries("prune-chain")) == 1


def test_pruner_compact_compresses_every_closed_chain_and_backfills_small_calls(
    tmp_path: Path,
) -> None:
    world = make_world(tmp_path)
    (world.work / "tiny.txt").write_text("tiny\n")
    script = {
        "turns": [
            *task(call("read", path="tiny.txt"), reply="read tiny"),
            *task(call("read", path="lib.py"), reply="read lib"),
            {"tool_calls": [call("context_tree_query", toolCallIds=["t2"])]},
            {"text": "recovered"},
        ]
    }
    with FakeServer(script) as server:
        world.run(
            server, "read tiny", "read lib", "/pruner compact", "what was tiny?", "/pruner tree"
        )
        last = messages(server, 4)
        recovered = tool_texts(server, 5)["call_4_0"]
    # tiny.txt was too small to be a batch: compression indexed it first (t2, after lib's t1)
    backfill = [e for e in world.entries("prune-index") if e.get("backfilled")]
    assert [[r["toolCallId"] for r in e["toolCalls"]] for e in backfill] == [["call_0_0"]]
    chains = world.entries("prune-chain")
    assert [(c["blockId"], c["toolRefs"]) for c in chains] == [("b1", ["t2"]), ("b2", ["t1"])]
    assert [wire_text(m)[:40] for m in last if m["role"] == "user"] == [
        "read tiny",
        '<compressed-chain id="b1" tools="t2">\n1 ',
        "read lib",
        '<compressed-chain id="b2" tools="t1">\n1 ',
        "what was tiny?",
    ]
    assert recovered.split("\n\n", 1)[1] == "tiny\n"
    notices = [text for _, text in world.ui.notices]
    assert "[prune] compressed 2 chains" in notices
    tree = notices[-1]
    assert '  t1  read(path="lib.py")  6.6KB  in b2' in tree
    assert '  t2  read(path="tiny.txt")  5B  in b1' in tree


def test_chain_compression_off_leaves_every_chain(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(strategy="mask", minGainTokens=1, chainCompression={"enabled": False})
    with FakeServer({"turns": [*FOUR_TASKS, {"text": "five"}]}) as server:
        world.run(server, *PROMPTS, "task five")
        assert not any("<compressed-chain" in t for t in user_texts(server, 8))
    assert world.entries("prune-chain") == []


def test_a_small_gain_defers_compression(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    world.settings(strategy="mask", minGainTokens=1000)
    with FakeServer({"turns": [*FOUR_TASKS, {"text": "five"}]}) as server:
        world.run(server, *PROMPTS, "task five")
    assert world.entries("prune-chain") == []


def test_two_summaries_of_a_chain_are_fused_into_one_body(tmp_path: Path) -> None:
    world = make_world(tmp_path)
    (world.work / "tiny.txt").write_text("tiny\n")
    world.settings(minGainTokens=1, chainCompression={"rollingWindow": 1})
    fused = "- t1, t2: app.py and lib.py define app_n and lib_n returning x * n."
    script = {
        "turns": [
            main({"tool_calls": [call("read", path="app.py")]}),
            main({"tool_calls": [call("read", path="lib.py")]}),
            main({"text": "read both"}),
            summary_turn("- t1: app.py defines app_0 … app_149."),
            summary_turn("- t2: lib.py defines lib_0 … lib_149."),
            main({"tool_calls": [call("read", path="tiny.txt")]}),  # too small for a summary
            main({"text": "noted"}),
            {"text": fused, "match": [FUSER]},
            main({"text": "bye"}),
        ]
    }
    with FakeServer(script) as server:
        world.run(server, "read app and lib", "anything else?", "thanks")
        asked = [
            "fuse"
            if FUSER in json.dumps(r["body"])
            else "summary"
            if SUMMARIZER in json.dumps(r["body"])
            else "main"
            for r in server.requests
        ]
        fusion_input = wire_text(messages(server, 7)[-1])
        last = messages(server, 8)
    assert asked == ["main"] * 3 + ["summary"] * 2 + ["main"] * 2 + ["fuse", "main"]
    assert fusion_input.startswith("<user-request>\nread app and lib\n</user-request>\n\n")
    assert "- t1: app.py defines app_0" in fusion_input
    assert "- t2: lib.py defines lib_0" in fusion_input
    texts = [wire_text(m) for m in last if m["role"] == "user"]
    assert texts == [
        "read app and lib",
        f'<compressed-chain id="b1" tools="t1,t2">\n{fused}\n</compressed-chain>',
        "anything else?",
        "thanks",
    ]
    # the two per-batch summaries after the range went with it
    assert "app_0 … app_149" not in json.dumps(last)
    [chain] = world.entries("prune-chain")
    assert chain["bodySource"] == "fused"
    stats = world.entries("prune-stats")[-1]
    assert (stats["chainsCompressed"], stats["rangesSummarized"]) == (1, 1)
    assert [e["type"] for e in session_lines(tmp_path)].count("custom_message") == 2
