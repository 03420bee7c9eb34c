"""The review log: every permission decision, one JSON object per line.

`<agent dir>/logs/permissions.jsonl`, readable by its owner only (0600 in a 0700 folder).
Values under secret-looking keys (`token`, `password`, `api_key`, ...) are masked at any
depth; a log that cannot be written never stops a tool call (it is reported once).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = ["LOG_NAME", "ReviewLog", "mask_secrets"]

LOG_NAME = "permissions.jsonl"
_SECRET_KEY = re.compile(
    r"authorization|token|secret|passw(or)?d|credential|cookie|api[_-]?key|private[_-]?key",
    re.IGNORECASE,
)
MASK = "********"


def mask_secrets(value: object) -> object:
    """`value` with the values of secret-looking keys replaced by `********`."""
    if isinstance(value, Mapping):
        return {
            str(key): MASK if _SECRET_KEY.search(str(key)) else mask_secrets(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_secrets(item) for item in value]
    return value


class ReviewLog:
    def __init__(self, path: Path | None, on_error: Callable[[str], None]) -> None:
        self.path = path
        self._on_error = on_error
        self._failed = False

    def write(self, record: dict[str, object]) -> None:
        if self.path is None or self._failed:
            return
        line = json.dumps(
            {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **record},
            ensure_ascii=False,
            default=str,
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(descriptor, (line + "\n").encode())
            finally:
                os.close(descriptor)
        except OSError as error:
            self._failed = True
            self._on_error(
                f"cannot write the review log {self.path} "
                f"({error.strerror or error}); decisions are not being logged"
            )
