"""Local model servers found without configuration: Ollama and LM Studio at their default ports.

Only this machine is asked (127.0.0.1, never a name that could resolve elsewhere), only for
its model list (`GET /v1/models`), all servers at once with a short timeout, and only when no
model is configured at all: a fresh machine with Ollama running works without a models.json,
and nothing changes for anyone who configured a model.

`PITH_LOCAL_SERVERS` replaces the list: `ollama=11434,lmstudio=1234` (provider=port), or empty
to ask no server.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pith.errors import ConfigError

__all__ = [
    "DEFAULT_LOCAL_SERVERS",
    "LOCAL_SERVERS_VARIABLE",
    "LocalServer",
    "chat_model_ids",
    "find_local_models",
    "local_servers",
]

LOCAL_SERVERS_VARIABLE = "PITH_LOCAL_SERVERS"
HOST = "127.0.0.1"
PROBE_TIMEOUT_SECONDS = 0.5
"""Per server, to connect and to answer: a server on this machine that takes longer is busy
or not a model server, and a user waiting for the first reply should not wait for it."""
_MAX_LISTING_BYTES = 1 << 20


@dataclass(frozen=True)
class LocalServer:
    provider: str
    """The provider id its models get (`ollama/<id>`)."""
    name: str
    port: int

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"


_NAMES = {"ollama": "Ollama", "lmstudio": "LM Studio"}

DEFAULT_LOCAL_SERVERS = (
    LocalServer("ollama", "Ollama", 11434),
    LocalServer("lmstudio", "LM Studio", 1234),
)


def local_servers(environ: Mapping[str, str]) -> list[LocalServer]:
    """The servers to ask: the defaults, or what `PITH_LOCAL_SERVERS` lists."""
    spec = environ.get(LOCAL_SERVERS_VARIABLE)
    if spec is None:
        return list(DEFAULT_LOCAL_SERVERS)
    servers = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        provider, _, port = item.partition("=")
        if provider not in _NAMES or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(
                f"{LOCAL_SERVERS_VARIABLE}: {item!r} is not provider=port with a provider of "
                f"{', '.join(_NAMES)} (e.g. ollama=11434); the host is always {HOST}"
            )
        servers.append(LocalServer(provider, _NAMES[provider], int(port)))
    return servers


def chat_model_ids(listing: object) -> list[str]:
    """The model ids of a `/v1/models` answer, without embedding models (they cannot chat)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return []
    ids = [item.get("id") for item in data if isinstance(item, dict)]
    return [i for i in ids if isinstance(i, str) and i and "embed" not in i.lower()]


async def _listing(server: LocalServer) -> list[str]:
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
            reader, writer = await asyncio.open_connection(HOST, server.port)
            try:
                # HTTP/1.0: the server closes the connection after the body, so reading to
                # the end (within the cap) reads the whole answer.
                writer.write(
                    f"GET /v1/models HTTP/1.0\r\nHost: {HOST}:{server.port}\r\n"
                    "Accept: application/json\r\n\r\n".encode()
                )
                raw = await reader.read(_MAX_LISTING_BYTES)
                while len(raw) < _MAX_LISTING_BYTES and (more := await reader.read(65536)):
                    raw += more
            finally:
                writer.close()
    except (OSError, TimeoutError):
        return []  # not running, or not answering in time
    return chat_model_ids(_json_body(raw))


def _json_body(raw: bytes) -> object:
    """The JSON of a `200` answer, or None for anything else."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if len(lines[0].split()) < 2 or lines[0].split()[1] != "200":
        return None
    headers = {
        k.strip().lower(): v.strip().lower() for k, _, v in (h.partition(":") for h in lines[1:])
    }
    if headers.get("transfer-encoding") == "chunked":
        body = _unchunked(body)
    try:
        return json.loads(body)
    except ValueError:
        return None


def _unchunked(body: bytes) -> bytes:
    out = b""
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            return b""
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2 :]
    return out


async def find_local_models(
    servers: Sequence[LocalServer],
) -> list[tuple[LocalServer, list[str]]]:
    """Each server that answered with at least one chat model, in the order given."""
    found = await asyncio.gather(*(_listing(server) for server in servers))
    return [(server, ids) for server, ids in zip(servers, found, strict=True) if ids]
