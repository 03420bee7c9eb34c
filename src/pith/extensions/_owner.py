"""What an extension's `api` needs from the runner that keeps its registrations.

`ExtensionAPI` depends on this, not on the runner itself, so the runner can hand out APIs
without the two modules importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pith.agent import Tool
    from pith.extensions._context import ExtensionContext
    from pith.extensions._host import ExtensionHost
    from pith.extensions._registry import Command, EventBus, Extension, Flag, Handler, Shortcut

__all__ = ["ExtensionOwner"]


class ExtensionOwner(Protocol):
    @property
    def cwd(self) -> str: ...

    @property
    def agent_dir(self) -> Path | None: ...

    @property
    def host(self) -> ExtensionHost | None:
        """The running pith, once bound."""
        ...

    @property
    def events(self) -> EventBus: ...

    @property
    def tools(self) -> dict[str, tuple[Extension, Tool]]: ...

    @property
    def commands(self) -> dict[str, Command]: ...

    @property
    def flags(self) -> dict[str, Flag]: ...

    @property
    def flag_values(self) -> dict[str, bool | str | None]: ...

    @property
    def shortcuts(self) -> list[Shortcut]: ...

    def context_for(self, extension: Extension) -> ExtensionContext: ...

    def on(
        self, extension: Extension, event: str, handler: Handler, *, copy: bool = True
    ) -> Callable[[], None]: ...

    def add_tool(self, extension: Extension, tool: Tool) -> None: ...

    def set_tool_gate(self, owner: str, gate: Callable[[str], bool] | None) -> None: ...

    def tool_allowed(self, name: str) -> bool: ...
