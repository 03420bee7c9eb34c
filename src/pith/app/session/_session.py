"""`AgentSession`: one conversation, the object every mode drives (print, json, rpc,
interactive).

The session owns its parts and wires them together: the history (`_history`: the session
tree, with the agent's context as its projection), the run controller (`_run`: retries,
overflow recovery, the one abort path), the compactor, the tree navigator, the user's shell
(`!cmd`) and pith's own commands. Extensions see every step through their events
(`pith.extensions.events`) and act through `SessionHost`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Literal

from pith.agent import AbortSignal, QueueMode, Tool, UpdateCallback
from pith.ai import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    ImageContent,
    Model,
    ModelRegistry,
    RetryPolicy,
    ThinkingLevel,
)
from pith.app.session._compaction import CompactionOutcome
from pith.app.session._credentials import Credentials
from pith.app.session._dispatch import CommandNames, Invocation
from pith.app.session._events import SessionEvent
from pith.app.session._extension_host import SessionHost
from pith.app.session._navigation import ForkOutcome, TreeNavigation, fork_points
from pith.app.session._outcome import PromptOutcome
from pith.app.session._parts import SessionChoices, build_parts
from pith.app.session._shell_env import ShellEnvironment
from pith.app.session._summarizer import Summarizer
from pith.app.session._system_prompt import PromptSection
from pith.app.session._toolset import ToolSet
from pith.compaction import estimate_context_tokens
from pith.extensions import (
    ContextUsage,
    DeliverAs,
    ExtensionRunner,
    ExtensionUI,
    HeadlessUI,
    Mode,
)
from pith.extensions.events import InputSource, SessionShutdown, SessionStart
from pith.resources import Resources, Settings, SystemPromptOptions, docs_section
from pith.session import SessionStore

__all__ = ["AgentSession", "PromptSection", "SessionListener"]

SessionListener = Callable[[SessionEvent], Awaitable[None] | None]


class AgentSession:
    """Runs prompts against one model with one tool set, recording everything in `store`.

    `tools` are all the tools the session knows (built-ins); `active` names those the model
    gets (default: all). Tools the `extensions` registered join them. `shell_env` is the
    environment the bash tool was built with (made here when not given).
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
        shell_env: ShellEnvironment | None = None,
    ) -> None:
        self.cwd = cwd
        self.registry = registry
        self.extensions = runner = extensions or ExtensionRunner(cwd)
        self.mode: Mode = mode
        self.ui: ExtensionUI = ui or HeadlessUI()
        self.config = config or Settings()
        """The typed settings (compaction, retry, ...)."""
        self.settings = settings if settings is not None else self.config.data
        self.resources = resources or Resources(docs=docs_section())
        self.project_trusted = project_trusted or self.resources.project_trusted
        self.command_output: Callable[[str, str], None] = self._notify_output
        """Where a command's report goes, `(command name, text)`: the mode sets it (standard
        output, a JSON record, the transcript); by default it is a notice."""
        self.editor_offer: Callable[[str], None] = lambda text: None
        """Where text goes that a command an extension sent (`send_user_message`) handed back
        to edit and send again (`/fork`'s message): the modes with an editor set it."""
        self._credentials = Credentials(registry, api_key)
        self.toolset = ToolSet(tools, runner, active if active is not None else tools)
        self._env = shell_env or ShellEnvironment(store, model, thinking)
        self._listeners: list[SessionListener] = []
        self._started = False
        choices = SessionChoices(
            cwd,
            model,
            thinking,
            retry or RetryPolicy(),
            steering_mode,
            follow_up_mode,
            system_prompt,
        )
        parts = build_parts(
            self,
            choices,
            store=store,
            toolset=self.toolset,
            extensions=runner,
            credentials=self._credentials,
            env=self._env,
        )
        self.agent = parts.agent
        self._history, self._prompts = parts.history, parts.prompts
        self._summaries, self._navigator = parts.summaries, parts.navigator
        self._shell, self._runs = parts.shell, parts.runs
        self._models, self._prompter = parts.models, parts.prompter
        runner.bind(SessionHost(self))

    def _notify_output(self, command: str, text: str) -> None:
        self.ui.notify(text.rstrip("\n"))

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

    def close(self) -> None:
        self.store.close()

    @property
    def store(self) -> SessionStore:
        """The session tree the conversation is recorded in (`new_session` and the forks
        swap it)."""
        return self._history.store

    @property
    def retry(self) -> RetryPolicy:
        return self._runs.retry

    @retry.setter
    def retry(self, policy: RetryPolicy) -> None:
        self._runs.retry = policy

    @property
    def next_turn(self) -> list[AgentMessage]:
        """Messages extensions queued for the user's next prompt."""
        return self._prompter.next_turn

    # --- tools and the system prompt --------------------------------------------------------

    def all_tools(self) -> dict[str, Tool]:
        return self.toolset.all()

    def active_tool_names(self) -> list[str]:
        return self.toolset.active_names()

    def set_active_tools(self, names: Sequence[str]) -> None:
        self.toolset.set_active(names)
        self._prompts.apply_tools()

    def tools_changed(self) -> None:
        self.toolset.refresh()
        self._prompts.apply_tools()

    def prompt_sections(self) -> list[PromptSection]:
        """The system prompt's sections as the next run builds them, each with where its
        text comes from (files, flags, tools), for `pith context`."""
        return self._prompts.sections()

    def system_prompt(self, options: SystemPromptOptions | None = None) -> str:
        """The system prompt for the active tools (or `options`), unless one was given."""
        return self._prompts.text(options)

    # --- model (see `ModelChoice`) ----------------------------------------------------------

    @property
    def model(self) -> Model:
        return self.agent.model

    @property
    def thinking(self) -> ThinkingLevel:
        return self.agent.thinking

    @property
    def messages(self) -> list[AgentMessage]:
        return self.agent.messages

    async def set_model(self, model: Model) -> bool:
        """Switch to `model`; False (and no switch) when it has no credentials."""
        return await self._models.set_model(model)

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self._models.set_thinking_level(level)

    def thinking_levels(self) -> list[ThinkingLevel]:
        return self._models.thinking_levels()

    def fit_thinking(self) -> None:
        self._models.fit_thinking()

    def usable_models(self) -> list[Model]:
        return self._models.usable_models()

    async def cycle_model(self) -> Model | None:
        return await self._models.cycle_model()

    def cycle_thinking_level(self) -> ThinkingLevel | None:
        return self._models.cycle_thinking_level()

    def api_key_for(self, model: Model) -> str | None:
        """The key requests to `model` carry (`--api-key`, then models.json, then the
        environment, then auth.json)."""
        return self._credentials.api_key(model)

    def context_usage(self) -> ContextUsage:
        window = self.model.context_window
        tokens = estimate_context_tokens(self.agent.messages)
        percent = round(tokens / window * 100, 1) if window > 0 else None
        return ContextUsage(tokens, window, percent)

    def shell_environment(self) -> dict[str, str]:
        """The environment of every command: the user's, plus this session's PITH_* variables."""
        return self._env.variables()

    # --- events -----------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def emit_event(self, event: SessionEvent) -> None:
        """Tell every listener `event` (in the order they subscribed)."""
        for listener in list(self._listeners):
            result = listener(event)
            if inspect.isawaitable(result):
                await result

    # --- the history, compaction and the tree -----------------------------------------------

    def last_reply(self) -> AssistantMessage | None:
        """The newest assistant message of the history, if the history ends with one."""
        return self._history.last_reply()

    def context_tokens(self) -> int:
        """The context's size as the compaction threshold sees it."""
        return self._history.context_tokens()

    def reload_history(self) -> None:
        """The agent's history from the session's projection again."""
        self._history.reload()

    def summarizer(self) -> Summarizer:
        return self._summaries.summarizer()

    @property
    def summarizing(self) -> bool:
        """Whether a compaction or a branch summary is being written outside a run."""
        return self._summaries.busy

    def summary_signal(self) -> AbstractContextManager[AbortSignal]:
        return self._summaries.signal()

    async def compact(self, custom_instructions: str | None = None) -> CompactionOutcome:
        """`/compact [instructions]`: stop the run, then compact now (never retries)."""
        return await self._runs.compact(custom_instructions)

    def request_compaction(self, custom_instructions: str | None = None) -> None:
        """Stop the run and compact once it has stopped."""
        self._runs.request_compaction(custom_instructions)

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
        return await self._navigator.navigate(
            target_id,
            summarize=summarize,
            instructions=instructions,
            replace_instructions=replace_instructions,
            label=label,
        )

    async def new_session(self) -> bool:
        """`/new`: a fresh session in the same folder; False when an extension cancelled."""
        return await self._navigator.new_session()

    async def switch_session(self, path: Path) -> bool:
        """Resume the session stored at `path`; False when an extension cancelled."""
        return await self._navigator.switch_session(path)

    async def fork(self, entry_id: str, *, before: bool = True) -> ForkOutcome:
        """`/fork`: continue in a new session from just before the user message `entry_id`
        (`before=False`: with the path up to `entry_id` itself)."""
        return await self._navigator.fork(entry_id, before=before)

    async def clone(self) -> ForkOutcome:
        """`/clone`: continue in a new session holding the current branch."""
        return await self._navigator.clone()

    def fork_points(self) -> list[tuple[str, str]]:
        """The user messages `fork` can start from, as `(entry id, text)`, oldest first."""
        return fork_points(self.store)

    # --- prompting (see `Prompter`) ---------------------------------------------------------

    async def prompt(
        self, text: str, images: Sequence[ImageContent] = (), *, source: InputSource = "print"
    ) -> PromptOutcome:
        """Handle what the user typed: a `/command`, or a message for the model, run until
        the agent (and any retries) settle; what became of it.

        Raises `InputError` for an unknown `/command`, or one this mode cannot run (see
        `command_refusal`).
        """
        return await self._prompter.prompt(text, images, source)

    def command_names(self) -> CommandNames:
        """Every `/name` this session knows, by kind."""
        return self._prompter.command_names()

    def find_invocation(self, text: str) -> Invocation | None:
        """The command `text` invokes (an unknown `/word` included), or None for plain text."""
        return self._prompter.find_invocation(text)

    def command_refusal(self, text: str) -> str | None:
        """Why `text` cannot be carried out in this mode (an unknown command, or one that
        needs the terminal), in one line; None when it can."""
        invocation = self.find_invocation(text)
        return None if invocation is None else self._prompter.refusal(invocation)

    def expand(self, text: str) -> str:
        """`/skill:name args` and `/template args` as the model will get them."""
        return self._prompter.expand(text)

    async def send_custom_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None:
        await self._prompter.send_custom_message(message, deliver_as, trigger_turn)

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None:
        await self._prompter.send_user_message(text, deliver_as)

    # --- runs and stopping (see `RunController`) --------------------------------------------

    @property
    def will_retry(self) -> bool:
        """Whether the run that just ended is about to be retried (for `agent_end`)."""
        return self._runs.state.will_retry

    async def wait_for_idle(self) -> None:
        """Return once no run is in progress."""
        await self.agent.wait_for_idle()

    def abort(self) -> None:
        """Stop the run, any retry wait, a user command, the tools in flight, and a summary
        being written while idle (a compaction, a branch summary)."""
        self._runs.abort()

    def abort_retry(self) -> None:
        """Stop waiting for the next automatic retry; the failed reply stands."""
        self._runs.abort_retry()

    def abort_bash(self) -> None:
        """Stop the user's own command (`!cmd`) if one runs; the agent's run goes on."""
        self._shell.abort()

    async def run_user_bash(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_update: UpdateCallback | None = None,
    ) -> BashExecutionMessage:
        """Run a command the user typed (`!cmd`; `!!cmd` keeps it out of the model's context);
        see `UserShell`."""
        return await self._shell.run(
            command, exclude_from_context=exclude_from_context, on_update=on_update
        )
