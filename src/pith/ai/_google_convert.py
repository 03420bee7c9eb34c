"""pith messages to Gemini `generateContent` request bodies (pure functions, no I/O).

Gemini has two roles, `user` and `model`; a reply is a list of parts (text, `thought: true`
text, `functionCall`), and any part may carry a `thoughtSignature` that must come back on the
same part in later requests. pith keeps it on the block that carried it, in Pi's fields:
`textSignature` on text, `thinkingSignature` on thinking, `thoughtSignature` on a tool call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pith.ai._context_budget import clamp_max_tokens_to_context
from pith.ai._google_schema import gemini_schema
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
from pith.ai._transcript import USER_IMAGE_OMITTED, clean_text, normalise_transcript, safe_tool_id

__all__ = [
    "build_request",
    "convert_messages",
    "convert_tools",
    "is_valid_signature",
    "thinking_config",
    "uses_thinking_level",
]

JsonObject = dict[str, object]

TOOL_IMAGE_CAPTION = "Tool result image:"

_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_MAJOR = re.compile(r"^gemini(?:-live)?-(\d+)")
_LEVEL_MODELS = re.compile(
    r"gemini-3(?:\.\d+)?-(?:pro|flash)|gemini-(?:[4-9]|[1-9]\d)|^gemini-flash(?:-lite)?-latest$"
)

_BUDGETS: tuple[tuple[str, dict[str, int]], ...] = (
    ("2.5-pro", {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}),
    ("2.5-flash-lite", {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}),
    ("2.5-flash", {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}),
)
"""`thinkingBudget` per level for the Gemini 2.5 families (first match wins); other models
get -1, the dynamic budget."""


def _major_version(model_id: str) -> int | None:
    match = _MAJOR.match(model_id.lower())
    return int(match.group(1)) if match else None


def _sends_call_ids(model: Model) -> bool:
    """Gemini 3 and later pair calls and responses by `id`; older models by name and order."""
    major = _major_version(model.id)
    return major is not None and major >= 3


def uses_thinking_level(model: Model) -> bool:
    """Gemini 3 and later take a `thinkingLevel`; 2.5 models a `thinkingBudget`."""
    return bool(_LEVEL_MODELS.search(model.id.lower()))


def _clamped(level: ThinkingLevel) -> str:
    return "high" if level in ("xhigh", "max") else level


def thinking_config(model: Model, level: ThinkingLevel) -> JsonObject | None:
    """`generationConfig.thinkingConfig` for `level`, or None for a model that does not think.

    Off means a zero budget on 2.5 models; 2.5 Pro and Gemini 3 cannot stop thinking, so they
    think as little as they can (a budget of 128; `MINIMAL`, `LOW` for Pro models) and show
    none of it.
    """
    if not model.reasoning:
        return None
    if uses_thinking_level(model):
        lowest = "LOW" if "-pro" in model.id.lower() else "MINIMAL"
        if level == "off":
            return {"thinkingLevel": lowest}
        name = _clamped(level).upper()
        return {"includeThoughts": True, "thinkingLevel": lowest if name == "MINIMAL" else name}
    if level == "off":
        # 2.5 Pro only works thinking and rejects a zero budget: it gets its least.
        return {"thinkingBudget": 128 if "2.5-pro" in model.id else 0}
    budget = -1
    for family, budgets in _BUDGETS:
        if family in model.id:
            budget = budgets[_clamped(level)]
            break
    return {"includeThoughts": True, "thinkingBudget": budget}


def is_valid_signature(signature: object) -> bool:
    """Google takes signatures as bytes: anything but padded base64 is rejected."""
    return (
        isinstance(signature, str)
        and bool(signature)
        and len(signature) % 4 == 0
        and bool(_BASE64.match(signature))
    )


def _inline(block: ImageContent) -> JsonObject:
    return {"inlineData": {"mimeType": block.mime_type, "data": block.data}}


def _user(message: UserMessage, images: bool) -> JsonObject | None:
    if isinstance(message.content, str):
        return {"role": "user", "parts": [{"text": clean_text(message.content)}]}
    parts: list[JsonObject] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"text": clean_text(block.text)})
        elif images:
            parts.append(_inline(block))
        elif not parts or parts[-1] != {"text": USER_IMAGE_OMITTED}:
            parts.append({"text": USER_IMAGE_OMITTED})
    return {"role": "user", "parts": parts} if parts else None


def _signed(part: JsonObject, signature: object, same_model: bool) -> JsonObject:
    if same_model and is_valid_signature(signature):
        part["thoughtSignature"] = signature
    return part


def _assistant(message: AssistantMessage, model: Model, ids: dict[str, str]) -> JsonObject | None:
    same_model = message.provider == model.provider and message.model == model.id
    signed = same_model and message.api == model.api
    parts: list[JsonObject] = []
    for block in message.content:
        if isinstance(block, TextContent):
            part = _signed({"text": clean_text(block.text)}, block.text_signature, signed)
            # An empty part is kept only for its signature, which Gemini wants back.
            if block.text.strip() or "thoughtSignature" in part:
                parts.append(part)
        elif isinstance(block, ThinkingContent):
            if block.redacted is True:
                continue
            if same_model:
                part = _signed(
                    {"thought": True, "text": clean_text(block.thinking)},
                    block.thinking_signature,
                    signed,
                )
                if block.thinking.strip() or "thoughtSignature" in part:
                    parts.append(part)
            elif block.thinking.strip():
                # Another model's thinking, as plain text: its signature means nothing here.
                parts.append({"text": clean_text(block.thinking)})
        else:
            call: JsonObject = {"name": block.name, "args": block.arguments}
            if _sends_call_ids(model):
                call_id = safe_tool_id(block.id)
                ids[block.id] = call_id
                call["id"] = call_id
            parts.append(_signed({"functionCall": call}, block.thought_signature, signed))
    return {"role": "model", "parts": parts} if parts else None


def _tool_result(
    result: ToolResultMessage, model: Model, ids: dict[str, str]
) -> tuple[JsonObject, JsonObject | None]:
    """The `functionResponse` part, and a user turn with the result's images for models
    that cannot take images inside a function response (before Gemini 3)."""
    text = "\n".join(b.text for b in result.content if isinstance(b, TextContent))
    images = [b for b in result.content if isinstance(b, ImageContent)]
    if not model.supports_images():
        images = []
    value = clean_text(text) if text.strip() else ("(see attached image)" if images else "")
    response: JsonObject = {
        "name": result.tool_name,
        "response": {"error": value} if result.is_error else {"output": value},
    }
    nested = _sends_call_ids(model)
    if images and nested:
        response["parts"] = [_inline(image) for image in images]
    if nested:
        response["id"] = ids.get(result.tool_call_id, result.tool_call_id)
    extra: JsonObject | None = None
    if images and not nested:
        extra = {
            "role": "user",
            "parts": [{"text": TOOL_IMAGE_CAPTION}, *(_inline(image) for image in images)],
        }
    return {"functionResponse": response}, extra


def convert_messages(
    model: Model, messages: Sequence[Message]
) -> tuple[list[JsonObject], list[str]]:
    """The `contents` of a request, and the texts of system messages in the transcript.

    Failed replies are dropped and unanswered tool calls get an error result (as for
    Anthropic); the results of one reply share one user turn.
    """
    transcript, system = normalise_transcript(messages)
    images = model.supports_images()
    ids: dict[str, str] = {}
    out: list[JsonObject] = []
    pending_images: list[JsonObject] = []
    for message in transcript:
        if isinstance(message, ToolResultMessage):
            part, extra = _tool_result(message, model, ids)
            last = out[-1] if out else None
            last_parts = last.get("parts") if last is not None else None
            if (
                last is not None
                and last["role"] == "user"
                and isinstance(last_parts, list)
                and any("functionResponse" in p for p in last_parts)
            ):
                last_parts.append(part)
            else:
                out.append({"role": "user", "parts": [part]})
            if extra is not None:
                pending_images.append(extra)
            continue
        out.extend(pending_images)
        pending_images.clear()
        converted: JsonObject | None = None
        if isinstance(message, UserMessage):
            converted = _user(message, images)
        elif isinstance(message, AssistantMessage):
            converted = _assistant(message, model, ids)
        if converted is not None:
            out.append(converted)
    out.extend(pending_images)
    return out, system


def convert_tools(tools: Sequence[ToolSpec]) -> list[JsonObject]:
    """`tools`: one entry holding every function declaration."""
    if not tools:
        return []
    declarations = [
        {
            "name": tool.name,
            "description": tool.description,
            "parametersJsonSchema": gemini_schema(tool.parameters),
        }
        for tool in tools
    ]
    return [{"functionDeclarations": declarations}]


def build_request(
    model: Model,
    context: Context,
    *,
    max_tokens: int | None,
    thinking: ThinkingLevel,
    temperature: float | None,
) -> JsonObject:
    """The full body of a `streamGenerateContent` call (the model is named in the URL)."""
    contents, system_texts = convert_messages(model, context.messages)
    body: JsonObject = {"contents": contents}
    system = "\n\n".join(text for text in [context.system_prompt, *system_texts] if text)
    if system:
        body["systemInstruction"] = {"parts": [{"text": clean_text(system)}]}
    if context.tools:
        body["tools"] = convert_tools(context.tools)
    wanted = max_tokens if max_tokens is not None else model.max_tokens
    config: JsonObject = {"maxOutputTokens": clamp_max_tokens_to_context(model, context, wanted)}
    if temperature is not None:
        config["temperature"] = temperature
    thinking_settings = thinking_config(model, thinking)
    if thinking_settings is not None:
        config["thinkingConfig"] = thinking_settings
    body["generationConfig"] = config
    return body
