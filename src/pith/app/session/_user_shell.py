"""The user's own commands (`!cmd`, and `!!cmd` kept out of the model's context)."""

from __future__ import annotations

from collections.abc import Callable

from pith.agent import Agent, UpdateCallback
from pith.ai import BashExecutionMessage
from pith.app.session._aborts import AbortScopes
from pith.app.session._history import History
from pith.app.session._shell_env import ShellEnvironment
from pith.resources import Settings
from pith.tools import BACKGROUND_NOTE, run_shell

__all__ = ["UserShell"]


class UserShell:
    """Runs what the user typed after `!` in `cwd`, with the session's environment, and
    records it in `history`. While the agent is working the result waits for the run to end,
    so it never lands between a tool call and its result."""

    def __init__(
        self,
        *,
        cwd: str,
        env: ShellEnvironment,
        agent: Agent,
        history: History,
        aborts: AbortScopes,
        settings: Callable[[], Settings],
    ) -> None:
        self._cwd = cwd
        self._env = env
        self._agent = agent
        self._history = history
        self._aborts = aborts
        self._settings = settings
        self._queued: list[BashExecutionMessage] = []

    async def run(
        self,
        command: str,
        *,
        exclude_from_context: bool = False,
        on_update: UpdateCallback | None = None,
    ) -> BashExecutionMessage:
        """Run `command`; `on_update` sees the output's visible tail as it grows."""
        with self._aborts.scope("shell") as signal:
            run = await run_shell(
                command,
                self._cwd,
                signal,
                env=self._env.variables(),
                on_update=on_update,
                full_output_max_bytes=self._settings().values.bash_full_output_max_bytes,
            )
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
        if self._agent.is_running:
            self._queued.append(message)
        else:
            self._history.add(message)
        return message

    def abort(self) -> None:
        """Stop the command that runs, if one does; the agent's run goes on."""
        self._aborts.stop("shell")

    def flush(self) -> None:
        """Record the commands that finished during the run that just ended."""
        queued, self._queued = self._queued, []
        for message in queued:
            self._history.add(message)
