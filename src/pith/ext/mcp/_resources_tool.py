"""`mcp_resources`: the model lists and reads what connected MCP servers offer as resources.

One tool with three actions, so a session pays for one declaration, not three:

- `list` (optional `server`, `cursor`): resources as JSON, one page of one server, or every
  server's at once;
- `templates` (optional `server`): the URI templates of resources a server does not list;
- `read` (`server`, `uri`): the contents, text capped like a tool result (the rest in a file),
  images as images, other binary contents saved to a private temporary file the text names.

The tool is registered only once some connected server says it has resources. It is declared
directly when one of those servers is `direct`, else it waits for `tool_search` like a
deferred tool. It only reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback, text_result
from pith.extensions import ExtensionContext, ToolDefinition

if TYPE_CHECKING:
    from pith.mcp import McpManager, McpResource, McpResourceTemplate, McpTool, ServerConfig

__all__ = [
    "RESOURCES_DESCRIPTION",
    "RESOURCES_PARAMETERS",
    "ResourceHost",
    "resource_exposure",
    "resources_candidate",
    "resources_tool_definition",
]

RESOURCES_DESCRIPTION = (
    "List and read the resources of connected MCP servers (files, records, documents they "
    "offer by URI). action `list`: resources as JSON (`server` for one server's page, `cursor` "
    "for the next page); `templates`: URI templates for resources not listed; `read`: the "
    "contents of `uri` on `server`."
)
RESOURCES_PARAMETERS: dict[str, object] = {
    "type": "object",
    "properties": {
        "action": {
            "type": "string",
            "enum": ["list", "templates", "read"],
            "description": "list resources, list URI templates, or read one resource",
        },
        "server": {"type": "string", "description": "the MCP server (required for read)"},
        "uri": {"type": "string", "description": "the resource to read"},
        "cursor": {"type": "string", "description": "nextCursor of the previous list page"},
    },
    "required": ["action"],
    "additionalProperties": False,
}


class ResourceHost(Protocol):
    """What the tool needs from the extension: the manager, once servers had their chance."""

    async def ready_manager(self) -> McpManager | None: ...


def resource_exposure(servers: Sequence[ServerConfig]) -> str | None:
    """The tool's exposure for the servers that offer resources: the widest of theirs
    (`direct`, then `deferred`); None when every one of them is hidden (or there is none)."""
    exposures = {server.exposure for server in servers}
    for exposure in ("direct", "deferred"):
        if exposure in exposures:
            return exposure
    return None


def resources_candidate(server: str) -> McpTool:
    """The tool as a `tool_search` candidate (deferred), ranked like a server's tool."""
    from pith.mcp import RESOURCE_TOOL, McpTool

    return McpTool(
        server=server,
        name=RESOURCE_TOOL,
        full_name=RESOURCE_TOOL,
        description=RESOURCES_DESCRIPTION,
        input_schema=RESOURCES_PARAMETERS,
        exposure="deferred",
        annotations={"readOnlyHint": True},
    )


def _resource_json(resource: McpResource) -> dict[str, Any]:
    found: dict[str, Any] = {"server": resource.server, "uri": resource.uri, "name": resource.name}
    if resource.description:
        found["description"] = resource.description
    if resource.mime_type:
        found["mimeType"] = resource.mime_type
    if resource.size is not None:
        found["size"] = resource.size
    return found


def _template_json(template: McpResourceTemplate) -> dict[str, Any]:
    found: dict[str, Any] = {
        "server": template.server,
        "uriTemplate": template.uri_template,
        "name": template.name,
    }
    if template.description:
        found["description"] = template.description
    if template.mime_type:
        found["mimeType"] = template.mime_type
    return found


def _text(args: dict[str, object], key: str) -> str | None:
    value = args.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolError(f"{key}: give it as a string")
    return value


def resources_tool_definition(host: ResourceHost, *, active: bool) -> ToolDefinition:
    """`mcp_resources` for `api.register_tool`; `active=False` waits for `tool_search`."""
    from pith.mcp import RESOURCE_TOOL

    async def execute(
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        ctx: ExtensionContext,
    ) -> ToolResult:
        action = args.get("action")
        server, uri, cursor = _text(args, "server"), _text(args, "uri"), _text(args, "cursor")
        manager = await host.ready_manager()
        if manager is None:
            raise ToolError("MCP is off for this session; no resources can be read")
        if action == "read":
            if server is None or uri is None:
                raise ToolError("read needs `server` and `uri` (list the resources first)")
            read = await manager.read_resource(server, uri)
            return ToolResult(
                content=list(read.content), details=dict(read.details), is_error=read.is_error
            )
        if action not in ("list", "templates"):
            raise ToolError("action: one of list, templates, read")
        page = await manager.list_resources(server, cursor if action == "list" else None)
        body: dict[str, Any]
        if action == "list":
            body = {"resources": [_resource_json(r) for r in page.resources]}
            if page.next_cursor:
                body["nextCursor"] = page.next_cursor
        else:
            body = {"resourceTemplates": [_template_json(t) for t in page.templates]}
        if server is not None:
            body = {"server": server, **body}
        if page.problems:
            body["problems"] = list(page.problems)
        failed = bool(page.problems) and not page.resources and not page.templates
        result = text_result(json.dumps(body, indent=2, ensure_ascii=False), details=body)
        return ToolResult(content=result.content, details=result.details, is_error=failed)

    return ToolDefinition(
        name=RESOURCE_TOOL,
        description=RESOURCES_DESCRIPTION,
        parameters=RESOURCES_PARAMETERS,
        execute=execute,
        label="MCP resources",
        prompt_snippet="List and read MCP servers' resources",
        default_active=active,
    )
