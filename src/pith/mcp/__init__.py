"""MCP: tools, resources and prompts of Model Context Protocol servers, for pith's session.

The shared shapes (`_types`), tool naming (`_naming`). The configuration reader, the
connection manager and the result conversion live beside them; the built-in extension
`pith.ext.mcp` puts the tools in front of the model, and `pith mcp` manages the files.
"""

from pith.mcp._definitions import clean_input_schema, tool_definition, tool_spec
from pith.mcp._naming import (
    MAX_TOOL_NAME_LENGTH,
    server_namespace,
    server_summary,
    tool_name,
    tool_names,
)
from pith.mcp._search import (
    DEFAULT_SEARCH_LIMIT,
    MAX_SEARCH_LIMIT,
    TOOL_SEARCH_DESCRIPTION,
    TOOL_SEARCH_NAME,
    TOOL_SEARCH_PARAMETERS,
    SearchHit,
    ToolIndex,
    rank_tools,
    search_limit,
    search_result_text,
    search_terms,
)
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
    "DEFAULT_SEARCH_LIMIT",
    "DEFAULT_TIMEOUT",
    "EXPOSURES",
    "MAX_SEARCH_LIMIT",
    "MAX_TOOL_NAME_LENGTH",
    "TOOL_SEARCH_DESCRIPTION",
    "TOOL_SEARCH_NAME",
    "TOOL_SEARCH_PARAMETERS",
    "ConfigProblem",
    "Exposure",
    "McpConfig",
    "McpTool",
    "OAuthConfig",
    "SearchHit",
    "ServerConfig",
    "ServerState",
    "ServerStatus",
    "ToolIndex",
    "Transport",
    "clean_input_schema",
    "rank_tools",
    "search_limit",
    "search_result_text",
    "search_terms",
    "server_namespace",
    "server_summary",
    "tool_definition",
    "tool_name",
    "tool_names",
    "tool_spec",
]
