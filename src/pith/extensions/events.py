"""Every event an extension can handle: its payload, and what a handler may return.

A handler is `async def handler(event, ctx)` (a plain function works too) registered with
`api.on("name", handler)`. Handlers run in extension load order, then registration order.
Returning None always means "no opinion". Where a handler may answer, it returns the result
class named below or a dict with the same keys (snake_case or Pi's camelCase).

| event | payload | a handler may return |
|---|---|---|
| `session_start` | `SessionStart` | nothing (notification) |
| `session_shutdown` | `SessionShutdown` | nothing |
| `session_before_switch` | `SessionBeforeSwitch` | `Cancel`: the first `cancel=True` wins |
| `session_before_fork` | `SessionBeforeFork` | `Cancel` |
| `session_before_compact` | `SessionBeforeCompact` | `CompactResult`: cancel, or a compaction |
| `session_compact` | `SessionCompact` | nothing |
| `session_before_tree` | `SessionBeforeTree` | `TreeResult`: cancel, a summary, or instructions |
| `session_tree` | `SessionTree` | nothing |
| `resources_discover` | `ResourcesDiscover` | `ResourcePaths`: every handler's paths are used |
| `project_trust` | `ProjectTrust` | `TrustDecision`: the first `yes`/`no` wins |
| `input` | `Input` | `InputResult`: `transform` chains, `handled` stops |
| `before_agent_start` | `BeforeAgentStart` | `AgentStartResult`: extra messages; a system prompt |
| `agent_start` / `agent_end` | `AgentStart` / `AgentEnd` | nothing |
| `turn_start` / `turn_end` | `TurnStart` / `TurnEnd` | nothing |
| `message_start` / `message_update` | `MessageStart` / `MessageUpdate` | nothing |
| `message_end` | `MessageEnd` | `MessageEndResult`: a replacement with the same role, chained |
| `tool_call` | `ToolCallEvent` (its `input` may be changed in place) | `ToolCallDecision`: block |
| `tool_result` | `ToolResultEvent` | `ToolResultPatch`: content / details / is_error, chained |
| `tool_execution_start/update/end` | `ToolExecutionStart` / `...Update` / `...End` | nothing |
| `context` | `ContextEvent` | `ContextResult` (or the list itself): this request's messages |
| `before_provider_request` | `BeforeProviderRequest` | the request body to send instead (a dict) |
| `model_select` | `ModelSelect` | nothing |

A handler that raises is reported once and then skipped for that event, as if it returned
None, except in `tool_call`, which fails closed: the call is blocked, naming the extension.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from pith.agent import (
    AbortSignal,
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from pith.ai import (
    UNSET,
    AgentMessage,
    ImageContent,
    Model,
    ToolResultContent,
    UnsetType,
    Usage,
)
from pith.resources import SystemPromptOptions

if TYPE_CHECKING:
    from pith.session import CompactionEntry, SessionEntry

__all__ = [
    "EVENT_NAMES",
    "AgentEnd",
    "AgentStart",
    "AgentStartResult",
    "BeforeAgentStart",
    "BeforeProviderRequest",
    "BranchSummarySpec",
    "Cancel",
    "CompactResult",
    "CompactionSpec",
    "ContextEvent",
    "ContextResult",
    "CustomMessageSpec",
    "EventName",
    "Input",
    "InputResult",
    "InputSource",
    "MessageEnd",
    "MessageEndResult",
    "MessageStart",
    "MessageUpdate",
    "ModelSelect",
    "ProjectTrust",
    "ResourcePaths",
    "ResourcesDiscover",
    "SessionBeforeCompact",
    "SessionBeforeFork",
    "SessionBeforeSwitch",
    "SessionBeforeTree",
    "SessionCompact",
    "SessionShutdown",
    "SessionStart",
    "SessionTree",
    "ToolCallDecision",
    "ToolCallEvent",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "ToolResultEvent",
    "ToolResultPatch",
    "TreePreparation",
    "TreeResult",
    "TrustDecision",
    "TurnEnd",
    "TurnStart",
]

InputSource = Literal["interactive", "print", "rpc", "extension"]


# --- session lifecycle ------------------------------------------------------------------------


@dataclass
class SessionStart:
    """A session is ready: at startup, or after switching to a new, resumed or forked one."""

    reason: Literal["startup", "reload", "new", "resume", "fork"]
    previous_session_file: str | None = None
    type: Literal["session_start"] = "session_start"


@dataclass
class SessionShutdown:
    """The session is about to close (quitting, or switching to another)."""

    reason: Literal["quit", "reload", "new", "resume", "fork"]
    target_session_file: str | None = None
    type: Literal["session_shutdown"] = "session_shutdown"


@dataclass
class SessionBeforeSwitch:
    """About to leave this session for a new one or a resumed one; may be cancelled."""

    reason: Literal["new", "resume"]
    target_session_file: str | None = None
    type: Literal["session_before_switch"] = "session_before_switch"


@dataclass
class SessionBeforeFork:
    """About to fork at `entry_id` (`before` it: re-edit a prompt; `at` it: keep it)."""

    entry_id: str
    position: Literal["before", "at"] = "at"
    type: Literal["session_before_fork"] = "session_before_fork"


@dataclass
class SessionBeforeCompact:
    """About to compact: `preparation` says what would be summarized and kept."""

    preparation: object
    branch_entries: list[SessionEntry]
    reason: Literal["manual", "threshold", "overflow"]
    will_retry: bool = False
    custom_instructions: str | None = None
    signal: AbortSignal | None = None
    type: Literal["session_before_compact"] = "session_before_compact"


@dataclass
class SessionCompact:
    """A compaction entry was written."""

    compaction_entry: CompactionEntry
    from_extension: bool
    reason: Literal["manual", "threshold", "overflow"]
    will_retry: bool = False
    type: Literal["session_compact"] = "session_compact"


@dataclass
class TreePreparation:
    """What a move in the tree would do: where it goes, what the branch being left holds
    (`entries_to_summarize`, oldest first, back to `common_ancestor_id`), and the summary
    settings a handler may override through its `TreeResult`."""

    target_id: str | None
    old_leaf_id: str | None
    common_ancestor_id: str | None
    entries_to_summarize: list[SessionEntry]
    user_wants_summary: bool = False
    custom_instructions: str | None = None
    replace_instructions: bool = False
    label: str | None = None


@dataclass
class SessionBeforeTree:
    """About to move the leaf to `target_id` (navigating the tree); may be cancelled."""

    target_id: str
    old_leaf_id: str | None
    summarize: bool = False
    preparation: TreePreparation | None = None
    signal: AbortSignal | None = None
    type: Literal["session_before_tree"] = "session_before_tree"


@dataclass
class SessionTree:
    """The leaf moved; `summary_entry` is the branch summary written on the way, if any."""

    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry: SessionEntry | None = None
    from_extension: bool = False
    type: Literal["session_tree"] = "session_tree"


@dataclass
class ResourcesDiscover:
    """Resources (skills, prompt templates) are being collected; add paths of your own."""

    cwd: str
    reason: Literal["startup", "reload"] = "startup"
    type: Literal["resources_discover"] = "resources_discover"


@dataclass
class ProjectTrust:
    """Whether to trust the project at `cwd` (its settings, extensions and skills)."""

    cwd: str
    type: Literal["project_trust"] = "project_trust"


# --- prompting --------------------------------------------------------------------------------


@dataclass
class Input:
    """What the user typed, after `/command` handling and before templates are expanded."""

    text: str
    images: list[ImageContent] = field(default_factory=list)
    source: InputSource = "interactive"
    type: Literal["input"] = "input"


@dataclass
class BeforeAgentStart:
    """A run is about to start. `system_prompt_options` may be changed in place (tools,
    guidelines, sections); `system_prompt` is the prompt those options give now."""

    prompt: str
    images: list[ImageContent]
    system_prompt: str
    system_prompt_options: SystemPromptOptions
    type: Literal["before_agent_start"] = "before_agent_start"
    render: Callable[[], str] | None = field(default=None, repr=False, compare=False, kw_only=True)
    """The prompt `system_prompt_options` give as they stand now; pith uses it to refresh
    `system_prompt` before each handler."""


@dataclass
class ToolCallEvent:
    """The model called a tool; `input` holds the validated arguments and may be changed in
    place (it is not validated again)."""

    tool_name: str
    tool_call_id: str
    input: dict[str, object]
    type: Literal["tool_call"] = "tool_call"


@dataclass
class ToolResultEvent:
    """A tool finished; its result may still be patched before the model sees it."""

    tool_name: str
    tool_call_id: str
    input: dict[str, object]
    content: list[ToolResultContent]
    details: object
    is_error: bool
    type: Literal["tool_result"] = "tool_result"


@dataclass
class ContextEvent:
    """The messages of the next request, a copy: return a new list to change this request
    only (the stored history never changes); returning the same list means no change."""

    messages: list[AgentMessage]
    type: Literal["context"] = "context"


@dataclass
class BeforeProviderRequest:
    """The exact body about to be sent to the provider."""

    payload: dict[str, object]
    type: Literal["before_provider_request"] = "before_provider_request"


@dataclass
class ModelSelect:
    """The model changed."""

    model: Model
    previous_model: Model | None
    source: Literal["set", "cycle", "restore"] = "set"
    type: Literal["model_select"] = "model_select"


# --- what handlers return ---------------------------------------------------------------------


@dataclass
class Cancel:
    """For `session_before_switch` / `session_before_fork`: stop the operation."""

    cancel: bool = False


@dataclass
class CompactionSpec:
    """A compaction an extension made itself (`session_before_compact`)."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: object = None


@dataclass
class CompactResult:
    cancel: bool = False
    compaction: CompactionSpec | None = None


@dataclass
class BranchSummarySpec:
    """A branch summary an extension wrote itself (`session_before_tree`)."""

    summary: str
    details: object = None
    usage: Usage | None = None


@dataclass
class TreeResult:
    """For `session_before_tree`. `summary` (text, a `BranchSummarySpec` or a dict of its
    fields) is used only when the user asked for a summary; None fields keep the user's."""

    cancel: bool = False
    summary: str | BranchSummarySpec | Mapping[str, object] | None = None
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


@dataclass
class ResourcePaths:
    skill_paths: Sequence[str] = ()
    prompt_paths: Sequence[str] = ()


@dataclass
class TrustDecision:
    trusted: Literal["yes", "no", "undecided"] = "undecided"
    remember: bool = False


@dataclass
class InputResult:
    """`continue` (no change), `transform` (replace the text; later handlers see the new
    text) or `handled` (the extension dealt with it; nothing is sent)."""

    action: Literal["continue", "transform", "handled"] = "continue"
    text: str | None = None
    images: list[ImageContent] | None = None


@dataclass
class CustomMessageSpec:
    """A message an extension adds to the conversation (it reaches the model as user text)."""

    custom_type: str
    content: str | list[object]
    display: bool = True
    details: object = None


@dataclass
class AgentStartResult:
    message: CustomMessageSpec | None = None
    """Sent along with the user's prompt."""
    system_prompt: str | None = None
    """Replaces the whole system prompt for this run (later handlers see it)."""


@dataclass
class MessageEndResult:
    message: AgentMessage


@dataclass
class ToolCallDecision:
    block: bool = False
    reason: str | None = None
    """Shown to the model as the call's error."""
    terminate: bool = False
    """End the run after this batch of tool calls."""


@dataclass
class ToolResultPatch:
    content: list[ToolResultContent] | UnsetType = UNSET
    details: object = UNSET
    is_error: bool | UnsetType = UNSET


@dataclass
class ContextResult:
    messages: list[AgentMessage]


EventName = Literal[
    "session_start",
    "session_shutdown",
    "session_before_switch",
    "session_before_fork",
    "session_before_compact",
    "session_compact",
    "session_before_tree",
    "session_tree",
    "resources_discover",
    "project_trust",
    "input",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_call",
    "tool_result",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "context",
    "before_provider_request",
    "model_select",
]
"""The name of an event `api.on` accepts."""

EVENT_NAMES: frozenset[str] = frozenset(get_args(EventName))
"""Every event name `api.on` accepts."""
