"""protect_paths: keep the `write` and `edit` tools away from secrets and the git store.

Try it without a model:

    pith tool write '{"path": ".env", "content": "x"}' -e examples/extensions/protect_paths.py
    # -> exit 1, the reason on stdout, .env untouched

Choose the protected paths for a run (the list replaces the default one):

    pith -p "tidy the config" -e examples/extensions/protect_paths.py --protect '.env,secrets/**'

How a glob matches: against the end of the file's path, at a folder boundary. So `.env` catches
`.env` and `app/.env`, `*.pem` catches any `.pem` file, and `.git/**` catches everything inside
any `.git` folder. A glob that starts with `/` is matched against the whole absolute path.
`*` and `?` never cross a `/`; `**` does.

This guards the two file-writing tools only. `bash` can write files too (`echo > .env`), and no
pattern match on a shell command can stop that reliably; pair this with a sandbox if that matters.
"""

from __future__ import annotations

import os
import re

from pith.extensions import ExtensionAPI, ExtensionContext, ToolCallDecision
from pith.extensions.events import ToolCallEvent

DEFAULT_GLOBS = (".env", ".env.*", "*.pem", "*.key", ".git/**")
GUARDED_TOOLS = frozenset({"write", "edit"})


def register(api: ExtensionAPI) -> None:
    # A string flag: `--protect '.env,*.pem'`. Its value is only known once the command line
    # is parsed, which happens after register() returns, so the handler reads it each time.
    api.register_flag(
        "protect",
        type="string",
        default=",".join(DEFAULT_GLOBS),
        description="comma-separated globs that write and edit may not touch",
    )

    def on_tool_call(event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallDecision | None:
        if event.tool_name not in GUARDED_TOOLS:
            return None  # no opinion: other tools are someone else's business
        path = event.input.get("path")
        if not isinstance(path, str):
            return None  # the schema requires a string path; nothing to judge
        globs = parse_globs(api.get_flag("protect"))
        hit = protecting_glob(path, ctx.cwd, globs)
        if hit is None:
            return None
        # The reason is what the model reads as the tool's error: say what happened, why, and
        # what to do instead, so it does not simply retry with another spelling of the path.
        return ToolCallDecision(
            block=True,
            reason=(
                f"Blocked: {path} is protected (it matches {hit!r}), so {event.tool_name} may "
                "not change it. Do not try another way to modify this file. If the task needs "
                "a change here, stop and tell the user exactly what to change; they can edit it "
                "themselves or run pith with a different --protect list."
            ),
        )

    api.on("tool_call", on_tool_call)


def parse_globs(value: object) -> list[str]:
    """The flag's text as a list of globs (empty items dropped)."""
    text = value if isinstance(value, str) else ""
    return [item.strip() for item in text.split(",") if item.strip()]


def protecting_glob(path: str, cwd: str, globs: list[str]) -> str | None:
    """The first glob that protects `path` (as a tool would resolve it from `cwd`), or None."""
    # Resolve the way the built-in tools do: a leading `@` is dropped, `~` expands, relative
    # paths start at the working directory. Check the path as written and, through symlinks,
    # the file it really is: a link named notes.txt that points to .env is still .env.
    written = path.removeprefix("@")
    absolute = os.path.normpath(os.path.join(cwd, os.path.expanduser(written)))
    candidates = {absolute, os.path.realpath(absolute)}
    for glob in globs:
        pattern = _compile(glob)
        for candidate in candidates:
            if _matches(pattern, glob, candidate):
                return glob
    return None


def _matches(pattern: re.Pattern[str], glob: str, absolute: str) -> bool:
    if glob.startswith("/"):
        return pattern.fullmatch(absolute) is not None
    parts = absolute.strip("/").split("/")
    # Try every tail of the path, so a glob matches at any folder boundary.
    return any(pattern.fullmatch("/".join(parts[start:])) for start in range(len(parts)))


def _compile(glob: str) -> re.Pattern[str]:
    """A glob as a regular expression: `**` spans folders, `*` and `?` stay inside one."""
    out = []
    index = 0
    while index < len(glob):
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index):
            out.append(".*")
            index += 2
        elif glob[index] == "*":
            out.append("[^/]*")
            index += 1
        elif glob[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(glob[index]))
            index += 1
    return re.compile("".join(out))
