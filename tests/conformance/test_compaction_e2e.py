"""pith compacts a real session the way Pi 1.6 does, end to end, through the `pith` command.

Golden data: tests/conformance/compaction_e2e/golden.json, recorded by
tests/conformance/record_compaction_e2e.py from the real Pi 1.6.0 CLI (Node 22) against the
oracle's scripted fake model. The scenario stored there is replayed here: `pith -p --mode json`
for the first prompt and `pith -p --mode json -c` for each next one, `-c "/compact FOCUS"` for
the manual compaction (Pi's was made over RPC: its print mode has no `/compact`), against
`pith.testing.FakeServer` serving the same scripted turns. Both runs are reduced to the same
facts by `compaction_e2e_facts.run_facts` (no ids, no instruction texts) and compared.

What the scenario does: a read; a bash call and a write, then a reply past the threshold
(automatic compaction cut at a user message: one history request); a question; an edit, then
a long reply past the threshold (automatic compaction inside a turn: the previous summary is
updated and the turn's first part summarized on its own); a reply that reports no usage; a
manual compaction with a focus (its size is estimated, not reported); one more question.

Documented differences (docs/differences.md), which these facts leave out on purpose: the
system prompt's wording and the summarizer's instructions are pith's own; only the framing
of the requests (`<conversation>`, `<previous-summary>`, `# Conversation`) is looked at.

Where pith differs on purpose (docs/differences.md: no `system` message entry and no
`thinking_level_change` at the start of a session; `/compact` as a command in print mode),
the tests pin what pith does and how far that is from Pi, so a change either way fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pith.testing import FakeServer, configure_agent_dir, subprocess_env
from tests.conformance.compaction_e2e_facts import parse_jsonl, pith_script, run_facts

GOLDEN: dict[str, Any] = json.loads(
    (Path(__file__).parent / "compaction_e2e" / "golden.json").read_text(encoding="utf-8")
)
Json = dict[str, Any]


class Run:
    """A pith run of one golden scenario: its facts and what the fake server saw."""

    def __init__(self, facts: Json, problems: list[str], unused: list[int], stderr: list[str]):
        self.facts = facts
        self.problems = problems
        self.unused = unused
        self.stderr = stderr


def run_pith(tmp: Path, scenario: Json) -> Run:
    work, home = tmp / "work", tmp / "home"
    work.mkdir(parents=True)
    home.mkdir()
    for relative, text in scenario["files"].items():
        (work / relative).write_text(text, encoding="utf-8")
    events: list[list[Json]] = []
    stderr: list[str] = []
    with FakeServer(pith_script(scenario["turns"])) as server:
        agent = configure_agent_dir(tmp / "agent", server, model="fake-model", **scenario["model"])
        (agent / "settings.json").write_text(json.dumps(scenario["settings"]), encoding="utf-8")
        for number, step in enumerate(scenario["steps"]):
            text = step["prompt"] if "prompt" in step else f"/compact {step['compact']}"
            command = [sys.executable, "-m", "pith", "-p", "--mode", "json"]
            command += ["--provider", "fake", "--model", "fake-model"]
            command += ["-c", text] if number else [text]
            result = subprocess.run(
                command,
                cwd=work,
                env=subprocess_env(agent, HOME=str(home)),
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
            assert result.returncode == 0, result.stderr
            stderr.append(result.stderr)
            records = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
            events.append([r for r in records if str(r.get("type")).startswith("compaction_")])
        bodies = [request["body"] for request in server.requests]
        problems, unused = server.problems(), server.unused_turns()
    (session,) = sorted((agent / "sessions").glob("*/*.jsonl"))
    entries = parse_jsonl(session.read_text(encoding="utf-8"))[1:]
    facts = run_facts(entries, bodies, scenario["turns"], scenario["custom_instructions"], events)
    return Run(facts, problems, unused, stderr)


@pytest.fixture(scope="module")
def main_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_pith(tmp_path_factory.mktemp("compaction-e2e"), GOLDEN["main"]["scenario"])


@pytest.fixture(scope="module")
def pith_facts(main_run: Run) -> Json:
    return main_run.facts


@pytest.fixture(scope="module")
def pi() -> Json:
    return dict(GOLDEN["main"]["pi"])


def without(items: Sequence[Json], *keys: str) -> list[Json]:
    return [{key: value for key, value in item.items() if key not in keys} for item in items]


def results(facts: Json) -> list[Json]:
    """The `result` of every successful `compaction_end`, in order."""
    return [e["result"] for step in facts["events"] for e in step if "result" in e]


# --- the run itself ---------------------------------------------------------------------------


def test_pith_used_every_scripted_turn_and_each_request_had_what_it_expected(
    main_run: Run,
) -> None:
    assert main_run.problems == []
    assert main_run.unused == []


def test_the_session_holds_the_same_conversation(pith_facts: Json, pi: Json) -> None:
    assert pith_facts["messages"] == pi["messages"]


# --- when and where it compacts ----------------------------------------------------------------


def test_compactions_start_at_the_same_steps_for_the_same_reasons(
    pith_facts: Json, pi: Json
) -> None:
    def starts(facts: Json) -> list[list[Json]]:
        return [[without([e], "result")[0] for e in step] for step in facts["events"]]

    assert starts(pith_facts) == starts(pi)
    assert [c["after_user_prompt"] for c in pith_facts["compactions"]] == [2, 4, 5]
    assert [c["after_user_prompt"] for c in pi["compactions"]] == [2, 4, 5]


def test_each_compaction_keeps_from_the_same_message(pith_facts: Json, pi: Json) -> None:
    kept = [c["first_kept"] for c in pith_facts["compactions"]]
    assert kept == [c["first_kept"] for c in pi["compactions"]]
    assert [k["index"] for k in kept] == [4, 15, 16]  # U2, A4 (inside U4's turn), U5
    assert [r["first_kept"] for r in results(pith_facts)] == [4, 15, 16]


def test_tokens_before_is_the_reported_usage_for_automatic_compactions(
    pith_facts: Json, pi: Json
) -> None:
    automatic = [c["tokens_before"] for c in pith_facts["compactions"][:2]]
    assert automatic == [c["tokens_before"] for c in pi["compactions"][:2]] == [3215, 3310]


def test_estimates_differ_from_pi_only_by_the_system_message_pith_does_not_record(
    pith_facts: Json, pi: Json
) -> None:
    # pith records no system message (docs/differences.md): every other token agrees.
    system = pi["system_message_tokens"]
    assert system > 0
    manual = pi["compactions"][2]["tokens_before"]
    assert pith_facts["compactions"][2]["tokens_before"] == manual - system
    after = [r["estimatedTokensAfter"] - system for r in results(pi)]
    assert [r["estimatedTokensAfter"] for r in results(pith_facts)] == after


def test_the_event_results_agree_with_the_entries(pith_facts: Json) -> None:
    for result, entry in zip(results(pith_facts), pith_facts["compactions"], strict=True):
        assert result["tokensBefore"] == entry["tokens_before"]
        assert result["details"] == entry["details"]
        assert result["summary"] == entry["summary"]
        # After a compaction the context is smaller than before it.
        assert result["estimatedTokensAfter"] < result["tokensBefore"]


# --- what the compaction entries hold --------------------------------------------------------


def test_file_lists_match(pith_facts: Json, pi: Json) -> None:
    details = [c["details"] for c in pith_facts["compactions"]]
    assert details == [c["details"] for c in pi["compactions"]]
    assert details[0] == {"readFiles": ["notes.txt"], "modifiedFiles": []}
    assert details[1] == {"readFiles": ["notes.txt"], "modifiedFiles": ["report.txt"]}


def test_summaries_are_put_together_alike(pith_facts: Json, pi: Json) -> None:
    # The summarizer's replies, the split-turn heading and the file lists, in the same order.
    summaries = [c["summary"] for c in pith_facts["compactions"]]
    assert summaries == [c["summary"] for c in pi["compactions"]]
    assert "{TURN 9}" in summaries[1]
    assert "{TURN 10}" in summaries[1]


def test_entries_record_the_summarizer_usage_and_are_not_from_an_extension(
    pith_facts: Json, pi: Json
) -> None:
    def recorded(facts: Json) -> list[tuple[object, object]]:
        return [(c["usage"], c["from_hook"]) for c in facts["compactions"]]

    assert recorded(pith_facts) == recorded(pi)


def test_the_entries_differ_only_by_the_start_of_session_metadata(
    pith_facts: Json, pi: Json
) -> None:
    # pith records no system message and no `off` thinking level (docs/differences.md).
    pis = list(pi["entries"])
    assert pis[1:3] == ["thinking_level_change", "message:system"]
    assert pith_facts["entries"] == pis[:1] + pis[3:]


# --- what the summarizer was asked ------------------------------------------------------------


def test_the_summarizer_is_asked_the_same_requests(pith_facts: Json, pi: Json) -> None:
    asked = [c["summarizer_requests"] for c in pith_facts["compactions"]]
    assert asked == [c["summarizer_requests"] for c in pi["compactions"]]


def test_the_summarized_and_the_kept_messages_are_the_same(pith_facts: Json) -> None:
    first, second, manual = (c["summarizer_requests"] for c in pith_facts["compactions"])
    assert [(r["kind"], r["conversation_messages"]) for r in first] == [
        ("history", [0, 1, 2, 3])  # U1 .. A1; U2 onwards is kept
    ]
    assert [(r["kind"], r["conversation_messages"]) for r in second] == [
        ("update", [4, 5, 6, 7, 8, 9, 10, 11]),  # what the first one kept, then U3 and A3
        ("turn_prefix", [12, 13, 14]),  # U4, the edit and its result
    ]
    assert second[0]["previous_summary"] == "compaction 0"
    assert [(r["kind"], r["conversation_messages"]) for r in manual] == [("update", [15])]
    assert manual[0]["previous_summary"] == "compaction 1"
    assert manual[0]["custom_instructions"] == GOLDEN["main"]["scenario"]["custom_instructions"]
    for request in first + second + manual:
        assert request["tools_sent"] is False
        assert request["roles"] == ["system", "user"]


# --- what the model sees ----------------------------------------------------------------------


def test_every_request_carries_the_same_messages(pith_facts: Json, pi: Json) -> None:
    assert without(pith_facts["requests"], "max_tokens") == without(pi["requests"], "max_tokens")


def test_the_request_after_each_compaction_starts_with_its_summary(pith_facts: Json) -> None:
    after = [
        request["messages"]
        for previous, request in zip(
            pith_facts["requests"], pith_facts["requests"][1:], strict=False
        )
        if previous["kind"] != "normal" and request["kind"] == "normal"
    ]
    assert after == [
        ["system", "summary 0", "m4", "m5", "m6", "m7", "m8", "m9", "m10"],
        ["system", "summary 1", "m15", "m16"],
        ["system", "summary 2", "m16", "m17", "m18"],
    ]


def test_requests_ask_for_the_same_output_limit(pith_facts: Json, pi: Json) -> None:
    # Both cap the output so input + output fit the window with a 4096-token margin: the
    # 4000-token window leaves 1 token (the model's maxTokens is 1000).
    limits = [r["max_tokens"] for r in pith_facts["requests"]]
    assert limits == [r["max_tokens"] for r in pi["requests"]]


# --- `/compact` in print mode -----------------------------------------------------------------


@pytest.fixture(scope="module")
def slash_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    scenario = GOLDEN["print_mode_slash_compact"]["scenario"]
    return run_pith(tmp_path_factory.mktemp("slash-compact"), scenario)


def test_slash_compact_in_print_mode_runs_the_command(slash_run: Run) -> None:
    # Pi sends `/compact` to the model as a prompt; pith runs the command (differences.md):
    # nothing reaches the model, the session is too small.
    pi = GOLDEN["print_mode_slash_compact"]["pi"]
    assert [m["label"] for m in pi["messages"]] == [
        "Say hello.",
        "hello",
        "/compact",
        "I cannot do that.",
    ]
    assert [m["label"] for m in slash_run.facts["messages"]] == ["Say hello.", "hello"]
    assert len(slash_run.facts["requests"]) == 1
    assert "Nothing to compact" in slash_run.stderr[1]
