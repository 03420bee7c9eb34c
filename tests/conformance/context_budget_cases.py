"""The inputs of tests/conformance/context_budget.json, in Pi's JSON shapes.

`record_context_budget.py` runs them through pi-ai 1.6.0 and stores Pi's answers beside them;
`test_context_budget_conformance.py` runs them through pith. Contexts are Pi `Context`s
(`systemPrompt`, `tools`, `messages`). Two stand-ins keep the golden file small and free of Pi's
texts: `{"$repeat": unit, "times": n}` is `unit * n`, and `"tools": DEFAULT_TOOLS` means the
default tools' declarations (read, bash, edit, write): Pi's own when recording, pith's
built-in tools' in the test, so the test also checks that both declare them alike.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

DEFAULT_TOOLS = "@default-tools"
DEFAULT_TOOL_NAMES = ("read", "bash", "edit", "write")


def expand(value: Any) -> Any:
    """`value` with every `$repeat` stand-in replaced by its text."""
    if isinstance(value, dict):
        if "$repeat" in value:
            return str(value["$repeat"]) * int(value["times"])
        return {key: expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item) for item in value]
    return value


def repeat(unit: str, times: int) -> Json:
    return {"$repeat": unit, "times": times}


# --- messages ---------------------------------------------------------------------------------


def text(value: Any) -> Json:
    return {"type": "text", "text": value}


def image() -> Json:
    return {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def user(content: Any, ts: int) -> Json:
    return {"role": "user", "content": content, "timestamp": ts}


def usage(
    total: int = 0, *, input: int = 0, output: int = 0, read: int = 0, write: int = 0
) -> Json:
    return {
        "input": input,
        "output": output,
        "cacheRead": read,
        "cacheWrite": write,
        "totalTokens": total,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def assistant(content: list[Json], ts: int, used: Json | None = None, stop: str = "stop") -> Json:
    message: Json = {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": used or usage(),
        "stopReason": stop,
        "timestamp": ts,
    }
    if stop in ("error", "aborted"):
        message["errorMessage"] = "boom"
    return message


def call(name: str, arguments: Json, call_id: str = "c1") -> Json:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def result(content: list[Json], ts: int, call_id: str = "c1", error: bool = False) -> Json:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "read",
        "content": content,
        "isError": error,
        "timestamp": ts,
    }


def sized(tokens: int, trailing: Json | str = "") -> Json:
    """A context whose input is `tokens` reported tokens, plus `trailing` as a later message."""
    messages = [user("hi", 1), assistant([text("ok")], 2, usage(tokens))]
    if trailing:
        messages.append(user(trailing, 3))
    return {"messages": messages}


def model(window: int, max_tokens: int, api: str = "openai-completions", **extra: Any) -> Json:
    return {"contextWindow": window, "maxTokens": max_tokens, "api": api, **extra}


# --- the cases --------------------------------------------------------------------------------

ESTIMATES: list[Json] = [
    {"name": "empty", "context": {"messages": []}},
    {
        "name": "prompt of 14 characters",
        "context": {"systemPrompt": "You are terse.", "messages": []},
    },
    {
        "name": "prompt of 7 characters is 2 tokens",
        "context": {"systemPrompt": "1234567", "messages": []},
    },
    {
        "name": "prompt of 8 characters is 3 tokens",
        "context": {"systemPrompt": "12345678", "messages": []},
    },
    {
        "name": "prompt and default tools, first request",
        "context": {
            "systemPrompt": repeat("You are a coding agent. ", 400),
            "tools": DEFAULT_TOOLS,
            "messages": [user([text("Fix the failing test in src/app.py.")], 1000)],
        },
    },
    {
        "name": "default tools without a prompt",
        "context": {"tools": DEFAULT_TOOLS, "messages": [user("hi", 1)]},
    },
    {
        "name": "user text as a string and as blocks, with images",
        "context": {
            "messages": [
                user("héllo wörld", 1),
                user([text("look at this"), image(), text("and this"), image()], 2),
            ]
        },
    },
    {
        "name": "astral characters count as two",
        "context": {"systemPrompt": "😀😀😀", "messages": [user("日本語 😀 👩‍💻", 1)]},
    },
    {
        "name": "assistant text, thinking and tool calls",
        "context": {
            "messages": [
                user("go", 1),
                assistant(
                    [
                        {"type": "thinking", "thinking": "Let me look at the file first."},
                        text("Reading it."),
                        call("read", {"path": "src/app.py", "offset": 10, "limit": 50}),
                        call("bash", {"command": "echo 'ünïcode' && ls -la"}, "c2"),
                    ],
                    2,
                ),
            ]
        },
    },
    {
        "name": "tool-call arguments JSON.stringify writes differently from Python",
        "context": {
            "messages": [
                user("go", 1),
                assistant(
                    [
                        call(
                            "edit",
                            {
                                "whole": 1.0,
                                "ratio": 0.1,
                                "big": 1e21,
                                "tiny": 1e-7,
                                "keys": {"10": "a", "2": "b", "x": None},
                                "list": [1, 2.5, None, True, "\u2028"],
                                "quote": 'say "hi"\n\ttab\\',
                                "lone": "\ud800 half a pair",
                            },
                        )
                    ],
                    2,
                ),
            ]
        },
    },
    {
        "name": "tool results with text and images",
        "context": {
            "messages": [
                user("go", 1),
                assistant([call("read", {"path": "a.png"})], 2),
                result([text("Read image file [image/png]"), image()], 3),
                result([text("error: no such file")], 4, "c2", error=True),
            ]
        },
    },
    {
        "name": "reported usage plus the messages after it",
        "context": {
            "systemPrompt": repeat("p", 5000),
            "tools": DEFAULT_TOOLS,
            "messages": [
                user("go", 1),
                assistant([call("read", {"path": "a.txt"})], 2, usage(1234)),
                result([text(repeat("line of output\n", 200))], 3),
            ],
        },
    },
    {
        "name": "usage without totalTokens is the sum of its parts",
        "context": {
            "messages": [
                user("go", 1),
                assistant([text("ok")], 2, usage(input=100, output=20, read=30, write=5)),
                user("more", 3),
            ]
        },
    },
    {
        "name": "errored and aborted replies are not used, only estimated",
        "context": {
            "systemPrompt": "sys",
            "messages": [
                user("go", 1),
                assistant([text("first")], 2, usage(500)),
                user("again", 3),
                assistant([text("partial answer")], 4, usage(900), stop="error"),
                assistant([text("cut")], 5, usage(950), stop="aborted"),
                user("once more", 6),
            ],
        },
    },
    {
        "name": "no reply reported usage",
        "context": {
            "systemPrompt": "sys",
            "messages": [user("go", 1), assistant([text("ok, done")], 2), user("and?", 3)],
        },
    },
    {
        "name": "a summary newer than the reply makes its usage stale",
        "context": {
            "systemPrompt": "sys",
            "messages": [
                user([text("<summary>"), text(repeat("s", 300)), text("</summary>")], 5000),
                user("kept question", 1000),
                assistant([text("kept answer")], 2000, usage(40000)),
                user("new question", 6000),
            ],
        },
    },
    {
        "name": "a reply as new as the message before it still counts",
        "context": {
            "messages": [
                user("go", 3000),
                assistant([text("same millisecond")], 3000, usage(777)),
                user("next", 3001),
            ]
        },
    },
    {
        # The prompt becomes a system message stamped 0, so a reply stamped before 0 (a clock
        # gone wrong) is stale with a prompt and usable without one.
        "name": "a reply stamped before the prompt's 0 is stale",
        "context": {
            "systemPrompt": "sys",
            "messages": [assistant([text("old")], -5, usage(600)), user("next", 1)],
        },
    },
    {
        "name": "a reply stamped before 0 counts without a prompt",
        "context": {"messages": [assistant([text("old")], -5, usage(600)), user("next", 1)]},
    },
    {
        "name": "system messages with sections and tool changes",
        "context": {
            "systemPrompt": "Base prompt.",
            "tools": DEFAULT_TOOLS,
            "messages": [
                {
                    "role": "system",
                    "content": [text("Updated rules."), text("Second block.")],
                    "sections": {"cwd": "<cwd>\n/work\n</cwd>", "skills": None, "date": "today"},
                    "toolsAdded": [
                        {
                            "name": "lookup",
                            "description": "Look a word up.",
                            "parameters": {
                                "type": "object",
                                "properties": {"word": {"type": "string"}},
                                "required": ["word"],
                            },
                        }
                    ],
                    "toolsRemoved": [{"name": "write"}],
                    "timestamp": 10,
                },
                user("go", 11),
                {"role": "system", "content": "", "sections": {"x": "y"}, "timestamp": 12},
            ],
        },
    },
]

CLAMPS: list[Json] = [
    {"name": "unknown window keeps maxTokens", "model": model(0, 16384), "context": sized(500)},
    {"name": "unknown window, at least 1", "model": model(0, 0), "context": sized(500)},
    {"name": "4k window leaves 1 token", "model": model(4000, 1000), "context": sized(300)},
    {"name": "8k window, small input", "model": model(8192, 16384), "context": sized(100)},
    {"name": "8k window, input over the room", "model": model(8192, 16384), "context": sized(5000)},
    {
        "name": "8k window, maxTokens below the room",
        "model": model(8192, 2048),
        "context": sized(100),
    },
    {"name": "32k window, small input", "model": model(32768, 32768), "context": sized(1000)},
    {"name": "128k window, maxTokens fits", "model": model(128000, 16384), "context": sized(10000)},
    {"name": "128k window, 15% margin", "model": model(128000, 128000), "context": sized(50000)},
    {
        "name": "128k window, 15% margin leaves 32k",
        "model": model(128000, 128000),
        "context": sized(80000),
    },
    {
        "name": "128k window, fixed margin capped at 32k",
        "model": model(128000, 128000),
        "context": sized(90000),
    },
    {"name": "128k window, fixed margin", "model": model(128000, 128000), "context": sized(100000)},
    {"name": "128k window, full", "model": model(128000, 128000), "context": sized(127000)},
    {"name": "200k window, nearly full", "model": model(200000, 64000), "context": sized(150000)},
    {"name": "1M window, half full", "model": model(1000000, 128000), "context": sized(500000)},
    {"name": "15% margin rounds up", "model": model(100000, 100000), "context": sized(27307)},
    {
        "name": "estimate of the messages after the usage counts",
        "model": model(40000, 40000),
        "context": sized(3000, repeat("x", 7001)),
    },
    {
        "name": "8k window, first request with the default tools",
        "model": model(8192, 16384),
        "context": {
            "systemPrompt": repeat("You are a coding agent. ", 400),
            "tools": DEFAULT_TOOLS,
            "messages": [user("hello", 1)],
        },
    },
]

_SMALL = {"systemPrompt": "You are terse.", "messages": [user([text("hi")], 1)]}

REQUESTS: list[Json] = [
    {"name": "openai, 8k window", "model": model(8192, 16384), "context": _SMALL, "options": {}},
    {
        "name": "openai, max_tokens field",
        "model": model(8192, 16384, compat={"maxTokensField": "max_tokens"}),
        "context": _SMALL,
        "options": {},
    },
    {
        "name": "openai, caller's cap",
        "model": model(8192, 16384),
        "context": _SMALL,
        "options": {"maxTokens": 1000},
    },
    {
        "name": "openai, large window",
        "model": model(128000, 16384),
        "context": _SMALL,
        "options": {},
    },
    {
        "name": "openai, reasoning does not change the limit",
        "model": model(8192, 16384, reasoning=True),
        "context": _SMALL,
        "options": {"reasoning": "high"},
    },
    {
        "name": "anthropic, no thinking",
        "model": model(200000, 32000, "anthropic-messages"),
        "context": _SMALL,
        "options": {},
    },
    {
        "name": "anthropic, no thinking, small window",
        "model": model(16000, 32000, "anthropic-messages"),
        "context": _SMALL,
        "options": {},
    },
    *[
        {
            "name": f"anthropic, thinking {level}",
            "model": model(200000, 32000, "anthropic-messages", reasoning=True),
            "context": _SMALL,
            "options": {"reasoning": level},
        }
        for level in ("minimal", "low", "medium", "high", "xhigh")
    ],
    {
        "name": "anthropic, thinking high, caller's cap",
        "model": model(200000, 32000, "anthropic-messages", reasoning=True),
        "context": _SMALL,
        "options": {"reasoning": "high", "maxTokens": 4000},
    },
    {
        "name": "anthropic, thinking high, clamped by the window",
        "model": model(20000, 32000, "anthropic-messages", reasoning=True),
        "context": _SMALL,
        "options": {"reasoning": "high"},
    },
    {
        "name": "anthropic, thinking medium, caller's cap, clamped by the window",
        "model": model(30000, 32000, "anthropic-messages", reasoning=True),
        "context": sized(20000),
        "options": {"reasoning": "medium", "maxTokens": 4000},
    },
    {
        "name": "anthropic, thinking high, room under 2048",
        "model": model(6000, 32000, "anthropic-messages", reasoning=True),
        "context": _SMALL,
        "options": {"reasoning": "high"},
    },
    {
        "name": "anthropic, thinking high, room under 1024",
        "model": model(5000, 32000, "anthropic-messages", reasoning=True),
        "context": _SMALL,
        "options": {"reasoning": "high"},
    },
    {
        "name": "anthropic, thinking high, model cap under 2048",
        "model": model(200000, 1500, "anthropic-messages", reasoning=True),
        "context": _SMALL,
        "options": {"reasoning": "high"},
    },
]
