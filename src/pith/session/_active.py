"""The active branch of a store, kept between changes: its root-to-leaf path and projection.

Walking from the leaf to the root and projecting the path read the whole branch; both stay
right until the tree changes under them. A store changes in two ways only: an entry is
appended at the leaf (the path grows by that entry, the projection by its messages, unless
the entry rewrites what came before: a compaction or a context edit), or the leaf moves
(branching, navigation, a fork's re-indexing), which drops both until they are asked for
again. What is handed out is a copy, so a caller that changes it changes nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping

from pith.session._entries import SessionEntry
from pith.session._projection import (
    SessionProjection,
    copy_projection,
    edited_ids,
    extend_projection,
    project_branch,
)
from pith.session._tree import branch_path

__all__ = ["ActiveBranch"]


class ActiveBranch:
    """The path to one leaf and its projection, built when first asked for (see the module
    docstring). The owner says when the leaf moves (`clear`) and what it appended
    (`appended`); the leaf must be None or the id of an entry of `by_id`."""

    def __init__(self) -> None:
        self._path: list[SessionEntry] | None = None
        self._projection: SessionProjection | None = None
        self._edited: set[str] = set()

    def clear(self) -> None:
        self._path = None
        self._projection = None

    def path(self, by_id: Mapping[str, SessionEntry], leaf_id: str | None) -> list[SessionEntry]:
        """The root-to-leaf path (a copy)."""
        return list(self._kept_path(by_id, leaf_id))

    def _kept_path(
        self, by_id: Mapping[str, SessionEntry], leaf_id: str | None
    ) -> list[SessionEntry]:
        if self._path is None:
            self._path = branch_path(by_id, leaf_id)
        return self._path

    def projection(
        self, by_id: Mapping[str, SessionEntry], leaf_id: str | None
    ) -> SessionProjection:
        """The projection of the root-to-leaf path (a copy of its lists)."""
        if self._projection is None:
            self._projection = project_branch(self._kept_path(by_id, leaf_id))
            self._edited = edited_ids(self._projection)
        return copy_projection(self._projection)

    def appended(self, entry: SessionEntry, *, at_leaf: bool) -> None:
        """`entry` was appended and is the new leaf; `at_leaf`: its parent was the leaf, its
        id new to the store."""
        path = self._path
        if not at_leaf or path is None:
            self.clear()
            return
        # Even when the root named the new entry as its (missing) parent, the path is the old
        # one and the entry: the walk from the entry stops where it would come back to it.
        path.append(entry)
        projection = self._projection
        if projection is not None and not extend_projection(projection, entry, self._edited):
            self._projection = None
