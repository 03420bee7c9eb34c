"""The tool guard: repairs what models get wrong in tool calls, without changing what they mean.

Argument normalization (`_arguments`), tool-name repair (`_names`), and pipeline stripping for
bash — planned on the parsed command (`_plan`), executed by the wrapped bash tool and
projected onto the full output (`_tools`, `_project`). Wired to pith by `_extension`.
See docs/guard.md.
"""

from pith.ext.guard._arguments import Rename, normalize_arguments
from pith.ext.guard._extension import register
from pith.ext.guard._names import repair_tool_name
from pith.ext.guard._plan import GuardPlan, View, plan_command

__all__ = [
    "GuardPlan",
    "Rename",
    "View",
    "normalize_arguments",
    "plan_command",
    "register",
    "repair_tool_name",
]
