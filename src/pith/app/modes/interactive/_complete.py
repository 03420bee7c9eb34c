"""Completion in the editor: `/command` names (pith's, the interactive mode's, extensions',
prompt templates, skills) with their argument completions, and `@` files: a fragment is
searched across the project (`_files`), a path with a `/` is browsed folder by folder."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from pith.app.modes.interactive._files import ProjectFiles, rank_paths

__all__ = ["CommandInfo", "EditorCompleter", "completes_while_typing", "path_candidates"]

ArgumentCompletions = Callable[[str], Sequence[str] | Awaitable[Sequence[str]]]

_MAX_PATHS = 200


@dataclass(frozen=True)
class CommandInfo:
    name: str
    description: str = ""
    arguments: ArgumentCompletions | None = None


def path_candidates(cwd: str, prefix: str) -> list[str]:
    """Entries of the folder `prefix` points into that start with its last part; folders end
    in `/`. Hidden entries only when the part starts with a dot."""
    expanded = os.path.expanduser(prefix)
    folder, part = os.path.split(expanded)
    base = os.path.join(cwd, folder) if not os.path.isabs(folder) else folder
    try:
        entries = sorted(os.scandir(base or "."), key=lambda e: e.name)
    except OSError:
        return []
    shown_folder = prefix[: len(prefix) - len(part)]
    found: list[str] = []
    for entry in entries:
        if not entry.name.startswith(part):
            continue
        if entry.name.startswith(".") and not part.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        found.append(shown_folder + entry.name + ("/" if is_dir else ""))
        if len(found) >= _MAX_PATHS:
            break
    return found


def _at_word(before: str) -> str:
    """The `@…` word the cursor ends, or ""."""
    word = before.rsplit(None, 1)[-1] if before.strip() and not before[-1].isspace() else ""
    return word if word.startswith("@") else ""


def completes_while_typing(before: str) -> bool:
    """Whether completions show as the user types, for the text before the cursor: a command
    name on the first line, or an `@` file."""
    if before.startswith("/") and "\n" not in before:
        return True
    return bool(_at_word(before))


class EditorCompleter(Completer):
    def __init__(self, commands: Callable[[], Iterable[CommandInfo]], cwd: str) -> None:
        self._commands = commands
        self._cwd = cwd
        self._files = ProjectFiles(cwd)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before and "\n" not in before:
            yield from self._names(before[1:])
            return
        word = _at_word(before)
        if word:
            typed = word[1:]
            if "/" in typed or typed.startswith(("~", ".")) or not typed:
                # a path being typed: its folder's entries, one level at a time
                found = path_candidates(self._cwd, typed)
            else:
                # what starts with it here (folders to browse into), then the project's files
                # that match it best
                found = path_candidates(self._cwd, typed)
                found += [p for p in rank_paths(typed, self._files.files()) if p not in found]
            for path in found:
                yield Completion("@" + path, start_position=-len(word), display=path)

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        before = document.text_before_cursor
        if before.startswith("/") and " " in before and "\n" not in before:
            name, _, argument = before[1:].partition(" ")
            info = next((c for c in self._commands() if c.name == name), None)
            if info is None or info.arguments is None:
                return
            try:
                found = info.arguments(argument)
                if inspect.isawaitable(found):
                    found = await found
            except Exception:  # an extension's completer must not break the editor
                return
            for candidate in found:
                if isinstance(candidate, str) and candidate.startswith(argument):
                    yield Completion(candidate, start_position=-len(argument))
            return
        word = _at_word(before)
        if word[1:] and "/" not in word:
            # A project-wide search: list the files off the event loop (a big tree must not
            # freeze the editor); ranking them is quick.
            await asyncio.to_thread(self._files.files)
        for completion in self.get_completions(document, complete_event):
            yield completion

    def _names(self, typed: str) -> Iterable[Completion]:
        seen: set[str] = set()
        for info in self._commands():
            if info.name in seen or not info.name.startswith(typed):
                continue
            seen.add(info.name)
            yield Completion(
                "/" + info.name,
                start_position=-(len(typed) + 1),
                display="/" + info.name,
                display_meta=info.description,
            )
