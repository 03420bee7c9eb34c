"""Writing an "always allow" answer into a settings file's `permission` section.

The rule goes to the end of its surface's pattern map (so it is the last match and wins); a
plain state of that surface becomes the map's `*` first. The file is changed through pith's
settings-file editor: read again just before writing, other keys kept, replaced atomically.
"""

from __future__ import annotations

from pathlib import Path

from pith.resources import SettingsWriteError, edit_settings_file

__all__ = ["add_allow_rule"]


def add_allow_rule(path: Path, surface: str, pattern: str) -> None:
    """Add `surface[pattern] = "allow"` to the settings file at `path` (created if missing).
    Raises `SettingsWriteError` when it cannot be changed."""

    def edit(settings: dict[str, object]) -> None:
        section = settings.setdefault("permission", {})
        if not isinstance(section, dict):
            raise SettingsWriteError(f"{path}: `permission` must be an object; not changed")
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

    edit_settings_file(path, edit)
