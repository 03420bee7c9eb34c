"""Saving one `prune.<key>` to the user's settings.json (what `/pruner <subcommand> <value>`
sets), through pith's settings-file editor: only that key changes, every other key is kept,
and the file is replaced atomically.
"""

from __future__ import annotations

from pathlib import Path

from pith.resources import SettingsWriteError, edit_settings_file

__all__ = ["SettingsWriteError", "save_prune_setting"]


def save_prune_setting(path: Path, key: str, value: object) -> None:
    """Set `prune.<key>` to `value` (JSON-ready) in the settings file at `path`, creating the
    file (and its folder) when missing. Raises `SettingsWriteError` when the file is not a
    JSON object, its `prune` is not an object, or the write fails."""

    def edit(settings: dict[str, object]) -> None:
        prune = settings.get("prune", {})
        if not isinstance(prune, dict):
            raise SettingsWriteError(f'{path}: "prune" must be an object; not changed')
        settings["prune"] = {**prune, key: value}

    edit_settings_file(path, edit)
