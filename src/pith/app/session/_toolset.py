"""The tools of a session: the built-ins, those extensions registered, and which are active."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pith.agent import Tool
from pith.extensions import ExtensionRunner

__all__ = ["ToolSet"]


class ToolSet:
    """All tools by name (an extension's tool replaces a built-in of the same name, in its
    place) and the active ones, in the order they were chosen (`--tools ls,read` announces
    `ls` first, as Pi does)."""

    def __init__(
        self, builtins: Mapping[str, Tool], runner: ExtensionRunner, active: Iterable[str]
    ) -> None:
        self._builtins = dict(builtins)
        self._runner = runner
        self._known_extension_tools = set(runner.tools)
        everything = self.all()
        self._active = [name for name in dict.fromkeys(active) if name in everything]

    def all(self) -> dict[str, Tool]:
        tools = dict(self._builtins)
        for name, (_, tool) in self._runner.tools.items():
            tools[name] = tool
        return tools

    def active_names(self) -> list[str]:
        """The active tools the gates let through (`api.set_tool_gate`, `--tools`' MCP
        entries): a gated tool stays chosen but is never declared while its gate says no."""
        return [name for name in self._active if self._runner.tool_allowed(name)]

    def active(self) -> dict[str, Tool]:
        everything = self.all()
        return {name: everything[name] for name in self.active_names() if name in everything}

    def set_active(self, names: Sequence[str]) -> None:
        """Exactly `names` (unknown ones ignored): those already active keep their place, new
        ones follow in the order given (Pi's loadout rule)."""
        everything = self.all()
        wanted = [name for name in dict.fromkeys(names) if name in everything]
        kept = [name for name in self._active if name in wanted]
        self._active = kept + [name for name in wanted if name not in kept]

    def refresh(self) -> bool:
        """Take in tools extensions registered since the last look: active unless they say
        `default_active = False`. True when something changed."""
        new = [name for name in self._runner.tools if name not in self._known_extension_tools]
        self._known_extension_tools.update(new)
        if not new:
            return False
        for name in new:
            active_by_default = getattr(self._runner.tools[name][1], "default_active", True)
            if active_by_default and name not in self._active:
                self._active.append(name)
        return True
