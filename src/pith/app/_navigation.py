"""Moving between sessions and branches: new, resume, fork, and navigating the tree.

Each operation asks the extensions first (`session_before_switch`, `session_before_fork`,
`session_before_tree`; any of them may cancel), then changes the session and tells them
(`session_shutdown` + `session_start`, or `session_tree`). The agent's history always follows
the session's projection.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pith.errors import InputError
from pith.extensions.events import (
    SessionBeforeFork,
    SessionBeforeSwitch,
    SessionBeforeTree,
    SessionShutdown,
    SessionStart,
    SessionTree,
)
from pith.session import SessionEntry, SessionStore

if TYPE_CHECKING:
    from pith.app._session import AgentSession

__all__ = ["fork_session", "navigate_tree", "new_session", "switch_session"]


def _adopt(session: AgentSession, store: SessionStore) -> str | None:
    """Make `store` the session's tree (closing the old one); the old file's path."""
    old = session.store
    previous = str(old.path) if old.path is not None else None
    session.store = store
    session.agent.options.session_id = store.id
    projection = store.projection()
    session.agent.messages = list(projection.messages)
    model = session.model
    if projection.model != (model.provider, model.id):
        store.append_model_change(model.provider, model.id)
    if projection.thinking_level != session.thinking:
        store.append_thinking_level_change(session.thinking)
    if old is not store:
        old.close()
    return previous


def _idle(session: AgentSession, what: str) -> None:
    if session.agent.is_running:
        raise InputError(f"cannot {what} while the agent is working; wait or abort first")


async def new_session(session: AgentSession) -> bool:
    """Start a fresh session in the same folder; False when an extension cancelled."""
    _idle(session, "start a new session")
    runner = session.extensions
    if (await runner.emit_cancellable(SessionBeforeSwitch("new"))).cancel:
        return False
    await runner.emit(SessionShutdown("new"))
    directory = session.store.path.parent if session.store.path is not None else None
    previous = _adopt(session, SessionStore.create(session.cwd, directory))
    await runner.emit(SessionStart("new", previous))
    return True


async def switch_session(session: AgentSession, path: Path) -> bool:
    """Resume the session stored at `path`; False when an extension cancelled."""
    _idle(session, "switch sessions")
    runner = session.extensions
    target = str(path)
    if (await runner.emit_cancellable(SessionBeforeSwitch("resume", target))).cancel:
        return False
    store = SessionStore.open(path)  # before shutting down: a locked file stops nothing
    await runner.emit(SessionShutdown("resume", target))
    previous = _adopt(session, store)
    await runner.emit(SessionStart("resume", previous))
    return True


async def fork_session(session: AgentSession, entry_id: str, *, before: bool = False) -> bool:
    """Continue in a new session holding the path to `entry_id` (or to its parent, `before`
    it); False when an extension cancelled."""
    _idle(session, "fork")
    entry = session.store.by_id.get(entry_id)
    if entry is None:
        raise InputError(f"no entry {entry_id} in this session")
    runner = session.extensions
    event = SessionBeforeFork(entry_id, "before" if before else "at")
    if (await runner.emit_cancellable(event)).cancel:
        return False
    leaf = entry.parent_id if before else entry_id
    if leaf is None:
        store = SessionStore.create(
            session.cwd,
            session.store.path.parent if session.store.path is not None else None,
            parent_session=str(session.store.path) if session.store.path else None,
        )
    else:
        store = session.store.fork(leaf)
    await runner.emit(SessionShutdown("fork", str(store.path) if store.path else None))
    previous = _adopt(session, store)
    await runner.emit(SessionStart("fork", previous))
    return True


async def navigate_tree(
    session: AgentSession,
    target_id: str | None,
    *,
    summarize: bool = False,
    label: str | None = None,
) -> bool:
    """Move the leaf to `target_id` (None: before the first entry) in this session.

    An extension's `session_before_tree` may cancel, supply the summary of the branch being
    left (recorded as a branch summary) or label the target. False when cancelled.
    """
    _idle(session, "move in the session tree")
    store = session.store
    if target_id is not None and target_id not in store.by_id:
        raise InputError(f"no entry {target_id} in this session")
    runner = session.extensions
    old_leaf = store.leaf_id
    answer = await runner.emit_before_tree(
        SessionBeforeTree(target_id or "", old_leaf, summarize, signal=session.agent.signal)
    )
    if answer.cancel:
        return False
    summary_entry: SessionEntry | None = None
    if answer.summary is not None:
        summary_entry = store.branch_with_summary(target_id, answer.summary, from_hook=True)
    elif target_id is None:
        store.reset_leaf()
    else:
        store.branch(target_id)
    chosen_label = answer.label if answer.label is not None else label
    if chosen_label is not None and target_id is not None:
        store.append_label(target_id, chosen_label)
    session.agent.messages = list(store.projection().messages)
    await runner.emit(
        SessionTree(store.leaf_id, old_leaf, summary_entry, answer.summary is not None)
    )
    return True
