"""`edit`: exact-text replacements in one file, CRLF and BOM preserved (see docs/tools.md)."""

from __future__ import annotations

import asyncio
from typing import ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.ai import UNSET
from pith.json_input import MAX_ARGUMENT_DEPTH, JsonInputError, parse_json
from pith.tools._base import BuiltinTool
from pith.tools._diff import edit_diff
from pith.tools._edit_match import (
    EditMatchError,
    apply_edits,
    apply_replacements_to_original,
    normalize_to_lf,
)
from pith.tools._files import (
    BINARY_SNIFF_BYTES,
    binary_file_error,
    describe_os_error,
    looks_binary,
    mutation_lock,
    refuse_directory_path,
    require_regular_file,
    write_atomically,
)
from pith.tools._paths import resolve_tool_path

__all__ = ["EditTool", "prepare_edit_arguments"]

_BOM = "\ufeff"


class EditTool(BuiltinTool):
    name = "edit"
    label = "edit"
    description = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a "
        "unique, non-overlapping region of the original file. If two changes affect the same "
        "block or nearby lines, merge them into one edit instead of emitting overlapping edits. "
        "Do not include large unchanged regions just to connect distant changes."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "description": "Path to the file to edit (relative or absolute)",
            },
            "edits": {
                "type": "array",
                "description": (
                    "One or more targeted replacements. Each edit is matched against the "
                    "original file, not incrementally. Do not include overlapping or nested "
                    "edits. If two changes touch the same block or nearby lines, merge them into "
                    "one edit instead."
                ),
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {
                            "type": "string",
                            "description": (
                                "Exact text for one targeted replacement. It must be unique in "
                                "the original file and must not overlap with any other "
                                "edits[].oldText in the same call."
                            ),
                        },
                        "newText": {
                            "type": "string",
                            "description": "Replacement text for this targeted edit.",
                        },
                    },
                    "required": ["oldText", "newText"],
                },
            },
        },
        "required": ["path", "edits"],
    }
    prompt_snippet = (
        "Make precise file edits with exact text replacement, including multiple disjoint "
        "edits in one call"
    )
    prompt_guidelines = (
        "Use edit for targeted changes. Batch changes to one file in a single call.",
        "Each edits[].oldText must exactly and uniquely match the original file. Keep matches "
        "short and non-overlapping; merge nearby changes without including large unchanged "
        "regions.",
    )

    def prepare_arguments(self, args: object) -> object:
        return prepare_edit_arguments(args)

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        path = str(args["path"])
        raw_edits = args.get("edits")
        if not isinstance(raw_edits, list) or not raw_edits:
            raise ToolError(
                "Edit tool input is invalid. edits must contain at least one replacement."
            )
        edits = [(str(edit["oldText"]), str(edit["newText"])) for edit in raw_edits]
        absolute = resolve_tool_path(self.name, path, self.cwd)
        async with mutation_lock(absolute):
            if signal.aborted:
                raise ToolError("Operation aborted")
            return await asyncio.to_thread(_edit_file, path, absolute, edits)


def _edit_file(path: str, absolute: str, edits: list[tuple[str, str]]) -> ToolResult:
    refuse_directory_path(path, absolute, "edit")
    info = require_regular_file(absolute, path, "edit")
    try:
        with open(absolute, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise ToolError(describe_os_error(error, path, "edit")) from None
    if looks_binary(raw[:BINARY_SNIFF_BYTES]):
        raise ToolError(binary_file_error(path, info.st_size))
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolError(
            f"{path} is not valid UTF-8 (invalid byte at offset {error.start}); editing it "
            "would corrupt those bytes. Use bash (sed, perl) or rewrite it with write."
        ) from None
    bom = _BOM if decoded.startswith(_BOM) else ""
    content = decoded[len(bom) :]
    normalized = normalize_to_lf(content)
    try:
        outcome = apply_edits(normalized, edits, path)
    except EditMatchError as error:
        raise ToolError(str(error)) from None
    diff = edit_diff(path, outcome.base_content, outcome.new_content, outcome.replacements)
    if content == normalized:
        final = outcome.new_content
    else:
        final = apply_replacements_to_original(content, outcome.replacements)
    try:
        write_atomically(absolute, (bom + final).encode("utf-8"))
    except OSError as error:
        raise ToolError(describe_os_error(error, path, "write")) from None
    details: dict[str, object] = {"diff": diff.diff, "patch": diff.patch}
    if diff.first_changed_line is not None:
        details["firstChangedLine"] = diff.first_changed_line
    return text_result(f"Successfully replaced {len(edits)} block(s) in {path}.", details)


def _is_single_edit(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("oldText"), str)
        and isinstance(value.get("newText"), str)
    )


def prepare_edit_arguments(args: object) -> object:
    """Fold the shapes models send into `{path, edits: [...]}`.

    `edits` as a JSON string or as one object becomes a list; a legacy top-level
    `oldText`/`newText` pair is appended to `edits`.
    """
    if not isinstance(args, dict):
        return args
    prepared = dict(args)
    edits = prepared.get("edits")
    if isinstance(edits, str):
        try:
            parsed = parse_json(edits, "edits", fix="", max_depth=MAX_ARGUMENT_DEPTH)
        except JsonInputError:
            parsed = UNSET
        if isinstance(parsed, list):
            prepared["edits"] = parsed
        elif _is_single_edit(parsed):
            prepared["edits"] = [parsed]
    elif _is_single_edit(edits):
        prepared["edits"] = [edits]
    old_text = prepared.get("oldText")
    new_text = prepared.get("newText")
    if not isinstance(old_text, str) or not isinstance(new_text, str):
        return prepared
    current = prepared.get("edits")
    merged = list(current) if isinstance(current, list) else []
    merged.append({"oldText": old_text, "newText": new_text})
    del prepared["oldText"], prepared["newText"]
    prepared["edits"] = merged
    return prepared
