"""The find glob: the `pattern` of the `find` tool, as one regex for a whole path or name.

`*` and `?` stay within one segment; `**` crosses segments when it is a whole segment, and
`**/` then also matches no directory; `[...]` (`!` or `^` negates) and `{a,b}` work as in
shells; `\\` escapes. Case is the caller's choice; the caller decides what the regex is matched
against (a name, a relative path, or an absolute one).
"""

from __future__ import annotations

import re

__all__ = ["find_glob_regex"]


def find_glob_regex(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """A compiled regex for a glob: `*` and `?` stay in one segment, `**` crosses segments,
    `**/` also matches no directory, `[...]` and `{a,b}` work as in shells."""
    out: list[str] = []
    index = 0
    depth = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            if pattern.startswith("**", index):
                at_start = index == 0 or pattern[index - 1] == "/"
                after = index + 2
                if at_start and pattern.startswith("/", after):
                    out.append("(?:.*/)?")
                    index = after + 1
                    continue
                if at_start and after == len(pattern):
                    out.append(".*")
                    index = after
                    continue
            out.append("[^/]*")
            while index < len(pattern) and pattern[index] == "*":
                index += 1
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find(
                "]", index + 2 if pattern.startswith(("[!", "[^"), index) else index + 1
            )
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body.startswith(("!", "^")):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end + 1
                continue
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        elif char == "\\" and index + 1 < len(pattern):
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        else:
            out.append(re.escape(char))
        index += 1
    out.append(")" * depth)
    return re.compile("".join(out), re.IGNORECASE if ignore_case else 0)
