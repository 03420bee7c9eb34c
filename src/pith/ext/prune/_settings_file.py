"""Saving one `prune.<key>` to the user's settings.json (what `/pruner <subcommand> <value>`
sets): the file is read again, only that key changes, every other key is kept as it was, and
the new text goes to a temporary file in the same folder that is then renamed over the old
one, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from pith.errors import PithError

__all__ = ["SettingsWriteError", "save_prune_setting"]


class SettingsWriteError(PithError):
    """settings.json could not be read or written; the message says which file and why."""


def save_prune_setting(path: Path, key: str, value: object) -> None:
    """Set `prune.<key>` to `value` (JSON-ready) in the settings file at `path`, creating the
    file (and its folder) when missing. Raises `SettingsWriteError` when the file is not a
    JSON object, its `prune` is not an object, or the write fails."""
    settings: dict[str, object] = {}
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as error:
        raise SettingsWriteError(f"cannot read {path}: {error}") from error
    if text.strip():
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as error:
            raise SettingsWriteError(
                f"{path} line {error.lineno}: not valid JSON ({error.msg}); fix it and try again"
            ) from error
        if not isinstance(loaded, dict):
            raise SettingsWriteError(f"{path} must hold a JSON object; not changed")
        settings = loaded
    prune = settings.get("prune", {})
    if not isinstance(prune, dict):
        raise SettingsWriteError(f'{path}: "prune" must be an object; not changed')
    settings["prune"] = {**prune, key: value}
    data = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(data)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise SettingsWriteError(f"cannot write {path}: {error}") from error
