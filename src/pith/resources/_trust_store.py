"""`<agent dir>/trust.json`: the user's saved project-trust decisions, a JSON object mapping a
folder's canonical path to `true` or `false` (`null` is tolerated and means no decision).

A decision covers the folder and everything below it; the nearest saved ancestor wins. Writers
take an exclusive lock, re-read the file under it and replace it atomically, so concurrent
pith processes never lose each other's entries and readers never see half a file. A file that
cannot be understood is an error naming it, never silently reset.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pith.errors import ConfigError, PithError
from pith.json_input import JsonInputError, parse_json
from pith.regular_file import read_regular_file
from pith.resources._pathnames import StrPath, canonical_path, resolve_path
from pith.resources._text_file import decode_text

__all__ = ["TRUST_FILE", "TrustEntry", "TrustStore", "trust_key"]

TRUST_FILE = "trust.json"
_FIX = "fix or delete the file"


@dataclass(frozen=True)
class TrustEntry:
    path: str
    """The folder the decision was saved for (as written in the file)."""
    trusted: bool


def trust_key(path: StrPath) -> str:
    """The key a decision for `path` is saved under: absolute, symlinks resolved."""
    return canonical_path(resolve_path(path))


def _utf16_order(key: str) -> bytes:
    # Pi sorts keys with JavaScript's default sort, which compares UTF-16 code units.
    return key.encode("utf-16-be", errors="surrogatepass")


class TrustStore:
    """The decisions in `<agent_dir>/trust.json`."""

    def __init__(self, agent_dir: StrPath) -> None:
        self.path = Path(resolve_path(agent_dir)) / TRUST_FILE
        self._lock_path = self.path.with_name(TRUST_FILE + ".lock")

    # --- reading ---------------------------------------------------------------------------

    def read(self) -> dict[str, bool | None]:
        """Every saved entry, in file order; empty when the file does not exist.

        Raises `ConfigError` (one line naming the file) when it cannot be read or is not an
        object of `true`/`false`/`null`."""
        try:
            raw = read_regular_file(self.path)
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise ConfigError(f"{self.path}: cannot read ({error.strerror or error})") from error
        text, valid = decode_text(raw)
        if not valid:
            raise ConfigError(f"{self.path}: not valid UTF-8; {_FIX}")
        try:
            value = parse_json(text, str(self.path), fix=_FIX, unique_keys=True)
        except JsonInputError as error:
            raise ConfigError(str(error)) from None
        if not isinstance(value, dict):
            raise ConfigError(
                f"{self.path}: expected a JSON object mapping folders to true or false; {_FIX}"
            )
        entries: dict[str, bool | None] = {}
        for key, decision in value.items():
            if decision is not None and not isinstance(decision, bool):
                raise ConfigError(
                    f"{self.path}: the value for {json.dumps(key, ensure_ascii=False)} must be "
                    f"true, false or null, not {json.dumps(decision, ensure_ascii=False)}; {_FIX}"
                )
            entries[key] = decision
        return entries

    def entry(self, cwd: StrPath) -> TrustEntry | None:
        """The decision that applies to `cwd`: saved for its canonical path or, failing that,
        for the nearest ancestor; None when there is none."""
        nearest: dict[str, TrustEntry] = {}
        for key, decision in self.read().items():
            if isinstance(decision, bool):
                nearest.setdefault(resolve_path(key), TrustEntry(key, decision))
        directory = trust_key(cwd)
        while True:
            found = nearest.get(directory)
            if found is not None:
                return found
            parent = os.path.dirname(directory)
            if parent == directory:
                return None
            directory = parent

    def get(self, cwd: StrPath) -> bool | None:
        """`entry(cwd)`'s decision, or None."""
        found = self.entry(cwd)
        return None if found is None else found.trusted

    # --- writing ---------------------------------------------------------------------------

    def save(self, path: StrPath, trusted: bool | None) -> None:
        """Save `trusted` for `path` (canonicalised); None removes its decision."""
        self.save_many([(path, trusted)])

    def save_many(self, updates: Iterable[tuple[StrPath, bool | None]]) -> None:
        """Apply several `save`s as one write."""
        pending = [(trust_key(path), trusted) for path, trusted in updates]
        try:
            with self._locked():
                # Re-read under the lock: another process may have saved since we last looked.
                entries = self.read()
                for key, trusted in pending:
                    for existing in [k for k in entries if resolve_path(k) == key]:
                        del entries[existing]
                    if trusted is not None:
                        entries[key] = trusted
                self._write(entries)
        except OSError as error:
            raise PithError(
                f"{self.path}: cannot save the trust decision ({error.strerror or error}); "
                "nothing was changed — make the file and its folder writable (see `ls -l` "
                "and `lsattr`) and try again"
            ) from None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)

    def _write(self, entries: dict[str, bool | None]) -> None:
        ordered = {key: entries[key] for key in sorted(entries, key=_utf16_order)}
        data = (json.dumps(ordered, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        # Through a symlink: the file it points to is replaced, the link stays a link.
        target = Path(os.path.realpath(self.path))
        descriptor, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{TRUST_FILE}.", suffix=".tmp"
        )
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileNotFoundError):
                os.chmod(temporary, target.stat().st_mode & 0o7777)
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
