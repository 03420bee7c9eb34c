"""Writing an "always allow" answer into a settings file's `permission` section.

The rule goes to the end of its surface's pattern map (so it is the last match and wins); a
plain state of that surface becomes the map's `*` first. The file is re-read just before
writing and replaced atomically, so other keys and concurrent edits survive and a crash never
leaves half a file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

__all__ = ["add_allow_rule"]


def add_allow_rule(path: Path, surface: str, pattern: str) -> None:
    """Add `surface[pattern] = "allow"` to the settings file at `path` (created if missing).
    Raises `OSError` when it cannot be written and `ValueError` when it is not a JSON
    object."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = "{}"
    data = json.loads(text) if text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: settings must be a JSON object")
    section = data.setdefault("permission", {})
    if not isinstance(section, dict):
        raise ValueError(f"{path}: `permission` must be an object")
    current = section.get(surface)
    patterns: dict[str, object]
    if isinstance(current, dict) and "action" not in current:
        patterns = dict(current)
    elif current is None:
        patterns = {}
    else:
        patterns = {"*": current}
    patterns.pop(pattern, None)
    patterns[pattern] = "allow"
    section[surface] = patterns
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
