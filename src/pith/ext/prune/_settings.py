"""The settings in force: the `prune` settings read at start-up, the keys `/pruner` set in
this process over them, and the loaded context files (always protected)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pith.ext.prune._config import PruneConfig, read_config
from pith.extensions import ExtensionContext

__all__ = ["OnConfigure", "PrunerSettings"]

OnConfigure = Callable[[PruneConfig, ExtensionContext], None]
"""Told of each newly read configuration (the summarizer's model follows it)."""


class PrunerSettings:
    def __init__(self, on_configure: OnConfigure) -> None:
        self._on_configure = on_configure
        self.config = PruneConfig()
        self.overrides: dict[str, object] = {}
        """`prune` keys set by `/pruner` in this process (also saved to settings.json), over
        the settings read at start-up."""
        self.context_files: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        return self.config.enabled

    def strategy(self, ctx: ExtensionContext) -> str:
        """`summarize` or `mask`, as things are now (no model: mask)."""
        return self.config.effective_strategy(ctx.model is not None)

    def configure(self, ctx: ExtensionContext) -> None:
        """Read the `prune` settings (with the `/pruner` overrides) into `config`; each
        problem is a warning."""
        raw = ctx.settings.get("prune")
        if self.overrides:
            raw = {**raw, **self.overrides} if isinstance(raw, Mapping) else dict(self.overrides)
        config, problems = read_config(raw)
        for problem in problems:
            ctx.ui.notify(problem, "warning")
        self.config = config.with_context_files(self.context_files)
        self._on_configure(self.config, ctx)

    def override(self, key: str, value: object, ctx: ExtensionContext) -> None:
        """Set `prune.<key>` for this process."""
        self.overrides[key] = value
        self.configure(ctx)

    def use_context_files(self, files: frozenset[str]) -> None:
        """The context files the system prompt loads now join the protected paths."""
        if files != self.context_files:
            self.context_files = files
            self.config = self.config.with_context_files(files)
