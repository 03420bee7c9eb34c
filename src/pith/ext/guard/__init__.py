"""The tool guard: repairs what models get wrong in tool calls, without changing what they mean.

Argument normalization (`_arguments`), tool-name repair (`_names`), and pipeline stripping for
bash — planned on the parsed command (`_plan`), executed by the wrapped bash tool and
projected onto the full output (`_tools`, `_project`). Wired to pith by `_extension`.
See docs/guard.md.

Each name loads its module on first use: registering the extension does not import the shell
parser, which only a bash call needs.
"""

from __future__ import annotations

from pith._lazy import lazy_names as _lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pith.ext.guard._arguments import Rename, normalize_arguments
    from pith.ext.guard._extension import register
    from pith.ext.guard._names import repair_tool_name
    from pith.ext.guard._plan import GuardPlan, View, plan_command

_HOMES = {
    "pith.ext.guard._arguments": (
        "Rename",
        "normalize_arguments",
    ),
    "pith.ext.guard._extension": ("register",),
    "pith.ext.guard._names": ("repair_tool_name",),
    "pith.ext.guard._plan": (
        "GuardPlan",
        "View",
        "plan_command",
    ),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "GuardPlan",
    "Rename",
    "View",
    "normalize_arguments",
    "plan_command",
    "register",
    "repair_tool_name",
]


__getattr__, __dir__ = _lazy_names(__name__, globals(), _HOME_OF, __all__)
