"""MCP: tools, resources and prompts of Model Context Protocol servers, for pith's session.

The shared shapes (`_types`), tool naming (`_naming`). The configuration reader, the
connection manager and the result conversion live beside them; the built-in extension
`pith.ext.mcp` puts the tools in front of the model, and `pith mcp` manages the files.
"""

from pith.mcp._listings import (
    McpPrompt,
    McpPromptMessage,
    McpPromptResult,
    McpResource,
    McpResourceTemplate,
    PromptArgument,
    ResourcePage,
)
from pith.mcp._manager import McpManager
from pith.mcp._naming import (
    MAX_TOOL_NAME_LENGTH,
    server_namespace,
    server_summary,
    tool_name,
    tool_names,
)
from pith.mcp._results import MAX_TEXT_BYTES, RESOURCE_TOOL, McpCallResult
from pith.mcp._types import (
    DEFAULT_EXPOSURE,
    DEFAULT_TIMEOUT,
    EXPOSURES,
    ConfigProblem,
    Exposure,
    McpConfig,
    McpTool,
    OAuthConfig,
    ServerConfig,
    ServerState,
    ServerStatus,
    Transport,
)

__all__ = [
    "DEFAULT_EXPOSURE",
    "DEFAULT_TIMEOUT",
    "EXPOSURES",
    "MAX_TEXT_BYTES",
    "MAX_TOOL_NAME_LENGTH",
    "RESOURCE_TOOL",
    "ConfigProblem",
    "Exposure",
    "McpCallResult",
    "McpConfig",
    "McpManager",
    "McpPrompt",
    "McpPromptMessage",
    "McpPromptResult",
    "McpResource",
    "McpResourceTemplate",
    "McpTool",
    "OAuthConfig",
    "PromptArgument",
    "ResourcePage",
    "ServerConfig",
    "ServerState",
    "ServerStatus",
    "Transport",
    "server_namespace",
    "server_summary",
    "tool_name",
    "tool_names",
]
