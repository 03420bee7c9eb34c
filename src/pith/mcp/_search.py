"""`tool_search`: which undeclared MCP tools fit a query, best first.

The ranking is BM25F: each tool is a document of four fields, weighted by how much a match in
them says about the tool itself:

| field | text | weight |
|---|---|---|
| name | the tool's own name (`git_create_branch`, `listIssues`), split into words | 3.0 |
| description | the tool's description | 1.0 |
| parameters | the input schema's property names and their descriptions | 0.5 |
| server | the server's name and its one-line summary (`server_summary`) | 0.4 |

Text becomes terms by splitting at anything not a letter or digit and at camelCase humps,
lowercasing, dropping common English words and reading plurals as singulars (`issues` is
`issue`). A few everyday synonyms (`remove` for `delete`, `pr` for `pull request`) count at
half weight. Term frequencies are length-normalized per field, then saturated (k1 = 1.2) and
weighted by the term's IDF over the tools searched.

Order of the result:

1. a query that *is* a tool's name: its full `mcp__server__tool` name, its own name, or
   `server:tool`;
2. with a namespace (`github:` or `mcp__github` before the words, or alone), only that
   server's tools, ranked by the remaining words (all of them, by name, when none remain);
3. tools that match more of the query's distinct words before tools that match fewer;
4. the BM25F score; ties by full name, so the same query over the same tools always gives the
   same list.

A tool matching none of the words is left out. Everything here is pure: the extension that
owns the session decides which tools are candidates and declares the hits.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pith.mcp._naming import server_namespace
from pith.mcp._types import McpTool

__all__ = [
    "DEFAULT_SEARCH_LIMIT",
    "MAX_SEARCH_LIMIT",
    "TOOL_SEARCH_DESCRIPTION",
    "TOOL_SEARCH_NAME",
    "TOOL_SEARCH_PARAMETERS",
    "SearchHit",
    "ToolIndex",
    "rank_tools",
    "search_limit",
    "search_result_text",
    "search_terms",
]

TOOL_SEARCH_NAME = "tool_search"
DEFAULT_SEARCH_LIMIT = 5
MAX_SEARCH_LIMIT = 20

TOOL_SEARCH_DESCRIPTION = (
    "Find tools of connected MCP servers that are not declared to you yet, and declare the "
    "best matches from your next request on. Describe the action in a few words "
    '("create issue", "query postgres table"), give an exact tool name, or put a server '
    'name and a colon first ("github: merge") to search one server; "github:" alone lists '
    "that server's tools. Search before saying a capability is missing."
)

TOOL_SEARCH_PARAMETERS: dict[str, object] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "Words for what the tool does, a tool name, or `server:` first.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_SEARCH_LIMIT,
            "description": f"How many tools to declare at most (default {DEFAULT_SEARCH_LIMIT}).",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}

# --- terms -------------------------------------------------------------------------------------

_COMMON_WORDS = (
    "a an and any are as at be by can do for from how i in into is it its my of on or "
    "our so some that the their then there this to up use using via what when which "
    "with you your"
)
_STOP_WORDS = frozenset(_COMMON_WORDS.split())
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+")


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def search_terms(text: str) -> list[str]:
    """The terms of `text` in order: words split at punctuation, `_`, `-` and camelCase,
    lowercased, without common English words, plurals read as singulars."""
    words = _WORD.findall(_HUMP.sub(" ", text))
    terms = []
    for word in words:
        lowered = word.lower()
        if lowered not in _STOP_WORDS:
            terms.append(_singular(lowered))
    return terms


_SYNONYM_GROUPS = (
    ("delete", "remove", "rm", "drop", "erase", "destroy"),
    ("create", "add", "new", "make", "open"),
    ("update", "edit", "modify", "change", "patch"),
    ("get", "fetch", "read", "retrieve", "show", "view", "download"),
    ("list", "enumerate", "browse", "ls"),
    ("search", "find", "lookup", "query", "grep", "locate"),
    ("directory", "folder", "dir"),
    ("repository", "repo"),
    ("issue", "ticket", "bug"),
    ("commit", "changeset"),
    ("stage", "staging", "staged"),
    ("sql", "database", "db"),
    ("url", "web", "page", "website", "http"),
    ("time", "clock", "date"),
    ("timezone", "tz", "zone"),
    ("error", "exception", "crash"),
)
_SYNONYMS: dict[str, tuple[str, ...]] = {
    word: tuple(other for other in group if other != word)
    for group in _SYNONYM_GROUPS
    for word in group
}
_SYNONYMS["pr"] = ("pull", "request")
_SYNONYM_WEIGHT = 0.5

# --- the index ---------------------------------------------------------------------------------

_FIELDS = ("name", "description", "parameters", "server")
_WEIGHTS = {"name": 3.0, "description": 1.0, "parameters": 0.5, "server": 0.4}
_LENGTH_NORMALIZATION = {"name": 0.3, "description": 0.75, "parameters": 0.75, "server": 0.0}
_K1 = 1.2
_MAX_SCHEMA_DEPTH = 6


@dataclass(frozen=True)
class SearchHit:
    """One tool the query found, with its score (higher is better; only the order means much)."""

    tool: McpTool
    score: float


def _schema_text(schema: object, parts: list[str], depth: int = 0) -> None:
    """Property names and descriptions of `schema`, nested objects and arrays included."""
    if not isinstance(schema, Mapping) or depth > _MAX_SCHEMA_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, value in properties.items():
            parts.append(str(name))
            if isinstance(value, Mapping) and isinstance(value.get("description"), str):
                parts.append(value["description"])
            _schema_text(value, parts, depth + 1)
    _schema_text(schema.get("items"), parts, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        variants = schema.get(key)
        if isinstance(variants, list):
            for variant in variants:
                _schema_text(variant, parts, depth + 1)


def _fields(tool: McpTool, summary: str) -> dict[str, Counter[str]]:
    parts: list[str] = []
    _schema_text(tool.input_schema, parts)
    return {
        "name": Counter(search_terms(tool.name)),
        "description": Counter(search_terms(tool.description)),
        "parameters": Counter(search_terms(" ".join(parts))),
        "server": Counter(search_terms(f"{tool.server} {summary}")),
    }


def _identifier(text: str) -> str:
    """A name as the model may type it: camelCase humps, `-`, `.`, `:` and spaces read as
    `_`, lowercase (`listIssues` and `list-issues` are `list_issues`)."""
    return re.sub(r"[^a-z0-9_]", "_", _HUMP.sub("_", text.strip()).lower())


@dataclass(frozen=True)
class _Query:
    server: str | None
    """The namespace the query names (`github:` or `mcp__github`), as a server namespace."""
    words: str


def _split_query(query: str, namespaces: set[str]) -> _Query:
    text = query.strip()
    head, colon, rest = text.partition(":")
    if colon and head.strip() and " " not in head.strip():
        candidate = server_namespace(head.strip().lower())
        if candidate in namespaces:
            return _Query(candidate, rest.strip())
    first, _, rest = text.partition(" ")
    lowered = first.lower()
    if lowered.startswith("mcp__") and "__" not in lowered[5:]:
        candidate = server_namespace(lowered[5:])
        if candidate in namespaces:
            return _Query(candidate, rest.strip())
    return _Query(None, text)


class ToolIndex:
    """The search fields of a fixed set of tools, built once and ranked against many queries.

    `summaries` maps a server's name to its one-line summary (`server_summary`).
    """

    def __init__(self, tools: Iterable[McpTool], summaries: Mapping[str, str] | None = None):
        summaries = summaries or {}
        self._tools = sorted(tools, key=lambda tool: tool.full_name)
        self._fields = [_fields(tool, summaries.get(tool.server, "")) for tool in self._tools]
        self._lengths = [
            {field: sum(counts.values()) for field, counts in fields.items()}
            for fields in self._fields
        ]
        count = len(self._tools) or 1
        self._average = {
            field: (sum(lengths[field] for lengths in self._lengths) / count) or 1.0
            for field in _FIELDS
        }
        self._present = [
            frozenset(term for counts in fields.values() for term in counts)
            for fields in self._fields
        ]
        self._namespaces = {server_namespace(tool.server.lower()) for tool in self._tools}

    def __len__(self) -> int:
        return len(self._tools)

    def _weighted_frequency(self, index: int, term: str) -> float:
        fields = self._fields[index]
        lengths = self._lengths[index]
        total = 0.0
        for field in _FIELDS:
            count = fields[field].get(term, 0)
            if count:
                b = _LENGTH_NORMALIZATION[field]
                norm = 1 - b + b * lengths[field] / self._average[field]
                total += _WEIGHTS[field] * count / norm
        return total

    def _idf(self, terms: Iterable[str]) -> float:
        """IDF of a concept: how rare tools with any of `terms` are among those searched."""
        wanted = set(terms)
        n = sum(1 for present in self._present if not wanted.isdisjoint(present))
        return math.log(1 + (len(self._tools) - n + 0.5) / (n + 0.5))

    def _term_scorer(self, term: str) -> Callable[[int], float]:
        """Scores one query term per tool: the term itself, or else (at half weight) its best
        synonym. A synonym is weighed by the rarity of the whole group, so a rare synonym does
        not outscore the word the query used."""
        own_idf = self._idf([term])
        others = _SYNONYMS.get(term, ())
        group_idf = self._idf([term, *others]) if others else 0.0

        def score(index: int) -> float:
            best = 0.0
            variants = [(term, own_idf)] + [(o, _SYNONYM_WEIGHT * group_idf) for o in others]
            for variant, weight in variants:
                frequency = self._weighted_frequency(index, variant)
                if frequency:
                    best = max(best, weight * frequency * (_K1 + 1) / (frequency + _K1))
            return best

        return score

    def _is_exact(self, tool: McpTool, wanted: str) -> bool:
        """`wanted` (a query as `_identifier` reads it) names the tool: its full name, its own
        name, or `server:tool` (whose colon reads as `_`)."""
        own = _identifier(tool.name)
        server = server_namespace(tool.server.lower())[5:]
        return wanted in (_identifier(tool.full_name), own, f"{server}_{own}")

    def rank(self, query: str, limit: int = DEFAULT_SEARCH_LIMIT) -> list[SearchHit]:
        """The best `limit` tools for `query`; empty for a query without words or names."""
        if limit <= 0 or not self._tools:
            return []
        parsed = _split_query(query, self._namespaces)
        terms = list(dict.fromkeys(search_terms(parsed.words)))
        wanted = _identifier(query)
        scorers = [self._term_scorer(term) for term in terms]
        ranked: list[tuple[tuple[Any, ...], SearchHit]] = []
        for index, tool in enumerate(self._tools):
            if parsed.server is not None and server_namespace(tool.server.lower()) != parsed.server:
                continue
            exact = self._is_exact(tool, wanted)
            scores = [scorer(index) for scorer in scorers]
            covered = sum(score > 0 for score in scores)
            score = sum(scores)
            if not exact and covered == 0 and not (parsed.server is not None and not terms):
                continue
            key = (not exact, -covered, -score, tool.full_name)
            ranked.append((key, SearchHit(tool, round(score, 6))))
        ranked.sort(key=lambda pair: pair[0])
        return [hit for _, hit in ranked[:limit]]


def rank_tools(
    query: str,
    tools: Iterable[McpTool],
    *,
    summaries: Mapping[str, str] | None = None,
    limit: int = DEFAULT_SEARCH_LIMIT,
) -> list[SearchHit]:
    """`ToolIndex(tools, summaries).rank(query, limit)`, for a one-off search."""
    return ToolIndex(tools, summaries).rank(query, limit)


def search_limit(value: object) -> int:
    """The `limit` argument as a count: the default when absent; an error naming the field
    otherwise when it is not a whole number from 1 to `MAX_SEARCH_LIMIT`."""
    if value is None:
        return DEFAULT_SEARCH_LIMIT
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_SEARCH_LIMIT:
        raise ValueError(f"limit: give a whole number from 1 to {MAX_SEARCH_LIMIT}")
    return value


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def search_result_text(query: str, hits: Sequence[SearchHit]) -> str:
    """What the model reads back: one line per declared tool, then when it can call them."""
    if not hits:
        return (
            f"No undeclared tool matches {query.strip()!r}. Try other words for the action, "
            "or a server name and a colon (`github:`) to list one server's tools."
        )
    lines = []
    for hit in hits:
        line = _first_line(hit.tool.description)
        lines.append(f"{hit.tool.full_name} — {line}" if line else hit.tool.full_name)
    noun = "tool is" if len(hits) == 1 else f"{len(hits)} tools are"
    return "\n".join(lines) + f"\n\nThe {noun} declared from your next request on; call by name."
