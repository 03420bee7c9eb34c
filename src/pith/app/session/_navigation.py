"""Moving between sessions and branches: new, resume, fork, and navigating the tree.

Each operation asks the extensions first (`session_before_switch`, `session_before_fork`,
`session_before_tree`; any of them may cancel), then changes the session and tells them
(`session_shutdown` + `session_start`, or `session_tree`). The agent's history always follows
the session's projection.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from pith.agent import AbortSignal, Agent
from pith.ai import Usage, UserMessage, content_text, convert
from pith.app.session._history import History
from pith.app.session._summaries import Summaries
from pith.compaction import (
    BRANCH_LABEL,
    NO_BRANCH_CONTENT,
    SUMMARIZER_SYSTEM_PROMPT,
    branch_request_text,
    branch_summary_text,
    branch_token_budget,
    collect_entries_for_branch_summary,
    compute_file_lists,
    prepare_branch_entries,
    response_text,
    serialize_conversation,
    summarization_failure,
)
from pith.errors import InputError
from pith.extensions import ExtensionRunner
from pith.extensions.events import (
    BranchSummarySpec,
    SessionBeforeFork,
    SessionBeforeSwitch,
    SessionBeforeTree,
    SessionShutdown,
    SessionStart,
    SessionTree,
    TreePreparation,
)
from pith.resources import Settings
from pith.session import (
    BranchSummaryEntry,
    CustomMessageEntry,
    MessageEntry,
    SessionEntry,
    SessionStore,
)

__all__ = ["ForkOutcome", "TreeNavigation", "TreeNavigator", "fork_points"]


@dataclass
class ForkOutcome:
    """What a fork did: `cancelled` by an extension, or the text of the user message forked
    before (`selected_text`, handed back for editing)."""

    cancelled: bool = False
    selected_text: str | None = None


@dataclass
class TreeNavigation:
    """What a move in the tree did.

    `cancelled`: an extension cancelled it, or (`aborted`) the user stopped the summary; the
    leaf did not move. `editor_text`: the text of the user or custom message that was chosen,
    handed back for editing (the leaf moved to just before it). `summary_entry`: the branch
    summary written on the way, if any.
    """

    cancelled: bool = False
    aborted: bool = False
    editor_text: str | None = None
    summary_entry: BranchSummaryEntry | None = None


class TreeNavigator:
    """Moves one conversation between sessions and branches: `history` holds its tree (and
    swaps it), `summaries` writes branch summaries, `extensions` are asked first and told
    after; `settings` is read each time (it may change while the session lives)."""

    def __init__(
        self,
        *,
        cwd: str,
        agent: Agent,
        history: History,
        summaries: Summaries,
        extensions: ExtensionRunner,
        settings: Callable[[], Settings],
    ) -> None:
        self._cwd = cwd
        self._agent = agent
        self._history = history
        self._summaries = summaries
        self._extensions = extensions
        self._settings = settings

    def _idle(self, what: str) -> None:
        if self._agent.is_running or self._summaries.busy:
            raise InputError(f"cannot {what} while the agent is working; wait or abort first")

    async def new_session(self) -> bool:
        """Start a fresh session in the same folder; False when an extension cancelled."""
        self._idle("start a new session")
        runner = self._extensions
        if (await runner.emit(SessionBeforeSwitch("new"))).cancel:
            return False
        await runner.emit(SessionShutdown("new"))
        store = self._history.store
        directory = store.path.parent if store.path is not None else None
        previous = self._history.adopt(SessionStore.create(self._cwd, directory))
        await runner.emit(SessionStart("new", previous))
        return True

    async def switch_session(self, path: Path) -> bool:
        """Resume the session stored at `path`; False when an extension cancelled."""
        self._idle("switch sessions")
        runner = self._extensions
        target = str(path)
        if (await runner.emit(SessionBeforeSwitch("resume", target))).cancel:
            return False
        # Opened before shutting down: a locked file stops nothing.
        store = SessionStore.open(path, cwd=self._cwd)
        await runner.emit(SessionShutdown("resume", target))
        previous = self._history.adopt(store)
        await runner.emit(SessionStart("resume", previous))
        return True

    async def fork(self, entry_id: str, *, before: bool = False) -> ForkOutcome:
        """Continue in a new session holding the path to `entry_id` (`/clone` at the leaf),
        or, `before` a user message, the path up to just before it (`/fork`: the message's
        text comes back for editing). The new session's header names this one as its
        parent."""
        self._idle("fork")
        store = self._history.store
        entry = store.by_id.get(entry_id)
        if entry is None:
            raise InputError(f"no entry {entry_id} in this session")
        selected: str | None = None
        if before:
            if not (isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)):
                raise InputError(
                    f"entry {entry_id} is not a user message; fork from one of your messages"
                )
            selected = content_text(entry.message.content)
        runner = self._extensions
        event = SessionBeforeFork(entry_id, "before" if before else "at")
        if (await runner.emit(event)).cancel:
            return ForkOutcome(cancelled=True)
        leaf = entry.parent_id if before else entry_id
        branched = _branched(store, leaf)
        await runner.emit(SessionShutdown("fork", str(branched.path) if branched.path else None))
        previous = self._history.adopt(branched)
        await runner.emit(SessionStart("fork", previous))
        return ForkOutcome(selected_text=selected)

    async def clone(self) -> ForkOutcome:
        """`/clone`: continue in a new session holding the active branch as it is."""
        leaf = self._history.store.leaf_id
        if leaf is None:
            raise InputError("nothing to clone yet: the session is empty")
        return await self.fork(leaf)

    async def navigate(
        self,
        target_id: str | None,
        *,
        summarize: bool = False,
        instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> TreeNavigation:
        """Move the leaf to `target_id` (None: before the first entry) in this session.

        Choosing a user message (or an extension's custom message) moves to just before it
        and returns its text for editing. With `summarize`, the branch being left (back to the
        common ancestor) is summarized and the summary attached where the user arrives, so
        the model keeps what was learned there; `instructions` add a focus (or, with
        `replace_instructions`, stand instead of pith's). `session_before_tree` handlers may
        cancel, supply the summary, or override the instructions and the label. A summary
        that fails raises `InputError` and moves nothing.
        """
        self._idle("move in the session tree")
        store = self._history.store
        old_leaf = store.leaf_id
        if target_id == old_leaf:
            return TreeNavigation()
        target = store.by_id.get(target_id) if target_id is not None else None
        if target_id is not None and target is None:
            raise InputError(f"no entry {target_id} in this session")
        collection = collect_entries_for_branch_summary(store.by_id, old_leaf, target_id)
        preparation = TreePreparation(
            target_id,
            old_leaf,
            collection.common_ancestor_id,
            collection.entries,
            summarize,
            instructions,
            replace_instructions,
            label,
        )
        with self._summaries.signal() as signal:
            answer = await self._extensions.emit(
                SessionBeforeTree(target_id or "", old_leaf, summarize, preparation, signal)
            )
            if answer.cancel:
                return TreeNavigation(cancelled=True)
            if answer.custom_instructions is not None:
                instructions = answer.custom_instructions
            if answer.replace_instructions is not None:
                replace_instructions = answer.replace_instructions
            if answer.label is not None:
                label = answer.label
            summary: BranchSummarySpec | None = None
            supplied = _supplied(answer.summary) if summarize else None
            if supplied is not None:
                summary = supplied
            elif summarize and collection.entries:
                summary = await self._summarize_branch(
                    collection.entries, instructions, replace_instructions, signal
                )
                if summary is None:
                    return TreeNavigation(cancelled=True, aborted=True)
        new_leaf, editor_text = _landing(target)
        summary_entry: BranchSummaryEntry | None = None
        if summary is not None and summary.summary:
            summary_entry = store.branch_with_summary(
                new_leaf,
                summary.summary,
                details=summary.details if summary.details is not None else msgspec.UNSET,
                usage=summary.usage,
                from_hook=supplied is not None,
            )
        elif new_leaf is None:
            store.reset_leaf()
        else:
            store.branch(new_leaf)
        labelled = summary_entry.id if summary_entry is not None else target_id
        if label and labelled is not None:
            store.append_label(labelled, label)
        self._history.reload()
        await self._extensions.emit(
            SessionTree(
                store.leaf_id,
                old_leaf,
                summary_entry,
                summary_entry is not None and supplied is not None,
            )
        )
        return TreeNavigation(editor_text=editor_text, summary_entry=summary_entry)

    async def _summarize_branch(
        self,
        entries: list[SessionEntry],
        instructions: str | None,
        replace_instructions: bool,
        signal: AbortSignal,
    ) -> BranchSummarySpec | None:
        """The summary of the branch being left, written by the summarizer; None when
        aborted."""
        summarizer = self._summaries.summarizer()
        model = summarizer.model
        reserve = self._settings().values.branch_summary.reserve_tokens
        budget = branch_token_budget(model.context_window, reserve)
        prepared = prepare_branch_entries(entries, budget)
        if not prepared.messages:
            return BranchSummarySpec(NO_BRANCH_CONTENT)
        conversation = serialize_conversation(prepared.messages)
        request = branch_request_text(conversation, instructions, replace_instructions)
        reply = await summarizer.ask(SUMMARIZER_SYSTEM_PROMPT, request, signal)
        if reply.stop_reason == "aborted" or signal.aborted:
            return None
        failure = summarization_failure(reply, BRANCH_LABEL)
        if failure is not None:
            raise InputError(failure)
        files = compute_file_lists(prepared.file_ops)
        return BranchSummarySpec(
            branch_summary_text(response_text(reply), files),
            {"readFiles": files.read_files, "modifiedFiles": files.modified_files},
            reply.usage,
        )


def fork_points(store: SessionStore) -> list[tuple[str, str]]:
    """The user messages of the whole session tree, oldest first, as `(entry id, text)`:
    where `/fork` can start from."""
    return [
        (entry.id, content_text(entry.message.content))
        for entry in store.entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)
    ]


def _branched(store: SessionStore, leaf: str | None) -> SessionStore:
    """A new session in the same folder holding the root-to-`leaf` path (empty for None)."""
    if leaf is not None:
        return store.fork(leaf)
    return SessionStore.create(
        store.cwd or os.getcwd(),
        store.path.parent if store.path is not None else None,
        parent_session=str(store.path) if store.path is not None else None,
    )


def _landing(target: SessionEntry | None) -> tuple[str | None, str | None]:
    """Where the leaf goes for `target`, and the text handed back for editing: a user message
    or a custom message is re-opened (the leaf moves to its parent); anything else is kept."""
    if target is None:
        return None, None
    if isinstance(target, MessageEntry) and isinstance(target.message, UserMessage):
        return target.parent_id, content_text(target.message.content)
    if isinstance(target, CustomMessageEntry):
        return target.parent_id, content_text(target.content)
    return target.id, None


def _supplied(value: object) -> BranchSummarySpec | None:
    """An extension's branch summary, whichever shape it came in."""
    if value is None or isinstance(value, BranchSummarySpec):
        return value
    if isinstance(value, str):
        return BranchSummarySpec(value)
    if isinstance(value, Mapping) and isinstance(value.get("summary"), str):
        usage = value.get("usage")
        return BranchSummarySpec(
            str(value["summary"]),
            value.get("details"),
            convert(usage, Usage) if isinstance(usage, Mapping) else None,
        )
    raise TypeError("session_before_tree: summary needs a summary text")
