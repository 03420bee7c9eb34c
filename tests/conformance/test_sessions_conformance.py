"""pith opens session files the way Pi 1.6 does, and Pi opens the files pith writes.

Golden data: tests/conformance/sessions/golden.json, recorded by
tests/conformance/record_sessions.py through the oracle's `sessionOpen` (Pi's
`SessionManager.open` on a copy) from three kinds of file in the same folder: sessions the real
Pi wrote (`pi/`), raw JSONL built from a fixed seed (`synthetic/`) and sessions pith's
`SessionStore` wrote (`pith/`). Every test opens a copy of the stored file with
`SessionStore.open`, since opening may repair or migrate it, and compares with what Pi
reported: the projected context of each recorded leaf (messages, thinking level, model), the
branch, the context entries, the tree with its labels, the session name and the repairs.

Migrated v1 files get random ids on both sides, so their ids are compared as positions
('#<index>'). For pith-written files the tests also check that Pi did not need to rewrite them,
that Pi reads back the context pith had in memory while writing, and that pith writes the same
entries Pi's own SessionManager writes for the same calls (`piWrites`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pith.ai import to_builtins
from pith.session import SessionStore, TreeNode, encode_entry, project

SESSIONS = Path(__file__).parent / "sessions"
GOLDEN: dict[str, Any] = json.loads((SESSIONS / "golden.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = GOLDEN["cases"]
Json = dict[str, Any]


def _entry_kinds(case: Json) -> dict[str, str]:
    """Entry id -> 'user', 'assistant', 'compaction', ... for readable test ids."""
    kinds: dict[str, str] = {}
    for line in (SESSIONS / case["file"]).read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        message = entry.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        kinds[entry["id"]] = role if isinstance(role, str) else str(entry.get("type"))
    return kinds


def _leaf_name(case: Json, leaf: Json, kinds: dict[str, str]) -> str:
    requested = leaf["leaf"]
    if leaf.get("pure"):
        return "leaf-null" if requested is None else f"leaf-{requested}"
    if requested in (None, "default"):
        return "default"
    if case.get("structural"):
        return f"index{requested[1:]}"
    return f"{kinds.get(requested, 'entry')}-{requested}"


def _leaf_params() -> list[Any]:
    params = []
    for case in CASES:
        kinds = _entry_kinds(case)
        for leaf in case["leaves"]:
            name = f"{case['id']}@{_leaf_name(case, leaf, kinds)}"
            params.append(pytest.param(case, leaf, id=name))
    return params


LEAVES = _leaf_params()
ALL = [pytest.param(case, id=case["id"]) for case in CASES]
PLAIN = [pytest.param(case, id=case["id"]) for case in CASES if not case.get("structural")]
STRUCTURAL = [pytest.param(case, id=case["id"]) for case in CASES if case.get("structural")]
PITH = [pytest.param(case, id=case["id"]) for case in CASES if case["kind"] == "pith"]


@pytest.fixture
def opened(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[SessionStore, Path]]:
    """The case's session file, copied to tmp_path and opened (locked, so repairs happen)."""
    case: Json = request.node.callspec.params["case"]
    source = SESSIONS / case["file"]
    copy = tmp_path / source.name
    copy.write_bytes(source.read_bytes())
    store = SessionStore.open(copy)
    try:
        yield store, copy
    finally:
        store.close()


# --- what pith sees at each leaf, in the shape of Pi's recording -----------------------------


def _positions(store: SessionStore) -> dict[str, str]:
    return {entry.id: f"#{index}" for index, entry in enumerate(store.entries)}


def _pith_view(store: SessionStore, case: Json, leaf: Json) -> Json:
    requested = leaf["leaf"]
    if leaf.get("pure"):
        if requested is None:
            store.reset_leaf()
            projection = store.projection()
        else:
            projection = project(store.entries, requested, store.by_id)
    else:
        if case.get("structural") and requested != "default":
            store.branch(store.entries[int(requested[1:])].id)
        elif requested not in (None, "default"):
            store.branch(requested)
        projection = store.projection()
    model = projection.model
    view: Json = {
        "leafId": store.leaf_id,
        "branchIds": [entry.id for entry in store.get_branch()],
        "contextEntryIds": [item.entry.id for item in projection.entries],
        "messages": [to_builtins(message) for message in projection.messages],
        "thinkingLevel": projection.thinking_level,
        "model": None if model is None else {"provider": model[0], "modelId": model[1]},
    }
    if case.get("structural"):
        names = _positions(store)
        view["leafId"] = names.get(view["leafId"] or "")
        view["branchIds"] = [names[i] for i in view["branchIds"]]
        view["contextEntryIds"] = [names[i] for i in view["contextEntryIds"]]
    return view


KNOWN_ROLES = {
    "system", "user", "assistant", "toolResult", "bashExecution", "custom",
    "branchSummary", "compactionSummary",
}  # fmt: skip
KNOWN_BLOCKS = {"text", "image", "thinking", "toolCall"}


def _pi_messages(case: Json, refs: list[int]) -> list[Json]:
    """Pi's projected messages, less what pith deliberately leaves out of the model context
    (docs/differences.md): messages of a role it cannot read and content blocks of unknown
    types. Both stay in the file, and pith warns about them when it opens the session."""
    expected = []
    for index in refs:
        message = case["messages"][index]
        if message.get("role") not in KNOWN_ROLES:
            continue
        content = message.get("content")
        if isinstance(content, list):
            known = [block for block in content if block.get("type") in KNOWN_BLOCKS]
            message = {**message, "content": known}
        expected.append(message)
    return expected


FILLED = {
    "timestamp", "api", "provider", "usage", "stopReason", "isError", "display", "cancelled",
    "truncated",
}  # fmt: skip


def _without_filled_fields(pith: list[Json], pi: list[Json]) -> list[Json]:
    """A message missing a required field gets a default in pith where Pi leaves it out: no
    timestamp takes its entry's time (tested in tests/session/test_store.py), an assistant
    message without api/provider/usage/stopReason gets defaults, a tool result isError false,
    a custom message without display false (not shown, which is what Pi makes of it), a bash
    execution without cancelled/truncated false. Leave those out."""
    return [
        {key: value for key, value in ours.items() if key not in FILLED or key in theirs}
        for ours, theirs in zip(pith, pi, strict=False)
    ] + pith[len(pi) :]


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_projected_messages_match_pi(
    opened: tuple[SessionStore, Path], case: Json, leaf: Json
) -> None:
    store, _ = opened
    expected = _pi_messages(case, leaf["messages"])
    messages = _pith_view(store, case, leaf)["messages"]
    assert _without_filled_fields(messages, expected) == expected


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_thinking_level_and_model_match_pi(
    opened: tuple[SessionStore, Path], case: Json, leaf: Json
) -> None:
    store, _ = opened
    view = _pith_view(store, case, leaf)
    model = leaf["model"]
    if model is not None:
        model = {"provider": "", **model}  # an assistant message without provider: '' in pith
    assert (view["thinkingLevel"], view["model"]) == (leaf["thinkingLevel"], model)


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_branch_and_context_entries_match_pi(
    opened: tuple[SessionStore, Path], case: Json, leaf: Json
) -> None:
    store, _ = opened
    view = _pith_view(store, case, leaf)
    expected = {key: leaf[key] for key in ("leafId", "branchIds", "contextEntryIds") if key in leaf}
    assert {key: view[key] for key in expected} == expected


# --- the file as a whole ----------------------------------------------------------------------


def _flat_tree(nodes: list[TreeNode], depth: int = 0) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for node in nodes:
        rows.append([depth, node.entry.id, node.label])
        rows.extend(_flat_tree(node.children, depth + 1))
    return rows


@pytest.mark.parametrize("case", ALL)
def test_session_id_and_name_match_pi(opened: tuple[SessionStore, Path], case: Json) -> None:
    store, _ = opened
    assert (store.id, store.name) == (case["sessionId"], case["sessionName"])


@pytest.mark.parametrize("case", PLAIN)
def test_reads_the_entries_pi_reads(opened: tuple[SessionStore, Path], case: Json) -> None:
    store, _ = opened
    assert [entry.id for entry in store.entries] == case["entryIds"]


@pytest.mark.parametrize("case", PLAIN)
def test_tree_and_labels_match_pi(opened: tuple[SessionStore, Path], case: Json) -> None:
    store, _ = opened
    assert _flat_tree(store.tree()) == case["tree"]


def _objects(data: str) -> list[Json]:
    """The JSON objects among the lines (malformed lines skipped, as both loaders do)."""
    objects = []
    for line in data.splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            objects.append(value)
    return objects


@pytest.mark.parametrize("case", PLAIN)
def test_file_after_opening_matches_pi(opened: tuple[SessionStore, Path], case: Json) -> None:
    """Untouched when Pi leaves it alone; otherwise the same entries as Pi's rewrite (a torn
    last line may be dropped rather than kept behind a newline) and a final newline."""
    _, copy = opened
    original = (SESSIONS / case["file"]).read_text(encoding="utf-8")
    after = copy.read_text(encoding="utf-8")
    if not case["rewrittenOnOpen"]:
        assert after == original
        return
    expected = case.get("rewritten") or _objects(original + case["rewrittenAppended"])
    assert (_objects(after), after.endswith("\n")) == (expected, True)


# --- migrated v1 files: same structure, random ids --------------------------------------------


def _normalized(objects: list[Json], ids: list[str]) -> list[Json]:
    names = {entry_id: f"#{index}" for index, entry_id in enumerate(ids)}
    out = []
    for obj in objects:
        copy = dict(obj)
        for key in ("id", "parentId", "firstKeptEntryId", "targetId", "fromId"):
            if isinstance(copy.get(key), str) and copy[key] in names:
                copy[key] = names[copy[key]]
        out.append(copy)
    return out


@pytest.mark.parametrize("case", STRUCTURAL)
def test_migrated_entries_match_pi(opened: tuple[SessionStore, Path], case: Json) -> None:
    store, _ = opened
    ids = [entry.id for entry in store.entries]
    entries = [json.loads(encode_entry(entry)) for entry in store.entries]
    assert _normalized(entries, ids) == case["entries"]


@pytest.mark.parametrize("case", STRUCTURAL)
def test_migrated_file_matches_pi_rewrite(opened: tuple[SessionStore, Path], case: Json) -> None:
    store, copy = opened
    objects = _objects(copy.read_text(encoding="utf-8"))
    ids = [entry.id for entry in store.entries]
    assert [objects[0], *_normalized(objects[1:], ids)] == case["rewritten"]


# --- files pith wrote -------------------------------------------------------------------------


@pytest.mark.parametrize("case", PITH)
def test_pi_opens_pith_files_without_rewriting(case: Json) -> None:
    assert case["rewrittenOnOpen"] is False


@pytest.mark.parametrize("case", PITH)
def test_pi_reads_back_what_pith_projected_while_writing(case: Json) -> None:
    live = case["pithLive"]
    (leaf,) = [leaf for leaf in case["leaves"] if leaf["leaf"] == live["leafId"]]
    pi_view = (_pi_messages(case, leaf["messages"]), leaf["thinkingLevel"], leaf["model"])
    assert pi_view == (_pi_messages(case, live["messages"]), live["thinkingLevel"], live["model"])


@pytest.mark.parametrize("case", PITH)
def test_pith_writes_the_entries_pi_writes(case: Json) -> None:
    """The same appends through Pi's SessionManager give the same entries (ids as positions,
    timestamps aside)."""
    objects = _objects((SESSIONS / case["file"]).read_text(encoding="utf-8"))[1:]
    entries = _normalized(objects, [obj["id"] for obj in objects])
    for entry in entries:
        entry.pop("timestamp", None)
        if isinstance(entry.get("systemMessage"), dict):
            entry["systemMessage"].pop("timestamp", None)
    assert entries == case["piWrites"]["entries"]
