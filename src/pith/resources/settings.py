"""`settings.json`: the user's settings (`<agent dir>/settings.json`), read leniently.

A missing file is an empty one. A file that is not a JSON object is reported (one line naming
the file and the problem) and ignored, never half-applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import msgspec

__all__ = ["Settings", "load_settings", "merge_settings"]

SETTINGS_FILE = "settings.json"


@dataclass
class Settings:
    data: dict[str, object] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, key: str, default: object = None) -> object:
        return self.data.get(key, default)

    def string_list(self, key: str) -> list[str]:
        """`key` as a list of strings; other values are reported and ignored."""
        value = self.data.get(key)
        if value is None:
            return []
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
        self.warnings.append(f"settings: {key!r} must be a list of strings; ignored")
        return []


def load_settings(agent_dir: Path) -> Settings:
    """The global settings of `agent_dir`."""
    path = agent_dir / SETTINGS_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Settings()
    except OSError as error:
        return Settings(warnings=[f"{path}: cannot read ({error.strerror or error}); ignored"])
    if not raw.strip():
        return Settings()
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError as error:
        return Settings(warnings=[f"{path}: not valid JSON ({error}); ignored"])
    if not isinstance(value, dict):
        return Settings(warnings=[f"{path}: must hold a JSON object; ignored"])
    return Settings(value)


def merge_settings(base: dict[str, object], over: dict[str, object]) -> dict[str, object]:
    """`over` merged into `base`: objects merge recursively, anything else is replaced."""
    merged = dict(base)
    for key, value in over.items():
        previous = merged.get(key)
        if isinstance(previous, dict) and isinstance(value, dict):
            merged[key] = merge_settings(previous, value)
        else:
            merged[key] = value
    return merged
