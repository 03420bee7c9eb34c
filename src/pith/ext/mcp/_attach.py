"""`@server:uri` in a prompt: the resource's contents go with the message, like an `@file`.

A word `@NAME:URI` whose NAME is a configured, enabled MCP server is read with that server's
`resources/read`; the word stays in the text, and the contents are appended after it in a
`<resource server="NAME" uri="URI">…</resource>` block (images are attached as images). A
word whose server is unknown is left alone, so `@someone:` in ordinary text costs nothing.
Closing punctuation right after the URI (`,` `.` `;` `)` …) is not part of it. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

__all__ = ["ResourceWord", "find_resource_words", "resource_block"]

_WORD = re.compile(r"(?<!\S)@([A-Za-z0-9_.-]+):(\S+)")
_TRAILING = ",.;:!?)]}'\""


class ResourceWord(NamedTuple):
    """One `@server:uri` word."""

    server: str
    uri: str


def find_resource_words(text: str, servers: Collection[str]) -> list[ResourceWord]:
    """The `@server:uri` words of `text` naming one of `servers`, each once, in order."""
    found: dict[ResourceWord, None] = {}
    for match in _WORD.finditer(text):
        server, uri = match.group(1), match.group(2).rstrip(_TRAILING)
        if server in servers and uri:
            found[ResourceWord(server, uri)] = None
    return list(found)


def resource_block(server: str, uri: str, text: str) -> str:
    """The block appended to the message for one resource."""
    body = text if text.endswith("\n") or not text else text + "\n"
    return f'<resource server="{server}" uri="{uri}">\n{body}</resource>\n'
