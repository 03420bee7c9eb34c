"""pith messages to OpenAI Responses request bodies (pure functions, no I/O).

The requests are stateless (`store: false`): nothing is kept on OpenAI's side between turns,
so every earlier reasoning item goes back in the `input`, in order, with the encrypted content
OpenAI returned for it. Pi's session fields hold what is needed for that, and pith uses the
same ones so that sessions stay interchangeable:

- a thinking block's `thinkingSignature` is the whole reasoning item as JSON
  (`{"type": "reasoning", "id": "rs_…", "summary": [...], "encrypted_content": "…"}`);
- a text block's `textSignature` is `{"v": 1, "id": "msg_…"}` (plus `phase` when sent);
- a tool call's `id` is `<call_id>|<item id>`: `call_id` pairs the call with its
  `function_call_output`, the item id (`fc_…`) pairs it with the reasoning before it.

Reasoning items are only valid for the model that wrote them: another model's (or another
provider's) thinking is left out, its text and tool calls are sent without item ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pith.ai._context_budget import clamp_max_tokens_to_context
from pith.ai._messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
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
    "MIN_OUTPUT_TOKENS",
    "build_request",
    "call_id_of",
    "convert_input",
    "convert_tools",
    "reasoning_effort",
    "text_signature",
]

JsonObject = dict[str, object]

MIN_OUTPUT_TOKENS = 16
"""OpenAI rejects a smaller `max_output_tokens`."""
CACHE_KEY_MAX_CHARS = 64
"""OpenAI rejects a longer `prompt_cache_key`."""

_GPT5_POINT = re.compile(r"^gpt-5\.\d")
_O_SERIES = re.compile(r"^o\d")


def reasoning_effort(model_id: str, level: ThinkingLevel) -> str:
    """The `reasoning.effort` OpenAI accepts for `model_id` at thinking `level`.

    Levels a model does not offer move to the nearest one it does (up first, as Pi clamps):
    the o-series cannot turn reasoning off or go below `low`; GPT-5 goes down to `minimal`
    but not `none`; GPT-5.1 and later turn it off with `none` and have no `minimal`. Above
    `high` every model gets `high`. Other models get the level's own name (`none` for off).
    """
    name = model_id.rsplit("/", 1)[-1]
    if level in ("xhigh", "max"):
        return "high"
    if _O_SERIES.match(name):
        return "low" if level in ("off", "minimal") else level
    if _GPT5_POINT.match(name):
        return {"off": "none", "minimal": "low"}.get(level, level)
    if name.startswith("gpt-5") or name.startswith("codex"):
        return "minimal" if level == "off" else level
    return "none" if level == "off" else level


def text_signature(item_id: str, phase: object = None) -> str:
    """A text block's `textSignature`: the message item it came from."""
    payload: JsonObject = {"v": 1, "id": item_id}
    if isinstance(phase, str):
        payload["phase"] = phase
    return json.dumps(payload, separators=(",", ":"))


def _text_item_id(signature: object) -> tuple[str | None, str | None]:
    """`(id, phase)` from a `textSignature` (JSON, or a bare id as older sessions hold)."""
    if not isinstance(signature, str) or not signature:
        return None, None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except ValueError:
            return None, None
        if isinstance(parsed, dict) and isinstance(parsed.get("id"), str):
            phase = parsed.get("phase")
            return parsed["id"], phase if isinstance(phase, str) else None
        return None, None
    return signature, None


def call_id_of(tool_call_id: str) -> str:
    """The `call_id` part of a tool call id, in the characters OpenAI accepts (64 at most)."""
    call_id = tool_call_id.split("|", 1)[0]
    return safe_tool_id(call_id).rstrip("_") or "call"


def _image(block: ImageContent) -> JsonObject:
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.mime_type};base64,{block.data}",
    }


def _user(message: UserMessage, images: bool) -> JsonObject | None:
    if isinstance(message.content, str):
        if not message.content.strip():
            return None
        text: JsonObject = {"type": "input_text", "text": clean_text(message.content)}
        return {"role": "user", "content": [text]}
    content = message.content if images else without_images(message.content, USER_IMAGE_OMITTED)
    parts: list[JsonObject] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text:
                parts.append({"type": "input_text", "text": clean_text(block.text)})
        else:
            parts.append(_image(block))
    return {"role": "user", "content": parts} if parts else None


def _reasoning_item(block: ThinkingContent) -> JsonObject | None:
    signature = block.thinking_signature
    if not isinstance(signature, str) or not signature.startswith("{"):
        return None
    try:
        item = json.loads(signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def _assistant(message: AssistantMessage, model: Model, position: int) -> list[JsonObject]:
    own = same_model(message, model)
    items: list[JsonObject] = []
    texts = 0
    for block in message.content:
        if isinstance(block, ThinkingContent):
            item = _reasoning_item(block) if own else None
            if item is not None:
                items.append(item)
        elif isinstance(block, TextContent):
            if not block.text.strip():
                continue
            item_id, phase = _text_item_id(block.text_signature) if own else (None, None)
            fallback = f"msg_pith_{position}" + (f"_{texts}" if texts else "")
            texts += 1
            output: JsonObject = {
                "type": "output_text",
                "text": clean_text(block.text),
                "annotations": [],
            }
            text_item: JsonObject = {
                "type": "message",
                "role": "assistant",
                "content": [output],
                "status": "completed",
                "id": item_id if item_id and len(item_id) <= CACHE_KEY_MAX_CHARS else fallback,
            }
            if phase is not None:
                text_item["phase"] = phase
            items.append(text_item)
        else:
            items.append(_function_call(block, own))
    return items


def _function_call(call: ToolCall, same_model: bool) -> JsonObject:
    item: JsonObject = {"type": "function_call"}
    _, _, item_id = call.id.partition("|")
    # An item id pairs the call with the reasoning item before it: only the same model's.
    if same_model and item_id.startswith("fc"):
        item["id"] = item_id
    item.update(
        call_id=call_id_of(call.id),
        name=call.name,
        arguments=json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":")),
    )
    return item


def _tool_output(result: ToolResultMessage, images: bool) -> str | list[JsonObject]:
    content: Sequence[TextContent | ImageContent] = result.content
    if not images:
        content = without_images(content, TOOL_IMAGE_OMITTED)
    text = "\n".join(block.text for block in content if isinstance(block, TextContent))
    pictures = [block for block in content if isinstance(block, ImageContent)]
    if not pictures:
        return clean_text(text) if text.strip() else "(no tool output)"
    parts: list[JsonObject] = []
    if text.strip():
        parts.append({"type": "input_text", "text": clean_text(text)})
    parts.extend(_image(picture) for picture in pictures)
    return parts


def convert_input(model: Model, system_prompt: str, messages: list[Message]) -> list[JsonObject]:
    """The `input` array of a Responses request: instructions first, then the transcript."""
    transcript, system_texts = normalise_transcript(messages)
    images = model.supports_images()
    out: list[JsonObject] = []
    for position, message in enumerate(transcript):
        if isinstance(message, UserMessage):
            user = _user(message, images)
            if user is not None:
                out.append(user)
        elif isinstance(message, AssistantMessage):
            out.extend(_assistant(message, model, position))
        elif isinstance(message, ToolResultMessage):
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": call_id_of(message.tool_call_id),
                    "output": _tool_output(message, images),
                }
            )
    instructions = "\n\n".join(text for text in (system_prompt, *system_texts) if text)
    if instructions:
        compat = model.compat if isinstance(model.compat, dict) else {}
        developer = model.reasoning and compat.get("supportsDeveloperRole", True) is not False
        out.insert(0, {"role": "developer" if developer else "system", "content": instructions})
    return out


def convert_tools(tools: list[ToolSpec]) -> list[JsonObject]:
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
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
    session_id: str | None,
) -> JsonObject:
    """The full body of a streamed, stateless Responses request."""
    body: JsonObject = {
        "model": model.id,
        "input": convert_input(model, context.system_prompt, context.messages),
        "stream": True,
        "store": False,
    }
    if session_id:
        body["prompt_cache_key"] = session_id[:CACHE_KEY_MAX_CHARS]
    wanted = max_tokens if max_tokens is not None else model.max_tokens
    body["max_output_tokens"] = max(
        clamp_max_tokens_to_context(model, context, wanted), MIN_OUTPUT_TOKENS
    )
    if temperature is not None:
        body["temperature"] = temperature
    if context.tools:
        body["tools"] = convert_tools(context.tools)
    if model.reasoning:
        effort = reasoning_effort(model.id, thinking)
        if effort == "none":
            body["reasoning"] = {"effort": effort}
        else:
            body["reasoning"] = {"effort": effort, "summary": "auto"}
            # Without it a replayed reasoning item cannot be read back with `store: false`.
            body["include"] = ["reasoning.encrypted_content"]
    if isinstance(model.sampling_params, dict):
        body.update(model.sampling_params)
    return body
