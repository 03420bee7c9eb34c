"""Opening a session pauses the cycle collector while it decodes; afterwards the collector is
as the caller had it, and objects the caller froze stay frozen."""

from __future__ import annotations

import gc
from pathlib import Path

from pith.ai import TextContent, UserMessage
from pith.session import SessionStore


def _session(tmp_path: Path) -> Path:
    store = SessionStore.create("/work/demo", tmp_path)
    for number in range(50):
        store.append_message(UserMessage(content=[TextContent(text=f"prompt {number}")]))
    store.close()
    assert store.path is not None
    return store.path


def test_the_collector_is_left_as_it_was(tmp_path: Path) -> None:
    path = _session(tmp_path)
    assert gc.isenabled()
    with SessionStore.open(path) as store:
        assert len(store.entries) == 50
    assert gc.isenabled()
    gc.disable()
    try:
        SessionStore.open(path, lock=False).close()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_objects_the_caller_froze_stay_frozen(tmp_path: Path) -> None:
    path = _session(tmp_path)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        SessionStore.open(path, lock=False).close()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_what_was_decoded_is_not_left_young(tmp_path: Path) -> None:
    path = _session(tmp_path)
    gc.collect()
    store = SessionStore.open(path, lock=False)
    young = {id(item) for item in gc.get_objects(generation=0)}
    assert not any(id(entry) in young for entry in store.entries)
    store.close()
