"""The conversation as recorded: the session tree, and the agent's history as its projection.

Every message the agent adds is recorded as an entry the moment it ends; after a compaction,
an edit or a move in the tree the agent's history is the tree's projection again. The
context's size is kept up to date as entries are appended, for the compaction threshold.
"""

from __future__ import annotations

from pith.agent import Agent
from pith.ai import AgentMessage, AssistantMessage, CustomMessage, Model, ThinkingLevel
from pith.app.session._shell_env import ShellEnvironment
from pith.compaction import ContextTokenTracker
from pith.session import MessageEntry, SessionEntry, SessionProjection, SessionStore

__all__ = ["History", "note_choices"]


def note_choices(
    store: SessionStore, projection: SessionProjection, model: Model, thinking: ThinkingLevel
) -> None:
    """Record the model and thinking level in `store` where its projection says otherwise."""
    if projection.model != (model.provider, model.id):
        store.append_model_change(model.provider, model.id)
    if projection.thinking_level != thinking:
        store.append_thinking_level_change(thinking)


class History:
    """The session store the conversation is recorded in, and the agent whose history follows
    it. A new session or a fork swaps the store (`adopt`)."""

    def __init__(self, agent: Agent, store: SessionStore, env: ShellEnvironment) -> None:
        self._agent = agent
        self._store = store
        self._env = env
        self._tracker: ContextTokenTracker | None = None

    @property
    def store(self) -> SessionStore:
        return self._store

    def adopt(self, store: SessionStore) -> str | None:
        """Make `store` the conversation's tree (closing the old one); the old file's path."""
        old = self._store
        previous = str(old.path) if old.path is not None else None
        self._store = store
        self._env.follow_store(store)
        agent = self._agent
        agent.options.session_id = store.id
        projection = store.projection()
        agent.messages = list(projection.messages)
        note_choices(store, projection, agent.model, agent.thinking)
        if old is not store:
            old.close()
        return previous

    def record(self, message: AgentMessage) -> None:
        """Append `message` to the tree as the entry it makes."""
        entry: SessionEntry
        if isinstance(message, CustomMessage):
            entry = self._store.append_custom_message(
                message.custom_type,
                message.content,
                display=message.display,
                details=message.details,
            )
        else:
            entry = self._store.append_message(message)
        if self._tracker is not None:
            self._tracker.add_entry(entry)

    def add(self, message: AgentMessage) -> None:
        """Append `message` to the tree and to the agent's history (outside a run)."""
        self._store.append_message(message)
        self._agent.messages.append(message)

    def reload(self) -> None:
        """The agent's history from the tree's projection again."""
        self._agent.messages = list(self._store.projection().messages)
        self._tracker = None

    def context_tokens(self) -> int:
        """The context's size as the compaction threshold sees it."""
        store = self._store
        if self._tracker is None or self._tracker.stale:
            path = store.get_branch()
            self._tracker = ContextTokenTracker.start(store.projection(), path)
        return self._tracker.tokens

    def last_reply(self) -> AssistantMessage | None:
        """The newest assistant message of the history, if the history ends with one."""
        messages = self._agent.messages
        last = messages[-1] if messages else None
        return last if isinstance(last, AssistantMessage) else None

    def hide_last(self) -> None:
        """Take the history's last message (a failed attempt) out of the model's history, in
        memory and in the tree."""
        failed = self._agent.messages.pop()
        store = self._store
        leaf = store.by_id.get(store.leaf_id or "")
        if isinstance(leaf, MessageEntry) and leaf.message is failed:
            store.append_context_edit(leaf.id, None)
