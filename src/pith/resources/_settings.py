"""`settings.json`: the user's (`<agent dir>/settings.json`) and, for a trusted project, the
project's (`.pith/settings.json`), merged with the project winning (objects merge key by key).

Known keys are typed (Pi's names and defaults, listed in docs/resources.md); unknown keys are
kept for extensions (`api.get_settings()`). A file that is not valid JSON, not an object, or has
a known key of the wrong type stops pith with one line naming the file, the line and the key: a
guessed setting could quietly change what the agent may do.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from pith.errors import ConfigError
from pith.json_input import JsonInputError, parse_json
from pith.regular_file import read_regular_file

__all__ = [
    "PROJECT_SETTINGS",
    "SETTINGS_FILE",
    "BranchSummarySettings",
    "CompactionSettings",
    "ImageSettings",
    "RetrySettings",
    "Settings",
    "SettingsValues",
    "SettingsWriteError",
    "edit_settings_file",
    "load_settings",
    "merge_settings",
]

SETTINGS_FILE = "settings.json"
PROJECT_SETTINGS = Path(".pith") / SETTINGS_FILE

NonNegative = Annotated[int, msgspec.Meta(ge=0)]
Positive = Annotated[int, msgspec.Meta(ge=1)]
QueueMode = Literal["one-at-a-time", "all"]
ThinkingName = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class _Typed(msgspec.Struct, rename="camel", kw_only=True):
    """Known keys typed; unknown keys ignored here (they stay in `Settings.data`)."""


class CompactionSettings(_Typed):
    enabled: bool = True
    model: str | None = None
    """The summarizer (`provider/id`); the session's model when unset."""
    reserve_tokens: NonNegative = 16384
    keep_recent_tokens: NonNegative = 20000
    model_overrides: dict[str, dict[str, NonNegative]] = msgspec.field(default_factory=dict)


class BranchSummarySettings(_Typed):
    reserve_tokens: NonNegative = 16384
    skip_prompt: bool = False


class RetrySettings(_Typed):
    enabled: bool = True
    max_retries: NonNegative = 3
    base_delay_ms: NonNegative = 2000
    max_agent_delay_ms: NonNegative = 60000


class ImageSettings(_Typed):
    auto_resize: bool = True
    block_images: bool = False


class SettingsValues(_Typed):
    """The settings pith understands, with Pi's defaults."""

    compaction: CompactionSettings = msgspec.field(default_factory=CompactionSettings)
    branch_summary: BranchSummarySettings = msgspec.field(default_factory=BranchSummarySettings)
    retry: RetrySettings = msgspec.field(default_factory=RetrySettings)
    images: ImageSettings = msgspec.field(default_factory=ImageSettings)
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
    default_provider: str | None = None
    default_model: str | None = None
    default_thinking_level: ThinkingName | None = None
    default_tools: list[str] | None = None
    """Like `--tools`: `a,b` replaces the default set, `+x` / `-x` change it."""
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    bash_full_output_max_bytes: Positive = 64 * 1024 * 1024
    """Where the bash tool cuts the file it saves output past its caps to."""
    session_dir: str | None = None
    skills: list[str] = msgspec.field(default_factory=list)
    prompts: list[str] = msgspec.field(default_factory=list)
    extensions: list[str] = msgspec.field(default_factory=list)
    enable_skill_commands: bool = True
    default_project_trust: Literal["ask", "always", "never"] = "ask"


@dataclass
class Settings:
    """Merged settings: `values` typed, `data` the raw merged object (extensions' keys too)."""

    data: dict[str, object] = field(default_factory=dict)
    values: SettingsValues = field(default_factory=SettingsValues)
    files: list[Path] = field(default_factory=list)
    """The files merged, user first."""
    user_data: dict[str, object] = field(default_factory=dict)
    """The user file alone: keys only the user may set (`defaultProjectTrust`) come from here."""
    warnings: list[str] = field(default_factory=list)
    project_data: dict[str, object] = field(default_factory=dict)
    """The project file alone (empty unless merged in with `with_project`)."""
    layers: list[tuple[Path, dict[str, object]]] = field(default_factory=list)
    """Each file and its own contents, in merge order (user, then a trusted project): for
    settings whose layers combine by their own rules (`permission`) and to name origins."""

    def get(self, key: str, default: object = None) -> object:
        return self.data.get(key, default)

    def string_list(self, key: str) -> list[str]:
        """`key` as a list of strings (typed keys were checked when loading)."""
        value = self.data.get(key)
        return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []

    @property
    def default_project_trust(self) -> Literal["ask", "always", "never"]:
        """Only the user's file decides this: a project cannot vouch for itself."""
        value = self.user_data.get("defaultProjectTrust")
        return value if value in ("ask", "always", "never") else "ask"

    def with_project(self, cwd: str | Path) -> Settings:
        """These settings with the project's `.pith/settings.json` merged over them (call
        only for a trusted project)."""
        path = Path(cwd) / PROJECT_SETTINGS
        project = _read(path)
        if project is None:
            return self
        warnings = [*self.warnings, *_unknown_key_warnings(path, project)]
        merged = merge_settings(self.data, project)
        tools = project.get("defaultTools")
        if (
            isinstance(tools, list)
            and tools
            and all(isinstance(item, str) and item[:1] in "+-" for item in tools)
        ):
            # Only +name / -name: the project adjusts the user's list rather than replacing it.
            mine = self.data.get("defaultTools")
            if isinstance(mine, list):
                merged["defaultTools"] = [*mine, *tools]
        return Settings(
            merged,
            _typed(merged, path),
            [*self.files, path],
            self.user_data,
            warnings,
            project,
            [*self.layers, (path, project)],
        )

    def with_overrides(self, overrides: Mapping[str, object]) -> Settings:
        """These settings with `overrides` (a program's own, in the files' camelCase shape)
        merged over them; a value of the wrong type raises `ConfigError` naming the key."""
        merged = merge_settings(self.data, dict(overrides))
        try:
            values = msgspec.convert(merged, SettingsValues)
        except msgspec.ValidationError as error:
            raise ConfigError(
                f"settings given to pith: {error}; use the shape of settings.json "
                "(docs/resources.md)"
            ) from None
        return dataclasses.replace(self, data=merged, values=values)

    def user_list(self, key: str) -> list[str]:
        return _strings(self.user_data.get(key))

    def project_list(self, key: str) -> list[str]:
        return _strings(self.project_data.get(key))


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def load_settings(agent_dir: Path) -> Settings:
    """The user's settings (`<agent dir>/settings.json`; none is an empty file)."""
    path = agent_dir / SETTINGS_FILE
    data = _read(path)
    if data is None:
        return Settings()
    warnings = _unknown_key_warnings(path, data)
    return Settings(data, _typed(data, path), [path], data, warnings, layers=[(path, data)])


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


# --- reading and checking ---------------------------------------------------------------------

_FIX = "fix the file or remove it"

_OTHER_KEYS = frozenset(
    {
        # read by pith's built-in extensions
        "permission",
        "guard",
        "prune",
        # Pi's, which pith does not use but a shared file may hold
        "modelThinkingLevels",
        "thinkingBudgets",
        "enabledModels",
        "transport",
        "httpIdleTimeoutMs",
        "hideThinkingBlock",
        "packages",
        "themes",
        "theme",
        "codemode",
        "cacheWarming",
        "quietStartup",
        "lastChangelogVersion",
    }
)


def _known_keys() -> frozenset[str]:
    typed = {field.encode_name for field in msgspec.structs.fields(SettingsValues)}
    return frozenset(typed) | _OTHER_KEYS


def _unknown_key_warnings(path: Path, data: dict[str, object]) -> list[str]:
    """A warning for each top-level key that looks like a misspelt known one.

    Other unknown keys stay quiet: they may belong to an extension (`api.get_settings()`)."""
    known = _known_keys()
    text = ""
    warnings: list[str] = []
    for key in data:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.8)
        if not close:
            continue
        if not text:
            with contextlib.suppress(OSError):
                text = read_regular_file(path).decode("utf-8", "replace")
        warnings.append(
            f"{path}:{_line_of_key(text, key)}: unknown setting {key!r} is ignored; "
            f"did you mean {close[0]!r}?"
        )
    return warnings


def _read(path: Path) -> dict[str, object] | None:
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read settings ({error.strerror or error})") from None
    if not raw.strip():
        return None
    try:
        # A key given twice would silently keep only its last value (a deny could vanish).
        value = parse_json(raw, str(path), fix=_FIX, unique_keys=True)
    except JsonInputError as error:
        raise ConfigError(str(error)) from None
    if not isinstance(value, dict):
        raise ConfigError(
            f"{path}:1: settings must be a JSON object ({{...}}), not {_json_kind(value)}"
        )
    _check_list_items(path, raw, value)
    return value


def _typed(data: dict[str, object], path: Path) -> SettingsValues:
    try:
        return msgspec.convert(data, SettingsValues)
    except msgspec.ValidationError as error:
        raise ConfigError(_type_message(path, data, str(error))) from None


def _check_list_items(path: Path, raw: bytes, data: dict[str, object]) -> None:
    """`skills`, `prompts`, `extensions`, `defaultTools`: lists of strings."""
    for key in ("skills", "prompts", "extensions", "defaultTools"):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            line = _line_of_key(raw.decode("utf-8", "replace"), key)
            raise ConfigError(
                f'{path}:{line}: {key!r} must be a list of strings, e.g. "{key}": ["..."]'
            )


_PATH = re.compile(r"at `\$((?:\.[A-Za-z0-9_]+|\[\d+\])*)`")


def _type_message(path: Path, data: dict[str, object], detail: str) -> str:
    match = _PATH.search(detail)
    dotted = match.group(1).lstrip(".") if match else ""
    reason = _PATH.sub("", detail).strip().rstrip("-").strip()
    key = re.split(r"[.\[]", dotted)[-1] if dotted else ""
    text = ""
    with contextlib.suppress(OSError):
        text = path.read_text(encoding="utf-8", errors="replace")
    line = _line_of_key(text, key) if key else 1
    where = f" {dotted!r}" if dotted else ""
    return f"{path}:{line}: setting{where}: {reason[:1].lower()}{reason[1:]}"


def _line_of_key(text: str, key: str) -> int:
    index = text.find(f'"{key}"')
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return "a number" if isinstance(value, int | float) else type(value).__name__


class SettingsWriteError(ConfigError):
    """A settings file could not be changed; the message names the file and why."""


def edit_settings_file(path: Path, edit: Callable[[dict[str, object]], None]) -> None:
    """Change the settings file at `path` in place: it is read again, `edit` changes the parsed
    object (raising `SettingsWriteError` to refuse), and the result goes to a temporary file in
    the same folder that is renamed over the old one — other keys are kept and a crash never
    leaves half a file. A missing file (and folder) is created."""
    settings: dict[str, object] = {}
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        raw = b""
    except OSError as error:
        raise SettingsWriteError(f"cannot read {path}: {error.strerror or error}") from error
    if raw.strip():
        try:
            # A repeated key would be lost when the file is written back: refuse it.
            loaded = parse_json(raw, str(path), fix="", unique_keys=True)
        except JsonInputError as error:
            raise SettingsWriteError(
                f"{path} line {error.line}: {error.reason}; fix it and try again"
            ) from error
        if not isinstance(loaded, dict):
            raise SettingsWriteError(f"{path} must hold a JSON object; not changed")
        settings = loaded
    edit(settings)
    data = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(
            prefix=".settings-", suffix=".tmp", dir=path.parent
        )
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(data)
            if path.exists():
                os.chmod(temporary, path.stat().st_mode & 0o777)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise SettingsWriteError(f"cannot write {path}: {error}") from error
