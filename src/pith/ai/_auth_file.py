"""`<agent dir>/auth.json`: API keys saved with `pith auth login`, in Pi's layout.

One JSON object maps a provider id to a credential: `{"type": "api_key", "key": "..."}`
(optionally with `env`, variables the key's `$NAME` resolves against first), or an OAuth
entry (`{"type": "oauth", ...}`) that Pi writes and pith keeps untouched but does not use.
The `key` resolves like a `models.json` value: a literal, `$NAME`, or `!command`.

The file holds secrets. It is created 0600 (a temporary file made 0600 is renamed over it, so
there is never a moment when it is readable by others), rewritten under an exclusive lock
after re-reading it, and written as Pi writes it (`JSON.stringify(data, null, 2)`), so the
entries a change does not touch keep their bytes. A file others can read is reported as a
warning naming the `chmod` to run; a file that is not a JSON object is never rewritten.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pith.errors import ConfigError
from pith.json_input import JsonInputError, parse_json
from pith.regular_file import read_regular_file

__all__ = ["AUTH_FILE", "AuthEntries", "AuthFile", "AuthFileError", "StoredKey"]

AUTH_FILE = "auth.json"
_LOCK_SUFFIX = ".pith-lock"
"""Beside `auth.json`; not `auth.json.lock`, the folder Pi's lock library makes."""


class AuthFileError(ConfigError):
    """`auth.json` cannot be used or changed as it is; the message names the file and the fix."""


@dataclass(frozen=True)
class StoredKey:
    """An API key entry of `auth.json`."""

    key: str
    """As written: a literal key, `$NAME` or `!command` (never shown to anyone)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables that `$NAME` in `key` resolves against before the environment."""


@dataclass(frozen=True)
class AuthEntries:
    """What `auth.json` holds, checked."""

    keys: dict[str, StoredKey]
    """Provider id → its API key entry."""
    other: dict[str, str]
    """Provider id → the type of an entry pith does not use (`oauth`)."""


class AuthFile:
    """The `auth.json` of one agent directory."""

    def __init__(self, agent_dir: Path) -> None:
        self.path = agent_dir / AUTH_FILE

    # --- reading ----------------------------------------------------------------------------

    def entries(self) -> AuthEntries:
        """The entries, checked; empty when there is no file. Raises `AuthFileError` for a
        file that is not JSON, not an object, or has an entry of the wrong shape."""
        raw = self._read_raw()
        keys: dict[str, StoredKey] = {}
        other: dict[str, str] = {}
        for provider, entry in (raw or {}).items():
            where = f"{self.path}: {provider}"
            fix = f"fix it, or remove it with `pith auth logout {provider}`"
            if not isinstance(entry, dict):
                raise AuthFileError(f"{where}: expected an object; {fix}")
            kind = entry.get("type")
            if not isinstance(kind, str):
                raise AuthFileError(f'{where}.type: expected "api_key" or "oauth"; {fix}')
            if kind != "api_key":
                other[provider] = kind
                continue
            key = entry.get("key")
            if key is not None and not isinstance(key, str):
                raise AuthFileError(f"{where}.key: expected a string; {fix}")
            env = entry.get("env", {})
            if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
                raise AuthFileError(f"{where}.env: expected an object of strings; {fix}")
            if key:
                keys[provider] = StoredKey(key, dict(env))
        return AuthEntries(keys, other)

    def loose_mode(self) -> str | None:
        """A warning when others may read or change the file, or None."""
        try:
            mode = stat.S_IMODE(os.stat(self.path).st_mode)
        except OSError:
            return None
        if not mode & 0o077:
            return None
        return (
            f"{self.path} holds API keys but other users may read it (mode {mode:04o}); "
            f"run `chmod 600 {self.path}`"
        )

    def _read_raw(self) -> dict[str, object] | None:
        """The file's object, unchecked below the top level; None when there is no file."""
        try:
            data = read_regular_file(self.path)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise AuthFileError(
                f"{self.path}: cannot be read ({error.strerror or error}); check its permissions"
            ) from None
        if not data.strip():
            return {}
        fix = "fix the file or move it aside (then run `pith auth login PROVIDER` again)"
        try:
            value = parse_json(data.removeprefix(b"\xef\xbb\xbf"), str(self.path), fix=fix)
        except JsonInputError as error:
            raise AuthFileError(str(error)) from None
        if not isinstance(value, dict):
            raise AuthFileError(f"{self.path}: expected a JSON object at the top level; {fix}")
        return value

    # --- changing ---------------------------------------------------------------------------

    def save_key(self, provider: str, key: str) -> None:
        """Store `key` as `provider`'s API key, replacing its entry (an OAuth one too)."""
        with self._locked():
            raw = self._read_raw() or {}
            raw[provider] = {"type": "api_key", "key": key}
            self._write(raw)

    def remove(self, provider: str) -> bool:
        """Remove `provider`'s entry; False when there was none (the file is left alone)."""
        with self._locked():
            raw = self._read_raw()
            if raw is None or provider not in raw:
                return False
            del raw[provider]
            self._write(raw)
            return True

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor = os.open(
                self.path.with_name(AUTH_FILE + _LOCK_SUFFIX), os.O_RDWR | os.O_CREAT, 0o600
            )
        except OSError as error:
            raise AuthFileError(
                f"{self.path}: cannot be written ({error.strerror or error}); "
                f"check the permissions of {folder}"
            ) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)

    def _write(self, raw: dict[str, object]) -> None:
        text = json.dumps(raw, indent=2, ensure_ascii=False)
        target = os.path.realpath(self.path)
        try:
            # mkstemp creates the file 0600: the key is never in a file others can open.
            descriptor, temporary = tempfile.mkstemp(
                prefix=".auth-", suffix=".tmp", dir=os.path.dirname(target)
            )
        except OSError as error:
            raise AuthFileError(
                f"{self.path}: cannot be written ({error.strerror or error}); "
                f"check the permissions of {self.path.parent}"
            ) from None
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except OSError as error:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise AuthFileError(
                f"{self.path}: cannot be written ({error.strerror or error}); nothing was changed"
            ) from None
