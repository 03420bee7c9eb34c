"""What a server lists besides tools: its resources (and URI templates) and its prompts."""

from __future__ import annotations

from dataclasses import dataclass, field

from pith.ai import ImageContent, TextContent

__all__ = [
    "McpPrompt",
    "McpPromptMessage",
    "McpPromptResult",
    "McpResource",
    "McpResourceTemplate",
    "PromptArgument",
    "ResourcePage",
]


@dataclass(frozen=True)
class McpResource:
    server: str
    uri: str
    name: str
    description: str | None = None
    mime_type: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class McpResourceTemplate:
    server: str
    uri_template: str
    name: str
    description: str | None = None
    mime_type: str | None = None


@dataclass(frozen=True)
class ResourcePage:
    """One page of resources; `next_cursor` asks for the next page of the same server.

    Templates come with the first page (no cursor). `problems` names servers that could not be
    listed (one line each), when several servers were asked at once.
    """

    resources: tuple[McpResource, ...] = ()
    templates: tuple[McpResourceTemplate, ...] = ()
    next_cursor: str | None = None
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True)
class McpPrompt:
    server: str
    name: str
    description: str | None = None
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True)
class McpPromptMessage:
    role: str
    """`user` or `assistant`."""
    content: list[TextContent | ImageContent] = field(default_factory=list)


@dataclass(frozen=True)
class McpPromptResult:
    server: str
    name: str
    description: str | None = None
    messages: tuple[McpPromptMessage, ...] = ()
