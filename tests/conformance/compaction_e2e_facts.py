"""Shared by record_compaction_e2e.py and test_compaction_e2e.py: the scripted model turns in
both fake servers' formats, and the structural facts of a finished run.

A run is an agent (Pi or pith) driven through the scenario's steps against a scripted fake
model; what it leaves is a session file and the log of the requests it sent. `run_facts`
reduces both to what has to agree between the two agents, with entry ids, timestamps and the
instruction texts left out:

- `entries`: the kind of every session entry in file order (`message:user`, `compaction`, ...);
- `messages`: the session's conversation messages (the system message left out), numbered
  from 0, each with its role and a short label (the user's text, the reply, `read(...)`, ...);
- `compactions`: for each compaction entry, after which user prompt it was written, the first
  kept message (by number), `tokensBefore`, `details`, the summary with the scripted replies
  replaced by `{TURN n}` placeholders, and the summarizer requests it came from: their kind
  (`history`, `update` with a previous summary, `turn_prefix`), which messages appear in the
  serialized conversation, which previous summary they carry, which custom instructions they
  pass on;
- `requests`: every model request in order, each message reduced to `system`, `summary k`
  (carries compaction k's summary) or `m<n>` (message n of the session).

Summarizer requests are told from normal ones by their user text: a history request starts
with `<conversation>`, a turn-prefix request with `# Conversation` (the framing both agents
use; the instructions after it are each agent's own wording and are never looked at).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

Json = dict[str, Any]

HISTORY_OPEN = "<conversation>\n"
HISTORY_CLOSE = "\n</conversation>"
PREVIOUS_OPEN = "<previous-summary>\n"
PREVIOUS_CLOSE = "\n</previous-summary>"
PREFIX_OPEN = "# Conversation\n"
HISTORY_ROUTE = "<conversation>"
PREFIX_ROUTE = "# Conversation"
"""Routing: a normal turn is served `unless` the request body has one of these; a summary
turn `match`es its own. (Both servers look at the raw JSON body, where a newline is `\\n`.)"""


# --- the script in each fake server's format ------------------------------------------------


def pith_script(turns: Sequence[Json]) -> Json:
    """The scenario's turns for `pith.testing.FakeServer` (its own format)."""
    out = []
    for turn in turns:
        item = {key: value for key, value in turn.items() if key != "role"}
        out.append(_route(item, turn["role"]))
    return {"model": "fake-model", "turns": out}


def pi_script(turns: Sequence[Json]) -> Json:
    """The scenario's turns for the oracle's fake_llm.py (`content`, OpenAI usage names)."""
    out = []
    for turn in turns:
        item: Json = {}
        if turn.get("text"):
            item["content"] = turn["text"]
        if turn.get("tool_calls"):
            item["tool_calls"] = turn["tool_calls"]
        usage = turn["usage"]
        item["usage"] = {"prompt_tokens": usage["input"], "completion_tokens": usage["output"]}
        if turn.get("expect"):
            item["expect"] = turn["expect"]
        out.append(_route(item, turn["role"]))
    return {"model": "fake-model", "turns": out}


def _route(item: Json, role: str) -> Json:
    if role == "history":
        return {**item, "match": [HISTORY_ROUTE]}
    if role == "turn_prefix":
        return {**item, "match": [PREFIX_ROUTE]}
    return {**item, "unless": [HISTORY_ROUTE, PREFIX_ROUTE]}


# --- session ----------------------------------------------------------------------------------


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _js_value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _call_text(block: Mapping[str, Any]) -> str:
    """A tool call as a serialized conversation shows it: `name(k=<JSON v>, ...)`."""
    arguments = block.get("arguments") or {}
    inner = ", ".join(f"{key}={_js_value(value)}" for key, value in arguments.items())
    return f"{block['name']}({inner})"


class Message:
    """A conversation message of the session, with the probes that find it again: in a
    serialized conversation (`conversation`) and in a request (`wire`, per request role)."""

    def __init__(self, index: int, entry: Mapping[str, Any]) -> None:
        message = entry["message"]
        self.index = index
        self.entry_id: str = entry["id"]
        self.role: str = message["role"]
        content = message.get("content")
        text = _text_of(content)
        calls = [
            block
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict) and block.get("type") == "toolCall"
        ]
        if self.role == "assistant" and calls:
            self.label = "; ".join(_call_text(call) for call in calls)
            self.conversation = [_call_text(call) for call in calls]
            self.wire = [str(call["id"]) for call in calls]
        elif self.role == "toolResult":
            first_line = text.split("\n", 1)[0]
            self.label = f"{message.get('toolName')} -> {first_line[:60]}"
            self.conversation = [first_line]
            self.wire = [str(message.get("toolCallId"))]
        else:
            self.label = text[:60]
            self.conversation = [text]
            self.wire = [text]

    def fact(self) -> Json:
        return {"index": self.index, "role": self.role, "label": self.label}


def parse_jsonl(text: str) -> list[Json]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def session_messages(entries: Sequence[Json]) -> list[Message]:
    """The conversation messages in file order (the system message left out)."""
    out: list[Message] = []
    for entry in entries:
        if entry.get("type") == "message" and entry["message"].get("role") != "system":
            out.append(Message(len(out), entry))
    return out


def entry_kinds(entries: Sequence[Json]) -> list[str]:
    kinds = []
    for entry in entries:
        kind = str(entry.get("type"))
        if kind == "message":
            kind += ":" + str(entry["message"].get("role"))
        kinds.append(kind)
    return kinds


# --- requests ---------------------------------------------------------------------------------


def _request_user_text(body: Mapping[str, Any]) -> str:
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return _text_of(users[-1].get("content")) if users else ""


def request_kind(body: Mapping[str, Any]) -> str:
    """`history`, `update`, `turn_prefix` or `normal`."""
    text = _request_user_text(body)
    if text.startswith(HISTORY_OPEN):
        return "update" if PREVIOUS_OPEN in text else "history"
    if text.startswith(PREFIX_OPEN):
        return "turn_prefix"
    return "normal"


def _between(text: str, start: str, end: str) -> str:
    begin = text.index(start) + len(start)
    return text[begin : text.index(end, begin)]


def _summarizer_fact(
    body: Mapping[str, Any],
    messages: Sequence[Message],
    summaries: Sequence[str],
    custom_instructions: Sequence[str],
) -> Json:
    kind = request_kind(body)
    text = _request_user_text(body)
    if kind == "turn_prefix":
        conversation = text[len(PREFIX_OPEN) :]
    else:
        conversation = _between(text, HISTORY_OPEN, HISTORY_CLOSE)
    found = [m.index for m in messages if all(p in conversation for p in m.conversation)]
    fact: Json = {
        "kind": kind,
        "conversation_messages": found,
        "tools_sent": bool(body.get("tools")),
        "roles": [m.get("role") for m in body.get("messages", [])],
    }
    if kind == "update":
        previous = _between(text, PREVIOUS_OPEN, PREVIOUS_CLOSE)
        fact["previous_summary"] = next(
            (f"compaction {k}" for k, s in enumerate(summaries) if s == previous), previous
        )
    fact["custom_instructions"] = [c for c in custom_instructions if c in text]
    return fact


def _request_message(
    message: Mapping[str, Any], messages: Sequence[Message], summaries: Sequence[str]
) -> str:
    role = message.get("role")
    if role in ("system", "developer"):
        return "system"
    text = _text_of(message.get("content"))
    for k, summary in enumerate(summaries):
        if role == "user" and summary in text:
            return f"summary {k}"
    if role == "tool":
        probes = [str(message.get("tool_call_id"))]
        wanted = "toolResult"
    elif role == "assistant":
        probes = [str(c.get("id")) for c in message.get("tool_calls") or []] or [text]
        wanted = "assistant"
    else:
        probes = [text]
        wanted = str(role)
    for m in messages:
        if m.role == wanted and m.wire == probes:
            return f"m{m.index}"
    return f"? {role}: {text[:60]}"


# --- the facts of a run ----------------------------------------------------------------------


def run_facts(
    entries: Sequence[Json],
    bodies: Sequence[Mapping[str, Any]],
    turns: Sequence[Json],
    custom_instructions: Sequence[str] = (),
    events: Sequence[Sequence[Mapping[str, Any]]] = (),
) -> Json:
    """The structural facts of one run (see the module docstring).

    `entries`: the session file's entries after its header; `bodies`: the request bodies in
    the order sent; `turns`: the scenario's scripted turns (their texts find the summaries);
    `custom_instructions`: the focus texts given to manual compactions (each summarizer
    request lists those it carries); `events`: for each step, the `compaction_start` /
    `compaction_end` events the agent printed.
    """
    messages = session_messages(entries)
    by_id = {m.entry_id: m for m in messages}
    compaction_entries = [e for e in entries if e.get("type") == "compaction"]
    summaries = [e["summary"] for e in compaction_entries]
    # Summarizer requests, grouped by compaction: each maximal run of them between normal
    # requests (the history and turn-prefix requests of one compaction may come in any order).
    groups: list[list[Mapping[str, Any]]] = []
    previous_normal = True
    for body in bodies:
        if request_kind(body) == "normal":
            previous_normal = True
            continue
        if previous_normal:
            groups.append([])
        groups[-1].append(body)
        previous_normal = False
    compactions = []
    users_seen = 0
    for entry in entries:
        if entry.get("type") == "message" and entry["message"].get("role") == "user":
            users_seen += 1
        if entry.get("type") != "compaction":
            continue
        k = len(compactions)
        kept = by_id.get(entry["firstKeptEntryId"])
        group = groups[k] if k < len(groups) else []
        requests = [_summarizer_fact(b, messages, summaries, custom_instructions) for b in group]
        requests.sort(key=lambda r: ("history", "update", "turn_prefix").index(r["kind"]))
        fact: Json = {
            "after_user_prompt": users_seen,
            "first_kept": kept.fact() if kept else {"entry": "not a message"},
            "tokens_before": entry["tokensBefore"],
            "details": entry.get("details"),
            "from_hook": entry.get("fromHook", False),
            "summary": _template(entry["summary"], turns),
            "usage": _usage(entry.get("usage")),
            "has_system_message": "systemMessage" in entry,
            "summarizer_requests": requests,
        }
        compactions.append(fact)
    return {
        "events": [[_event(e, by_id, turns) for e in step] for step in events],
        "entries": entry_kinds(entries),
        "messages": [m.fact() for m in messages],
        "compactions": compactions,
        "requests": [
            {
                "kind": request_kind(body),
                "max_tokens": body.get("max_completion_tokens", body.get("max_tokens")),
                "messages": [
                    _request_message(m, messages, summaries) for m in body.get("messages", [])
                ]
                if request_kind(body) == "normal"
                else None,
            }
            for body in bodies
        ],
    }


def _usage(usage: object) -> Json | None:
    if not isinstance(usage, Mapping):
        return None
    return {key: usage.get(key) for key in ("input", "output", "totalTokens")}


def _event(event: Mapping[str, Any], by_id: Mapping[str, Message], turns: Sequence[Json]) -> Json:
    """A compaction event without ids: the first kept entry as a message number, the summary
    as a template."""
    out: Json = {key: event.get(key) for key in ("type", "reason", "aborted", "willRetry")}
    if event.get("errorMessage") is not None:
        out["errorMessage"] = event["errorMessage"]
    result = event.get("result")
    if isinstance(result, Mapping):
        kept = by_id.get(str(result.get("firstKeptEntryId")))
        out["result"] = {
            "summary": _template(str(result.get("summary")), turns),
            "first_kept": kept.index if kept else None,
            "tokensBefore": result.get("tokensBefore"),
            "estimatedTokensAfter": result.get("estimatedTokensAfter"),
            "details": result.get("details"),
        }
    return {key: value for key, value in out.items() if value is not None}


def _template(summary: str, turns: Sequence[Json]) -> str:
    """The summary with each scripted summarizer reply replaced by `{TURN n}`."""
    for n, turn in enumerate(turns):
        if turn["role"] in ("history", "turn_prefix") and turn.get("text"):
            summary = summary.replace(turn["text"], f"{{TURN {n}}}")
    return summary
