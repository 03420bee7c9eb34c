"""The permission system: allow / ask / deny for every tool call, path and bash command.

Configured in the `permission` section of settings.json (docs/permissions.md). Built from
pure policy modules — `pith.glob`'s wildcard (pattern languages), `_paths` (path forms), `_rules`
(last-match-wins per surface), `_config` (layers and their merge), `_bash` (what a command
runs and touches), `_mcp` (MCP tool names and the `mcp` surface), `_path_arguments` (the paths
in an MCP or extension tool's arguments), `_gates` (the decision), `_suggest` (patterns to
approve) — and `_extension`, which wires them to pith's events.
"""

from pith.ext.permissions._config import (
    PermissionConfigError,
    PermissionLayer,
    build_rules,
    build_ruleset,
    permission_layers,
)
from pith.ext.permissions._control import pith_package_dir
from pith.ext.permissions._extension import describe_decision, register
from pith.ext.permissions._gates import Decision, Finding, Situation, decide
from pith.ext.permissions._rules import Rule, Ruleset

__all__ = [
    "Decision",
    "Finding",
    "PermissionConfigError",
    "PermissionLayer",
    "Rule",
    "Ruleset",
    "Situation",
    "build_rules",
    "build_ruleset",
    "decide",
    "describe_decision",
    "permission_layers",
    "pith_package_dir",
    "register",
]
