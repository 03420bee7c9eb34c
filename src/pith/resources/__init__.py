"""Standing instructions: settings, context files, skills, templates, trust, the system prompt."""

from pith.resources._context_files import CONTEXT_FILE_NAMES, LoadedContextFiles, load_context_files
from pith.resources._discovery import ExtensionPath, discover_prompt_templates, discover_skills
from pith.resources._frontmatter import (
    Frontmatter,
    FrontmatterError,
    parse_frontmatter,
    strip_frontmatter,
)
from pith.resources._loader import ResourceOptions, Resources, load_resources
from pith.resources._paths import AGENT_DIR_ENV, agent_dir
from pith.resources._prompt_templates import (
    expand_prompt_template,
    load_prompt_templates,
    parse_command_args,
    substitute_args,
)
from pith.resources._settings import Settings, SettingsValues, load_settings, merge_settings
from pith.resources._skills import (
    expand_skill_command,
    format_skills_for_prompt,
    load_skills,
    load_skills_from_dir,
)
from pith.resources._system_files import PromptText, SystemFiles, load_system_files
from pith.resources._system_prompt import (
    PREAMBLE,
    PromptTool,
    SystemPromptOptions,
    build_system_prompt,
    build_system_prompt_sections,
    docs_section,
)
from pith.resources._trust import (
    TRUST_FILE,
    DefaultTrust,
    ExtensionTrustVote,
    TrustChoice,
    TrustEntry,
    TrustOption,
    TrustQuestion,
    TrustReason,
    TrustResolution,
    TrustStore,
    has_trust_requiring_resources,
    resolve_project_trust,
    trust_options,
    trust_question,
    trust_requiring_resources,
)
from pith.resources._types import (
    Collision,
    ContextFile,
    Diagnostic,
    PromptTemplate,
    Skill,
    SourceInfo,
)

__all__ = [
    "AGENT_DIR_ENV",
    "CONTEXT_FILE_NAMES",
    "PREAMBLE",
    "TRUST_FILE",
    "Collision",
    "ContextFile",
    "DefaultTrust",
    "Diagnostic",
    "ExtensionPath",
    "ExtensionTrustVote",
    "Frontmatter",
    "FrontmatterError",
    "LoadedContextFiles",
    "PromptTemplate",
    "PromptText",
    "PromptTool",
    "ResourceOptions",
    "Resources",
    "Settings",
    "SettingsValues",
    "Skill",
    "SourceInfo",
    "SystemFiles",
    "SystemPromptOptions",
    "TrustChoice",
    "TrustEntry",
    "TrustOption",
    "TrustQuestion",
    "TrustReason",
    "TrustResolution",
    "TrustStore",
    "agent_dir",
    "build_system_prompt",
    "build_system_prompt_sections",
    "discover_prompt_templates",
    "discover_skills",
    "docs_section",
    "expand_prompt_template",
    "expand_skill_command",
    "format_skills_for_prompt",
    "has_trust_requiring_resources",
    "load_context_files",
    "load_prompt_templates",
    "load_resources",
    "load_settings",
    "load_skills",
    "load_skills_from_dir",
    "load_system_files",
    "merge_settings",
    "parse_command_args",
    "parse_frontmatter",
    "resolve_project_trust",
    "strip_frontmatter",
    "substitute_args",
    "trust_options",
    "trust_question",
    "trust_requiring_resources",
]
