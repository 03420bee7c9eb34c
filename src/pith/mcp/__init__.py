"""MCP: tools, resources and prompts of Model Context Protocol servers, for pith's session.

The shared shapes (`_types`), tool naming (`_naming`), reading and checking `mcp.json`
(`_config`, `_config_entry`, `_config_values`), a tool's effective exposure (`_exposure`) and
changing one server of a file (`_config_edit`). OAuth: the sign-in behind `pith mcp login`
(`_oauth_login`, `_oauth_callback`), the token file `mcp-auth.json` (`_oauth_store`) and the
bearer token a connection sends and refreshes (`_oauth_auth`). The configuration reader, the
connection manager and the result conversion live beside them; the built-in extension
`pith.ext.mcp` puts the tools in front of the model, and `pith mcp` manages the files.

The connection manager and result conversion import the MCP SDK, which takes a noticeable
part of a second to load; their names (`McpManager`, `McpCallResult`, `MAX_TEXT_BYTES`,
`RESOURCE_TOOL`, and OAuth's `sign_in`) load on first use, so a session without servers never
pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pith._lazy import lazy_names as _lazy_names
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
from pith.mcp._listings import (
    McpPrompt,
    McpPromptMessage,
    McpPromptResult,
    McpResource,
    McpResourceTemplate,
    PromptArgument,
    ResourcePage,
)
from pith.mcp._naming import (
    MAX_TOOL_NAME_LENGTH,
    server_namespace,
    server_summary,
    tool_name,
    tool_names,
)
from pith.mcp._oauth_callback import SignInError
from pith.mcp._oauth_store import (
    McpAuthFileError,
    auth_path,
    read_record,
    remove_record,
    uses_oauth,
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

if TYPE_CHECKING:
    from pith.mcp._manager import McpManager
    from pith.mcp._oauth_login import SignInOutcome, SignInPrompt, sign_in
    from pith.mcp._results import MAX_TEXT_BYTES, RESOURCE_TOOL, McpCallResult

_LAZY = {
    "McpManager": "pith.mcp._manager",
    "McpCallResult": "pith.mcp._results",
    "MAX_TEXT_BYTES": "pith.mcp._results",
    "RESOURCE_TOOL": "pith.mcp._results",
    "SignInOutcome": "pith.mcp._oauth_login",
    "SignInPrompt": "pith.mcp._oauth_login",
    "sign_in": "pith.mcp._oauth_login",
}

__all__ = [
    "DEFAULT_EXPOSURE",
    "DEFAULT_SEARCH_LIMIT",
    "DEFAULT_TIMEOUT",
    "EXPOSURES",
    "MAX_SEARCH_LIMIT",
    "MAX_TEXT_BYTES",
    "MAX_TOOL_NAME_LENGTH",
    "RESOURCE_TOOL",
    "TOOL_SEARCH_DESCRIPTION",
    "TOOL_SEARCH_NAME",
    "TOOL_SEARCH_PARAMETERS",
    "ConfigProblem",
    "Exposure",
    "McpAuthFileError",
    "McpCallResult",
    "McpConfig",
    "McpFileError",
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
    "SearchHit",
    "ServerConfig",
    "ServerState",
    "ServerStatus",
    "SignInError",
    "SignInOutcome",
    "SignInPrompt",
    "ToolIndex",
    "Transport",
    "add_server",
    "auth_path",
    "clean_input_schema",
    "entry_problem",
    "load_mcp_config",
    "project_mcp_path",
    "rank_tools",
    "read_mcp_file",
    "read_record",
    "remove_record",
    "remove_server",
    "search_limit",
    "search_result_text",
    "search_terms",
    "server_namespace",
    "server_summary",
    "set_server_fields",
    "sign_in",
    "tool_definition",
    "tool_exposure",
    "tool_name",
    "tool_names",
    "tool_spec",
    "user_mcp_path",
    "uses_oauth",
]


__getattr__, __dir__ = _lazy_names(__name__, globals(), _LAZY, __all__)
