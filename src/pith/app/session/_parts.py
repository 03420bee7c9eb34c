"""The parts an `AgentSession` owns, built and wired in one place: each part is given exactly
what it works with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from pith.agent import Agent, AgentOptions, QueueMode
from pith.ai import Model, RetryPolicy, ThinkingLevel
from pith.app.session._aborts import AbortScopes
from pith.app.session._command_host import CommandSession
from pith.app.session._commands import BuiltinOutcome, run_builtin
from pith.app.session._compaction import Compactor
from pith.app.session._credentials import Credentials
from pith.app.session._events import SessionEvent
from pith.app.session._extension_hooks import history_hooks, tool_hooks
from pith.app.session._history import History, note_choices
from pith.app.session._model_choice import ModelChoice
from pith.app.session._navigation import TreeNavigator
from pith.app.session._prompting import Prompter
from pith.app.session._run import RunController
from pith.app.session._shell_env import ShellEnvironment
from pith.app.session._summaries import Summaries
from pith.app.session._system_prompt import SystemPrompts
from pith.app.session._toolset import ToolSet
from pith.app.session._user_shell import UserShell
from pith.extensions import ExtensionRunner, NoticeLevel
from pith.extensions.events import BeforeProviderRequest
from pith.resources import Settings
from pith.session import SessionStore

__all__ = ["PartsOwner", "SessionChoices", "SessionParts", "build_parts"]


class PartsOwner(CommandSession, Protocol):
    """What the parts read from the session that owns them, each time (the settings, the
    retry policy, the UI and the resources may be replaced while it lives)."""

    editor_offer: Callable[[str], None]

    @property
    def retry(self) -> RetryPolicy: ...

    async def emit_event(self, event: SessionEvent) -> None: ...


@dataclass(frozen=True)
class SessionChoices:
    """What the session starts with."""

    cwd: str
    model: Model
    thinking: ThinkingLevel
    retry: RetryPolicy
    steering_mode: QueueMode
    follow_up_mode: QueueMode
    custom_prompt: str | None
    """A system prompt that replaces everything (SDK use and tests); SYSTEM.md and
    `--system-prompt` arrive through the resources."""


@dataclass(frozen=True)
class SessionParts:
    agent: Agent
    history: History
    prompts: SystemPrompts
    summaries: Summaries
    compactor: Compactor
    navigator: TreeNavigator
    shell: UserShell
    runs: RunController
    models: ModelChoice
    prompter: Prompter


def build_parts(
    owner: PartsOwner,
    choices: SessionChoices,
    *,
    store: SessionStore,
    toolset: ToolSet,
    extensions: ExtensionRunner,
    credentials: Credentials,
    env: ShellEnvironment,
) -> SessionParts:
    """The agent on the tree's projection, and every part around it."""
    cwd, runner = choices.cwd, extensions
    aborts = AbortScopes()

    def settings() -> Settings:
        return owner.config

    def notify(text: str, level: NoticeLevel) -> None:
        owner.ui.notify(text, level)

    async def on_payload(body: dict[str, object]) -> dict[str, object] | None:
        if not runner.has_handlers("before_provider_request"):
            return None
        return await runner.emit(BeforeProviderRequest(body))

    async def between_turns() -> None:
        await compactor.check_between_turns()

    async def builtin(name: str, arguments: str) -> BuiltinOutcome:
        return await run_builtin(owner, name, arguments)

    before, after = tool_hooks(runner)
    context_hook, message_hook = history_hooks(runner)
    options = AgentOptions(
        api_key=credentials.api_key,
        headers=credentials.headers,
        session_id=store.id,
        transform_context=context_hook,
        replace_message=message_hook,
        before_next_turn=between_turns,
        before_tool_call=before,
        after_tool_call=after,
        on_payload=on_payload,
        steering_mode=choices.steering_mode,
        follow_up_mode=choices.follow_up_mode,
    )
    projection = store.projection()
    agent = Agent(
        model=choices.model,
        system_prompt="",
        tools=toolset.active(),
        thinking=choices.thinking,
        messages=list(projection.messages),
        options=options,
    )
    env.follow_store(store)
    env.follow_model(choices.model, choices.thinking)
    history = History(agent, store, env)
    prompts = SystemPrompts(
        cwd=cwd,
        agent=agent,
        toolset=toolset,
        extensions=runner,
        resources=lambda: owner.resources,
        custom=choices.custom_prompt,
    )
    summaries = Summaries(agent, credentials, aborts, settings, lambda: owner.retry, notify)
    compactor = Compactor(
        agent=agent,
        history=history,
        summaries=summaries,
        extensions=runner,
        emit=owner.emit_event,
        settings=settings,
        notify=notify,
    )
    shell = UserShell(
        cwd=cwd, env=env, agent=agent, history=history, aborts=aborts, settings=settings
    )
    runs = RunController(
        agent=agent,
        history=history,
        compactor=compactor,
        shell=shell,
        extensions=runner,
        aborts=aborts,
        emit=owner.emit_event,
        retry=choices.retry,
    )
    parts = SessionParts(
        agent=agent,
        history=history,
        prompts=prompts,
        summaries=summaries,
        compactor=compactor,
        navigator=TreeNavigator(
            cwd=cwd,
            agent=agent,
            history=history,
            summaries=summaries,
            extensions=runner,
            settings=settings,
        ),
        shell=shell,
        runs=runs,
        models=ModelChoice(
            agent=agent, history=history, env=env, credentials=credentials, extensions=runner
        ),
        prompter=Prompter(
            owner=owner,
            agent=agent,
            history=history,
            extensions=runner,
            prompts=prompts,
            compactor=compactor,
            runs=runs,
            run_builtin=builtin,
        ),
    )
    agent.system_prompt = prompts.text()
    note_choices(store, projection, choices.model, choices.thinking)
    agent.subscribe(runs.forward)
    return parts
