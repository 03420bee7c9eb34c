"""The exact request pith sends to Gemini, pinned whole (see tests/ai/test_wire_snapshots.py).

The same conversation as the other providers' snapshots, over `google-generative-ai`: a real
`pith -p` run with two prompts against the fake server, the last request compared with the
snapshot below after the temporary paths are replaced by placeholders. Regenerate after an
intended change with `python -m pytest tests/ai/test_gemini_wire_snapshot.py
--inline-snapshot=fix` (no `-n`).
"""

# ruff: noqa: E501  (prompts and tool descriptions are one paragraph a line)

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from inline_snapshot import snapshot

from pith.testing import FakeServer
from tests.ai.test_wire_snapshots import (
    CONVERSATION,
    SESSION_ID,
    TRANSPORT_HEADERS,
    with_placeholders,
)


def run_conversation(tmp_path: Path) -> list[dict[str, Any]]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("Buy milk.\n")
    agent = tmp_path / "agent"
    agent.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    with FakeServer(CONVERSATION) as server:
        model = {
            "id": "gemini-2.5-flash",
            "contextWindow": 1048576,
            "maxTokens": 8192,
            "reasoning": True,
        }
        provider = {
            "baseUrl": server.gemini_base_url,
            "api": "google-generative-ai",
            "apiKey": "fake-key",
            "models": [model],
        }
        (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env = {k: v for k, v in env.items() if not k.startswith(("PITH_", "GOOGLE_", "GEMINI_"))}
        env.update(PITH_AGENT_DIR=str(agent), HOME=str(home))
        result = subprocess.run(
            [
                *(sys.executable, "-m", "pith", "--model", "fake/gemini-2.5-flash"),
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
    docs = re.search(r"Main documentation: (.+?)/README\.md", json.dumps(requests[0]["body"]))
    assert docs is not None, "the system prompt lost its <docs> section"
    places = {
        json.loads(f'"{docs[1]}"'): "{pith-docs}",
        os.path.realpath(work): "{cwd}",
        str(work): "{cwd}",
    }
    return [
        {
            "path": request["path"],
            "headers": {
                name: value
                for name, value in request["headers"].items()
                if name not in TRANSPORT_HEADERS
            },
            "body": with_placeholders(request["body"], places),
        }
        for request in requests
    ]


def test_the_gemini_generate_content_request(tmp_path: Path) -> None:
    requests = run_conversation(tmp_path)
    assert len(requests) == 3
    last = requests[-1]
    for request in requests[:-1]:
        # Each request repeats the one before it, only longer.
        assert request["path"] == last["path"]
        assert request["headers"] == last["headers"]
        body = request["body"]
        assert {k: v for k, v in body.items() if k != "contents"} == {
            k: v for k, v in last["body"].items() if k != "contents"
        }
        assert body["contents"] == last["body"]["contents"][: len(body["contents"])]
    assert last["path"] == snapshot("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    assert last["headers"] == snapshot(
        {"content-type": "application/json", "accept": "text/event-stream"}
    )
    assert last["body"] == snapshot(
        {
            "contents": [
                {"role": "user", "parts": [{"text": "What do my notes say?"}]},
                {
                    "role": "model",
                    "parts": [
                        {"thought": True, "text": "The notes are in notes.txt; read them."},
                        {"text": "Reading your notes."},
                        {
                            "functionCall": {"name": "read", "args": {"path": "notes.txt"}},
                            "thoughtSignature": "ZmFrZS10aG91Z2h0LTA=",
                        },
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "name": "read",
                                "response": {"output": "Buy milk.\n"},
                            }
                        }
                    ],
                },
                {
                    "role": "model",
                    "parts": [
                        {"text": "They say: buy milk.", "thoughtSignature": "ZmFrZS10aG91Z2h0LTE="}
                    ],
                },
                {"role": "user", "parts": [{"text": "Thanks, that is all."}]},
            ],
            "systemInstruction": {
                "parts": [
                    {
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
"""
                    }
                ]
            },
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "read",
                            "description": "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.",
                            "parametersJsonSchema": {
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
                            "parametersJsonSchema": {
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
                            "parametersJsonSchema": {
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
                            "parametersJsonSchema": {
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
                    ]
                }
            ],
            "generationConfig": {
                "maxOutputTokens": 8192,
                "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8192},
            },
        }
    )
