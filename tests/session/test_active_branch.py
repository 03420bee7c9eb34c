"""The store keeps its active path and projection between calls; they must always equal what
a plain computation over the entries gives, whatever happened to the tree (hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pith.session import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    ContextReplacement,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    ProjectedEntry,
    RawEntry,
    SessionEntry,
    SessionProjection,
    SessionStore,
    ThinkingLevelChangeEntry,
    entry_messages,
    iso_now,
)

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the plain computation: every call walks and reads the whole path ----------------------


def plain_path(by_id: dict[str, SessionEntry], start: SessionEntry | None) -> list[SessionEntry]:
    path: list[SessionEntry] = []
    seen: set[str] = set()
    while start is not None and start.id not in seen:
        path.append(start)
        seen.add(start.id)
        start = by_id.get(start.parent_id) if start.parent_id else None
    return path[::-1]


def plain_branch(store: SessionStore) -> list[SessionEntry]:
    leaf = store.leaf_id
    return plain_path(store.by_id, store.by_id.get(leaf) if leaf else None)


def plain_projection(store: SessionStore) -> SessionProjection:
    entries, leaf_id, by_id = store.entries, store.leaf_id, store.by_id
    if leaf_id is None:
        path: list[SessionEntry] = []
    else:
        leaf = by_id.get(leaf_id) if leaf_id else None
        path = plain_path(by_id, leaf if leaf is not None else entries[-1] if entries else None)
    thinking, model = "off", None
    for entry in path:
        if isinstance(entry, ThinkingLevelChangeEntry):
            thinking = entry.thinking_level
        elif isinstance(entry, ModelChangeEntry):
            model = (entry.provider, entry.model_id)
        elif isinstance(entry, MessageEntry | RawEntry) and isinstance(
            entry.message, AssistantMessage
        ):
            model = (entry.message.provider, entry.message.model)
    latest = max((i for i, e in enumerate(path) if isinstance(e, CompactionEntry)), default=None)
    context: list[SessionEntry] = list(path)
    if latest is not None:
        compaction = path[latest]
        assert isinstance(compaction, CompactionEntry)
        ids = [e.id for e in path[:latest]]
        first = (
            ids.index(compaction.first_kept_entry_id)
            if compaction.first_kept_entry_id in ids
            else latest
        )
        kept = [
            e
            for e in path[first:latest]
            if not (isinstance(e, MessageEntry) and isinstance(e.message, SystemMessage))
        ]
        context = [compaction, *kept, *path[latest + 1 :]]
    edits = {e.target_id: e for e in context if isinstance(e, ContextEditEntry)}
    projected = []
    for index, entry in enumerate(context):
        messages: list[AgentMessage] = []
        if not (isinstance(entry, CompactionEntry) and index > 0):
            messages = entry_messages(entry)
            edit = edits.get(entry.id)
            if edit is not None:
                messages = [] if edit.replacement is None else [_edited(m, edit) for m in messages]
        projected.append(ProjectedEntry(entry, messages))
    first_entry = context[0] if context else None
    return SessionProjection(
        entries=projected,
        messages=[m for item in projected for m in item.messages],
        thinking_level=thinking,
        model=model,
        compaction=first_entry if isinstance(first_entry, CompactionEntry) else None,
    )


def _edited(message: AgentMessage, edit: ContextEditEntry) -> AgentMessage:
    assert edit.replacement is not None
    content: object = edit.replacement.content
    if isinstance(message, AssistantMessage | ToolResultMessage) and isinstance(content, str):
        content = [TextContent(text=content)]
    if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage | CustomMessage):
        return msgspec.structs.replace(message, content=content)
    return message


# --- random trees ---------------------------------------------------------------------------

KINDS = [
    "user",
    "reply",
    "reply",
    "system",
    "thinking",
    "model",
    "compact",
    "hide",
    "replace",
    "label",
    "branch",
    "root",
    "summary",
    "custom",
    "state",
    "info",
    "odd",
]
steps = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(min_value=0, max_value=1000)), max_size=40
)
POOL = ["p0", "p1", "p2"]  # ids hand-made entries take, and parents they name


def reply(n: int) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=f"reply {n}")],
        api="openai-completions",
        provider="fake",
        model=f"m{n % 3}",
        usage=Usage(input=n, output=1),
        stop_reason="stop",
    )


def apply(store: SessionStore, kind: str, n: int) -> None:
    """One change to the tree; `n` picks targets, sizes and names."""
    path = store.get_branch()
    if kind == "user":
        store.append_message(UserMessage(content=f"prompt {n}"))
    elif kind == "reply":
        store.append_message(reply(n))
    elif kind == "system":
        store.append_message(SystemMessage(content=f"system {n}"))
    elif kind == "thinking":
        store.append_thinking_level_change(["low", "high", "off"][n % 3])
    elif kind == "model":
        store.append_model_change("fake", f"chosen{n % 4}")
    elif kind == "compact" and path:
        keep = path[n % len(path)].id if n % 4 else None
        store.append_compaction(f"summary {n}", keep, n)
    elif kind in ("hide", "replace") and path:
        target = path[n % len(path)]
        if isinstance(target, MessageEntry | CustomMessageEntry):
            store.append_context_edit(target.id, None if kind == "hide" else f"edited {n}")
    elif kind == "label" and store.entries:
        store.append_label(store.entries[n % len(store.entries)].id, f"l{n % 3}" if n % 5 else None)
    elif kind == "branch" and store.entries:
        store.branch(store.entries[n % len(store.entries)].id)
    elif kind == "root":
        store.reset_leaf()
    elif kind == "summary":
        target = store.entries[n % len(store.entries)].id if store.entries and n % 3 else None
        store.branch_with_summary(target, f"left {n}" if n % 2 else "")
    elif kind == "custom":
        store.append_custom_message("note", f"note {n}", display=bool(n % 2))
    elif kind == "state":
        store.append_custom("state", {"n": n})
    elif kind == "info":
        store.append_session_info(f"name {n}")
    elif kind == "odd":
        append_odd(store, n)


def append_odd(store: SessionStore, n: int) -> None:
    """A hand-made entry: an id already taken or from the pool, a parent that is missing,
    not the leaf, or names an entry appended later (loops included), or a context edit of an
    id from the pool."""
    taken = [entry.id for entry in store.entries]
    ids = POOL + taken[-2:]
    parents: list[str | None] = [None, *POOL, "missing", *taken[-3:]]
    entry_id = ids[(n // 4) % len(ids)]
    parent = store.leaf_id if n % 8 < 4 else parents[(n // 8) % len(parents)]
    made: SessionEntry
    if n % 4 == 0:
        raw = {"type": "future", "id": entry_id, "parentId": parent, "timestamp": iso_now()}
        made = RawEntry(raw=raw)
    elif n % 4 == 1:
        edit = ContextReplacement(content=f"edited {n}") if n % 3 else None
        made = ContextEditEntry(
            id=f"e{n}-{len(taken)}",
            parent_id=store.leaf_id,
            timestamp=iso_now(),
            target_id=POOL[n % len(POOL)],
            replacement=edit,
        )
    else:
        made = MessageEntry(id=entry_id, parent_id=parent, timestamp=iso_now(), message=reply(n))
    store.append(made)


def check(store: SessionStore) -> None:
    assert store.get_branch() == plain_branch(store)
    if store.leaf_id is not None:
        assert store.get_branch(store.leaf_id) == plain_branch(store)
    assert store.projection() == plain_projection(store)


@SETTINGS
@given(steps)
def test_kept_path_and_projection_equal_a_plain_computation(changes: list[tuple[str, int]]) -> None:
    store = SessionStore.create("/work/demo", None)
    check(store)
    for kind, n in changes:
        apply(store, kind, n)
        check(store)
        store.projection()  # asked twice in a row: the kept one must still be right
        check(store)


@SETTINGS
@given(steps)
def test_a_session_reopened_from_disk_projects_as_the_kept_one(
    changes: list[tuple[str, int]],
) -> None:
    with tempfile.TemporaryDirectory(prefix="pith-active-") as temporary:
        store = SessionStore.create("/work/demo", Path(temporary))
        store.append_message(UserMessage(content="first"))
        for kind, n in changes:
            if kind != "odd":  # hand-made ids can repeat, and a file keeps every copy
                apply(store, kind, n)
            store.projection()
        store.branch(store.entries[-1].id)  # where a reopened session's leaf is
        kept = store.projection()
        store.close()
        assert store.path is not None
        with SessionStore.open(store.path) as reopened:
            assert reopened.get_branch() == store.get_branch()
            assert reopened.projection() == kept
            assert reopened.projection() == plain_projection(reopened)


def test_what_a_caller_changes_in_a_projection_or_path_is_not_kept() -> None:
    store = SessionStore.create("/work/demo", None)
    store.append_message(UserMessage(content="one"))
    store.append_message(reply(1))
    first = store.projection()
    first.messages.clear()
    first.entries.clear()
    store.get_branch().clear()
    assert len(store.projection().messages) == 2
    assert len(store.get_branch()) == 2


def test_an_append_after_a_branch_extends_the_new_path_not_the_old_one() -> None:
    store = SessionStore.create("/work/demo", None)
    one = store.append_message(UserMessage(content="one"))
    store.append_message(reply(1))
    assert len(store.projection().messages) == 2
    store.branch(one.id)
    assert [m.role for m in store.projection().messages] == ["user"]
    store.append_message(reply(2))
    assert store.projection() == plain_projection(store)
    assert store.get_branch()[0].id == one.id
    assert len(store.get_branch()) == 2


def test_a_summary_and_a_compaction_are_seen_at_once() -> None:
    store = SessionStore.create("/work/demo", None)
    one = store.append_message(UserMessage(content="one"))
    store.append_message(reply(1))
    store.projection()
    summary = store.branch_with_summary(one.id, "what the branch did")
    assert isinstance(summary, BranchSummaryEntry)
    assert store.projection().messages[-1].role == "branchSummary"
    store.append_compaction("all of it", None, 10)
    assert [m.role for m in store.projection().messages] == ["compactionSummary"]


def test_an_entry_that_a_root_names_as_its_parent_closes_a_loop() -> None:
    store = SessionStore.create("/work/demo", None)
    store.append(
        MessageEntry(id="a", parent_id="b", timestamp=iso_now(), message=UserMessage(content="x"))
    )
    assert [e.id for e in store.get_branch()] == ["a"]
    assert len(store.projection().messages) == 1
    store.append(MessageEntry(id="b", parent_id="a", timestamp=iso_now(), message=reply(1)))
    assert [e.id for e in store.get_branch()] == ["a", "b"]  # b -> a -> b stops at the repeat
    assert store.get_branch() == plain_branch(store)
    assert store.projection() == plain_projection(store)


def test_an_entry_an_earlier_edit_names_arrives_edited() -> None:
    store = SessionStore.create("/work/demo", None)
    store.append_message(UserMessage(content="one"))
    store.append(
        ContextEditEntry(
            id="edit",
            parent_id=store.leaf_id,
            timestamp=iso_now(),
            target_id="later",
            replacement=None,
        )
    )
    assert len(store.projection().messages) == 1
    store.append(MessageEntry(id="later", parent_id="edit", timestamp=iso_now(), message=reply(1)))
    assert len(store.projection().messages) == 1  # hidden by the edit before it
    assert store.projection() == plain_projection(store)
