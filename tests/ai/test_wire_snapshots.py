"""The exact requests pith sends, pinned per provider API.

A real `pith -p` run talks to the fake model server over HTTP; the server records every request
body, and the last one is compared, whole, with the snapshot written below (the earlier ones
must be the same request with fewer messages). The conversation holds every kind of message: the
system prompt, a user message, an assistant reply with a thinking block, text and a tool call,
the tool's result, the assistant's answer and a follow-up user message; the four default tools
are declared and the thinking level is the default one. A change to what goes on the wire — a
field renamed, a block reordered, a cache marker moved, a tool description reworded — fails here
and shows the difference. The last two tests pin what each thinking level changes in a request.

What varies between runs is replaced by a placeholder before comparing, and nothing else:

- `{cwd}`: the temporary working directory (in the system prompt's `<cwd>` section);
- `{pith-docs}`: where pith's own README and docs are installed (the system prompt's `<docs>`
  section points the model at them);
- headers that belong to the HTTP transport rather than to pith are left out of the header
  snapshot: `host` (the server's port), `content-length` (follows the path lengths above),
  `user-agent` (names library versions), `accept-encoding` and `connection`.

Tool call ids and thinking signatures come from the fake server's script and are fixed already;
the session id is fixed with `--session-id` so that it stays stable should it ever be sent. The
run is isolated from the machine: the agent dir and `HOME` are temporary folders and context
files (`AGENTS.md` of every folder above the working directory) are off.

The snapshots are written by inline-snapshot, which does not run under xdist: after an
intended change, regenerate them with
`python -m pytest tests/ai/test_wire_snapshots.py --inline-snapshot=fix` (no `-n`).
"""

# ruff: noqa: E501  (the snapshots hold the requests as they are sent: prompts and tool
# descriptions are one paragraph a line)

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from inline_snapshot import snapshot

from pith.ai import (
    THINKING_LEVELS,
    Context,
    DoneEvent,
    Model,
    StreamOptions,
    TextContent,
    UserMessage,
    provider_for,
)
from pith.testing import FakeServer

SESSION_ID = "00000000-0000-4000-8000-000000000000"

CONVERSATION: dict[str, Any] = {
    "turns": [
        {
            "thinking": "The notes are in notes.txt; read them.",
            "text": "Reading your notes.",
            "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
        },
        {"text": "They say: buy milk.", "expect": ["Buy milk."]},
        {"text": "You're welcome.", "expect": ["Thanks, that is all."]},
    ]
}

TRANSPORT_HEADERS = frozenset({"host", "content-length", "user-agent", "accept-encoding"})
TRANSPORT_HEADERS |= {"connection"}


def run_conversation(tmp_path: Path, api: str) -> list[dict[str, Any]]:
    """The requests of one real `pith -p` run with two prompts, placeholders put in."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("Buy milk.\n")
    agent = tmp_path / "agent"
    agent.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    with FakeServer(CONVERSATION) as server:
        base = server.anthropic_base_url if api == "anthropic-messages" else server.base_url
        model = {"id": "fake-model", "contextWindow": 128000, "maxTokens": 4096, "reasoning": True}
        provider = {"baseUrl": base, "api": api, "apiKey": "fake-key", "models": [model]}
        (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        # Keys, account headers (`OPENAI_ORG_ID`, ...) and pith's own settings from the
        # environment would change the request: none of them is passed on.
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env = {k: v for k, v in env.items() if not k.startswith(("PITH_", "OPENAI_", "ANTHROPIC_"))}
        env.update(PITH_AGENT_DIR=str(agent), HOME=str(home))
        result = subprocess.run(
            [
                *(sys.executable, "-m", "pith", "--model", "fake/fake-model"),
                *("--session-id", SESSION_ID, "--no-context-files", "-p"),
                *("What do my notes say?", "Thanks, that is all."),
            ],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert server.problems() == []
        assert server.unused_turns() == []
        requests = server.requests
    assert result.returncode == 0, result.stderr
    assert result.stdout == "You're welcome.\n"
    # Found in the body's JSON text, so the path comes out JSON-escaped: decode it.
    docs = re.search(r"Main documentation: (.+?)/README\.md", json.dumps(requests[0]["body"]))
    assert docs is not None, "the system prompt lost its <docs> section"
    places = {
        json.loads(f'"{docs[1]}"'): "{pith-docs}",
        os.path.realpath(work): "{cwd}",
        str(work): "{cwd}",
    }
    return [
        {
            "headers": {
                name: value
                for name, value in request["headers"].items()
                if name not in TRANSPORT_HEADERS
            },
            "body": with_placeholders(request["body"], places),
        }
        for request in requests
    ]


def with_placeholders(value: Any, places: dict[str, str]) -> Any:
    """`value` with every occurrence of each key of `places`, in any string, replaced."""
    if isinstance(value, str):
        # Longest first: one place may lie inside another (a temporary folder under the docs).
        for text, placeholder in sorted(places.items(), key=lambda item: -len(item[0])):
            value = value.replace(text, placeholder)
        return value
    if isinstance(value, list):
        return [with_placeholders(item, places) for item in value]
    if isinstance(value, dict):
        return {key: with_placeholders(item, places) for key, item in value.items()}
    return value


def without_cache_marks(value: Any) -> Any:
    """`value` without Anthropic's `cache_control` markers (they move to the newest message)."""
    if isinstance(value, list):
        return [without_cache_marks(item) for item in value]
    if isinstance(value, dict):
        return {k: without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    return value


def assert_history_is_resent_unchanged(
    requests: list[dict[str, Any]], field: str = "messages"
) -> None:
    """Every request repeats the one before it, only longer: same system prompt, tools and
    options, and the earlier messages (`field` of the body) as they were (what prompt caching
    needs)."""
    last = requests[-1]
    for request in requests[:-1]:
        assert request["headers"] == last["headers"]
        body = request["body"]
        assert {k: v for k, v in body.items() if k != field} == {
            k: v for k, v in last["body"].items() if k != field
        }
        earlier = without_cache_marks(body[field])
        assert earlier == without_cache_marks(last["body"][field])[: len(earlier)]


def test_the_openai_chat_completions_request(tmp_path: Path) -> None:
    requests = run_conversation(tmp_path, "openai-completions")
    assert len(requests) == 3
    assert_history_is_resent_unchanged(requests)
    assert requests[-1]["headers"] == snapshot(
        {"content-type": "application/json", "accept": "text/event-stream"}
    )
    assert requests[-1]["body"] == snapshot(
        {
            "model": "fake-model",
            "messages": [
                {
                    "role": "system",
                    "content": """\
You are pith, a coding agent working in the user's terminal. You read and change code, run commands and check your work until the user's task is done.

<tools>
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call
- write: Create or overwrite files

Additional tools may be available.
</tools>

<rules>
- Use bash for file operations like ls, rg, find
- Use read to examine files instead of cat or sed.
- You can inspect PITH_* environment variables for current model and session details.
- Use edit for targeted changes. Batch changes to one file in a single call.
- Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.
- Use write only for new files or complete rewrites.
- Be concise in your responses
- Show file paths clearly when working with files
</rules>

<docs>
pith documentation (read it only when the user asks about pith itself: its settings, sessions, extensions, skills or tools):
- Main documentation: {pith-docs}/README.md
- Additional docs: {pith-docs}/docs
- Examples: {pith-docs}/examples (extensions)
- Resolve docs/... and examples/... against the paths above, not the current working directory
- When asked about: extensions (docs/extensions.md, examples/extensions/), sessions and branches (docs/sessions.md), models and providers (docs/providers.md), tools and their limits (docs/tools.md), context files, skills, prompt templates, settings and trust (docs/resources.md)
</docs>

<cwd>
{cwd}
</cwd>\
""",
                },
                {"role": "user", "content": [{"type": "text", "text": "What do my notes say?"}]},
                {
                    "role": "assistant",
                    "content": "Reading your notes.",
                    "reasoning_content": "The notes are in notes.txt; read them.",
                    "tool_calls": [
                        {
                            "id": "call_0_0",
                            "type": "function",
                            "function": {"name": "read", "arguments": '{"path": "notes.txt"}'},
                        }
                    ],
                },
                {"role": "tool", "content": "Buy milk.\n", "tool_call_id": "call_0_0"},
                {"role": "assistant", "content": "They say: buy milk."},
                {"role": "user", "content": [{"type": "text", "text": "Thanks, that is all."}]},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
            "store": False,
            "max_completion_tokens": 4096,
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "read",
                        "description": "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "path": {
                                    "type": "string",
                                    "description": "Path to the file to read (relative or absolute)",
                                },
                                "offset": {
                                    "type": "number",
                                    "description": "Line number to start reading from (1-indexed)",
                                },
                                "limit": {
                                    "type": "number",
                                    "description": "Maximum number of lines to read",
                                },
                            },
                            "required": ["path"],
                        },
                    },
                },
                {
                    "type": "function",
                    "function": {
                        "name": "bash",
                        "description": "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "command": {
                                    "type": "string",
                                    "description": "Shell command to execute",
                                },
                                "timeout": {
                                    "type": "number",
                                    "description": "Timeout in seconds (optional, no default timeout)",
                                },
                            },
                            "required": ["command"],
                        },
                    },
                },
                {
                    "type": "function",
                    "function": {
                        "name": "edit",
                        "description": "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "path": {
                                    "type": "string",
                                    "description": "Path to the file to edit (relative or absolute)",
                                },
                                "edits": {
                                    "type": "array",
                                    "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "oldText": {
                                                "type": "string",
                                                "description": "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call.",
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
                        },
                    },
                },
                {
                    "type": "function",
                    "function": {
                        "name": "write",
                        "description": "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
                        "parameters": {
                            "type": "object",
                            "properties": {
                                "path": {
                                    "type": "string",
                                    "description": "Path to the file to write (relative or absolute)",
                                },
                                "content": {
                                    "type": "string",
                                    "description": "Content to write to the file",
                                },
                            },
                            "required": ["path", "content"],
                        },
                    },
                },
            ],
            "reasoning_effort": "medium",
        }
    )


def test_the_openai_responses_request(tmp_path: Path) -> None:
    requests = run_conversation(tmp_path, "openai-responses")
    assert len(requests) == 3
    assert_history_is_resent_unchanged(requests, "input")
    assert requests[-1]["headers"] == snapshot(
        {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "session-id": "00000000-0000-4000-8000-000000000000",
            "x-client-request-id": "00000000-0000-4000-8000-000000000000",
        }
    )
    assert requests[-1]["body"] == snapshot(
        {
            "model": "fake-model",
            "input": [
                {
                    "role": "developer",
                    "content": """\
You are pith, a coding agent working in the user's terminal. You read and change code, run commands and check your work until the user's task is done.

<tools>
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call
- write: Create or overwrite files

Additional tools may be available.
</tools>

<rules>
- Use bash for file operations like ls, rg, find
- Use read to examine files instead of cat or sed.
- You can inspect PITH_* environment variables for current model and session details.
- Use edit for targeted changes. Batch changes to one file in a single call.
- Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.
- Use write only for new files or complete rewrites.
- Be concise in your responses
- Show file paths clearly when working with files
</rules>

<docs>
pith documentation (read it only when the user asks about pith itself: its settings, sessions, extensions, skills or tools):
- Main documentation: {pith-docs}/README.md
- Additional docs: {pith-docs}/docs
- Examples: {pith-docs}/examples (extensions)
- Resolve docs/... and examples/... against the paths above, not the current working directory
- When asked about: extensions (docs/extensions.md, examples/extensions/), sessions and branches (docs/sessions.md), models and providers (docs/providers.md), tools and their limits (docs/tools.md), context files, skills, prompt templates, settings and trust (docs/resources.md)
</docs>

<cwd>
{cwd}
</cwd>\
""",
                },
                {
                    "role": "user",
                    "content": [{"type": "input_text", "text": "What do my notes say?"}],
                },
                {
                    "id": "rs_fake_1",
                    "type": "reasoning",
                    "summary": [
                        {"type": "summary_text", "text": "The notes are in notes.txt; read them."}
                    ],
                    "encrypted_content": "fake-encrypted-0",
                },
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "Reading your notes.", "annotations": []}
                    ],
                    "status": "completed",
                    "id": "msg_fake_1",
                },
                {
                    "type": "function_call",
                    "id": "fc_fake_1_0",
                    "call_id": "call_0_0",
                    "name": "read",
                    "arguments": '{"path":"notes.txt"}',
                },
                {"type": "function_call_output", "call_id": "call_0_0", "output": "Buy milk.\n"},
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "They say: buy milk.", "annotations": []}
                    ],
                    "status": "completed",
                    "id": "msg_fake_2",
                },
                {
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Thanks, that is all."}],
                },
            ],
            "stream": True,
            "store": False,
            "prompt_cache_key": "00000000-0000-4000-8000-000000000000",
            "max_output_tokens": 4096,
            "tools": [
                {
                    "type": "function",
                    "name": "read",
                    "description": "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Path to the file to read (relative or absolute)",
                            },
                            "offset": {
                                "type": "number",
                                "description": "Line number to start reading from (1-indexed)",
                            },
                            "limit": {
                                "type": "number",
                                "description": "Maximum number of lines to read",
                            },
                        },
                        "required": ["path"],
                    },
                },
                {
                    "type": "function",
                    "name": "bash",
                    "description": "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "command": {
                                "type": "string",
                                "description": "Shell command to execute",
                            },
                            "timeout": {
                                "type": "number",
                                "description": "Timeout in seconds (optional, no default timeout)",
                            },
                        },
                        "required": ["command"],
                    },
                },
                {
                    "type": "function",
                    "name": "edit",
                    "description": "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Path to the file to edit (relative or absolute)",
                            },
                            "edits": {
                                "type": "array",
                                "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "oldText": {
                                            "type": "string",
                                            "description": "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call.",
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
                    },
                },
                {
                    "type": "function",
                    "name": "write",
                    "description": "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Path to the file to write (relative or absolute)",
                            },
                            "content": {
                                "type": "string",
                                "description": "Content to write to the file",
                            },
                        },
                        "required": ["path", "content"],
                    },
                },
            ],
            "reasoning": {"effort": "medium", "summary": "auto"},
            "include": ["reasoning.encrypted_content"],
        }
    )


def test_the_anthropic_messages_request(tmp_path: Path) -> None:
    requests = run_conversation(tmp_path, "anthropic-messages")
    assert len(requests) == 3
    assert_history_is_resent_unchanged(requests)
    assert requests[-1]["headers"] == snapshot(
        {
            "content-type": "application/json",
            "accept": "text/event-stream",
            "anthropic-version": "2023-06-01",
            "anthropic-beta": "interleaved-thinking-2025-05-14",
        }
    )
    assert requests[-1]["body"] == snapshot(
        {
            "model": "fake-model",
            "system": [
                {
                    "type": "text",
                    "text": """\
You are pith, a coding agent working in the user's terminal. You read and change code, run commands and check your work until the user's task is done.

<tools>
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call
- write: Create or overwrite files

Additional tools may be available.
</tools>

<rules>
- Use bash for file operations like ls, rg, find
- Use read to examine files instead of cat or sed.
- You can inspect PITH_* environment variables for current model and session details.
- Use edit for targeted changes. Batch changes to one file in a single call.
- Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.
- Use write only for new files or complete rewrites.
- Be concise in your responses
- Show file paths clearly when working with files
</rules>

<docs>
pith documentation (read it only when the user asks about pith itself: its settings, sessions, extensions, skills or tools):
- Main documentation: {pith-docs}/README.md
- Additional docs: {pith-docs}/docs
- Examples: {pith-docs}/examples (extensions)
- Resolve docs/... and examples/... against the paths above, not the current working directory
- When asked about: extensions (docs/extensions.md, examples/extensions/), sessions and branches (docs/sessions.md), models and providers (docs/providers.md), tools and their limits (docs/tools.md), context files, skills, prompt templates, settings and trust (docs/resources.md)
</docs>

<cwd>
{cwd}
</cwd>\
""",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "What do my notes say?"}]},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "thinking",
                            "thinking": "The notes are in notes.txt; read them.",
                            "signature": "fake-signature-0",
                        },
                        {"type": "text", "text": "Reading your notes."},
                        {
                            "type": "tool_use",
                            "id": "toolu_0_0",
                            "name": "read",
                            "input": {"path": "notes.txt"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_0_0",
                            "content": "Buy milk.\n",
                            "is_error": False,
                        }
                    ],
                },
                {"role": "assistant", "content": [{"type": "text", "text": "They say: buy milk."}]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "Thanks, that is all.",
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
            ],
            "max_tokens": 4096,
            "stream": True,
            "tools": [
                {
                    "name": "read",
                    "description": "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.",
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Path to the file to read (relative or absolute)",
                            },
                            "offset": {
                                "type": "number",
                                "description": "Line number to start reading from (1-indexed)",
                            },
                            "limit": {
                                "type": "number",
                                "description": "Maximum number of lines to read",
                            },
                        },
                        "required": ["path"],
                    },
                },
                {
                    "name": "bash",
                    "description": "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "command": {
                                "type": "string",
                                "description": "Shell command to execute",
                            },
                            "timeout": {
                                "type": "number",
                                "description": "Timeout in seconds (optional, no default timeout)",
                            },
                        },
                        "required": ["command"],
                    },
                },
                {
                    "name": "edit",
                    "description": "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Path to the file to edit (relative or absolute)",
                            },
                            "edits": {
                                "type": "array",
                                "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "oldText": {
                                            "type": "string",
                                            "description": "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call.",
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
                    },
                },
                {
                    "name": "write",
                    "description": "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "path": {
                                "type": "string",
                                "description": "Path to the file to write (relative or absolute)",
                            },
                            "content": {
                                "type": "string",
                                "description": "Content to write to the file",
                            },
                        },
                        "required": ["path", "content"],
                    },
                    "cache_control": {"type": "ephemeral"},
                },
            ],
            "thinking": {"type": "enabled", "budget_tokens": 3072},
        }
    )


# --- what the thinking level changes ---------------------------------------------------------


def thinking_fields(api: str, reasoning: bool) -> dict[str, dict[str, Any]]:
    """For each thinking level, the request fields (and headers) that depend on it, as the
    provider sends them over HTTP for a model with `maxTokens` 32000."""

    async def requests() -> list[dict[str, Any]]:
        script = {"turns": [{"text": "ok"} for _ in THINKING_LEVELS]}
        with FakeServer(script) as server:
            base = server.anthropic_base_url if api == "anthropic-messages" else server.base_url
            model = Model(
                id="fake-model",
                provider="fake",
                api=api,
                base_url=base,
                reasoning=reasoning,
                context_window=200_000,
                max_tokens=32_000,
            )
            context = Context(
                system_prompt="Be brief.", messages=[UserMessage(content=[TextContent(text="hi")])]
            )
            for level in THINKING_LEVELS:
                options = StreamOptions(api_key="fake-key", thinking=level)
                events = [e async for e in provider_for(model).stream(model, context, options)]
                assert isinstance(events[-1], DoneEvent), events[-1]
            return server.requests

    fields = {"max_tokens", "max_completion_tokens", "reasoning_effort", "thinking"}
    fields |= {"max_output_tokens", "reasoning", "include"}
    return {
        level: {
            **{k: v for k, v in request["body"].items() if k in fields},
            **{k: v for k, v in request["headers"].items() if k == "anthropic-beta"},
        }
        for level, request in zip(THINKING_LEVELS, asyncio.run(requests()), strict=True)
    }


def test_the_thinking_level_on_the_openai_wire() -> None:
    levels = {
        "reasoning model": thinking_fields("openai-completions", reasoning=True),
        "model without reasoning": thinking_fields("openai-completions", reasoning=False),
    }
    assert levels == snapshot(
        {
            "reasoning model": {
                "off": {"max_completion_tokens": 32000},
                "minimal": {"max_completion_tokens": 32000, "reasoning_effort": "minimal"},
                "low": {"max_completion_tokens": 32000, "reasoning_effort": "low"},
                "medium": {"max_completion_tokens": 32000, "reasoning_effort": "medium"},
                "high": {"max_completion_tokens": 32000, "reasoning_effort": "high"},
                "xhigh": {"max_completion_tokens": 32000, "reasoning_effort": "high"},
                "max": {"max_completion_tokens": 32000, "reasoning_effort": "high"},
            },
            "model without reasoning": {
                "off": {"max_completion_tokens": 32000},
                "minimal": {"max_completion_tokens": 32000},
                "low": {"max_completion_tokens": 32000},
                "medium": {"max_completion_tokens": 32000},
                "high": {"max_completion_tokens": 32000},
                "xhigh": {"max_completion_tokens": 32000},
                "max": {"max_completion_tokens": 32000},
            },
        }
    )


def test_the_thinking_level_on_the_openai_responses_wire() -> None:
    levels = {
        "reasoning model": thinking_fields("openai-responses", reasoning=True),
        "model without reasoning": thinking_fields("openai-responses", reasoning=False),
    }
    assert levels == snapshot(
        {
            "reasoning model": {
                "off": {"max_output_tokens": 32000, "reasoning": {"effort": "none"}},
                "minimal": {
                    "max_output_tokens": 32000,
                    "reasoning": {"effort": "minimal", "summary": "auto"},
                    "include": ["reasoning.encrypted_content"],
                },
                "low": {
                    "max_output_tokens": 32000,
                    "reasoning": {"effort": "low", "summary": "auto"},
                    "include": ["reasoning.encrypted_content"],
                },
                "medium": {
                    "max_output_tokens": 32000,
                    "reasoning": {"effort": "medium", "summary": "auto"},
                    "include": ["reasoning.encrypted_content"],
                },
                "high": {
                    "max_output_tokens": 32000,
                    "reasoning": {"effort": "high", "summary": "auto"},
                    "include": ["reasoning.encrypted_content"],
                },
                "xhigh": {
                    "max_output_tokens": 32000,
                    "reasoning": {"effort": "high", "summary": "auto"},
                    "include": ["reasoning.encrypted_content"],
                },
                "max": {
                    "max_output_tokens": 32000,
                    "reasoning": {"effort": "high", "summary": "auto"},
                    "include": ["reasoning.encrypted_content"],
                },
            },
            "model without reasoning": {
                "off": {"max_output_tokens": 32000},
                "minimal": {"max_output_tokens": 32000},
                "low": {"max_output_tokens": 32000},
                "medium": {"max_output_tokens": 32000},
                "high": {"max_output_tokens": 32000},
                "xhigh": {"max_output_tokens": 32000},
                "max": {"max_output_tokens": 32000},
            },
        }
    )


def test_the_thinking_level_on_the_anthropic_wire() -> None:
    levels = {
        "reasoning model": thinking_fields("anthropic-messages", reasoning=True),
        "model without reasoning": thinking_fields("anthropic-messages", reasoning=False),
    }
    assert levels == snapshot(
        {
            "reasoning model": {
                "off": {"max_tokens": 32000},
                "minimal": {
                    "max_tokens": 32000,
                    "thinking": {"type": "enabled", "budget_tokens": 1024},
                    "anthropic-beta": "interleaved-thinking-2025-05-14",
                },
                "low": {
                    "max_tokens": 32000,
                    "thinking": {"type": "enabled", "budget_tokens": 2048},
                    "anthropic-beta": "interleaved-thinking-2025-05-14",
                },
                "medium": {
                    "max_tokens": 32000,
                    "thinking": {"type": "enabled", "budget_tokens": 8192},
                    "anthropic-beta": "interleaved-thinking-2025-05-14",
                },
                "high": {
                    "max_tokens": 32000,
                    "thinking": {"type": "enabled", "budget_tokens": 16384},
                    "anthropic-beta": "interleaved-thinking-2025-05-14",
                },
                "xhigh": {
                    "max_tokens": 32000,
                    "thinking": {"type": "enabled", "budget_tokens": 16384},
                    "anthropic-beta": "interleaved-thinking-2025-05-14",
                },
                "max": {
                    "max_tokens": 32000,
                    "thinking": {"type": "enabled", "budget_tokens": 16384},
                    "anthropic-beta": "interleaved-thinking-2025-05-14",
                },
            },
            "model without reasoning": {
                "off": {"max_tokens": 32000},
                "minimal": {"max_tokens": 32000},
                "low": {"max_tokens": 32000},
                "medium": {"max_tokens": 32000},
                "high": {"max_tokens": 32000},
                "xhigh": {"max_tokens": 32000},
                "max": {"max_tokens": 32000},
            },
        }
    )
