"""Which model a session talks to, and at which thinking level."""

from __future__ import annotations

from pith.agent import Agent
from pith.ai import THINKING_LEVELS, Model, ThinkingLevel
from pith.app.session._credentials import Credentials
from pith.app.session._history import History
from pith.app.session._shell_env import ShellEnvironment
from pith.extensions import ExtensionRunner
from pith.extensions.events import ModelSelect

__all__ = ["ModelChoice"]


class ModelChoice:
    """Switches the agent's model and thinking level, records each change in the session
    tree, keeps the commands' environment in step and tells extensions (`model_select`)."""

    def __init__(
        self,
        *,
        agent: Agent,
        history: History,
        env: ShellEnvironment,
        credentials: Credentials,
        extensions: ExtensionRunner,
    ) -> None:
        self._agent = agent
        self._history = history
        self._env = env
        self._credentials = credentials
        self._extensions = extensions

    async def set_model(self, model: Model) -> bool:
        """Switch to `model`; False (and no switch) when it has no credentials."""
        if self._credentials.missing(model):
            return False
        agent = self._agent
        previous = agent.model
        agent.model = model
        self._env.follow_model(model, agent.thinking)
        self._history.store.append_model_change(model.provider, model.id)
        await self._extensions.emit(ModelSelect(model, previous, "set"))
        return True

    def set_thinking_level(self, level: ThinkingLevel) -> None:
        self._agent.thinking = level
        self._env.follow_model(self._agent.model, level)
        self._history.store.append_thinking_level_change(level)

    def thinking_levels(self) -> list[ThinkingLevel]:
        """The levels the current model takes (`off` alone for a model without reasoning)."""
        return list(THINKING_LEVELS) if self._agent.model.reasoning else ["off"]

    def fit_thinking(self) -> None:
        """After a model change: a model without reasoning thinks at level off."""
        if self._agent.thinking not in self.thinking_levels():
            self.set_thinking_level("off")

    def usable_models(self) -> list[Model]:
        """The registry's models that have credentials."""
        credentials = self._credentials
        return [m for m in credentials.registry.models if credentials.api_key(m) is not None]

    async def cycle_model(self) -> Model | None:
        """Switch to the next usable model (registry order); None when there is no other."""
        current = self._agent.model
        models = self.usable_models()
        if current.key not in {m.key for m in models}:
            models.insert(0, current)
        if len(models) < 2:
            return None
        keys = [m.key for m in models]
        chosen = models[(keys.index(current.key) + 1) % len(models)]
        await self.set_model(chosen)
        self.fit_thinking()
        return chosen

    def cycle_thinking_level(self) -> ThinkingLevel | None:
        """The next level the model takes; None when it takes only one."""
        levels = self.thinking_levels()
        if len(levels) < 2:
            return None
        thinking = self._agent.thinking
        current = levels.index(thinking) if thinking in levels else -1
        chosen = levels[(current + 1) % len(levels)]
        self.set_thinking_level(chosen)
        return chosen
