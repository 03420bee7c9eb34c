"""The installed distributions' entry points of one group, cached in a small JSON file.

Reading entry points means importing `importlib.metadata` and opening every distribution's
metadata: a sizeable share of a short run's start-up. The answer changes only when a
distribution is installed, removed or rewritten, so it is kept in `<agent dir>/cache/
entry-points.json` under a key describing the distributions on `sys.path`: each entry's
`*.dist-info` / `*.egg-info` folders (names) with the time and size of their
`entry_points.txt`, and each zip or egg file's time and size. A different key, a cache that
does not parse or has the wrong shape, or a group it does not hold means reading the metadata
again and rewriting the file. A cache that cannot be written is not an error: the next run
reads the metadata again.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE_NAME", "EntryPointRecord", "environment_key", "installed_entry_points"]

CACHE_NAME = "entry-points.json"
_FORMAT = 1
_METADATA_DIR = (".dist-info", ".egg-info")

Key = list[list[object]]


@dataclass(frozen=True)
class EntryPointRecord:
    """One entry point: its name, its `module:attribute` target, its distribution's name."""

    name: str
    value: str
    distribution: str


def installed_entry_points(
    group: str, cache_file: Path | None, paths: Sequence[str] | None = None
) -> list[EntryPointRecord]:
    """The entry points of `group` in the distributions on `paths` (default `sys.path`), from
    `cache_file` when it still describes them. Raises what reading the metadata raises."""
    import sys

    search = list(sys.path if paths is None else paths)
    key = environment_key(search)
    stored = _read(cache_file)
    if stored is not None and stored.get("key") == key:
        records = _records(stored.get("groups"), group)
        if records is not None:
            return records
    records = _scan(group, search)
    groups = stored.get("groups") if stored is not None and stored.get("key") == key else None
    kept = dict(groups) if isinstance(groups, dict) else {}
    kept[group] = [[r.name, r.value, r.distribution] for r in records]
    if cache_file is not None:
        _write(cache_file, {"format": _FORMAT, "key": key, "groups": kept})
    return records


def environment_key(paths: Sequence[str]) -> Key:
    """What the entry points depend on, as JSON-ready lists: a change in any distribution's
    metadata folder or `entry_points.txt` on `paths` changes it."""
    key: Key = []
    for entry in paths:
        folder = entry or "."
        try:
            with os.scandir(folder) as items:
                names = sorted(i.name for i in items if i.name.endswith(_METADATA_DIR))
        except NotADirectoryError:
            key.append([entry, *_stamp(folder)])  # a zip or egg file on the path
            continue
        except OSError:
            continue  # a path entry that does not exist holds nothing
        for name in names:
            key.append([entry, name, *_stamp(os.path.join(folder, name, "entry_points.txt"))])
    return key


def _stamp(path: str) -> list[object]:
    try:
        status = os.stat(path)
    except OSError:
        return [None, None]
    return [status.st_mtime_ns, status.st_size]


def _scan(group: str, paths: list[str]) -> list[EntryPointRecord]:
    from importlib import metadata

    records: list[EntryPointRecord] = []
    seen: set[str] = set()
    for distribution in metadata.distributions(path=paths):
        name = distribution.metadata["Name"] or ""
        normalized = re.sub(r"[-_.]+", "-", name).lower()
        if normalized in seen:
            continue  # the first one on the path is the one imported, as importlib decides
        seen.add(normalized)
        for point in distribution.entry_points:
            if point.group == group:
                records.append(EntryPointRecord(point.name, point.value, name))
    return records


def _read(cache_file: Path | None) -> dict[str, object] | None:
    if cache_file is None:
        return None
    try:
        value = json.loads(cache_file.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or value.get("format") != _FORMAT:
        return None
    return value


def _records(groups: object, group: str) -> list[EntryPointRecord] | None:
    """The group's records from a parsed cache, or None when they are missing or malformed."""
    rows = groups.get(group) if isinstance(groups, dict) else None
    if not isinstance(rows, list):
        return None
    records = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 3 and all(isinstance(v, str) for v in row)):
            return None
        records.append(EntryPointRecord(row[0], row[1], row[2]))
    return records


def _write(cache_file: Path, content: dict[str, object]) -> None:
    temporary = cache_file.with_name(f".{cache_file.name}.{os.getpid()}.tmp")
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(content), encoding="utf-8")
        os.replace(temporary, cache_file)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
