"""pith messages to OpenAI chat-completions request bodies (pure functions, no I/O)."""

from __future__ import annotations

import json
from urllib.parse import urlparse

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


def _tool_results(results: list[ToolResultMessage], model: Model) -> list[JsonObject]:
    out: list[JsonObject] = []
    images: list[JsonObject] = []
    for result in results:
        text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
        has_images = any(isinstance(block, ImageContent) for block in result.content)
        content = (
            text if text.strip() else ("(see attached image)" if has_images else "(no tool output)")
        )
        message: JsonObject = {
            "role": "tool",
            "content": content,
            "tool_call_id": result.tool_call_id,
        }
        if _compat(model, "requiresToolResultName", False):
            message["name"] = result.tool_name
        out.append(message)
        if has_images and model.supports_images():
            images.extend(_image_part(b) for b in result.content if isinstance(b, ImageContent))
    if images:
        out.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Attached image(s) from tool result:"},
                    *images,
                ],
            }
        )
    return out


def convert_messages(model: Model, system_prompt: str, messages: list[Message]) -> list[JsonObject]:
    """The `messages` array of a chat-completions request."""
    role = (
        "developer"
        if model.reasoning and _compat(model, "supportsDeveloperRole", _is_openai(model))
        else "system"
    )
    out: list[JsonObject] = []
    system_texts = [system_prompt] if system_prompt else []
    pending_results: list[ToolResultMessage] = []

    def flush_results() -> None:
        if pending_results:
            out.extend(_tool_results(pending_results, model))
            pending_results.clear()

    for message in messages:
        if isinstance(message, ToolResultMessage):
            pending_results.append(message)
            continue
        flush_results()
        if isinstance(message, SystemMessage):
            text = (
                message.content
                if isinstance(message.content, str)
                else "".join(b.text for b in message.content)
            )
            if text:
                system_texts.append(text)
        elif isinstance(message, UserMessage):
            converted = _user(message)
            if converted is not None:
                out.append(converted)
        else:
            converted = _assistant(message, model)
            if converted is not None:
                out.append(converted)
    flush_results()
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
    body[field] = max_tokens if max_tokens is not None else model.max_tokens
    if context.tools:
        body["tools"] = convert_tools(context.tools)
    if model.reasoning and thinking != "off" and _compat(model, "supportsReasoningEffort", True):
        body["reasoning_effort"] = _EFFORT[thinking]
    if temperature is not None:
        body["temperature"] = temperature
    if isinstance(model.sampling_params, dict):
        body.update(model.sampling_params)
    return body
