"""MCP: tools, resources and prompts of Model Context Protocol servers, for pith's session.

The shared shapes (`_types`), tool naming (`_naming`), reading and checking `mcp.json`
(`_config`, `_config_entry`, `_config_values`), a tool's effective exposure (`_exposure`) and
changing one server of a file (`_config_edit`). The configuration reader, the
connection manager and the result conversion live beside them; the built-in extension
`pith.ext.mcp` puts the tools in front of the model, and `pith mcp` manages the files.
"""

from pith.mcp._config import (
    entry_problem,
    load_mcp_config,
    project_mcp_path,
    read_mcp_file,
    user_mcp_path,
)
from pith.mcp._config_edit import McpFileError, add_server, remove_server, set_server_fields
from pith.mcp._definitions import clean_input_schema, tool_definition, tool_spec
from pith.mcp._exposure import tool_exposure
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
    "McpFileError",
    "McpTool",
    "OAuthConfig",
    "SearchHit",
    "ServerConfig",
    "ServerState",
    "ServerStatus",
    "ToolIndex",
    "Transport",
    "add_server",
    "clean_input_schema",
    "entry_problem",
    "load_mcp_config",
    "project_mcp_path",
    "rank_tools",
    "read_mcp_file",
    "remove_server",
    "search_limit",
    "search_result_text",
    "search_terms",
    "server_namespace",
    "server_summary",
    "set_server_fields",
    "tool_definition",
    "tool_exposure",
    "tool_name",
    "tool_names",
    "tool_spec",
    "user_mcp_path",
]
