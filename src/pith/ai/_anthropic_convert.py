"""pith messages to Anthropic Messages request bodies (pure functions, no I/O).

Anthropic is stricter than OpenAI-compatible servers about history: every `tool_use` needs a
`tool_result` in the next user message, thinking signatures are only valid for the model that
wrote them, error tool results may hold text only, and empty text blocks are rejected. The
transcript is normalised first (`_transcript`, as Pi does) so that a session never becomes
unsendable.
"""

from __future__ import annotations

from collections.abc import Sequence

from pith.ai._context_budget import clamp_max_tokens, estimate_input_tokens
from pith.ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    UserMessage,
)
from pith.ai._models import Model, ThinkingLevel
from pith.ai._stream import Context, ToolSpec
from pith.ai._transcript import (
    TOOL_IMAGE_OMITTED,
    USER_IMAGE_OMITTED,
    clean_text,
    normalise_transcript,
    safe_tool_id,
    same_model,
    without_images,
)

__all__ = [
    "CACHE_CONTROL",
    "INTERLEAVED_THINKING_BETA",
    "THINKING_BUDGETS",
    "build_request",
    "convert_messages",
    "convert_tools",
    "request_headers",
    "thinking_budget",
    "without_cache_breakpoints",
]

JsonObject = dict[str, object]

CACHE_CONTROL: JsonObject = {"type": "ephemeral"}
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"

THINKING_BUDGETS: dict[ThinkingLevel, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 16384,
    "max": 16384,
}
MIN_ANSWER_TOKENS = 1024
"""Tokens always left for the answer when the thinking budget shares `max_tokens`."""
MIN_THINKING_BUDGET = 1024
"""Anthropic rejects smaller `budget_tokens`."""

SAMPLING_KEYS = frozenset({"temperature", "top_p", "top_k", "stop_sequences"})
"""The `samplingParams` keys merged into a request, and only with thinking off: Anthropic rejects
`temperature`/`top_k` (and most `top_p` values) with extended thinking, and any other key could
clobber the body pith builds."""

ERROR_IMAGE_PLACEHOLDER = "(image attached after the tool results)"


def thinking_budget(
    level: ThinkingLevel, max_tokens: int | None, model_max_tokens: int
) -> tuple[int, int]:
    """`(max_tokens, budget_tokens)` for budget-based extended thinking at `level`.

    `max_tokens` is the caller's answer cap (None: use the model's whole output cap); the
    budget is added on top, within the model's cap, and shrunk so that at least 1024 tokens
    are left for the answer.
    """
    budget = THINKING_BUDGETS.get(level, THINKING_BUDGETS["high"])
    cap = model_max_tokens if max_tokens is None else min(max_tokens + budget, model_max_tokens)
    budget = min(budget, cap - MIN_ANSWER_TOKENS)
    if budget < MIN_THINKING_BUDGET:
        budget = MIN_THINKING_BUDGET
        cap = max(cap, budget + MIN_ANSWER_TOKENS)
    return cap, budget


def _image(block: ImageContent) -> JsonObject:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
    }


def _user(message: UserMessage, images: bool) -> JsonObject | None:
    if isinstance(message.content, str):
        if not message.content.strip():
            return None
        return {"role": "user", "content": clean_text(message.content)}
    content = message.content if images else without_images(message.content, USER_IMAGE_OMITTED)
    blocks: list[JsonObject] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": clean_text(block.text)})
        else:
            blocks.append(_image(block))
    return {"role": "user", "content": blocks} if blocks else None


def _assistant(message: AssistantMessage, model: Model, ids: dict[str, str]) -> JsonObject | None:
    own = same_model(message, model)
    blocks: list[JsonObject] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": clean_text(block.text)})
        elif isinstance(block, ThinkingContent):
            # Signatures are only valid for the model that produced them; another model's
            # readable thinking would look like part of its visible reply.
            if not own:
                continue
            signature = (
                block.thinking_signature if isinstance(block.thinking_signature, str) else ""
            )
            if block.redacted is True:
                blocks.append({"type": "redacted_thinking", "data": signature})
            elif signature.strip():
                blocks.append(
                    {
                        "type": "thinking",
                        "thinking": clean_text(block.thinking),
                        "signature": signature,
                    }
                )
            elif block.thinking.strip():
                # No signature (an interrupted stream): Anthropic would reject it as thinking.
                blocks.append({"type": "text", "text": clean_text(block.thinking)})
        else:
            call_id = block.id
            if not own:
                call_id = safe_tool_id(block.id)
                ids[block.id] = call_id
            blocks.append(
                {"type": "tool_use", "id": call_id, "name": block.name, "input": block.arguments}
            )
    return {"role": "assistant", "content": blocks} if blocks else None


def _result_content(content: Sequence[TextContent | ImageContent]) -> str | list[JsonObject]:
    if not any(isinstance(block, ImageContent) for block in content):
        return clean_text("\n".join(b.text for b in content if isinstance(b, TextContent)))
    blocks: list[JsonObject] = []
    for block in content:
        if isinstance(block, ImageContent):
            blocks.append(_image(block))
        elif block.text:
            blocks.append({"type": "text", "text": clean_text(block.text)})
    if not any(block["type"] == "text" for block in blocks):
        blocks.insert(0, {"type": "text", "text": "(see attached image)"})
    return blocks


def _tool_results(results: list[ToolResultMessage], images: bool) -> JsonObject:
    """One user message: every `tool_result` first, then images split out of error results."""
    blocks: list[JsonObject] = []
    trailing: list[JsonObject] = []
    for result in results:
        content = list(result.content)
        if not images:
            content = without_images(content, TOOL_IMAGE_OMITTED)
        error_images = (
            [b for b in content if isinstance(b, ImageContent)] if result.is_error else []
        )
        if error_images:
            # Anthropic rejects anything but text inside an error tool result.
            content = without_images(content, ERROR_IMAGE_PLACEHOLDER)
            caption = (
                f"Images from the error result of tool call {result.tool_call_id} "
                f"({result.tool_name}):"
            )
            trailing.append({"type": "text", "text": caption})
            trailing.extend(_image(image) for image in error_images)
        blocks.append(
            {
                "type": "tool_result",
                "tool_use_id": result.tool_call_id,
                "content": _result_content(content),
                "is_error": result.is_error,
            }
        )
    return {"role": "user", "content": [*blocks, *trailing]}


def convert_messages(model: Model, messages: list[Message]) -> tuple[list[JsonObject], list[str]]:
    """The `messages` array of a request, and the texts of system messages in the transcript.

    The last block of the last message, when it is the user's, carries the conversation cache
    breakpoint.
    """
    transcript, system = normalise_transcript(messages)
    images = model.supports_images()
    ids: dict[str, str] = {}
    out: list[JsonObject] = []
    results: list[ToolResultMessage] = []

    def flush_results() -> None:
        if results:
            out.append(_tool_results(results, images))
            results.clear()

    for message in transcript:
        if isinstance(message, ToolResultMessage):
            call_id = ids.get(message.tool_call_id, message.tool_call_id)
            if call_id != message.tool_call_id:
                message = ToolResultMessage(
                    tool_call_id=call_id,
                    tool_name=message.tool_name,
                    content=message.content,
                    is_error=message.is_error,
                )
            results.append(message)
            continue
        flush_results()
        converted: JsonObject | None = None
        if isinstance(message, UserMessage):
            converted = _user(message, images)
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message, model, ids)
        if converted is not None:
            out.append(converted)
    flush_results()
    _mark_last_user_message(out)
    return out, system


def without_cache_breakpoints(body: JsonObject) -> JsonObject:
    """`body` with every `cache_control` taken out of its system, tools and messages."""

    def clean(blocks: object) -> object:
        if not isinstance(blocks, list):
            return blocks
        return [
            {k: v for k, v in block.items() if k != "cache_control"}
            if isinstance(block, dict)
            else block
            for block in blocks
        ]

    out = dict(body)
    for key in ("system", "tools"):
        if key in out:
            out[key] = clean(out[key])
    messages = out.get("messages")
    if isinstance(messages, list):
        out["messages"] = [
            {**message, "content": clean(message.get("content"))}
            if isinstance(message, dict)
            else message
            for message in messages
        ]
    return out


def _mark_last_user_message(messages: list[JsonObject]) -> None:
    if not messages or messages[-1]["role"] != "user":
        return
    last = messages[-1]
    content = last["content"]
    if isinstance(content, str):
        last["content"] = [{"type": "text", "text": content, "cache_control": dict(CACHE_CONTROL)}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        content[-1]["cache_control"] = dict(CACHE_CONTROL)


def convert_tools(tools: list[ToolSpec]) -> list[JsonObject]:
    """Tool definitions, the last one carrying the cache breakpoint for system + tools."""
    out: list[JsonObject] = []
    for tool in tools:
        schema = tool.parameters
        # Anthropic rejects root-level anyOf/oneOf/allOf: keep only what an object schema needs.
        input_schema: JsonObject = {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        }
        for key in ("additionalProperties", "$defs", "definitions"):
            if key in schema:
                input_schema[key] = schema[key]
        out.append(
            {"name": tool.name, "description": tool.description, "input_schema": input_schema}
        )
    if out:
        out[-1]["cache_control"] = dict(CACHE_CONTROL)
    return out


def thinking_enabled(model: Model, thinking: ThinkingLevel) -> bool:
    return model.reasoning and thinking != "off"


def request_headers(
    model: Model, thinking: ThinkingLevel, headers: dict[str, str]
) -> dict[str, str]:
    """`headers` plus the interleaved-thinking beta when thinking is on (unless the caller set
    its own `anthropic-beta`), so Claude can think between tool calls."""
    out = dict(headers)
    if thinking_enabled(model, thinking) and not any(
        key.lower() == "anthropic-beta" for key in out
    ):
        out["anthropic-beta"] = INTERLEAVED_THINKING_BETA
    return out


def build_request(
    model: Model,
    context: Context,
    *,
    max_tokens: int | None,
    thinking: ThinkingLevel,
    temperature: float | None,
) -> JsonObject:
    """The full request body for a streamed Messages call."""
    messages, system_texts = convert_messages(model, context.messages)
    body: JsonObject = {"model": model.id}
    system = "\n\n".join(text for text in [context.system_prompt, *system_texts] if text)
    if system:
        body["system"] = [
            {"type": "text", "text": clean_text(system), "cache_control": dict(CACHE_CONTROL)}
        ]
    # Pi's order: clamp the wanted output to the window, add the thinking budget on top, clamp
    # again, then shrink the budget to leave 1024 answer tokens (1024 when nothing is left).
    input_tokens = estimate_input_tokens(context) if model.context_window > 0 else 0

    def fit(wanted: int) -> int:
        return clamp_max_tokens(
            wanted, context_window=model.context_window, input_tokens=input_tokens
        )

    limit = fit(max_tokens if max_tokens is not None else model.max_tokens)
    body["messages"] = messages
    body["max_tokens"] = limit
    body["stream"] = True
    if context.tools:
        body["tools"] = convert_tools(context.tools)
    if thinking_enabled(model, thinking):
        cap, budget = thinking_budget(thinking, limit, model.max_tokens)
        cap = fit(cap)
        body["max_tokens"] = cap
        budget = min(budget, max(0, cap - MIN_ANSWER_TOKENS)) or MIN_THINKING_BUDGET
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    else:
        if isinstance(model.sampling_params, dict):
            body.update(
                (key, value) for key, value in model.sampling_params.items() if key in SAMPLING_KEYS
            )
        if temperature is not None:
            body["temperature"] = temperature
    return body
