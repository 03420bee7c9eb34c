"""A provider's prompt cache, modelled for the fake server (script `"promptCache": true`).

A request is read as a list of *blocks* in the order the provider caches them (tools, then the
system prompt, then each message's content blocks), each block the compact JSON of that piece
without its `cache_control` marker (moving a breakpoint does not change the prefix). Lengths are
characters; tokens are characters / 4, the estimate the fake server bills as input.

- **Anthropic** (`/v1/messages`): an earlier request wrote a cache entry at each of its
  `cache_control` breakpoints whose prefix is at least `ANTHROPIC_MIN_TOKENS` long. A request
  reads the longest entry that ends on one of its block boundaries within
  `ANTHROPIC_LOOKBACK` blocks before one of its own breakpoints, and writes the rest up to its
  last breakpoint; what follows that breakpoint is uncached input.
- **OpenAI** (chat completions and Responses): automatic prefix caching. The longest common
  prefix, in characters, with any earlier request is cached once it reaches
  `OPENAI_MIN_TOKENS`, in steps of `OPENAI_STEP_TOKENS`; nothing is billed as a cache write.

Entries are kept per cache key: the route's family, the model, and the key the client sent
(`prompt_cache_key` in the body, else a `session-id` / `session_id` header, else none). There
is no expiry: a replay is far shorter than a provider's cache lifetime.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = [
    "ANTHROPIC_LOOKBACK",
    "ANTHROPIC_MIN_TOKENS",
    "OPENAI_MIN_TOKENS",
    "OPENAI_STEP_TOKENS",
    "Blocks",
    "CacheUse",
    "PromptCache",
    "anthropic_blocks",
    "bill",
    "cache_key",
    "openai_blocks",
    "responses_blocks",
]

JsonObject = dict[str, object]

ANTHROPIC_MIN_TOKENS = 1024
"""Anthropic caches no prefix shorter than this (Sonnet and Opus; Haiku needs 2048)."""
ANTHROPIC_LOOKBACK = 20
"""Block boundaries before a breakpoint at which Anthropic looks for an earlier entry."""
OPENAI_MIN_TOKENS = 1024
OPENAI_STEP_TOKENS = 128


@dataclass(frozen=True)
class Blocks:
    """A request in cache order: the blocks' texts and the indices of the blocks that end on a
    `cache_control` breakpoint."""

    texts: tuple[str, ...]
    breakpoints: tuple[int, ...] = ()


@dataclass(frozen=True)
class CacheUse:
    """Cached tokens of one request: read from the cache, and written to it."""

    read: int = 0
    write: int = 0


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _unmarked(block: object) -> tuple[object, bool]:
    """The block without its `cache_control`, and whether it had one."""
    if isinstance(block, dict) and "cache_control" in block:
        return {k: v for k, v in block.items() if k != "cache_control"}, True
    return block, False


def anthropic_blocks(body: Mapping[str, object]) -> Blocks:
    """A Messages request in Anthropic's cache order: tools, system, then message blocks."""
    texts: list[str] = []
    breakpoints: list[int] = []

    def add(prefix: str, block: object) -> None:
        clean, marked = _unmarked(block)
        texts.append(prefix + _compact(clean))
        if marked:
            breakpoints.append(len(texts) - 1)

    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        add("tool:", tool)
    system = body.get("system")
    if isinstance(system, str):
        add("system:", {"type": "text", "text": system})
    elif isinstance(system, list):
        for block in system:
            add("system:", block)
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        role = str(message.get("role"))
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for position, block in enumerate(content if isinstance(content, list) else []):
            # A new message starts with its role, so two messages never read as one.
            add(f"{role}:" if position == 0 else "+", block)
    return Blocks(tuple(texts), tuple(breakpoints))


def openai_blocks(body: Mapping[str, object]) -> Blocks:
    """A chat-completions request in prefix order: the tools, then each message."""
    tools = body.get("tools")
    messages = body.get("messages")
    texts = [_compact(tool) for tool in (tools if isinstance(tools, list) else [])]
    texts += [_compact(message) for message in (messages if isinstance(messages, list) else [])]
    return Blocks(tuple(texts))


def responses_blocks(body: Mapping[str, object]) -> Blocks:
    """A Responses request in prefix order: the tools, the instructions, then each input item."""
    tools = body.get("tools")
    texts = [_compact(tool) for tool in (tools if isinstance(tools, list) else [])]
    if isinstance(body.get("instructions"), str):
        texts.append(_compact({"instructions": body["instructions"]}))
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    texts += [_compact(item) for item in (items if isinstance(items, list) else [])]
    return Blocks(tuple(texts))


def _tokens(chars: int) -> int:
    return (chars + 3) // 4


def _common_chars(a: str, b: str) -> int:
    """Length of the common prefix of two strings (binary search on slice equality)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


@dataclass
class _Bucket:
    """What one cache key holds: every earlier request's blocks, and the prefix digests at
    each block boundary (digest -> the requests that have that prefix)."""

    requests: list[Blocks] = field(default_factory=list)
    prefixes: dict[bytes, list[int]] = field(default_factory=dict)
    entries: set[bytes] = field(default_factory=set)
    """Anthropic: digests of the prefixes written at breakpoints."""


def _digests(blocks: Blocks) -> list[bytes]:
    """The digest of the prefix ending after each block."""
    running = hashlib.sha256()
    out = []
    for text in blocks.texts:
        running.update(len(text).to_bytes(8, "little"))
        running.update(text.encode())
        out.append(running.copy().digest())
    return out


def _ends(blocks: Blocks) -> list[int]:
    """The character offset just after each block."""
    out, total = [], 0
    for text in blocks.texts:
        total += len(text)
        out.append(total)
    return out


class PromptCache:
    """Prefix caches per key; not thread-safe (the server calls it under its lock)."""

    def __init__(self) -> None:
        self._buckets: dict[tuple[str, ...], _Bucket] = {}

    def use(self, style: str, key: tuple[str, ...], blocks: Blocks) -> CacheUse:
        """Bill one request (`style` "anthropic" or "openai") and remember it."""
        bucket = self._buckets.setdefault((style, *key), _Bucket())
        digests = _digests(blocks)
        ends = _ends(blocks)
        if style == "anthropic":
            used = _anthropic_use(bucket, blocks, digests, ends)
        else:
            used = _openai_use(bucket, blocks, digests, ends)
        number = len(bucket.requests)
        bucket.requests.append(blocks)
        for digest in digests:
            bucket.prefixes.setdefault(digest, []).append(number)
        return used


def _anthropic_use(
    bucket: _Bucket, blocks: Blocks, digests: list[bytes], ends: list[int]
) -> CacheUse:
    cacheable = [b for b in blocks.breakpoints if _tokens(ends[b]) >= ANTHROPIC_MIN_TOKENS]
    if not cacheable:
        return CacheUse()
    read_end = 0
    for breakpoint in cacheable:
        for index in range(breakpoint, max(-1, breakpoint - ANTHROPIC_LOOKBACK), -1):
            if digests[index] in bucket.entries:
                read_end = max(read_end, ends[index])
                break
    last = ends[cacheable[-1]]
    bucket.entries.update(digests[b] for b in cacheable)
    return CacheUse(read=_tokens(read_end), write=_tokens(last - read_end))


def _openai_use(bucket: _Bucket, blocks: Blocks, digests: list[bytes], ends: list[int]) -> CacheUse:
    matched = -1  # the last block whose whole prefix an earlier request shares
    for index, digest in enumerate(digests):
        if digest not in bucket.prefixes:
            break
        matched = index
    common = ends[matched] if matched >= 0 else 0
    following = matched + 1
    if following < len(blocks.texts):
        # Within the first differing block, the characters an earlier request shares.
        candidates = (
            bucket.prefixes[digests[matched]] if matched >= 0 else range(len(bucket.requests))
        )
        text = blocks.texts[following]
        extra = 0
        for number in candidates:
            other = bucket.requests[number].texts
            if following < len(other):
                extra = max(extra, _common_chars(text, other[following]))
        common += extra
    tokens = common // 4
    if tokens < OPENAI_MIN_TOKENS:
        return CacheUse()
    steps = (tokens - OPENAI_MIN_TOKENS) // OPENAI_STEP_TOKENS
    return CacheUse(read=OPENAI_MIN_TOKENS + steps * OPENAI_STEP_TOKENS)


def cache_key(body: Mapping[str, object], headers: Mapping[str, str]) -> str:
    """The session key a client sent: `prompt_cache_key`, else a session header, else ""."""
    key = body.get("prompt_cache_key")
    if isinstance(key, str) and key:
        return key
    lowered = {name.lower(): value for name, value in headers.items()}
    return lowered.get("session-id") or lowered.get("session_id") or ""


_BLOCKS = {"anthropic": anthropic_blocks, "openai": openai_blocks, "responses": responses_blocks}


def bill(
    cache: PromptCache, route: str, body: object, headers: Mapping[str, str]
) -> CacheUse | None:
    """The cache use of a model request on `route` (None for a route with no cache model:
    Gemini, or a body that is not a JSON object)."""
    reader = _BLOCKS.get(route)
    if reader is None or not isinstance(body, dict):
        return None
    style = "anthropic" if route == "anthropic" else "openai"
    key = (route, str(body.get("model")), cache_key(body, headers))
    return cache.use(style, key, reader(body))
