"""The command table: one async handler per RPC command.

A handler returns the response's `data` (`NO_DATA` for none, `SENT` when it wrote the response
itself), or raises `ProtocolError` / `PithError` with a one-line message that becomes the
failure response.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Final

from pith.agent import QueueMode, ToolResult
from pith.ai import (
    THINKING_LEVELS,
    ImageContent,
    Model,
    TextContent,
    UserContent,
    UserMessage,
    to_builtins,
)
from pith.app.export import export_store
from pith.app.modes.rpc._context import RpcContext
from pith.app.modes.rpc._protocol import (
    NO_DATA,
    Command,
    ProtocolError,
    optional_bool,
    optional_choice,
    optional_str,
    require_bool,
    require_choice,
    require_str,
    success,
    user_images,
)
from pith.app.modes.rpc._views import (
    bash_delta,
    entries_since,
    entry_json,
    last_assistant_text,
    message_text,
    session_totals,
    tree_json,
)
from pith.app.session import BUILTINS, session_dir_for
from pith.errors import InputError
from pith.resources import agent_dir
from pith.session import resolve_session_arg

__all__ = ["HANDLERS", "IMMEDIATE", "SENT"]

Handler = Callable[[RpcContext, Command], Awaitable[object]]


class _Sent:
    def __repr__(self) -> str:
        return "SENT"


SENT: Final = _Sent()
"""The handler wrote its response itself (a prompt answers when its run starts)."""

QUEUE_MODES: Final[tuple[QueueMode, ...]] = ("one-at-a-time", "all")


# --- prompting --------------------------------------------------------------------------------


def _is_command(ctx: RpcContext, command: Command, text: str) -> bool:
    """Whether `text` runs a pith or extension command; an unknown `/word`, or a command that
    needs the terminal, is refused (never sent to the model as text)."""
    session = ctx.session
    invocation = session.find_invocation(text)
    if invocation is None or invocation.kind in ("template", "skill"):
        return False
    problem = session.command_refusal(text)
    if problem is not None:
        raise ProtocolError(f"{command.type}: {problem}", command=command.type, id=command.id)
    return True


async def prompt(ctx: RpcContext, command: Command) -> object:
    text = require_str(command, "message")
    images = user_images(command)
    behavior = optional_choice(command, "streamingBehavior", ("steer", "followUp"))
    session = ctx.session
    if _is_command(ctx, command, text):
        # A `/command` runs at once, even beside a run; it starts runs of its own if it wants.
        if ctx.busy():
            ctx.start_side(session.prompt(text, images, source="rpc"))
        else:
            ctx.start_run(session.prompt(text, images, source="rpc"))
        return {"disposition": "handled"}
    if ctx.busy():
        if behavior is None:
            raise ProtocolError(
                "prompt: the agent is working; set 'streamingBehavior' to \"steer\" or "
                '"followUp" to queue this message, or send abort first',
                command="prompt",
                id=command.id,
            )
        _queue(ctx, text, images, behavior)
        return {"disposition": "queued"}
    started = asyncio.Event()

    def announce() -> None:
        ctx.write(success(command.id, "prompt", {"disposition": "started"}))
        started.set()

    ctx.announce = announce
    run = ctx.start_run(session.prompt(text, images, source="rpc"))
    waiter = asyncio.create_task(started.wait())
    try:
        await asyncio.wait({run, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if ctx.announce is announce:
            ctx.announce = None
    if started.is_set():
        return SENT
    error = run.exception()
    if error is not None:
        raise error
    return {"disposition": "handled"}  # an input handler took it


def _queue(ctx: RpcContext, text: str, images: list[ImageContent], behavior: str) -> None:
    session = ctx.session
    content: list[UserContent] = [TextContent(text=session.expand(text)), *images]
    message = UserMessage(content=content)
    if behavior == "steer":
        session.agent.steer(message)
    else:
        session.agent.follow_up(message)
    ctx.sync_queue()


async def steer(ctx: RpcContext, command: Command) -> object:
    return _queued(ctx, command, "steer")


async def follow_up(ctx: RpcContext, command: Command) -> object:
    return _queued(ctx, command, "followUp")


def _queued(ctx: RpcContext, command: Command, behavior: str) -> object:
    text = require_str(command, "message")
    images = user_images(command)
    if _is_command(ctx, command, text):
        raise ProtocolError(
            f"{command.type}: {text.split(' ', 1)[0]} is a command; send it with prompt",
            command=command.type,
            id=command.id,
        )
    _queue(ctx, text, images, behavior)
    return {"disposition": "queued"}


async def abort(ctx: RpcContext, command: Command) -> object:
    ctx.session.abort()
    await ctx.wait_for_runs()
    return NO_DATA


async def clear_queue(ctx: RpcContext, command: Command) -> object:
    agent = ctx.session.agent
    steering, later = agent.queued()
    agent.clear_queues()
    ctx.sync_queue()
    return {
        "steering": [message_text(message) for message in steering],
        "followUp": [message_text(message) for message in later],
    }


# --- state and model --------------------------------------------------------------------------


async def get_state(ctx: RpcContext, command: Command) -> object:
    session = ctx.session
    store = session.store
    steering, later = session.agent.queued()
    state: dict[str, object] = {
        "model": to_builtins(session.model),
        "thinkingLevel": session.thinking,
        "isStreaming": ctx.busy(),
        "isCompacting": ctx.compacting,
        "steeringMode": session.agent.options.steering_mode,
        "followUpMode": session.agent.options.follow_up_mode,
    }
    if store.path is not None:
        state["sessionFile"] = str(store.path)
    state["sessionId"] = store.id
    if store.name is not None:
        state["sessionName"] = store.name
    state["autoCompactionEnabled"] = session.config.values.compaction.enabled
    state["messageCount"] = len(session.messages)
    state["pendingMessageCount"] = len(steering) + len(later)
    return state


async def get_messages(ctx: RpcContext, command: Command) -> object:
    return {"messages": to_builtins(ctx.session.messages)}


def _usable(ctx: RpcContext) -> list[Model]:
    return ctx.session.usable_models()


async def set_model(ctx: RpcContext, command: Command) -> object:
    provider = require_str(command, "provider")
    model_id = require_str(command, "modelId")
    session = ctx.session
    found = next(
        (m for m in session.registry.models if m.provider == provider and m.id == model_id), None
    )
    if found is None:
        raise InputError(f"Model not found: {provider}/{model_id}")
    if not await session.set_model(found):
        raise InputError(f"no API key for {found.key}: set one in models.json or the environment")
    _fit_thinking(ctx)
    return to_builtins(found)


async def cycle_model(ctx: RpcContext, command: Command) -> object:
    session = ctx.session
    chosen = await session.cycle_model()
    if chosen is None:
        return None
    return {"model": to_builtins(chosen), "thinkingLevel": session.thinking, "isScoped": False}


async def get_available_models(ctx: RpcContext, command: Command) -> object:
    return {"models": to_builtins(_usable(ctx))}


def _levels(ctx: RpcContext) -> list[str]:
    return list(ctx.session.thinking_levels())


def _fit_thinking(ctx: RpcContext) -> None:
    ctx.session.fit_thinking()


async def set_thinking_level(ctx: RpcContext, command: Command) -> object:
    level = require_choice(command, "level", THINKING_LEVELS)
    session = ctx.session
    session.set_thinking_level(level if level in _levels(ctx) else "off")
    return NO_DATA


async def cycle_thinking_level(ctx: RpcContext, command: Command) -> object:
    chosen = ctx.session.cycle_thinking_level()
    return None if chosen is None else {"level": chosen}


async def get_available_thinking_levels(ctx: RpcContext, command: Command) -> object:
    return {"levels": _levels(ctx)}


async def set_steering_mode(ctx: RpcContext, command: Command) -> object:
    ctx.session.agent.options.steering_mode = require_choice(command, "mode", QUEUE_MODES)
    return NO_DATA


async def set_follow_up_mode(ctx: RpcContext, command: Command) -> object:
    ctx.session.agent.options.follow_up_mode = require_choice(command, "mode", QUEUE_MODES)
    return NO_DATA


# --- compaction, retry, bash ------------------------------------------------------------------


async def compact(ctx: RpcContext, command: Command) -> object:
    instructions = optional_str(command, "customInstructions")
    session = ctx.session
    outcome = await session.compact(instructions)
    entry = outcome.entry
    if entry is None:
        raise InputError(outcome.error or "the compaction did not happen")
    data: dict[str, object] = {
        "summary": entry.summary,
        "firstKeptEntryId": entry.first_kept_entry_id,
        "tokensBefore": entry.tokens_before,
        "estimatedTokensAfter": session.context_tokens(),
    }
    built = entry_json(entry)
    if isinstance(built, dict):
        for key in ("usage", "details"):
            if key in built:
                data[key] = built[key]
    return data


async def set_auto_compaction(ctx: RpcContext, command: Command) -> object:
    ctx.session.config.values.compaction.enabled = require_bool(command, "enabled")
    return NO_DATA


async def set_auto_retry(ctx: RpcContext, command: Command) -> object:
    session = ctx.session
    session.retry = dataclasses.replace(session.retry, enabled=require_bool(command, "enabled"))
    return NO_DATA


async def abort_retry(ctx: RpcContext, command: Command) -> object:
    ctx.session.abort_retry()
    return NO_DATA


async def bash(ctx: RpcContext, command: Command) -> object:
    line = require_str(command, "command")
    exclude = optional_bool(command, "excludeFromContext") or False
    seen = [""]

    def update(partial: ToolResult) -> None:
        text = "".join(b.text for b in partial.content if isinstance(b, TextContent))
        delta = bash_delta(seen[0], text)
        seen[0] = text
        if delta:
            record: dict[str, object] = {"type": "bash_execution_update", "delta": delta}
            if command.id is not None:
                record["id"] = command.id
            ctx.write(record)

    message = await ctx.session.run_user_bash(line, exclude_from_context=exclude, on_update=update)
    data: dict[str, object] = {
        "output": message.output,
        "exitCode": message.exit_code if isinstance(message.exit_code, int) else None,
        "cancelled": message.cancelled,
        "truncated": message.truncated,
    }
    if isinstance(message.full_output_path, str):
        data["fullOutputPath"] = message.full_output_path
    return data


async def abort_bash(ctx: RpcContext, command: Command) -> object:
    ctx.session.abort_bash()
    return NO_DATA


# --- sessions ---------------------------------------------------------------------------------


async def get_session_stats(ctx: RpcContext, command: Command) -> object:
    session = ctx.session
    store = session.store
    stats: dict[str, object] = {}
    if store.path is not None:
        stats["sessionFile"] = str(store.path)
    stats["sessionId"] = store.id
    stats.update(session_totals(store.entries))
    usage = session.context_usage()
    if usage.context_window > 0:
        stats["contextUsage"] = {
            "tokens": usage.tokens,
            "contextWindow": usage.context_window,
            "percent": usage.percent,
        }
    return stats


async def export_html(ctx: RpcContext, command: Command) -> object:
    output = optional_str(command, "outputPath")
    session = ctx.session
    return {"path": str(export_store(session.store, output, cwd=session.cwd))}


async def new_session_command(ctx: RpcContext, command: Command) -> object:
    parent = optional_str(command, "parentSession")
    started = await ctx.session.new_session()
    if started and parent is not None:
        ctx.session.store.header.parent_session = parent
    return {"cancelled": not started}


async def switch_session_command(ctx: RpcContext, command: Command) -> object:
    # A path, or an id as `pith sessions` prints it (looked up in this session's folder first).
    store, home = ctx.session.store, agent_dir()
    listed = (
        store.path.parent
        if store.path is not None
        else session_dir_for(ctx.session.cwd, home, None)
    )
    value = require_str(command, "sessionPath")
    path = resolve_session_arg(value, listed, home, option="switch_session sessionPath")
    if not path.is_file():
        raise InputError(f"switch_session: no session file at {path}")
    switched = await ctx.session.switch_session(path.resolve())
    return {"cancelled": not switched}


async def fork(ctx: RpcContext, command: Command) -> object:
    outcome = await ctx.session.fork(require_str(command, "entryId"))
    if outcome.cancelled:
        return {"cancelled": True}
    return {"text": outcome.selected_text or "", "cancelled": False}


async def clone(ctx: RpcContext, command: Command) -> object:
    outcome = await ctx.session.clone()
    return {"cancelled": outcome.cancelled}


async def get_fork_messages(ctx: RpcContext, command: Command) -> object:
    points = ctx.session.fork_points()
    return {"messages": [{"entryId": entry, "text": text} for entry, text in points if text]}


async def get_entries(ctx: RpcContext, command: Command) -> object:
    since = optional_str(command, "since")
    store = ctx.session.store
    entries = entries_since(store.entries, since)
    if entries is None:
        raise InputError(f"get_entries: no entry {since} in this session ('since')")
    return {"entries": [entry_json(entry) for entry in entries], "leafId": store.leaf_id}


async def get_tree(ctx: RpcContext, command: Command) -> object:
    store = ctx.session.store
    return {"tree": tree_json(store.tree()), "leafId": store.leaf_id}


async def get_last_assistant_text(ctx: RpcContext, command: Command) -> object:
    return {"text": last_assistant_text(ctx.session.messages)}


async def set_session_name(ctx: RpcContext, command: Command) -> object:
    name = require_str(command, "name").strip()
    if not name:
        raise InputError("set_session_name: 'name' is empty; give the session a name")
    ctx.session.store.append_session_info(name)
    return NO_DATA


async def get_commands(ctx: RpcContext, command: Command) -> object:
    session = ctx.session
    listed: list[dict[str, object]] = [
        {"name": builtin.name, "description": builtin.description, "source": "builtin"}
        for builtin in BUILTINS.values()
        if builtin.needs != "terminal"  # refused here: not offered
    ]
    runner = session.extensions
    origins = {extension.name: extension for extension in runner.extensions}
    for name, registered in runner.commands.items():
        item: dict[str, object] = {"name": name, "source": "extension"}
        if registered.description:
            item["description"] = registered.description
        owner = origins.get(registered.extension)
        if owner is not None:
            item["sourceInfo"] = {"path": owner.location or owner.name, "source": owner.source}
        listed.append(item)
    for template in session.resources.prompt_templates:
        listed.append(
            {
                "name": template.name,
                "description": template.description,
                "source": "prompt",
                "sourceInfo": _source_info(template.source_info),
            }
        )
    if session.config.values.enable_skill_commands:
        for skill in session.resources.skills:
            listed.append(
                {
                    "name": f"skill:{skill.name}",
                    "description": skill.description,
                    "source": "skill",
                    "sourceInfo": _source_info(skill.source_info),
                }
            )
    return {"commands": listed}


def _source_info(info: object) -> dict[str, object]:
    fields = dataclasses.asdict(info) if dataclasses.is_dataclass(info) else {}  # type: ignore[arg-type]
    out: dict[str, object] = {
        "path": fields.get("path"),
        "source": fields.get("source"),
        "scope": fields.get("scope"),
        "origin": fields.get("origin"),
    }
    if fields.get("base_dir"):
        out["baseDir"] = fields["base_dir"]
    return out


HANDLERS: Final[dict[str, Handler]] = {
    "prompt": prompt,
    "steer": steer,
    "follow_up": follow_up,
    "abort": abort,
    "clear_queue": clear_queue,
    "new_session": new_session_command,
    "get_state": get_state,
    "get_messages": get_messages,
    "set_model": set_model,
    "cycle_model": cycle_model,
    "get_available_models": get_available_models,
    "set_thinking_level": set_thinking_level,
    "cycle_thinking_level": cycle_thinking_level,
    "get_available_thinking_levels": get_available_thinking_levels,
    "set_steering_mode": set_steering_mode,
    "set_follow_up_mode": set_follow_up_mode,
    "compact": compact,
    "set_auto_compaction": set_auto_compaction,
    "set_auto_retry": set_auto_retry,
    "abort_retry": abort_retry,
    "bash": bash,
    "abort_bash": abort_bash,
    "get_session_stats": get_session_stats,
    "export_html": export_html,
    "switch_session": switch_session_command,
    "fork": fork,
    "clone": clone,
    "get_fork_messages": get_fork_messages,
    "get_entries": get_entries,
    "get_tree": get_tree,
    "get_last_assistant_text": get_last_assistant_text,
    "set_session_name": set_session_name,
    "get_commands": get_commands,
}

IMMEDIATE: Final = frozenset(
    {"abort", "abort_bash", "abort_retry", "steer", "follow_up", "clear_queue"}
)
"""Commands answered at once, even while an earlier command is still being carried out (a
`bash`, a `compact`, a prompt waiting for its run to start); the others go in order."""
