"""Shared by record_compaction.py and the tests: digests of JSON values, and a summarizer
request's framing without its instructions and without the (large) conversation.

Pi's instruction texts are not stored (pith words its own); what must agree is everything
around them: the tags, the previous summary, the serialized conversation, the "Additional
focus" line. `frame` cuts a request's user text into its kind, a template holding `{PROMPT}`
in place of the instructions and `{CONVERSATION}` in place of the serialized conversation,
the instructions, and the conversation.
"""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple


def _normal(value: object) -> object:
    """JSON with integral floats as integers (JavaScript has one number type)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normal(item) for item in value]
    return value


def digest(value: object) -> str:
    """A short fingerprint of a JSON value (keys sorted, integral floats as integers)."""
    text = json.dumps(_normal(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


PROMPT = "{PROMPT}"
CONVERSATION = "{CONVERSATION}"
_OPEN = "<conversation>\n"
_CLOSE = "\n</conversation>\n\n"
_PREVIOUS_CLOSE = "\n</previous-summary>\n\n"
_HEADING = "# Conversation\n"
_INSTRUCTIONS = "\n\n# Instructions\n"


class Frame(NamedTuple):
    kind: str
    """`conversation` (a first summary or a branch summary), `update` or `turn_prefix`."""
    template: str
    instructions: str
    conversation: str


def frame(text: str, focus: str | None) -> Frame:
    """The parts of a summarizer request's user text (see the module docstring)."""
    suffix = f"\n\nAdditional focus: {focus}" if focus else ""
    body = text[: len(text) - len(suffix)] if suffix and text.endswith(suffix) else text
    tail = text[len(body) :]
    if body.startswith(_HEADING):
        cut = body.rindex(_INSTRUCTIONS)
        conversation = body[len(_HEADING) : cut]
        cut += len(_INSTRUCTIONS)
        template = _HEADING + CONVERSATION + _INSTRUCTIONS + PROMPT + tail
        return Frame("turn_prefix", template, body[cut:], conversation)
    if body.startswith(_OPEN):
        end = body.index(_CLOSE)
        conversation = body[len(_OPEN) : end]
        cut = end + len(_CLOSE)
        kind = "conversation"
        if body.startswith("<previous-summary>\n", cut):
            cut = body.index(_PREVIOUS_CLOSE, cut) + len(_PREVIOUS_CLOSE)
            kind = "update"
        template = _OPEN + CONVERSATION + body[end:cut] + PROMPT + tail
        return Frame(kind, template, body[cut:], conversation)
    return Frame("unknown", text, "", "")
