"""pith messages to OpenAI chat-completions request bodies (pure functions, no I/O)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import TypeVar, cast
from urllib.parse import urlparse

from pith.ai._context_budget import clamp_max_tokens_to_context
from pith.ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pith.ai._models import Model, ThinkingLevel
from pith.ai._stream import Context, ToolSpec

__all__ = ["REASONING_FIELDS", "build_request", "convert_messages", "convert_tools"]

REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")
"""Fields OpenAI-compatible servers stream thinking in (llama.cpp, vLLM, OpenRouter, ...)."""

_EFFORT: dict[ThinkingLevel, str] = {
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "high",
}

JsonObject = dict[str, object]
_T = TypeVar("_T")


def _compat(model: Model, key: str, default: object) -> object:
    compat = model.compat if isinstance(model.compat, dict) else {}
    return compat.get(key, default)


def _is_openai(model: Model) -> bool:
    return urlparse(model.base_url).hostname == "api.openai.com"


def _image_part(block: ImageContent) -> JsonObject:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"},
    }


def _user(message: UserMessage) -> JsonObject | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    parts: list[JsonObject] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text:
                parts.append({"type": "text", "text": block.text})
        else:
            parts.append(_image_part(block))
    return {"role": "user", "content": parts} if parts else None


def _assistant(message: AssistantMessage, model: Model) -> JsonObject | None:
    text = "".join(
        block.text
        for block in message.content
        if isinstance(block, TextContent) and block.text.strip()
    )
    body: JsonObject = {"role": "assistant", "content": text or None}
    if _compat(model, "requiresNonNullAssistantContent", False) and not text:
        body["content"] = ""
    thinking = [
        block
        for block in message.content
        if isinstance(block, ThinkingContent) and block.thinking.strip()
    ]
    if thinking:
        signature = thinking[0].thinking_signature
        if isinstance(signature, str) and signature in REASONING_FIELDS:
            body[signature] = "\n".join(block.thinking for block in thinking)
    calls = [block for block in message.content if isinstance(block, ToolCall)]
    if calls:
        body["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in calls
        ]
    if not text and not calls:
        return None  # an empty (e.g. aborted) reply: providers reject it
    return body


def _tool_result(result: ToolResultMessage, model: Model) -> tuple[JsonObject, list[JsonObject]]:
    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    has_images = any(isinstance(block, ImageContent) for block in result.content)
    content = (
        text if text.strip() else ("(see attached image)" if has_images else "(no tool output)")
    )
    message: JsonObject = {"role": "tool", "content": content, "tool_call_id": result.tool_call_id}
    if _compat(model, "requiresToolResultName", False):
        message["name"] = result.tool_name
    images: list[JsonObject] = []
    if has_images and model.supports_images():
        images = [_image_part(b) for b in result.content if isinstance(b, ImageContent)]
    return message, images


class _Memo:
    """Converted messages from the previous request, reused while they are the same objects.

    A 400-message history is converted in ~0.1 ms instead of ~2 ms. Entries live for one
    request after their last use, so memory follows the history.
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[object, object, object]] = {}
        self._next: dict[int, tuple[object, object, object]] = {}

    def get(self, message: object, key: object, compute: Callable[[], _T]) -> _T:
        entry = self._entries.get(id(message))
        if entry is not None and entry[0] is message and entry[1] == key:
            value = cast(_T, entry[2])
        else:
            value = compute()
        self._next[id(message)] = (message, key, value)
        return value

    def rotate(self) -> None:
        self._entries, self._next = self._next, {}


_MEMO = _Memo()


def convert_messages(model: Model, system_prompt: str, messages: list[Message]) -> list[JsonObject]:
    """The `messages` array of a chat-completions request."""
    role = (
        "developer"
        if model.reasoning and _compat(model, "supportsDeveloperRole", _is_openai(model))
        else "system"
    )
    flags = (
        bool(_compat(model, "requiresNonNullAssistantContent", False)),
        bool(_compat(model, "requiresToolResultName", False)),
        model.supports_images(),
    )
    out: list[JsonObject] = []
    system_texts = [system_prompt] if system_prompt else []
    images: list[JsonObject] = []

    def flush_images() -> None:
        if images:
            caption: JsonObject = {"type": "text", "text": "Attached image(s) from tool result:"}
            out.append({"role": "user", "content": [caption, *images]})
            images.clear()

    for message in messages:
        if isinstance(message, ToolResultMessage):
            converted, attached = _MEMO.get(message, flags, partial(_tool_result, message, model))
            out.append(converted)
            images.extend(attached)
            continue
        flush_images()
        if isinstance(message, SystemMessage):
            text = (
                message.content
                if isinstance(message.content, str)
                else "".join(b.text for b in message.content)
            )
            if text:
                system_texts.append(text)
        elif isinstance(message, UserMessage):
            user = _MEMO.get(message, flags, partial(_user, message))
            if user is not None:
                out.append(user)
        else:
            reply = _MEMO.get(message, flags, partial(_assistant, message, model))
            if reply is not None:
                out.append(reply)
    flush_images()
    _MEMO.rotate()
    if system_texts:
        out.insert(0, {"role": role, "content": "\n\n".join(system_texts)})
    return out


def convert_tools(tools: list[ToolSpec]) -> list[JsonObject]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def build_request(
    model: Model,
    context: Context,
    *,
    max_tokens: int | None,
    thinking: ThinkingLevel,
    temperature: float | None,
) -> JsonObject:
    """The full request body for a streamed chat completion."""
    body: JsonObject = {
        "model": model.id,
        "messages": convert_messages(model, context.system_prompt, context.messages),
        "stream": True,
    }
    if _compat(model, "supportsUsageInStreaming", True):
        body["stream_options"] = {"include_usage": True}
    if _compat(model, "supportsStore", True):
        body["store"] = False
    field = str(_compat(model, "maxTokensField", "max_completion_tokens"))
    wanted = max_tokens if max_tokens is not None else model.max_tokens
    body[field] = clamp_max_tokens_to_context(model, context, wanted)
    if context.tools:
        body["tools"] = convert_tools(context.tools)
    if model.reasoning and thinking != "off" and _compat(model, "supportsReasoningEffort", True):
        body["reasoning_effort"] = _EFFORT[thinking]
    if temperature is not None:
        body["temperature"] = temperature
    if isinstance(model.sampling_params, dict):
        body.update(model.sampling_params)
    return body
