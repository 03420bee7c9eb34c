"""What is sent to a conversation: the user's text (a `/command`, or a message for the model)
and the messages extensions send."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from pith.agent import Agent
from pith.ai import (
    AgentMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    UserContent,
    UserMessage,
)
from pith.app.session._builtins import BUILTINS
from pith.app.session._commands import BuiltinOutcome, invocation_refusal
from pith.app.session._compaction import Compactor
from pith.app.session._dispatch import CommandNames, Invocation, classify
from pith.app.session._history import History
from pith.app.session._outcome import PromptOutcome
from pith.app.session._run import RunController
from pith.app.session._system_prompt import SystemPrompts
from pith.errors import InputError
from pith.extensions import DeliverAs, ExtensionRunner, ExtensionUI, Mode
from pith.extensions.events import Input, InputSource
from pith.resources import Resources, Skill, expand_prompt_template, expand_skill_command

__all__ = ["PromptOwner", "Prompter"]

RunBuiltin = Callable[[str, str], Awaitable[BuiltinOutcome]]


class PromptOwner(Protocol):
    """What the prompter reads from its session each time (any of it may be replaced)."""

    mode: Mode
    ui: ExtensionUI
    resources: Resources
    editor_offer: Callable[[str], None]


class Prompter:
    """Turns what is sent into commands run and agent runs. `run_builtin` carries out pith's
    own commands; `next_turn` holds what extensions queued for the user's next prompt."""

    def __init__(
        self,
        *,
        owner: PromptOwner,
        agent: Agent,
        history: History,
        extensions: ExtensionRunner,
        prompts: SystemPrompts,
        compactor: Compactor,
        runs: RunController,
        run_builtin: RunBuiltin,
    ) -> None:
        self._owner = owner
        self._agent = agent
        self._history = history
        self._extensions = extensions
        self._prompts = prompts
        self._compactor = compactor
        self._runs = runs
        self._run_builtin = run_builtin
        self.next_turn: list[AgentMessage] = []

    async def prompt(
        self, text: str, images: Sequence[ImageContent], source: InputSource
    ) -> PromptOutcome:
        """Handle what the user typed: a `/command`, or a message for the model, run until
        the agent (and any retries) settle. Raises `InputError` for an unknown `/command`, or
        one this mode cannot run."""
        runs = self._runs.runs
        runner = self._extensions
        invocation = self.find_invocation(text)
        if invocation is not None:
            problem = self.refusal(invocation)
            if problem is not None:
                raise InputError(problem)
            if invocation.kind == "builtin":
                done = await self._run_builtin(invocation.name, invocation.arguments)
                return self._handled(runs, failed=done.failed, editor_text=done.editor_text)
            if invocation.kind == "extension":
                command = runner.commands[invocation.name]
                # It may itself prompt (send_user_message).
                await runner.run_command(command, invocation.arguments)
                return self._handled(runs)
        images = list(images)
        if runner.has_handlers("input"):
            answer = await runner.emit(Input(text, images, source))
            if answer.action == "handled":
                return self._handled(runs)
            if answer.action == "transform" and answer.text is not None:
                text, images = answer.text, list(answer.images or images)
        text = self.expand(text)
        last = self._history.last_reply()
        await self._compactor.check_after_reply(last, self._runs.state, before_prompt=True)
        content: list[UserContent] = [TextContent(text=text), *images]
        messages: list[AgentMessage] = [UserMessage(content=content), *self.next_turn]
        self.next_turn = []
        messages.extend(await self._prompts.prepare_run(text, images))
        return PromptOutcome(ran=True, reply=await self._runs.run(messages))

    def _handled(
        self, runs: int, *, failed: bool = False, editor_text: str | None = None
    ) -> PromptOutcome:
        """A command or an input handler took the text; a run it started gives the reply."""
        ran = self._runs.runs != runs
        reply = self._history.last_reply() if ran else None
        return PromptOutcome(True, ran, reply, failed, editor_text)

    def command_names(self) -> CommandNames:
        """Every `/name` the session knows, by kind."""
        resources = self._owner.resources
        return CommandNames(
            builtin=BUILTINS,
            extension=self._extensions.commands,
            template={template.name for template in resources.prompt_templates},
            skill={f"skill:{skill.name}" for skill in resources.skills},
        )

    def find_invocation(self, text: str) -> Invocation | None:
        """The command `text` invokes (an unknown `/word` included), or None for plain text."""
        return classify(text, self.command_names())

    def refusal(self, invocation: Invocation) -> str | None:
        return invocation_refusal(invocation, self._owner.mode, self._extensions.commands)

    def expand(self, text: str) -> str:
        """`/skill:name args` and `/template args` as the model will get them."""
        if not text.startswith("/"):
            return text
        owner = self._owner

        def unreadable(skill: Skill, reason: str) -> None:
            owner.ui.notify(f"skill {skill.name} could not be loaded: {reason}", "warning")

        text = expand_skill_command(text, owner.resources.skills, on_error=unreadable)
        return expand_prompt_template(text, owner.resources.prompt_templates)

    # --- messages from extensions -----------------------------------------------------------

    async def send_custom_message(
        self, message: CustomMessage, deliver_as: DeliverAs, trigger_turn: bool
    ) -> None:
        agent = self._agent
        if agent.is_running:
            if deliver_as == "steer":
                agent.steer(message)
            elif deliver_as == "follow_up":
                agent.follow_up(message)
            else:
                self.next_turn.append(message)
        elif deliver_as == "next_turn":
            self.next_turn.append(message)  # whatever trigger_turn says, as in Pi
        elif trigger_turn:
            await self._runs.run([message])
        else:
            await self._runs.add_idle(message)

    async def send_user_message(self, text: str, deliver_as: DeliverAs | None) -> None:
        agent = self._agent
        message = UserMessage(content=[TextContent(text=text)])
        if agent.is_running:
            if deliver_as == "follow_up":
                agent.follow_up(message)
            elif deliver_as == "next_turn":
                self.next_turn.append(message)
            else:
                agent.steer(message)
        else:
            outcome = await self.prompt(text, (), "extension")
            # A command it ran may hand text back to edit (`/fork`'s message): the mode that
            # has an editor takes it, as for a command the user typed.
            if outcome.editor_text is not None:
                self._owner.editor_offer(outcome.editor_text)
