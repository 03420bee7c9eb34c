"""The environment of every command run for a session: the user's, plus PITH_* variables
that say which session, model and thinking level it runs for."""

from __future__ import annotations

import os

from pith.ai import Model, ThinkingLevel
from pith.session import SessionStore

__all__ = ["ShellEnvironment"]


class ShellEnvironment:
    """Made before the session (the bash tool is built with it); the session tells it when its
    tree, model or thinking level changes, so each command sees the current ones."""

    def __init__(self, store: SessionStore, model: Model, thinking: ThinkingLevel) -> None:
        self._store = store
        self._model = model
        self._thinking: ThinkingLevel = thinking

    def follow_store(self, store: SessionStore) -> None:
        self._store = store

    def follow_model(self, model: Model, thinking: ThinkingLevel) -> None:
        self._model = model
        self._thinking = thinking

    def variables(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PITH_SESSION_ID"] = self._store.id
        if self._store.path is not None:
            env["PITH_SESSION_FILE"] = str(self._store.path)
        env["PITH_PROVIDER"] = self._model.provider
        env["PITH_MODEL"] = self._model.id
        env["PITH_REASONING_LEVEL"] = self._thinking
        return env
