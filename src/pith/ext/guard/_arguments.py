"""Argument Normalization: the alias keys models send, renamed to the built-in tools' own keys.

`normalize_arguments(tool, arguments)` is pure: it never modifies `arguments` and returns the
normalized arguments with the list of `Rename`s it made. It runs *before* the tool's own
`prepare_arguments` and schema coercion, and does only what those would not:

- **Alias keys** (the tables of tychenjiajun/pi-tool-guard's code, plus the additions listed
  at `_TABLES`) are renamed to the canonical key, in place in the key
  order. Unlike upstream, **a canonical key that is given wins** over its aliases, which are
  dropped and reported as `ignored`; of two aliases of one key, the **first in key order**
  wins. A key whose value is `null` does not count as given, so `{"path": null,
  "file_path": "a.py"}` reads `a.py`.
- **edit**: the same renames inside every object of `edits` (a list, or the single object
  some models send). An `edits` JSON string is decoded only when an object inside it needs a
  rename; otherwise it is left for `prepare_edit_arguments`, which decodes it anyway. Moving a
  top-level `oldText`/`newText` pair into `edits` is also left to `prepare_edit_arguments`:
  after the renames here, a pair sent as `old_str`/`new_str` (or any alias) is exactly the
  legacy shape it already folds in.
- **read**: `offset`/`limit` given as numeric text become numbers (`"10"` → 10, `"1.5"` → 1.5,
  which read floors as Pi does), and integral floats become ints (`10.0` → 10). Text that is
  not a plain decimal number (`"abc"`, `"10 lines"`, `"nan"`, `"1_000"`) is left alone for the
  schema check to report.

Anything that is not a JSON object, and any tool not in `_TABLES`, is returned as is.

`normalize_declared_arguments(arguments, declared)` is the same for a tool pith does not know
(an MCP tool), by its schema: a short table (`_DECLARED`: `path`, `content`), each alias
renamed only when the schema declares the canonical key and not the alias.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Mapping
from typing import Literal

import msgspec

__all__ = ["Rename", "RenameKind", "normalize_arguments", "normalize_declared_arguments"]

RenameKind = Literal["renamed", "ignored", "converted"]


class Rename(msgspec.Struct, frozen=True, omit_defaults=True):
    """One change Argument Normalization made (`msgspec.to_builtins` gives its JSON record;
    `str()` a short description for people).

    Paths are dotted like schema-issue paths: `file_path`, `edits.0.old_str`.

    - `renamed`: the value at `source` (an alias) now lives at `target` (the canonical key).
    - `ignored`: `source` was dropped because the value at `target` (as the model sent it: the
      canonical key, or an earlier alias) was used instead.
    - `converted`: the value at `target` (== `source`) changed type; `detail` says how.
    """

    source: str
    target: str
    kind: RenameKind
    detail: str = ""

    def __str__(self) -> str:
        if self.kind == "renamed":
            return f"{self.source} → {self.target}"
        if self.kind == "ignored":
            return f"{self.source} ignored ({self.target} used)"
        return f"{self.target}: {self.detail}" if self.detail else f"{self.target} converted"


class _Aliases:
    """One alias table: each canonical key with the aliases that stand for it."""

    def __init__(self, aliases: Mapping[str, tuple[str, ...]]) -> None:
        self.keys = tuple(aliases)
        self._canonical = {alias: key for key, names in aliases.items() for alias in names}
        self._canonical.update((key, key) for key in aliases)

    def canonical(self, key: object) -> str | None:
        """The canonical key `key` stands for (itself when canonical), or None."""
        return self._canonical.get(key) if isinstance(key, str) else None

    def has_alias(self, value: dict[object, object]) -> bool:
        return any(self.canonical(key) not in (None, key) for key in value)


# pi-tool-guard's path aliases (its code, where its README differs), plus `relative_path`
# (oraios/serena#114).
_PATH = ("file", "filePath", "file_path", "target", "filename", "file_name", "relative_path")
# grep/find/ls search or list a directory: these name nothing else there.
_DIRECTORY = ("directory", "dir")
# For find, `file`/`filename`/`file_name` more likely name what is being looked for (the
# pattern) than where to look, so they are not taken as its path.
_FIND_PATH = tuple(a for a in _PATH if a not in ("file", "filename", "file_name")) + _DIRECTORY
_OLD_TEXT = (
    "old_str",
    "old_string",
    "old_text",
    "oldStr",
    "oldString",
    "oldContent",
    "old_content",
    "old",
    "original",
    "search",
)
_NEW_TEXT = (
    "new_str",
    "new_string",
    "new_text",
    "newStr",
    "newString",
    "newContent",
    "new_content",
    "new",
    "replacement",
    "replace",
)
_EDIT_ITEM = {"oldText": _OLD_TEXT, "newText": _NEW_TEXT}

_TABLES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "read": {
        "path": _PATH,
        "offset": ("start", "startLine", "start_line", "from", "line"),
        "limit": ("lines", "maxLines", "max_lines", "count", "numLines", "num_lines"),
    },
    "write": {
        "path": _PATH,
        "content": ("text", "body", "code", "data", "fileContent", "file_content", "contents"),
    },
    # Top-level old/new aliases too: they become the legacy pair `prepare_edit_arguments` folds.
    "edit": {"path": _PATH, **_EDIT_ITEM},
    # Beyond upstream (which covers only read/write/edit), each alias below names nothing else
    # in that tool's schema: `regex`/`query` can only be the pattern; `include` is OpenCode's
    # name for the file filter; `-i`/`-C` are grep's own flags (Claude Code's Grep keys).
    "grep": {
        "pattern": ("regex", "query"),
        "path": _PATH + _DIRECTORY,
        "glob": ("include",),
        "ignoreCase": ("ignore_case", "case_insensitive", "caseInsensitive", "-i"),
        "context": ("context_lines", "contextLines", "-C"),
    },
    "find": {"pattern": ("glob",), "path": _FIND_PATH},
    "ls": {"path": _PATH + _DIRECTORY},
}

# For a tool pith does not know (an MCP tool), only the aliases that cannot mean anything else
# once the schema names the canonical key: `target` may be where a move goes, `data` or `code`
# may be arguments of their own, so they stay as they are.
_DECLARED: Mapping[str, tuple[str, ...]] = {
    "path": tuple(a for a in _PATH if a != "target") + _DIRECTORY,
    "content": ("text", "contents", "fileContent", "file_content"),
}

_ALIASES = {tool: _Aliases(table) for tool, table in _TABLES.items()}
_EDIT_ITEM_ALIASES = _Aliases(_EDIT_ITEM)

_READ_NUMBERS = ("offset", "limit")
# ASCII digits only (`int` would also read "١٠"); long digit runs go through float.
_INTEGER = re.compile(r"[+-]?[0-9]{1,15}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def normalize_arguments(tool: str, arguments: object) -> tuple[object, tuple[Rename, ...]]:
    """`arguments` for the built-in `tool` with alias keys renamed, and the renames made.

    When nothing changed the result is `arguments` itself (an identity check tells); otherwise
    it is a new object, which may share unchanged nested values with `arguments`. `arguments`
    is never modified.
    """
    table = _ALIASES.get(tool)
    if table is None or not isinstance(arguments, dict):
        return arguments, ()
    renames: list[Rename] = []
    normalized = _rename_keys(arguments, table, "", renames)
    if tool == "edit" and "edits" in normalized:
        edits = _normalize_edits(normalized["edits"], renames)
        if edits is not normalized["edits"]:
            normalized = {**normalized, "edits": edits}
    if tool == "read":
        for key in _READ_NUMBERS:
            if key in normalized:
                number = _as_number(normalized[key])
                if number is not None:
                    shown = json.dumps(normalized[key])
                    normalized = {**normalized, key: number}
                    renames.append(Rename(key, key, "converted", f"{shown} → {number}"))
    if not renames:
        return arguments, ()
    return normalized, tuple(renames)


def normalize_declared_arguments(
    arguments: object, declared: Collection[str]
) -> tuple[object, tuple[Rename, ...]]:
    """`arguments` for a tool whose schema declares the top-level names `declared` (an MCP
    tool): an alias is renamed only to a canonical key the schema declares, and only when the
    schema does not declare the alias itself (`file_path` → `path` for a tool with `path`;
    nothing for a tool that takes `file_path`). Same contract as `normalize_arguments`."""
    if not isinstance(arguments, dict):
        return arguments, ()
    table = {
        key: tuple(alias for alias in aliases if alias not in declared)
        for key, aliases in _DECLARED.items()
        if key in declared
    }
    table = {key: aliases for key, aliases in table.items() if aliases}
    if not table:
        return arguments, ()
    renames: list[Rename] = []
    normalized = _rename_keys(arguments, _Aliases(table), "", renames)
    if not renames:
        return arguments, ()
    return normalized, tuple(renames)


def _rename_keys(
    value: dict[object, object], table: _Aliases, prefix: str, renames: list[Rename]
) -> dict[object, object]:
    """`value` with `table`'s aliases renamed; `value` itself when no key is an alias."""
    if not table.has_alias(value):
        return value
    chosen: dict[str, str] = {}
    for canonical in table.keys:
        given = [canonical] if canonical in value else []
        given += [
            key
            for key in value
            if isinstance(key, str) and key != canonical and table.canonical(key) == canonical
        ]
        if given:
            # The canonical key first, then aliases in key order; a null counts as not given.
            chosen[canonical] = next((key for key in given if value[key] is not None), given[0])
    result: dict[object, object] = {}
    for key, item in value.items():
        found = table.canonical(key)
        if found is None or not isinstance(key, str):
            result[key] = item
            continue
        canonical = found
        winner = chosen[canonical]
        if key != winner:
            renames.append(Rename(prefix + key, prefix + winner, "ignored"))
            continue
        result[canonical] = item
        if key != canonical:
            renames.append(Rename(prefix + key, prefix + canonical, "renamed"))
    return result


def _normalize_edits(edits: object, renames: list[Rename]) -> object:
    """`edits` with aliases renamed inside its objects; `edits` itself when none needed it."""
    if isinstance(edits, str):
        try:
            decoded = json.loads(edits)
        except ValueError:
            return edits  # not JSON: the schema check will say what is wrong
        found: list[Rename] = []
        normalized = _normalize_edit_objects(decoded, found)
        if not found:
            return edits  # `prepare_edit_arguments` decodes it as well
        kind = "list" if isinstance(normalized, list) else "object"
        renames.append(Rename("edits", "edits", "converted", f"JSON text → {kind}"))
        renames.extend(found)
        return normalized
    return _normalize_edit_objects(edits, renames)


def _normalize_edit_objects(edits: object, renames: list[Rename]) -> object:
    if isinstance(edits, dict):  # one edit where a list was expected
        return _rename_keys(edits, _EDIT_ITEM_ALIASES, "edits.", renames)
    if not isinstance(edits, list):
        return edits
    items = [
        _rename_keys(item, _EDIT_ITEM_ALIASES, f"edits.{index}.", renames)
        if isinstance(item, dict)
        else item
        for index, item in enumerate(edits)
    ]
    if all(new is old for new, old in zip(items, edits, strict=True)):
        return edits
    return items


def _as_number(value: object) -> int | float | None:
    """`value` as the number a model meant, or None when it is not a convertible value.

    Plain decimal text becomes a number; an integral float becomes an int. Anything else
    (including ints, booleans and non-finite values) gives None: nothing to convert.
    """
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _INTEGER.fullmatch(text):
        return int(text)
    if not _DECIMAL.fullmatch(text):
        return None
    number = float(text)
    if not math.isfinite(number):
        return None
    return int(number) if number.is_integer() else number
