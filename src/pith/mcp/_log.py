"""`<agent dir>/mcp.log`: what servers say through log notifications, and what pith noticed.

One line an entry, `<ISO time> [<server>] <level> <logger>: <message>`, the message on one
line (newlines shown as `\\n`). Past `MAX_LOG_BYTES` the file moves to `mcp.log.1` (replacing
the older one) and a new file starts, so the log never holds more than about twice that.
Writing is best effort: a log that cannot be written never stops a server or a call.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["LOG_NAME", "MAX_LOG_BYTES", "format_log_line", "write_log"]

LOG_NAME = "mcp.log"
MAX_LOG_BYTES = 5 * 1024 * 1024


def format_log_line(
    server: str, level: str, logger: str | None, data: object, now: datetime | None = None
) -> str:
    """One log line; `data` is the notification's payload (text as it is, anything else as JSON)."""
    moment = (now or datetime.now(UTC)).isoformat(timespec="milliseconds")
    message = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    message = message.replace("\r", "").replace("\n", "\\n")
    return f"{moment} [{server}] {level} {logger or '-'}: {message}\n"


def write_log(agent_dir: Path, line: str, max_bytes: int = MAX_LOG_BYTES) -> None:
    """Append `line` to the log under `agent_dir`, rotating it first when it is full."""
    path = agent_dir / LOG_NAME
    try:
        agent_dir.mkdir(parents=True, exist_ok=True)
        try:
            if path.stat().st_size + len(line) > max_bytes:
                os.replace(path, agent_dir / f"{LOG_NAME}.1")
        except FileNotFoundError:
            pass
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(descriptor, "a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        return
