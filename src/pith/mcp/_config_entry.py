"""One entry of `mcpServers`, checked: the rules of the shape other MCP clients share, plus
pith's. Pure functions of the entry; values are filled in later (`_config_values`).

The transport: a `url` makes an HTTP server (streamable HTTP), a `command` a stdio server; an
optional `type` must agree (`stdio`, `http`, `streamable-http`). The legacy SSE transport is
refused. Fields pith does not know are ignored, since other clients add their own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypedDict, cast
from urllib.parse import urlsplit

from pith.mcp._types import (
    DEFAULT_EXPOSURE,
    DEFAULT_TIMEOUT,
    EXPOSURES,
    Exposure,
    OAuthConfig,
    ServerConfig,
)

__all__ = [
    "OVERRIDE_FIELDS",
    "EntryError",
    "apply_override",
    "check_entry",
    "check_server_name",
    "is_override",
    "read_exposure",
]

OVERRIDE_FIELDS = ("enabled", "exposure", "toolExposure")
"""What a project entry without `command`, `url` or `type` may change of a user-level server."""

_NAME = re.compile(r"[A-Za-z0-9_-]+")
_EXPOSURE_ALIASES: Mapping[str, Exposure] = {
    "codemode": "deferred",
    "codemode-deferred": "deferred",
}
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
_EXPOSURE_WORDS = '"direct", "deferred" or "hidden"'


@dataclass(frozen=True)
class EntryError(Exception):
    """Why an entry cannot be used: the field (None: the entry as a whole) and what to do."""

    field: str | None
    message: str


def check_server_name(name: str) -> str | None:
    """Why `name` cannot name a server, or None when it can."""
    if not _NAME.fullmatch(name):
        return "a server name may hold only letters, digits, '_' and '-'; rename it"
    if "__" in name.replace("-", "_"):
        return (
            "a server name may not contain '__' (nor '-' next to '_' or '-'): tool names "
            "are mcp__<server>__<tool>; rename it"
        )
    return None


def is_override(raw: Mapping[str, object]) -> bool:
    """A project entry with no `command`, `url` or `type` changes a user-level server's fields."""
    return "command" not in raw and "url" not in raw and "type" not in raw


def read_exposure(value: object, field: str) -> Exposure:
    """An exposure value; Pi's `codemode` and `codemode-deferred` are read as `deferred`."""
    if isinstance(value, str):
        if value in EXPOSURES:
            return value
        if value in _EXPOSURE_ALIASES:
            return _EXPOSURE_ALIASES[value]
    raise EntryError(field, f"must be {_EXPOSURE_WORDS}, not {_shown(value)}")


def check_entry(name: str, raw: object, source: Path | None) -> ServerConfig:
    """The server `raw` describes, with values as written (no `${NAME}` filled in yet)."""
    problem = check_server_name(name)
    if problem is not None:
        raise EntryError(None, problem)
    if not isinstance(raw, dict):
        raise EntryError(None, f"must be an object ({{...}}), not {_shown(raw)}")
    common = _common_fields(raw)
    kind = raw.get("type")
    if kind == "sse":
        raise EntryError(
            "type",
            "the legacy SSE transport is not supported; use the server's streamable HTTP "
            "endpoint (often /mcp instead of /sse) as url",
        )
    if kind is not None and kind not in ("stdio", "http", "streamable-http"):
        raise EntryError(
            "type", f'must be "stdio", "http" or "streamable-http", not {_shown(kind)}'
        )
    url, command = raw.get("url"), raw.get("command")
    if isinstance(url, str) and kind in (None, "http", "streamable-http"):
        return _http(name, raw, source, common)
    if isinstance(command, str) and kind in (None, "stdio"):
        return _stdio(name, raw, source, common)
    if kind == "stdio" or (kind is None and command is not None):
        field, what = "command", "the executable to start, as a string"
    elif kind is not None or url is not None:
        field, what = "url", "the server's http or https URL, as a string"
    else:
        raise EntryError(None, 'needs "command" (a stdio server) or "url" (an HTTP server)')
    value = raw.get(field)
    got = "missing" if value is None else f"not {_shown(value)}"
    raise EntryError(field, f"must be {what} ({got})")


def apply_override(base: ServerConfig, raw: Mapping[str, object], source: Path) -> ServerConfig:
    """`base` with the project entry's `enabled`, `exposure` and `toolExposure`."""
    extra = [key for key in raw if key not in OVERRIDE_FIELDS]
    if extra:
        raise EntryError(
            extra[0],
            "an entry without command or url only overrides enabled, exposure and "
            "toolExposure of the user-level server; remove the other fields or define the "
            "whole server",
        )
    fields = _common_fields(dict(raw))
    return replace(
        base,
        override=source,
        enabled=fields["enabled"] if "enabled" in raw else base.enabled,
        exposure=fields["exposure"] if "exposure" in raw else base.exposure,
        tool_exposure=fields["tool_exposure"] if "toolExposure" in raw else base.tool_exposure,
    )


class _Common(TypedDict):
    """The fields both transports have, as `ServerConfig` keywords."""

    enabled: bool
    description: str | None
    timeout: float
    exposure: Exposure
    tool_exposure: tuple[tuple[str, Exposure], ...]
    roots: tuple[str, ...] | None


def _common_fields(raw: dict[str, object]) -> _Common:
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise EntryError("enabled", f"must be true or false, not {_shown(enabled)}")
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise EntryError("description", f"must be a string, not {_shown(description)}")
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise EntryError("timeout", f"must be a number of seconds above 0, not {_shown(timeout)}")
    exposure = read_exposure(raw.get("exposure", DEFAULT_EXPOSURE), "exposure")
    return _Common(
        enabled=enabled,
        description=description,
        timeout=float(timeout),
        exposure=exposure,
        tool_exposure=_tool_exposure(raw.get("toolExposure", {})),
        roots=_roots(raw.get("roots")),
    )


def _roots(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(item, str) and item.strip() and "\0" not in item for item in value
    ):
        raise EntryError(
            "roots",
            'must be a list of folder paths, e.g. [".", "~/notes"], not ' + _shown(value),
        )
    return tuple(cast(list[str], value))


def _tool_exposure(value: object) -> tuple[tuple[str, Exposure], ...]:
    if not isinstance(value, dict):
        raise EntryError(
            "toolExposure",
            f'must map tool names or patterns to exposures, e.g. {{"get_*": "direct"}}, '
            f"not {_shown(value)}",
        )
    return tuple(
        (str(key), read_exposure(item, f"toolExposure.{key}")) for key, item in value.items()
    )


def _stdio(name: str, raw: dict[str, object], source: Path | None, common: _Common) -> ServerConfig:
    command = cast(str, raw["command"])
    if not command.strip():
        raise EntryError("command", "must name the executable to start; it is empty")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise EntryError("args", f"must be a list of strings, not {_shown(args)}")
    cwd = raw.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise EntryError("cwd", f"must be a folder path as a string, not {_shown(cwd)}")
    return ServerConfig(
        name=name,
        transport="stdio",
        source=source,
        command=command,
        args=tuple(cast(list[str], args)),
        env=_strings(raw, "env"),
        cwd=Path(cwd) if cwd is not None else None,
        **common,
    )


def _http(name: str, raw: dict[str, object], source: Path | None, common: _Common) -> ServerConfig:
    url = cast(str, raw["url"])
    if not _is_http_url(url):
        raise EntryError("url", f"must be an http or https URL, not {url!r}")
    return ServerConfig(
        name=name,
        transport="http",
        source=source,
        url=url,
        headers=_strings(raw, "headers"),
        oauth=_oauth(raw.get("oauth")),
        **common,
    )


def _strings(raw: dict[str, object], field: str) -> dict[str, str]:
    value = raw.get(field, {})
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise EntryError(field, 'must map names to strings, e.g. {"NAME": "value"}')
    return cast(dict[str, str], dict(value))


def _oauth(value: object) -> OAuthConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise EntryError("oauth", f"must be an object, not {_shown(value)}")
    text: dict[str, str | None] = {}
    for key in ("clientId", "clientSecret", "scope", "clientName"):
        item = value.get(key)
        if item is not None and not isinstance(item, str):
            raise EntryError(f"oauth.{key}", f"must be a string, not {_shown(item)}")
        text[key] = item
    if text["clientName"] is not None and not text["clientName"].strip():
        raise EntryError("oauth.clientName", "must not be empty")
    port = value.get("callbackPort")
    if port is not None and (
        isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535
    ):
        raise EntryError(
            "oauth.callbackPort", f"must be a port number (1-65535), not {_shown(port)}"
        )
    callback = _callback_url(value.get("callbackUrl"), port)
    registration = value.get("clientRegistration", "auto")
    if registration not in ("auto", "dcr", "cimd"):
        raise EntryError(
            "oauth.clientRegistration",
            f'must be "auto", "dcr" or "cimd", not {_shown(registration)}',
        )
    if registration == "cimd":
        _check_cimd(text, callback)
    return OAuthConfig(
        client_id=text["clientId"],
        client_secret=text["clientSecret"],
        client_name=text["clientName"],
        callback_port=port,
        callback_url=callback,
        scope=text["scope"],
        auth_server_metadata_url=_metadata_url(value.get("authServerMetadataUrl")),
        client_registration=registration,
    )


def _callback_url(value: object, port: object) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value) if isinstance(value, str) else None
    if (
        parts is None
        or parts.scheme != "http"
        or _host(parts.netloc) not in _LOOPBACK
        or parts.query
        or parts.fragment
    ):
        raise EntryError(
            "oauth.callbackUrl",
            "must be an http URL on localhost, 127.0.0.1 or [::1] without query or fragment",
        )
    try:
        own_port = parts.port
    except ValueError:
        raise EntryError("oauth.callbackUrl", "holds a port that is not a number") from None
    if own_port is not None and port is not None and own_port != port:
        raise EntryError("oauth.callbackUrl", "names another port than oauth.callbackPort")
    return cast(str, value)


def _check_cimd(text: Mapping[str, str | None], callback: str | None) -> None:
    if text["clientId"] is not None or text["clientName"] is not None:
        raise EntryError(
            "oauth.clientRegistration",
            '"cimd" cannot be combined with oauth.clientId or oauth.clientName',
        )
    if callback is not None:
        parts = urlsplit(callback)
        if _host(parts.netloc) == "[::1]" or parts.path != "/callback":
            raise EntryError(
                "oauth.clientRegistration",
                '"cimd" needs oauth.callbackUrl on localhost or 127.0.0.1 with the path /callback',
            )


def _metadata_url(value: object) -> str | None:
    if value is None:
        return None
    parts = urlsplit(value) if isinstance(value, str) else None
    if (
        parts is None
        or not parts.netloc
        or not (
            parts.scheme == "https" or (parts.scheme == "http" and _host(parts.netloc) in _LOOPBACK)
        )
    ):
        raise EntryError(
            "oauth.authServerMetadataUrl",
            "must be an https URL, or http on localhost, 127.0.0.1 or [::1]",
        )
    return cast(str, value)


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[: host.find("]") + 1]
    return host.split(":", 1)[0].lower()


def _shown(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return str(value)
