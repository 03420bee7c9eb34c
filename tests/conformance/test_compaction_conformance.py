"""pith's compaction makes the decisions Pi 1.6 makes.

Golden data: tests/conformance/compaction/golden.json, recorded by
tests/conformance/record_compaction.py through the oracle (Pi 1.6.0, Node 22) from the session
files next to it: eight sessions the real Pi wrote and five synthetic ones of hundreds of
entries (tool calls, images, `!` commands, custom messages, system messages, earlier
compactions with kept ranges, branch summaries, context edits, split turns, failed and aborted
replies). Messages are compared as digests (`compaction_golden.digest`); the summarizer's
requests as frames, with the instruction texts (Pi's and pith's own wording) left out.

Known differences, asserted as such below (docs/differences.md):

- `should_compact` is False for a window `<= 0` (Pi's public predicate is True there; its
  between-turn check skips such models, pith applies that guard everywhere).
- Non-string paths in an earlier summary's `details` are ignored (Pi copies them as they are).
- The failure message for a reply cut at its output limit is pith's own wording; the label is
  Pi's.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    Usage,
    convert,
    to_builtins,
)
from pith.compaction import (
    BRANCH_LABEL,
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    INITIAL_SUMMARY_PROMPT,
    NO_BRANCH_CONTENT,
    TURN_PREFIX_PROMPT,
    UPDATE_SUMMARY_PROMPT,
    CompactionPreparation,
    ContextTokenTracker,
    FileOps,
    NoCompaction,
    ResolvedCompactionSettings,
    branch_request_text,
    branch_summary_text,
    branch_token_budget,
    collect_entries_for_branch_summary,
    compute_file_lists,
    context_estimate,
    estimate_projected_context_tokens,
    estimate_tokens,
    extract_file_ops,
    find_cut_point,
    find_turn_start_index,
    format_file_operations,
    get_last_assistant_usage,
    plan_compaction_summary,
    prepare_branch_entries,
    prepare_compaction,
    response_text,
    serialize_conversation,
    should_compact,
    summarization_failure,
)
from pith.session import SessionEntry, SessionStore, project
from tests.conformance.compaction_golden import CONVERSATION, PROMPT, digest, frame

HERE = Path(__file__).parent / "compaction"
GOLDEN: dict[str, Any] = json.loads((HERE / "golden.json").read_text(encoding="utf-8"))
Json = dict[str, Any]


def _message(value: object) -> AgentMessage:
    return convert(value, AgentMessage)  # type: ignore[arg-type]


def _json(value: object) -> object:
    return to_builtins(value)


# --- sessions ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SessionStore]]:
    """Every golden session opened by pith, from a copy (opening may repair a file)."""
    root = tmp_path_factory.mktemp("compaction-sessions")
    opened: dict[str, SessionStore] = {}
    for case in GOLDEN["sessions"]:
        copy = root / Path(case["file"]).name
        shutil.copyfile(HERE / case["file"], copy)
        opened[case["file"]] = SessionStore.open(copy, lock=False)
    yield opened
    for store in opened.values():
        store.close()


def _branch(store: SessionStore, leaf: str | None) -> list[SessionEntry]:
    return store.get_branch(leaf) if leaf else store.get_branch()


def _leaf_cases() -> list[Any]:
    return [
        pytest.param(
            case["file"], item, id=f"{Path(case['file']).stem}-{item['leaf'] or 'default'}"
        )
        for case in GOLDEN["sessions"]
        for item in case["leaves"]
    ]


def _settings(keep: int) -> ResolvedCompactionSettings:
    return ResolvedCompactionSettings(enabled=True, reserve_tokens=16384, keep_recent_tokens=keep)


def _ops_json(ops: FileOps) -> Json:
    return {"read": sorted(ops.read), "written": sorted(ops.written), "edited": sorted(ops.edited)}


def _pi_ops(ops: Json) -> Json:
    """Pi's file operations, paths only (pith ignores non-string paths in `details`)."""
    return {
        key: sorted(p for p in ops.get(key, []) if isinstance(p, str))
        for key in ("read", "written", "edited")
    }


@pytest.mark.parametrize("case", GOLDEN["sessions"], ids=lambda c: Path(c["file"]).stem)
def test_estimate_tokens_of_every_message(case: Json, stores: dict[str, SessionStore]) -> None:
    from pith.session import MessageEntry

    store = stores[case["file"]]
    messages = [e.message for e in store.entries if isinstance(e, MessageEntry)]
    assert [estimate_tokens(m) for m in messages] == case["messageTokens"]


@pytest.mark.parametrize(("file", "item"), _leaf_cases())
def test_context_and_its_estimates(file: str, item: Json, stores: dict[str, SessionStore]) -> None:
    store = stores[file]
    branch = _branch(store, item["leaf"])
    assert {"count": len(branch), "digest": digest([e.id for e in branch])} == item["branch"]
    projection = project(store.entries, branch[-1].id if branch else None, store.by_id)
    messages = projection.messages
    assert {"count": len(messages), "digest": digest(_json(messages))} == item["context"]
    assert [estimate_tokens(m) for m in messages] == item["contextTokens"]
    for expected in item["estimateContextTokens"]:
        assert _json(context_estimate(messages[: expected["count"]])) == expected["result"]
    assert _json(estimate_projected_context_tokens(projection, branch)) == item["projected"]
    usage = get_last_assistant_usage(branch)
    assert (_json(usage) if usage is not None else None) == item["lastUsage"]
    assert digest(serialize_conversation(messages)) == item["serializedContext"]


@pytest.mark.parametrize(("file", "item"), _leaf_cases())
def test_tracker_fed_entry_by_entry_ends_at_pis_estimate(
    file: str, item: Json, stores: dict[str, SessionStore]
) -> None:
    store = stores[file]
    branch = _branch(store, item["leaf"])
    tracker = ContextTokenTracker.start(project([], None, {}), [])
    for index, entry in enumerate(branch):
        tracker.add_entry(entry)
        if tracker.stale:
            path = branch[: index + 1]
            tracker.reset(project(path, entry.id, store.by_id), path)
    assert _json(tracker.estimate()) == item["projected"]


@pytest.mark.parametrize(("file", "item"), _leaf_cases())
def test_cut_points_and_turn_starts(file: str, item: Json, stores: dict[str, SessionStore]) -> None:
    branch = _branch(stores[file], item["leaf"])
    for expected in item["cutPoints"]:
        cut = find_cut_point(branch, expected["start"], expected["end"], expected["keep"])
        got = {
            "firstKeptEntryIndex": cut.first_kept_entry_index,
            "turnStartIndex": cut.turn_start_index,
            "isSplitTurn": cut.is_split_turn,
        }
        assert got == expected["result"], expected
    for expected in item["turnStarts"]:
        got_index = find_turn_start_index(branch, expected["index"], expected["start"])
        assert got_index == expected["result"], expected


@pytest.mark.parametrize(("file", "item"), _leaf_cases())
def test_prepare_compaction(file: str, item: Json, stores: dict[str, SessionStore]) -> None:
    branch = _branch(stores[file], item["leaf"])
    for expected in item["prepare"]:
        prep = prepare_compaction(branch, _settings(expected["keep"]))
        if expected.get("none"):
            assert isinstance(prep, NoCompaction), expected["keep"]
            continue
        assert isinstance(prep, CompactionPreparation), expected["keep"]
        got = {
            "firstKeptEntryId": prep.first_kept_entry_id,
            "isSplitTurn": prep.is_split_turn,
            "tokensBefore": prep.tokens_before,
            "previousSummary": prep.previous_summary,
        }
        assert got == {k: expected[k] for k in got}, expected["keep"]
        assert [digest(_json(m)) for m in prep.messages_to_summarize] == expected[
            "messagesToSummarize"
        ]
        assert [digest(_json(m)) for m in prep.turn_prefix_messages] == expected[
            "turnPrefixMessages"
        ]
        assert _ops_json(prep.file_ops) == _pi_ops(expected["fileOps"])
        for messages, key in (
            (prep.messages_to_summarize, "serialized"),
            (prep.turn_prefix_messages, "serializedPrefix"),
        ):
            text = serialize_conversation(messages)
            assert {
                "digest": digest(text),
                "length": len(text.encode("utf-16-le")) // 2,
            } == expected[key]
        ops = FileOps()
        for message in prep.messages_to_summarize + prep.turn_prefix_messages:
            extract_file_ops(message, ops)
        assert _json(compute_file_lists(ops)) == expected["extractedLists"]
    if "serializedText" in item:
        prep = prepare_compaction(branch, _settings(1500))
        assert isinstance(prep, CompactionPreparation)
        assert serialize_conversation(prep.messages_to_summarize) == item["serializedText"]


# --- crafted cases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", GOLDEN["shouldCompact"], ids=lambda c: f"{c['contextTokens']}-{c['contextWindow']}"
)
def test_should_compact(case: Json) -> None:
    s = case["settings"]
    settings = ResolvedCompactionSettings(
        enabled=s["enabled"],
        reserve_tokens=s["reserveTokens"],
        keep_recent_tokens=s["keepRecentTokens"],
    )
    got = should_compact(case["contextTokens"], case["contextWindow"], settings)
    if case["contextWindow"] <= 0:
        assert got is False  # pith: an unknown window never triggers (Pi's predicate may)
    else:
        assert got == case["result"]


@pytest.mark.parametrize("case", GOLDEN["serialize"], ids=lambda c: c["name"])
def test_serialize_conversation(case: Json) -> None:
    messages = [_message(m) for m in case["messages"]]
    assert serialize_conversation(messages) == case["text"]
    assert [estimate_tokens(m) for m in messages] == case["tokens"]


@pytest.mark.parametrize("case", GOLDEN["fileOps"], ids=lambda c: c["name"])
def test_extract_file_ops(case: Json) -> None:
    ops = FileOps()
    for message in case["messages"]:
        extract_file_ops(_message(message), ops)
    assert _ops_json(ops) == _pi_ops(case["fileOps"])
    assert _json(compute_file_lists(ops)) == case["lists"]


@pytest.mark.parametrize("case", GOLDEN["formatFileOperations"])
def test_format_file_operations(case: Json) -> None:
    assert format_file_operations(case["read"], case["modified"]) == case["text"]


# --- branch summaries -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", GOLDEN["collect"], ids=lambda c: f"{c['oldLeafId']}-{c['targetId']}"
)
def test_collect_entries_for_branch_summary(case: Json, stores: dict[str, SessionStore]) -> None:
    store = stores[case["file"]]
    got = collect_entries_for_branch_summary(store.by_id, case["oldLeafId"], case["targetId"])
    assert [e.id for e in got.entries] == case["ids"]
    assert got.common_ancestor_id == case["commonAncestorId"]


@pytest.mark.parametrize(
    "case",
    GOLDEN["prepareBranchEntries"],
    ids=lambda c: f"{c['oldLeafId']}-{c['targetId']}-{c['budget']}",
)
def test_prepare_branch_entries(case: Json, stores: dict[str, SessionStore]) -> None:
    store = stores[case["file"]]
    entries = [store.by_id[i] for i in case["ids"]]
    got = prepare_branch_entries(entries, case["budget"])
    assert [digest(_json(m)) for m in got.messages] == case["messages"]
    assert _ops_json(got.file_ops) == _pi_ops(case["fileOps"])
    assert got.total_tokens == case["totalTokens"]


# --- the summarizer's requests ----------------------------------------------------------------

_PITH_PROMPTS = {
    "conversation": (INITIAL_SUMMARY_PROMPT, BRANCH_SUMMARY_PROMPT),
    "update": (UPDATE_SUMMARY_PROMPT,),
    "turn_prefix": (TURN_PREFIX_PROMPT,),
}


def _reply(spec: Json, index: int) -> AssistantMessage:
    content: list[TextContent | ToolCall]
    if spec.get("toolCall"):
        content = [ToolCall(id="t1", name="read", arguments={"path": "x"})]
    else:
        content = [TextContent(text=spec.get("text", f"SUMMARY-{index + 1}"))]
    reply = AssistantMessage(
        content=content,
        api="openai-completions",
        provider="fake",
        model="fake-1",
        usage=Usage(input=10, output=5, total_tokens=15),
        stop_reason=spec.get("stopReason", "stop"),
    )
    if spec.get("errorMessage"):
        reply.error_message = spec["errorMessage"]
    return reply


def _check_request(text: str, focus: str | None, expected: Json) -> None:
    parts = frame(text, focus)
    assert parts.kind == expected["kind"]
    assert parts.template == expected["template"]
    assert digest(parts.conversation) == expected["conversation"]
    if expected["instructions"] is not None:
        assert parts.instructions == expected["instructions"]
    else:
        assert parts.instructions in _PITH_PROMPTS[parts.kind]
    assert PROMPT in parts.template
    assert CONVERSATION in parts.template


def _failure_label(error: str) -> tuple[str, str]:
    for marker, kind in ((" failed: ", "failed"), (" attempted to call a tool", "tool")):
        if marker in error:
            return error.split(marker)[0], kind
    return error, "other"


@pytest.mark.parametrize(
    "case", GOLDEN["compact"], ids=lambda c: f"{Path(c['file']).stem}-{c['leafId']}"
)
def test_compaction_requests_and_summary(case: Json, stores: dict[str, SessionStore]) -> None:
    """The plan makes Pi's requests in Pi's order with Pi's framing, refuses the replies Pi
    refuses, and joins the answers into the summary Pi stores."""
    store = stores[case["file"]]
    branch = _branch(store, case["leafId"])
    prep = prepare_compaction(branch, _settings(case["settings"]["keepRecentTokens"]))
    if case.get("none"):
        assert isinstance(prep, NoCompaction)
        return
    assert isinstance(prep, CompactionPreparation)
    focus = case["customInstructions"]
    plan = plan_compaction_summary(prep, custom_instructions=focus)
    replies = [_reply(spec, i) for i, spec in enumerate(case["replies"])]
    replies += [_reply({}, i) for i in range(len(replies), len(plan.steps))]
    asked: list[str] = []
    error = None
    summary = plan.previous_summary
    prefix = None
    for index, step in enumerate(plan.steps):
        text = step.request_text(summary if step.kind == "history" else None)
        asked.append(text)
        failure = summarization_failure(replies[index], step.label)
        if failure:
            error = failure
            break
        if step.kind == "history":
            summary = response_text(replies[index])
        else:
            prefix = response_text(replies[index])
    assert len(asked) == len(case["requests"])
    for text, expected in zip(asked, case["requests"], strict=True):
        _check_request(text, focus, expected)
    if "error" in case:
        assert error is not None
        assert _failure_label(error) == _failure_label(case["error"])
        return
    assert error is None
    files = compute_file_lists(prep.file_ops)
    result = case["result"]
    details = result["details"]
    # Pi keeps non-string paths from an earlier summary's details; pith drops them.
    pi_files = format_file_operations(
        [str(p) for p in details["readFiles"]], [str(p) for p in details["modifiedFiles"]]
    )
    assert result["summary"].endswith(pi_files)
    text = result["summary"][: len(result["summary"]) - len(pi_files)]
    text += format_file_operations(
        [p for p in details["readFiles"] if isinstance(p, str)],
        [p for p in details["modifiedFiles"] if isinstance(p, str)],
    )
    assert plan.summary(summary, prefix, files) == text
    assert prep.first_kept_entry_id == result["firstKeptEntryId"]
    assert prep.tokens_before == result["tokensBefore"]
    assert _json(files) == {
        key: [p for p in paths if isinstance(p, str)] for key, paths in details.items()
    }


@pytest.mark.parametrize(
    "case",
    GOLDEN["branchSummary"],
    ids=lambda c: f"{c['oldLeafId']}-{c['targetId']}-{c['contextWindow']}",
)
def test_branch_summary_requests_and_summary(case: Json, stores: dict[str, SessionStore]) -> None:
    store = stores[case["file"]]
    collected = collect_entries_for_branch_summary(store.by_id, case["oldLeafId"], case["targetId"])
    budget = branch_token_budget(case["contextWindow"], case["reserveTokens"] or 16384)
    prepared = prepare_branch_entries(collected.entries, budget)
    result = case["result"]
    if not prepared.messages:
        assert result == {"summary": NO_BRANCH_CONTENT}
        return
    focus = case["customInstructions"]
    text = branch_request_text(
        serialize_conversation(prepared.messages), focus, bool(case["replaceInstructions"])
    )
    assert len(case["requests"]) == 1
    _check_request(text, focus, case["requests"][0])
    reply = _reply(case["replies"][0] if case["replies"] else {}, 0)
    if reply.stop_reason == "aborted":
        assert result == {"aborted": True}
        return
    failure = summarization_failure(reply, BRANCH_LABEL)
    if "error" in result:
        assert failure is not None
        assert _failure_label(failure) == _failure_label(result["error"])
        return
    assert failure is None
    files = compute_file_lists(prepared.file_ops)
    summary = branch_summary_text(response_text(reply), files)
    assert summary.startswith(BRANCH_SUMMARY_PREAMBLE)
    assert "{PREAMBLE}" + summary[len(BRANCH_SUMMARY_PREAMBLE) :] == result["summary"]
    assert files.read_files == result["readFiles"]
    assert files.modified_files == result["modifiedFiles"]
