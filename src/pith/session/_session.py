"""`SessionStore`: one conversation tree, in memory and (lazily) on disk.

The file appears with the first user or assistant message, so starting pith and quitting leaves
nothing behind. Every append becomes the new leaf; `branch()` moves the leaf back to an earlier
entry so the next append starts a new branch; nothing is ever rewritten except by migration.
The leaf is not stored: after a reload it is the last line of the file, as in Pi.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import msgspec

from pith.ai import (
    AgentMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    TextContent,
    Usage,
    current_system_message,
)
from pith.errors import InputError
from pith.regular_file import require_regular_file
from pith.session._active import ActiveBranch
from pith.session._codec import encode_entry
from pith.session._entries import (
    CURRENT_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    ContextReplacement,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
    iso_now,
    js_trim,
    new_entry_id,
    new_session_id,
    timestamp_millis,
)
from pith.session._file import (
    AppendOnlyFile,
    SessionFileError,
    SessionLock,
    SessionWriteError,
    encode_lines,
    load_session,
)
from pith.session._projection import SessionProjection, project
from pith.session._tree import TreeNode, branch_path, child_entries, entry_tree

__all__ = ["SessionStore", "session_file_name"]

_E = TypeVar("_E", bound=msgspec.Struct)
_VALID_ID = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")


def session_file_name(session_id: str, timestamp: str) -> str:
    """Pi's file name: the header timestamp with `:` and `.` as `-`, then the id."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


class SessionStore:
    """A session tree; see the module docstring. Not thread-safe (one event loop owns it)."""

    def __init__(
        self,
        header: SessionHeader,
        entries: list[SessionEntry],
        path: Path | None,
        *,
        persisted: bool,
        warnings: list[str] | None = None,
    ) -> None:
        self.header = header
        self.entries = entries
        self.path = path
        self.warnings = warnings or []
        self.by_id: dict[str, SessionEntry] = {}
        self._leaf_id: str | None = None
        self._active = ActiveBranch()
        self._labels: dict[str, str] = {}
        self._persisted = persisted
        self._file = AppendOnlyFile(path) if path is not None else None
        self._lock = SessionLock(path) if path is not None else None
        self._index()

    # --- creating and opening ---------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str,
        session_dir: Path | None,
        *,
        session_id: str | None = None,
        parent_session: str | None = None,
        path: Path | None = None,
    ) -> SessionStore:
        """A new session in `session_dir` (or at `path`); with neither it lives in memory
        only (`--no-session`)."""
        if session_id is not None and not _VALID_ID.match(session_id):
            raise InputError(
                f"session id {session_id!r}: use letters, digits, '.', '_' and '-', starting "
                "and ending with a letter or digit"
            )
        timestamp = iso_now()
        header = SessionHeader(
            id=session_id or new_session_id(), version=CURRENT_VERSION, timestamp=timestamp, cwd=cwd
        )
        if parent_session is not None:
            header.parent_session = parent_session
        if path is None and session_dir is not None:
            path = session_dir / session_file_name(header.id, timestamp)
        return cls(header, [], path, persisted=False)

    @classmethod
    def open(cls, path: Path, *, lock: bool = True, cwd: str | None = None) -> SessionStore:
        """Load an existing session file and (by default) lock it for writing.

        The lock is taken before the file is read, so a repair never races a writer. An empty
        (zero-byte) file opened for writing holds nothing to lose: it becomes a new session
        for `cwd` (default: the current directory), its header written at once, as in Pi.
        """
        try:
            require_regular_file(path)  # locking opens it: a FIFO would wait for a writer
        except FileNotFoundError:
            raise SessionFileError(f"no session file at {path}") from None
        except OSError as error:
            raise SessionFileError(f"cannot open session {path}: {error.strerror}") from None
        session_lock = SessionLock(path)
        if lock:
            try:
                session_lock.acquire()
            except FileNotFoundError:
                raise SessionFileError(f"no session file at {path}") from None
        try:
            if lock and _is_empty(path):
                return cls._start_in(path, session_lock, cwd or os.getcwd())
            loaded = load_session(path, lock=session_lock if lock else None)
        except BaseException:
            session_lock.release()
            raise
        store = cls(loaded.header, loaded.entries, path, persisted=True, warnings=loaded.warnings)
        store._lock = session_lock
        return store

    @classmethod
    def _start_in(cls, path: Path, lock: SessionLock, cwd: str) -> SessionStore:
        """A new session written into the empty file at `path`, whose lock is held."""
        store = cls.create(cwd, None, path=path)
        store._lock = lock
        assert store._file is not None
        try:
            store._file.append(encode_entry(store.header))
        except OSError as error:
            store._file.close()
            raise SessionFileError(
                f"cannot start a session in the empty file {path}: {error.strerror or error}"
            ) from None
        store._persisted = True
        return store

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _index(self) -> None:
        by_id: dict[str, SessionEntry] = {}
        self._labels = {}
        leaf_id = None
        for entry in self.entries:
            by_id[entry.id] = entry
            leaf_id = entry.id
            if isinstance(entry, LabelEntry):
                self._set_label(entry)
        self.by_id = by_id
        self._leaf_id = leaf_id
        self._active.clear()

    def _set_label(self, entry: LabelEntry) -> None:
        if isinstance(entry.label, str) and entry.label:
            self._labels[entry.target_id] = entry.label
        else:
            self._labels.pop(entry.target_id, None)

    # --- properties -------------------------------------------------------------------------

    @property
    def leaf_id(self) -> str | None:
        """The entry the next append hangs under (None: the next append is a new root)."""
        return self._leaf_id

    @leaf_id.setter
    def leaf_id(self, value: str | None) -> None:
        if value != self._leaf_id:
            self._active.clear()
        self._leaf_id = value

    def _leaf_known(self) -> bool:
        """True when the leaf is None or names an entry: the case the kept branch serves
        (any other leaf reads as empty in `get_branch`, as the last entry in `projection`)."""
        leaf = self._leaf_id
        return leaf is None or (bool(leaf) and leaf in self.by_id)

    @property
    def id(self) -> str:
        return self.header.id

    @property
    def cwd(self) -> str:
        return self.header.cwd if isinstance(self.header.cwd, str) else ""

    @property
    def persisted(self) -> bool:
        """True once the file exists on disk."""
        return self._persisted

    @property
    def name(self) -> str | None:
        """The session's name: the latest `session_info` entry's, if not empty."""
        for entry in reversed(self.entries):
            if isinstance(entry, SessionInfoEntry):
                name = js_trim(entry.name) if isinstance(entry.name, str) else ""
                return name or None
        return None

    def label(self, entry_id: str) -> str | None:
        return self._labels.get(entry_id)

    # --- appending --------------------------------------------------------------------------

    def append(self, entry: SessionEntry) -> SessionEntry:
        """Add `entry` as the new leaf and write it; on a failed write nothing changes."""
        previous_leaf = self._leaf_id
        at_leaf = (
            bool(entry.id)
            and entry.id not in self.by_id
            and entry.parent_id == previous_leaf
            and self._leaf_known()
        )
        self.entries.append(entry)
        self.by_id[entry.id] = entry
        self._leaf_id = entry.id
        try:
            self._persist(entry)
        except OSError as error:
            self.entries.pop()
            del self.by_id[entry.id]
            self._leaf_id = previous_leaf
            reason = error.strerror or str(error)
            raise SessionWriteError(
                f"cannot write to session {self.path}: {reason}; the last step was not recorded "
                "(free some space or fix permissions, then continue)"
            ) from None
        self._active.appended(entry, at_leaf=at_leaf)
        if isinstance(entry, LabelEntry):
            self._set_label(entry)
        return entry

    def _persist(self, entry: SessionEntry) -> None:
        if self._file is None:
            return
        if not self._persisted:
            if _has_conversation(self.entries):
                self._write_whole()
            return
        self._file.append(encode_entry(entry))

    def _write_whole(self) -> None:
        """Create the file with the header and every entry, and lock it."""
        assert self._file is not None
        assert self._lock is not None
        self._file.create(encode_lines(self.header, self.entries))
        self._lock.acquire()  # created with O_EXCL: nobody else has it yet
        self._persisted = True

    def _new(self, cls: type[_E], **fields: object) -> _E:
        """An entry of type `cls` with a fresh id, the leaf as parent and the current time."""
        make = cast(Callable[..., _E], cls)
        return make(
            id=new_entry_id(self.by_id), parent_id=self.leaf_id, timestamp=iso_now(), **fields
        )

    def append_message(self, message: AgentMessage) -> MessageEntry:
        if isinstance(message, CompactionSummaryMessage | BranchSummaryMessage):
            raise ValueError("summaries are recorded with append_compaction / branch_with_summary")
        entry = self._new(MessageEntry, message=message)
        self.append(entry)
        return entry

    def append_model_change(self, provider: str, model_id: str) -> ModelChangeEntry:
        entry = self._new(ModelChangeEntry, provider=provider, model_id=model_id)
        self.append(entry)
        return entry

    def append_thinking_level_change(self, level: str) -> ThinkingLevelChangeEntry:
        entry = self._new(ThinkingLevelChangeEntry, thinking_level=level)
        self.append(entry)
        return entry

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int,
        *,
        details: object = msgspec.UNSET,
        usage: Usage | None = None,
        from_hook: bool | None = None,
    ) -> CompactionEntry:
        """Record a compaction. The system messages of the context it replaces are folded into
        one and kept on the entry, so the system state survives the cut, as in Pi 1.6."""
        system = current_system_message(self.projection().messages)
        entry = self._new(
            CompactionEntry,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id or "",
            tokens_before=tokens_before,
            details=details,
        )
        if system is not None:
            system.timestamp = round(timestamp_millis(entry.timestamp))
            entry.system_message = system
        if not first_kept_entry_id:
            entry.first_kept_entry_id = entry.id  # retain nothing
        if usage is not None:
            entry.usage = usage
        if from_hook is not None:
            entry.from_hook = from_hook
        self.append(entry)
        return entry

    def append_custom(self, custom_type: str, data: object = msgspec.UNSET) -> CustomEntry:
        entry = self._new(CustomEntry, custom_type=custom_type, data=data)
        self.append(entry)
        return entry

    def append_custom_message(
        self,
        custom_type: str,
        content: object,
        *,
        display: bool = True,
        details: object = msgspec.UNSET,
    ) -> CustomMessageEntry:
        entry = self._new(
            CustomMessageEntry,
            custom_type=custom_type,
            content=content,
            display=display,
            details=details,
        )
        self.append(entry)
        return entry

    def append_label(self, target_id: str, label: str | None) -> LabelEntry:
        if target_id not in self.by_id:
            raise KeyError(f"entry {target_id} not found")
        entry = self._new(LabelEntry, target_id=target_id)
        if label:
            entry.label = label
        self.append(entry)
        return entry

    def append_session_info(self, name: str) -> SessionInfoEntry:
        clean = js_trim(re.sub(r"[\r\n]+", " ", name))
        entry = self._new(SessionInfoEntry, name=clean)
        self.append(entry)
        return entry

    def append_usage(
        self, kind: str, provider: str, model: str, usage: Usage, note: str | None = None
    ) -> UsageEntry:
        entry = self._new(UsageEntry, kind=kind, provider=provider, model=model, usage=usage)
        if note:
            entry.note = note
        self.append(entry)
        return entry

    def append_context_edit(self, target_id: str, content: object | None) -> ContextEditEntry:
        """Hide (`None`) or replace the content of an earlier entry on the active branch."""
        target = self.by_id.get(target_id)
        if target is None:
            raise KeyError(f"entry {target_id} not found")
        if target_id not in {entry.id for entry in self.get_branch()}:
            raise ValueError(f"entry {target_id} is not on the active branch")
        replacement = _replacement(target, content)
        entry = self._new(ContextEditEntry, target_id=target_id, replacement=replacement)
        self.append(entry)
        return entry

    # --- the tree ---------------------------------------------------------------------------

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """Root-to-entry path of `from_id` (default: the leaf)."""
        if (from_id is None or from_id == self._leaf_id) and self._leaf_known():
            return self._active.path(self.by_id, self._leaf_id)
        return branch_path(self.by_id, from_id if from_id is not None else self._leaf_id)

    def children(self, parent_id: str | None) -> list[SessionEntry]:
        return child_entries(self.entries, parent_id)

    def tree(self) -> list[TreeNode]:
        """Every entry as a tree: roots (and orphans) first; children oldest first."""
        return entry_tree(self.entries, self._labels)

    def branch(self, entry_id: str) -> None:
        """Move the leaf to `entry_id`; the next append starts a new branch there."""
        if entry_id not in self.by_id:
            raise KeyError(f"entry {entry_id} not found")
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry: the next append is a new root."""
        self.leaf_id = None

    def branch_with_summary(
        self,
        entry_id: str | None,
        summary: str,
        *,
        details: object = msgspec.UNSET,
        usage: Usage | None = None,
        from_hook: bool | None = None,
    ) -> BranchSummaryEntry:
        """Move to `entry_id` (None: before the root), recording a summary of the branch left."""
        if entry_id is not None and entry_id not in self.by_id:
            raise KeyError(f"entry {entry_id} not found")
        from_id = self.leaf_id or "root"
        self.leaf_id = entry_id
        entry = self._new(BranchSummaryEntry, from_id=from_id, summary=summary, details=details)
        if usage is not None:
            entry.usage = usage
        if from_hook is not None:
            entry.from_hook = from_hook
        self.append(entry)
        return entry

    def projection(self) -> SessionProjection:
        """What the next request will contain (before extensions' `context` hooks). Kept
        between calls until the tree changes; the lists handed out are the caller's."""
        if self._leaf_known():
            return self._active.projection(self.by_id, self._leaf_id)
        return project(self.entries, self._leaf_id, self.by_id)

    def fork(self, leaf_id: str | None = None, session_dir: Path | None = None) -> SessionStore:
        """A new session holding only the root-to-`leaf_id` path, labels re-emitted at its end,
        its header pointing back here (`parentSession`). Written at once."""
        return _fork(self, leaf_id, session_dir)

    def __iter__(self) -> Iterator[SessionEntry]:
        return iter(self.entries)


def _fork(source: SessionStore, leaf_id: str | None, session_dir: Path | None) -> SessionStore:
    path = source.get_branch(leaf_id)
    if not path:
        raise KeyError(f"entry {leaf_id} not found")
    directory = session_dir or (source.path.parent if source.path is not None else None)
    fork = SessionStore.create(
        source.cwd or os.getcwd(),
        directory,
        parent_session=str(source.path) if source.path is not None else None,
    )
    kept = _rechain_without_labels(path)
    fork.entries = kept
    fork._index()
    ids = {entry.id for entry in kept}
    for target, label in source._labels.items():
        if target in ids:
            fork.append(fork._new(LabelEntry, target_id=target, label=label))
    if fork._file is not None and not fork._persisted:
        fork._write_whole()
    return fork


def _has_conversation(entries: list[SessionEntry]) -> bool:
    return any(
        isinstance(entry, MessageEntry) and entry.message.role in ("user", "assistant")
        for entry in entries
    )


def _replacement(target: SessionEntry, content: object | None) -> ContextReplacement | None:
    """What a context edit of `target` stores for `content` (None: hidden)."""
    role = target.message.role if isinstance(target, MessageEntry) else "custom"
    if isinstance(content, str) and role in ("assistant", "toolResult"):
        content = [TextContent(text=content)]  # as Pi stores it
    return None if content is None else ContextReplacement(content=cast(Any, content))


def _is_empty(path: Path) -> bool:
    try:
        return path.stat().st_size == 0
    except OSError:
        return False  # the load says what is wrong


def _rechain_without_labels(path: list[SessionEntry]) -> list[SessionEntry]:
    kept: list[SessionEntry] = []
    replaced: dict[str, str] = {}
    pending_labels: list[str] = []
    parent: str | None = None
    for entry in path:
        if isinstance(entry, LabelEntry):
            pending_labels.append(entry.id)
            continue
        for label_id in pending_labels:
            replaced[label_id] = entry.id
        pending_labels.clear()
        if isinstance(entry, CompactionEntry):
            first = entry.first_kept_entry_id
            first = first if first == entry.id else replaced.get(first, first)
            copy: SessionEntry = msgspec.structs.replace(
                entry, parent_id=parent, first_kept_entry_id=first
            )
        elif isinstance(entry, RawEntry):
            copy = RawEntry(raw={**entry.raw, "parentId": parent})
        else:
            copy = msgspec.structs.replace(entry, parent_id=parent)
        kept.append(copy)
        parent = entry.id
    return kept
