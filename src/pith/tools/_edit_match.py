"""Where each edit of an `edit` call lands, and the text that results (docs/tools.md, edit).

Pure policy, no I/O. Every edit is matched against the *original* text (never incrementally):
exactly first, then, if any edit needs it, all edits in a fuzzy-normalized copy of the text
(NFKC, trailing whitespace removed per line, typographic quotes, dashes and spaces made ASCII).
A fuzzy edit is widened to the whole lines it touches, so lines the model did not touch keep
their exact bytes. Errors name the edit that failed.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

__all__ = [
    "EditMatchError",
    "EditOutcome",
    "Replacement",
    "apply_edits",
    "apply_replacements_to_original",
    "fuzzy_find",
    "normalize_for_fuzzy_match",
    "normalize_to_lf",
]

# ECMAScript's WhiteSpace and LineTerminator, which `trimEnd` removes.
_JS_TRAILING_SPACE = re.compile(
    "[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$"
)
_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")
_LINES_WITH_ENDINGS = re.compile(r"[^\n]*\n|[^\n]+")


class EditMatchError(Exception):
    """An edit that cannot be applied; the message is meant for the model."""


@dataclass(frozen=True)
class Replacement:
    match_index: int
    match_length: int
    new_text: str
    edit_index: int = -1


@dataclass(frozen=True)
class EditOutcome:
    base_content: str
    new_content: str
    replacements: list[Replacement]
    """Sorted by position and disjoint, as offsets into `base_content`."""


def normalize_to_lf(text: str) -> str:
    """CRLF and lone CR line breaks as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalize_for_fuzzy_match(text: str) -> str:
    """The text as the fuzzy matcher compares it."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(_JS_TRAILING_SPACE.sub("", line) for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


@dataclass(frozen=True)
class _Found:
    index: int
    length: int
    fuzzy: bool


def fuzzy_find(content: str, old_text: str) -> _Found | None:
    """Where `old_text` is in `content`: exact first, else in fuzzy-normalized space."""
    exact = content.find(old_text)
    if exact != -1:
        return _Found(exact, len(old_text), False)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    fuzzy = normalize_for_fuzzy_match(content).find(fuzzy_old)
    if fuzzy == -1:
        return None
    return _Found(fuzzy, len(fuzzy_old), True)


def _count_occurrences(content: str, old_text: str) -> int:
    return normalize_for_fuzzy_match(content).count(normalize_for_fuzzy_match(old_text))


def apply_edits(content: str, edits: list[tuple[str, str]], path: str) -> EditOutcome:
    """Apply `(old_text, new_text)` pairs to LF-normalized `content`, all matched at once."""
    normalized = [(normalize_to_lf(old), normalize_to_lf(new)) for old, new in edits]
    total = len(normalized)
    for index, (old, _) in enumerate(normalized):
        if not old:
            where = (
                f"oldText must not be empty in {path}."
                if total == 1
                else (f"edits[{index}].oldText must not be empty in {path}.")
            )
            raise EditMatchError(where)

    uses_fuzzy = any(
        (found := fuzzy_find(content, old)) is not None and found.fuzzy for old, _ in normalized
    )
    base_for_matching = normalize_for_fuzzy_match(content) if uses_fuzzy else content
    matched: list[Replacement] = []
    for index, (old, new) in enumerate(normalized):
        found = fuzzy_find(base_for_matching, old)
        if found is None:
            raise EditMatchError(_not_found(path, index, total))
        occurrences = _count_occurrences(base_for_matching, old)
        if occurrences > 1:
            raise EditMatchError(_duplicate(path, index, total, occurrences))
        matched.append(Replacement(found.index, found.length, new, index))
    matched.sort(key=lambda replacement: replacement.match_index)
    for previous, current in itertools.pairwise(matched):
        if previous.match_index + previous.match_length > current.match_index:
            raise EditMatchError(
                f"edits[{previous.edit_index}] and edits[{current.edit_index}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    replacements = _widen_to_lines(content, base_for_matching, matched) if uses_fuzzy else matched
    new_content = _apply(content, replacements)
    if new_content == content:
        raise EditMatchError(
            f"No changes made to {path}. The replacement produced identical content. "
            "This might indicate an issue with special characters or the text not existing "
            "as expected."
            if total == 1
            else f"No changes made to {path}. The replacements produced identical content."
        )
    return EditOutcome(content, new_content, replacements)


def _not_found(path: str, index: int, total: int) -> str:
    if total == 1:
        return (
            f"Could not find the exact text in {path}. The old text must match exactly "
            "including all whitespace and newlines."
        )
    return (
        f"Could not find edits[{index}] in {path}. The oldText must match exactly including "
        "all whitespace and newlines."
    )


def _duplicate(path: str, index: int, total: int, occurrences: int) -> str:
    if total == 1:
        return (
            f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
            "Please provide more context to make it unique."
        )
    return (
        f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be "
        "unique. Please provide more context to make it unique."
    )


def _apply(content: str, replacements: list[Replacement], offset: int = 0) -> str:
    parts: list[str] = []
    position = 0
    for replacement in replacements:
        start = replacement.match_index - offset
        parts.append(content[position:start])
        parts.append(replacement.new_text)
        position = start + replacement.match_length
    parts.append(content[position:])
    return "".join(parts)


def _line_spans(text: str) -> list[tuple[int, int]]:
    return [(match.start(), match.end()) for match in _LINES_WITH_ENDINGS.finditer(text)]


def _widen_to_lines(original: str, base: str, replacements: list[Replacement]) -> list[Replacement]:
    """Rewrite only the lines each fuzzy replacement touches, from the normalized text."""
    original_lines = _line_spans(original)
    base_lines = _line_spans(base)
    if len(original_lines) != len(base_lines):
        raise EditMatchError(
            "Cannot preserve unchanged lines because the base content has a different line count."
        )
    groups: list[tuple[int, int, list[Replacement]]] = []
    for replacement in replacements:
        first, last = _line_range(base_lines, replacement)
        if groups and first < groups[-1][1]:
            start, end, members = groups[-1]
            groups[-1] = (start, max(end, last), [*members, replacement])
        else:
            groups.append((first, last, [replacement]))
    widened: list[Replacement] = []
    for first, last, members in groups:
        group_start = base_lines[first][0]
        group_end = base_lines[last - 1][1]
        original_start = original_lines[first][0]
        widened.append(
            Replacement(
                original_start,
                original_lines[last - 1][1] - original_start,
                _apply(base[group_start:group_end], members, group_start),
            )
        )
    return widened


def _line_range(lines: list[tuple[int, int]], replacement: Replacement) -> tuple[int, int]:
    start = replacement.match_index
    end = start + replacement.match_length
    first = next((i for i, (lo, hi) in enumerate(lines) if lo <= start < hi), -1)
    if first == -1:
        raise EditMatchError("Replacement range is outside the base content.")
    last = first
    while last < len(lines) and lines[last][1] < end:
        last += 1
    if last >= len(lines):
        raise EditMatchError("Replacement range is outside the base content.")
    return first, last + 1


def apply_replacements_to_original(original: str, replacements: list[Replacement]) -> str:
    """Apply replacements found in `normalize_to_lf(original)` to `original` itself.

    Untouched text keeps its bytes and line endings; line breaks in new text take the ending of
    the line where the replacement starts.
    """
    crlf_positions = [match.start() for match in re.finditer("\r\n", original)]
    crlf_seen = 0

    def to_original(offset: int) -> int:
        nonlocal crlf_seen
        while crlf_seen < len(crlf_positions) and crlf_positions[crlf_seen] - crlf_seen < offset:
            crlf_seen += 1
        return offset + crlf_seen

    parts: list[str] = []
    ends_with_cr = False

    def push(part: str) -> None:
        nonlocal ends_with_cr
        if not part:
            return
        # A kept CR followed by an inserted LF would fuse into one CRLF; keep them two breaks.
        if ends_with_cr and part[0] == "\n":
            parts.append("\n")
        parts.append(part)
        ends_with_cr = part[-1] == "\r"

    position = 0
    for replacement in replacements:
        start = to_original(replacement.match_index)
        push(original[position:start])
        ending = _line_ending_at(original, start)
        push(replacement.new_text if ending == "\n" else replacement.new_text.replace("\n", ending))
        position = to_original(replacement.match_index + replacement.match_length)
    push(original[position:])
    return "".join(parts)


def _line_ending_at(content: str, offset: int) -> str:
    line_feed = content.find("\n", offset)
    if line_feed == -1:
        line_feed = content.rfind("\n", 0, offset + 1)
    if line_feed == -1:
        return "\r" if "\r" in content else "\n"
    return "\r\n" if line_feed > 0 and content[line_feed - 1] == "\r" else "\n"
