"""Standing instructions: settings, context files, skills, templates, trust, the system prompt."""

from pith.resources.paths import AGENT_DIR_ENV, agent_dir
from pith.resources.settings import Settings, load_settings, merge_settings
from pith.resources.system_prompt import (
    PREAMBLE,
    PromptTool,
    SystemPromptOptions,
    build_system_prompt,
)

__all__ = [
    "AGENT_DIR_ENV",
    "PREAMBLE",
    "PromptTool",
    "Settings",
    "SystemPromptOptions",
    "agent_dir",
    "build_system_prompt",
    "load_settings",
    "merge_settings",
]
