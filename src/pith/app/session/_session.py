"""`AgentSession`: an agent, its session tree, tools, model, system prompt, retry policy and
extensions.

This is the object every mode drives (print, json, rpc, interactive). The model's context is the
session's projection: loaded from the tree when the session starts, and every message the agent
adds is recorded as an entry the moment it ends. Extensions see every step through their events
(`pith.extensions.events`) and act through `SessionHost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from pith.agent import (
    AbortController,
    AbortSignal,
    Agent,
    AgentEnd,
    AgentEvent,
    AgentOptions,
    MessageEnd,
    MessageStart,
    QueueMode,
    Tool,
    UpdateCallback,
)
from pith.ai import (
    THINKING_LEVELS,
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    ImageContent,
    Model,
    ModelRegistry,
    RetryPolicy,
    TextContent,
    ThinkingLevel,
    UserContent,
    UserMessage,
    is_retryable_error,
    retry_delay_seconds,
)
from pith.app.session._commands import BUILTINS, run_builtin
from pith.app.session._compaction import (
    CompactionOutcome,
    check_after_reply,
    check_between_turns,
    compact,
)
from pith.app.session._dispatch import CommandNames, Invocation, classify, refusal, unknown_command
from pith.app.session._events import AgentSettled, AutoRetryEnd, AutoRetryStart, SessionEvent
from pith.app.session._extension_hooks import history_hooks, tool_hooks
from pith.app.session._extension_host import SessionHost
from pith.app.session._navigation import (
    ForkOutcome,
    TreeNavigation,
    clone_session,
    fork_points,
    fork_session,
    navigate_tree,
)
from pith.app.session._summarizer import Summarizer
from pith.app.session._toolset import ToolSet
from pith.compaction import ContextTokenTracker, estimate_context_tokens
from pith.errors import InputError
from pith.extensions import (
    ContextUsage,
    DeliverAs,
    ExtensionRunner,
    ExtensionUI,
    HeadlessUI,
    Mode,
)
from pith.extensions.events import (
    BeforeAgentStart,
    BeforeProviderRequest,
    Input,
    InputSource,
    ModelSelect,
    SessionShutdown,
    SessionStart,
)
from pith.resources import (
    Resources,
    Settings,
    Skill,
    SystemPromptOptions,
    build_system_prompt,
    build_system_prompt_sections,
    docs_section,
    expand_prompt_template,
    expand_skill_command,
)
from pith.session import MessageEntry, SessionEntry, SessionStore
from pith.tools import BACKGROUND_NOTE, run_shell

__all__ = ["AgentSession", "PromptSection", "SessionListener"]

SessionListener = Callable[[SessionEvent], Awaitable[None] | None]


@dataclass(frozen=True)
class PromptSection:
    name: str
    text: str
    sources: list[str]


class AgentSession:
    """Runs prompts against one model with one tool set, recording everything in `store`.

    `tools` are all the tools the session knows (built-ins); `active` names those the model
    gets (default: all). Tools the `extensions` registered join them.
    """

    def __init__(
        self,
        *,
        cwd: str,
        model: Model,
        registry: ModelRegistry,
        tools: dict[str, Tool],
        store: SessionStore,
        active: Sequence[str] | None = None,
        thinking: ThinkingLevel = "off",
        api_key: str | None = None,
        system_prompt: str | None = None,
        retry: RetryPolicy | None = None,
        extensions: ExtensionRunner | None = None,
        mode: Mode = "print",
        ui: ExtensionUI | None = None,
        settings: dict[str, object] | None = None,
        project_trusted: bool = False,
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        resources: Resources | None = None,
        config: Settings | None = None,
    ) -> None:
        self.cwd = cwd
        self.registry = registry
        self.store = store
        self.retry = retry or RetryPolicy()
        self.extensions = extensions or ExtensionRunner(cwd)
        self.mode: Mode = mode
        self.ui: ExtensionUI = ui or HeadlessUI()
        self.config = config or Settings()
        """The typed settings (compaction, retry, ...)."""
        self.settings = settings if settings is not None else self.config.data
        self.overflow_recovery_attempted = False
        self._tracker: ContextTokenTracker | None = None
        self._latest_reply: AssistantMessage | None = None
        self.resources = resources or Resources(docs=docs_section())
        self.project_trusted = project_trusted or self.resources.project_trusted
        self.next_turn: list[AgentMessage] = []
        """Messages extensions queued for the user's next prompt."""
        self.editor_text: str | None = None
        """Text a command handed back for the user to edit and send (`/fork`'s message); the
        interactive editor takes it."""
        self.last_handled = False
        """Whether the last `prompt` was taken by a command or an extension's `input` handler
        instead of going to the model."""
        self.command_failed = False
        """Whether the last `prompt` was a built-in command that refused (said as an error)."""
        self.command_output: Callable[[str, str], None] = self._notify_output
        """Where a command's report goes, `(command name, text)`: the mode sets it (standard
        output, a JSON record, the transcript); by default it is a notice."""
        self.runs = 0
        """How many agent runs this session started (a command may start some itself)."""
        self._api_key_override = api_key
        self._custom_prompt = system_prompt
        """A prompt that replaces everything (`pith context --system-prompt`-style overrides in
        tests and SDK use); SYSTEM.md and `--system-prompt` arrive through `resources`."""
        self.toolset = ToolSet(tools, self.extensions, active if active is not None else tools)
        before, after = tool_hooks(self.extensions)
        context_hook, message_hook = history_hooks(self.extensions)
        options = AgentOptions(
            api_key=lambda m: registry.api_key(m, self._api_key_override),
            headers=self._headers,
            session_id=store.id,
            transform_context=context_hook,
            replace_message=message_hook,
            before_next_turn=lambda: check_between_turns(self),
            before_tool_call=before,
            after_tool_call=after,
            on_payload=self._on_payload,
            steering_mode=steering_mode,
            follow_up_mode=follow_up_mode,
        )
        projection = store.projection()
        self.agent = Agent(
            model=model,
            system_prompt="",
            tools=self.toolset.active(),
            thinking=thinking,
            messages=list(projection.messages),
            options=options,
        )
        self.agent.system_prompt = self.system_prompt()
        if projection.model != (model.provider, model.id):
            store.append_model_change(model.provider, model.id)
        if projection.thinking_level != thinking:
            store.append_thinking_level_change(thinking)
        self._listeners: list[SessionListener] = []
        self._retry_attempt = 0
        self._will_retry = False
        self._retry_wait: asyncio.Event | None = None
        self._aborted = False
        self._queued_bash: list[BashExecutionMessage] = []
        self._bash_abort: AbortController | None = None
        self._side_abort: AbortController | None = None
        self._compact_after_run: tuple[str | None] | None = None
        self._started = False
        self.agent.subscribe(self._forward)
        self.extensions.bind(SessionHost(self))

    # --- lifecycle --------------------------------------------------------------------------

    async def start(
        self, reason: Literal["startup", "reload", "new", "resume", "fork"] = "startup"
    ) -> None:
        """Tell extensions the session is ready (`session_start`)."""
        if not self._started:
            self._started = True
            await self.extensions.emit(SessionStart(reason))

    async def shutdown(
        self, reason: Literal["quit", "reload", "new", "resume", "fork"] = "quit"
    ) -> None:
        """Tell extensions the session ends (`session_shutdown`), then close it."""
        try:
            if self._started:
                await self.extensions.emit(SessionShutdown(reason))
        finally:
            self.close()

    # --- tools and the system prompt --------------------------------------------------------

    def all_tools(self) -> dict[str, Tool]:
        return self.toolset.all()

    def active_tool_names(self) -> list[str]:
        return self.toolset.active_names()

    def set_active_tools(self, names: Sequence[str]) -> None:
        self.toolset.set_active(names)
        self._apply_tools()

    def tools_changed(self) -> None:
        self.toolset.refresh()
        self._apply_tools()

    def _apply_tools(self) -> None:
        self.agent.tools = self.toolset.active()
        if not self.agent.is_running:
            self.agent.system_prompt = self.system_prompt()

    def _prompt_options(self) -> SystemPromptOptions:
        resources = self.resources
        return SystemPromptOptions(
            cwd=self.cwd,
            tools=list(self.toolset.active().values()),
            custom_prompt=resources.custom_prompt,
            append=resources.append_text,
            context_files=list(resources.context_files),
            skills=list(resources.skills),
            docs=resources.docs,
        )

    def prompt_sections(self) -> list[PromptSection]:
        """The system prompt's sections as the next run builds them, each with where its
        text comes from (files, flags, tools), for `pith context`."""
        if self._custom_prompt is not None:
            return [PromptSection("preamble", self._custom_prompt, ["given in full"])]
        resources = self.resources
        sections = build_system_prompt_sections(self._prompt_options())
        custom = resources.custom_prompt_source or (
            "--system-prompt" if resources.custom_prompt is not None else "pith"
        )
        origins: dict[str, list[str]] = {
            "preamble": [custom],
            "tools": self.toolset.active_names(),
            "rules": ["pith", "the active tools"],
            "docs": ["pith"],
            "addendum": [source or "--append-system-prompt" for source in resources.append_sources],
            "project_context": [file.path for file in resources.context_files],
            "skills": [
                skill.file_path for skill in resources.skills if not skill.disable_model_invocation
            ],
            "cwd": [self.cwd],
        }
        return [
            PromptSection(name, text, origins.get(name, ["an extension"]))
            for name, text in sections.items()
        ]

    def system_prompt(self, options: SystemPromptOptions | None = None) -> str:
        """The system prompt for the active tools (or `options`), unless one was given."""
        if self._custom_prompt is not None:
            return self._custom_prompt
        return build_system_prompt(options or self._prompt_options())

    # --- model ------------------------------------------------------------------------------

    async def set_model(self, model: Model) -> bool:
        """Switch to `model`; False (and no switch) when it has no credentials."""
        if (
            self.registry.needs_key(model)
            and self.registry.api_key(model, self._api_key_override) is None
        ):
            return False
        previous = self.agent.model
        self.agent.model = model
        self.store.append_model_change(model.provider, model.id)
        await self.extensions.emit(ModelSelect(model, previous, "set"))
        return True

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self.agent.thinking = level
        self.store.append_thinking_level_change(level)

    def thinking_levels(self) -> list[ThinkingLevel]:
        """The levels the current model takes (`off` alone for a model without reasoning)."""
        return list(THINKING_LEVELS) if self.model.reasoning else ["off"]

    def fit_thinking(self) -> None:
        """After a model change: a model without reasoning thinks at level off."""
        if self.thinking not in self.thinking_levels():
            self.set_thinking_level("off")

    def usable_models(self) -> list[Model]:
        """The registry's models that have credentials."""
        return [model for model in self.registry.models if self.api_key_for(model) is not None]

    async def cycle_model(self) -> Model | None:
        """Switch to the next usable model (registry order); None when there is no other."""
        models = self.usable_models()
        if self.model.key not in {m.key for m in models}:
            models.insert(0, self.model)
        if len(models) < 2:
            return None
        keys = [m.key for m in models]
        chosen = models[(keys.index(self.model.key) + 1) % len(models)]
        await self.set_model(chosen)
        self.fit_thinking()
        return chosen

    def cycle_thinking_level(self) -> ThinkingLevel | None:
        """The next level the model takes; None when it takes only one."""
        levels = self.thinking_levels()
        if len(levels) < 2:
            return None
        current = levels.index(self.thinking) if self.thinking in levels else -1
        chosen = levels[(current + 1) % len(levels)]
        self.set_thinking_level(chosen)
        return chosen

    def context_usage(self) -> ContextUsage:
        window = self.model.context_window
        tokens = estimate_context_tokens(self.agent.messages)
        percent = round(tokens / window * 100, 1) if window > 0 else None
        return ContextUsage(tokens, window, percent)

    async def _on_payload(self, body: dict[str, object]) -> dict[str, object] | None:
        if not self.extensions.has_handlers("before_provider_request"):
            return None
        return await self.extensions.emit(BeforeProviderRequest(body))

    @property
    def model(self) -> Model:
        return self.agent.model

    @property
    def thinking(self) -> ThinkingLevel:
        return self.agent.thinking

    @property
    def messages(self) -> list[AgentMessage]:
        return self.agent.messages

    def _headers(self, model: Model) -> dict[str, str]:
        headers = self.registry.request_headers(model)
        key = self.registry.api_key(model, self._api_key_override)
        if key and self.registry.needs_bearer_header(model):
            headers.setdefault("Authorization", f"Bearer {key}")
        return headers

    def shell_environment(self) -> dict[str, str]:
        """The environment of every command: the user's, plus this session's PITH_* variables."""
        env = dict(os.environ)
        env["PITH_SESSION_ID"] = self.store.id
        if self.store.path is not None:
            env["PITH_SESSION_FILE"] = str(self.store.path)
        env["PITH_PROVIDER"] = self.model.provider
        env["PITH_MODEL"] = self.model.id
        env["PITH_REASONING_LEVEL"] = self.thinking
        return env

    # --- events -----------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            result = listener(event)
            if inspect.isawaitable(result):
                await result

    async def _forward(self, event: AgentEvent) -> None:
        if isinstance(event, MessageEnd):
            self._record(event.message)  # extensions saw it already: they may replace it
            if isinstance(event.message, AssistantMessage):
                self._latest_reply = event.message
        else:
            if isinstance(event, AgentEnd):
                self._will_retry = self._should_retry()
            if self.extensions.has_handlers(event.type):
                await self.extensions.emit(event)
        await self._emit(event)

    def _record(self, message: AgentMessage) -> None:
        entry: SessionEntry
        if isinstance(message, CustomMessage):
            entry = self.store.append_custom_message(
                message.custom_type,
                message.content,
                display=message.display,
                details=message.details,
            )
        else:
            entry = self.store.append_message(message)
        if self._tracker is not None:
            self._tracker.add_entry(entry)
        if isinstance(message, UserMessage) or (
            isinstance(message, AssistantMessage)
            and message.stop_reason
            not in (
                "error",
                "length",
            )
        ):
            self.overflow_recovery_attempted = False

    # --- compaction ---------------------------------------------------------------------------

    def context_tokens(self) -> int:
        """The context's size as the compaction threshold sees it (kept up to date as entries
        are appended; rebuilt after a compaction, an edit or a move in the tree)."""
        store = self.store
        if self._tracker is None or self._tracker.stale:
            path = store.get_branch()
            self._tracker = ContextTokenTracker.start(store.projection(), path)
        return self._tracker.tokens

    def reload_history(self) -> None:
        """The agent's history from the session's projection again (after a compaction, an
        edit or a move in the tree)."""
        self.agent.messages = list(self.store.projection().messages)
        self._tracker = None

    def api_key_for(self, model: Model) -> str | None:
        """The key requests to `model` carry (`--api-key`, then models.json, then the
        environment)."""
        return self.registry.api_key(model, self._api_key_override)

    def summarizer(self) -> Summarizer:
        """Who writes summaries: `compaction.model` when set, else the session's model."""
        model = self.model
        named = self.config.values.compaction.model
        if named:
            try:
                model = self.registry.find(named).model
            except InputError:
                self.ui.notify(
                    f"compaction.model {named!r} is not a known model; using {model.key}",
                    "warning",
                )
        return Summarizer(
            model,
            lambda m: self.registry.api_key(m, self._api_key_override),
            self._headers,
            self.thinking,
            self.retry,
        )

    # --- moving in the tree (the SDK calls; RPC and the interactive mode use them) ---------

    async def navigate_tree(
        self,
        target_id: str | None,
        *,
        summarize: bool = False,
        instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> TreeNavigation:
        """Move to another point of this session's tree, optionally summarizing the branch
        left behind (docs/compaction.md, "Branch summaries")."""
        return await navigate_tree(
            self,
            target_id,
            summarize=summarize,
            instructions=instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def fork(self, entry_id: str) -> ForkOutcome:
        """`/fork`: continue in a new session from just before the user message `entry_id`."""
        return await fork_session(self, entry_id, before=True)

    async def clone(self) -> ForkOutcome:
        """`/clone`: continue in a new session holding the current branch."""
        return await clone_session(self)

    def fork_points(self) -> list[tuple[str, str]]:
        """The user messages `fork` can start from, as `(entry id, text)`, oldest first."""
        return fork_points(self.store)

    def request_compaction(self, custom_instructions: str | None = None) -> None:
        """Stop the run and compact once it has stopped (an extension asking from inside the
        run, where waiting for the run to end would wait for itself)."""
        self._compact_after_run = (custom_instructions,)
        self.abort()

    async def compact(self, custom_instructions: str | None = None) -> CompactionOutcome:
        """`/compact [instructions]`: stop the run, then compact now (never retries)."""
        if self.agent.is_running:
            self.abort()
            await self.agent.wait_for_idle()
        outcome = await compact(self, "manual", custom_instructions=custom_instructions)
        if outcome.entry is None and outcome.error and not outcome.aborted:
            self.ui.notify(outcome.error)
        return outcome

    @property
    def summarizing(self) -> bool:
        """Whether a compaction or a branch summary is being written outside a run."""
        return self._side_abort is not None

    @contextlib.contextmanager
    def summary_signal(self) -> Iterator[AbortSignal]:
        """The signal a summary request listens to: the run's while a run is going, else one
        `abort()` fires (so `/compact` and a tree move can be stopped while idle)."""
        running = self.agent.signal
        if running is not None:
            yield running
            return
        if self._side_abort is not None:
            raise InputError("a summary is already being written; wait or abort first")
        controller = AbortController()
        self._side_abort = controller
        try:
            yield controller.signal
        finally:
            self._side_abort = None

    async def emit_event(self, event: SessionEvent) -> None:
        await self._emit(event)

    @property
    def will_retry(self) -> bool:
        """Whether the run that just ended is about to be retried (for `agent_end`)."""
        return self._will_retry

    def last_reply(self) -> AssistantMessage | None:
        """The newest assistant message of the history, if the history ends with one."""
        return self._last_reply()

    def _last_reply(self) -> AssistantMessage | None:
        last = self.agent.messages[-1] if self.agent.messages else None
        return last if isinstance(last, AssistantMessage) else None

    def _should_retry(self) -> bool:
        reply = self._last_reply()
        return (
            self.retry.enabled
            and reply is not None
            and is_retryable_error(reply)
            and self._retry_attempt < self.retry.max_retries
            and not self._aborted
        )

    # --- prompting --------------------------------------------------------------------------

    async def prompt(
        self, text: str, images: Sequence[ImageContent] = (), *, source: InputSource = "print"
    ) -> AssistantMessage | None:
        """Handle what the user typed: an extension's `/command`, or a message for the model,
        run until the agent (and any retries) settle.

        Returns the final assistant message, if the model was asked. Raises `InputError` for
        an unknown `/command`, or one this mode cannot run (see `command_refusal`).
        """
        self.command_failed = False
        invocation = self.find_invocation(text)
        if invocation is not None:
            problem = self._refusal(invocation)
            if problem is not None:
                raise InputError(problem)
            if invocation.kind == "builtin":
                outcome = await run_builtin(self, invocation.name, invocation.arguments)
                if outcome.editor_text is not None:
                    self.editor_text = outcome.editor_text
                self.command_failed = outcome.failed
                self.last_handled = True
                return None
            if invocation.kind == "extension":
                command = self.extensions.commands[invocation.name]
                # It may itself prompt (send_user_message).
                await self.extensions.run_command(command, invocation.arguments)
                self.last_handled = True
                return None
        images = list(images)
        if self.extensions.has_handlers("input"):
            answer = await self.extensions.emit(Input(text, images, source))
            if answer.action == "handled":
                self.last_handled = True
                return None
            if answer.action == "transform" and answer.text is not None:
                text, images = answer.text, list(answer.images or images)
        self.last_handled = False
        text = self.expand(text)
        await check_after_reply(self, self._last_reply(), before_prompt=True)
        content: list[UserContent] = [TextContent(text=text), *images]
        messages: list[AgentMessage] = [UserMessage(content=content), *self.next_turn]
        self.next_turn = []
        messages.extend(await self._prepare_run(text, images))
        return await self._run(messages)

    # --- commands ---------------------------------------------------------------------------

    def command_names(self) -> CommandNames:
        """Every `/name` this session knows, by kind."""
        return CommandNames(
            builtin=BUILTINS,
            extension=self.extensions.commands,
            template={template.name for template in self.resources.prompt_templates},
            skill={f"skill:{skill.name}" for skill in self.resources.skills},
        )

    def find_invocation(self, text: str) -> Invocation | None:
        """The command `text` invokes (an unknown `/word` included), or None for plain text."""
        return classify(text, self.command_names())

    def command_refusal(self, text: str) -> str | None:
        """Why `text` cannot be carried out in this mode (an unknown command, or one that
        needs the terminal), in one line; None when it can."""
        invocation = self.find_invocation(text)
        return None if invocation is None else self._refusal(invocation)

    def _refusal(self, invocation: Invocation) -> str | None:
        if invocation.kind == "unknown":
            return unknown_command(invocation.name)
        if invocation.kind == "builtin":
            builtin = BUILTINS[invocation.name]
            return refusal(
                builtin.name, builtin.needs, invocation.arguments, self.mode, builtin.instead
            )
        if invocation.kind == "extension":
            command = self.extensions.commands[invocation.name]
            if command.needs_ui:
                return refusal(command.name, "ui", invocation.arguments, self.mode)
        return None

    def _notify_output(self, command: str, text: str) -> None:
        self.ui.notify(text.rstrip("\n"))

    def expand(self, text: str) -> str:
        """`/skill:name args` and `/template args` as the model will get them."""
        if not text.startswith("/"):
            return text

        def unreadable(skill: Skill, reason: str) -> None:
            self.ui.notify(f"skill {skill.name} could not be loaded: {reason}", "warning")

        text = expand_skill_command(text, self.resources.skills, on_error=unreadable)
        return expand_prompt_template(text, self.resources.prompt_templates)

    async def _prepare_run(self, text: str, images: list[ImageContent]) -> list[AgentMessage]:
        """`before_agent_start`: the run's system prompt and tools; extra messages."""
        if not self.extensions.has_handlers("before_agent_start"):
            self.agent.system_prompt = self.system_prompt()
            return []
        options = self._prompt_options()
        before = [tool.name for tool in options.tools]
        event = BeforeAgentStart(
            text, images, "", options, render=lambda: self.system_prompt(options)
        )
        outcome = await self.extensions.emit(event)
        after = [tool.name for tool in options.tools]
        if after != before:
            self.toolset.set_active(after)
            self.agent.tools = self.toolset.active()
        self.agent.system_prompt = outcome.system_prompt or self.system_prompt(options)
        return list(outcome.messages)

    async def _run(self, messages: list[AgentMessage]) -> AssistantMessage | None:
        """Run the agent on `messages`; the newest reply of the run (even one that a retry or
        an overflow recovery has since taken out of the history), if any."""
        self.runs += 1
        self._latest_reply = None
        self._aborted = False
        self._retry_attempt = 0
        try:
            await self.agent.prompt(messages)
            await self._after_run()
            while any(self.agent.queued()) and not self._aborted:
                await self.agent.continue_()  # queued by handlers after the run ended
                await self._after_run()
        finally:
            self._flush_bash()
        requested, self._compact_after_run = self._compact_after_run, None
        if requested is not None:
            await self.compact(requested[0])
        await self._emit(AgentSettled(aborted=self._aborted))
        return self._latest_reply

    async def _after_run(self) -> None:
        """Retries for transient errors, then compaction (an overflow compacts and runs again,
        once per user turn)."""
        await self._retry_loop()
        if self._aborted:
            return
        if await check_after_reply(self, self._last_reply()):
            await self.agent.continue_()
            await self._retry_loop()
            if not self._aborted:
                await check_after_reply(self, self._last_reply())

    async def wait_for_idle(self) -> None:
        """Return once no run is in progress."""
        await self.agent.wait_for_idle()

    # --- messages from extensions -----------------------------------------------------------

    async def send_custom_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None:
        if self.agent.is_running:
            if deliver_as == "steer":
                self.agent.steer(message)
            elif deliver_as == "follow_up":
                self.agent.follow_up(message)
            else:
                self.next_turn.append(message)
        elif deliver_as == "next_turn":
            self.next_turn.append(message)  # whatever trigger_turn says, as in Pi
        elif trigger_turn:
            await self._run([message])
        else:
            await self._add_idle(message)

    async def _add_idle(self, message: AgentMessage) -> None:
        """Add a message outside a run, with the message events a run would give it."""
        await self._forward_start(message)
        replaced = await self.extensions.emit(MessageEnd(message))
        if replaced is not None and replaced.role == message.role:
            message = replaced
        self._record(message)
        self.agent.messages.append(message)
        await self._emit(MessageEnd(message))

    async def _forward_start(self, message: AgentMessage) -> None:
        event = MessageStart(message)
        if self.extensions.has_handlers(event.type):
            await self.extensions.emit(event)
        await self._emit(event)

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None:
        message = UserMessage(content=[TextContent(text=text)])
        if self.agent.is_running:
            if deliver_as == "follow_up":
                self.agent.follow_up(message)
            elif deliver_as == "next_turn":
                self.next_turn.append(message)
            else:
                self.agent.steer(message)
        else:
            await self.prompt(text, source="extension")

    async def _retry_loop(self) -> None:
        while self._should_retry():
            reply = self._last_reply()
            assert reply is not None
            self._retry_attempt += 1
            delay = retry_delay_seconds(
                self.retry, self._retry_attempt, self.agent.last_retry_after
            )
            message = reply.error_message if isinstance(reply.error_message, str) else "error"
            await self._emit(
                AutoRetryStart(
                    self._retry_attempt, self.retry.max_retries, round(delay * 1000), message
                )
            )
            self._hide_failed_reply()
            if not await self._sleep(delay):
                await self._emit(AutoRetryEnd(False, self._retry_attempt, "aborted"))
                return
            await self.agent.continue_()
            final = self._last_reply()
            if final is not None and final.stop_reason != "error":
                await self._emit(AutoRetryEnd(True, self._retry_attempt))
                return
        if self._retry_attempt and not self._aborted:
            reply = self._last_reply()
            error = (
                reply.error_message
                if reply is not None and isinstance(reply.error_message, str)
                else None
            )
            await self._emit(AutoRetryEnd(False, self._retry_attempt, error))

    def _hide_failed_reply(self) -> None:
        """Take the failed attempt out of the model's history, in memory and in the tree."""
        failed = self.agent.messages.pop()
        leaf = self.store.by_id.get(self.store.leaf_id or "")
        if isinstance(leaf, MessageEntry) and leaf.message is failed:
            self.store.append_context_edit(leaf.id, None)

    async def _sleep(self, seconds: float) -> bool:
        """Wait `seconds`; False when an abort cut the wait short."""
        self._retry_wait = asyncio.Event()
        try:
            await asyncio.wait_for(self._retry_wait.wait(), seconds)
        except TimeoutError:
            return True
        finally:
            self._retry_wait = None
        return False

    def abort(self) -> None:
        """Stop the run, any retry wait, a user command, the tools in flight, and a summary
        being written while idle (a compaction, a branch summary)."""
        self._aborted = True
        self.agent.abort()
        if self._side_abort is not None:
            self._side_abort.abort()
        if self._retry_wait is not None:
            self._retry_wait.set()
        if self._bash_abort is not None:
            self._bash_abort.abort()

    def abort_retry(self) -> None:
        """Stop waiting for the next automatic retry; the failed reply stands."""
        if self._retry_wait is not None:
            self._retry_wait.set()

    def abort_bash(self) -> None:
        """Stop the user's own command (`!cmd`) if one runs; the agent's run goes on."""
        if self._bash_abort is not None:
            self._bash_abort.abort()

    # --- the user's own commands (`!cmd`) ---------------------------------------------------

    async def run_user_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_update: UpdateCallback | None = None,
    ) -> BashExecutionMessage:
        """Run a command the user typed (`!cmd`; `!!cmd` keeps it out of the model's context).

        While the agent is working the result is queued and recorded after the run, so it never
        lands between a tool call and its result. `on_update` sees the output's visible tail
        as it grows.
        """
        self._bash_abort = AbortController()
        try:
            run = await run_shell(
                command,
                self.cwd,
                self._bash_abort.signal,
                env=self.shell_environment(),
                on_update=on_update,
                full_output_max_bytes=self.config.values.bash_full_output_max_bytes,
            )
        finally:
            self._bash_abort = None
        snapshot = run.snapshot
        output = snapshot.content
        if run.background_running:
            output = f"{output}\n\n{BACKGROUND_NOTE}" if output else BACKGROUND_NOTE
        message = BashExecutionMessage(
            command=command,
            output=output,
            exit_code=run.exit_code,
            cancelled=run.cancelled,
            truncated=snapshot.truncation.truncated,
        )
        if snapshot.full_output_path is not None and snapshot.truncation.truncated:
            message.full_output_path = snapshot.full_output_path
        if exclude_from_context:
            message.exclude_from_context = True
        if self.agent.is_running:
            self._queued_bash.append(message)
        else:
            self._add_bash(message)
        return message

    def _add_bash(self, message: BashExecutionMessage) -> None:
        self.store.append_message(message)
        self.agent.messages.append(message)

    def _flush_bash(self) -> None:
        queued, self._queued_bash = self._queued_bash, []
        for message in queued:
            self._add_bash(message)

    def close(self) -> None:
        self.store.close()
