"""A stdio MCP server as a child process: its own process group, lines in and out, stderr kept.

The SDK's own stdio transport hides the process, so pith could neither name its exit code, nor
keep its stderr for the error line, nor reach the children it left behind when it exited. This
transport starts the server with `start_new_session` (the server leads a new process group, so
one signal reaches the children of `npx`/`uvx` wrappers too) and feeds the SDK's
`ClientSession` through memory streams: every line is parsed by the SDK's own JSON-RPC types.

Stopping follows the protocol's order: close stdin, give the server a moment to exit, SIGTERM
the whole group, wait, SIGKILL the group. The group is signalled even when the leader already
exited, because a child it started may still be running. A process still running when pith
exits is killed by an `atexit` safety net.
"""

from __future__ import annotations

import atexit
import os
import signal
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from types import TracebackType

import anyio
import anyio.abc
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

__all__ = ["STDERR_TAIL_BYTES", "StdioProcess", "server_environment"]

STDERR_TAIL_BYTES = 4096
"""How much of a server's stderr is kept for its error line: the end, where the reason is."""
EXIT_GRACE_SECONDS = 2.0
"""After stdin closes, how long a server may take to exit on its own."""
TERM_GRACE_SECONDS = 2.0
"""After SIGTERM, how long the group may take before SIGKILL."""
MAX_LINE_BYTES = 64 * 1024 * 1024
"""A line longer than this is not a message pith will hold in memory: it is dropped."""
_POLL_SECONDS = 0.02

_INHERITED = (
    "HOME",
    "LOGNAME",
    "USER",
    "PATH",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
)
_INHERITED_PREFIXES = ("LC_", "XDG_")

_live_groups: set[int] = set()


def server_environment(
    extra: Mapping[str, str], base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a stdio server starts with: the user's locale, paths, proxies and
    certificates from `base` (pith's own environment by default), never its secrets, with the
    server's configured `env` on top."""
    source = os.environ if base is None else base
    env = {
        key: value
        for key, value in source.items()
        if (key in _INHERITED or key.startswith(_INHERITED_PREFIXES)) and not value.startswith("()")
    }
    env.update(extra)
    return env


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _kill_live_groups() -> None:
    for pgid in list(_live_groups):
        _signal_group(pgid, signal.SIGKILL)
    _live_groups.clear()


atexit.register(_kill_live_groups)


class StdioProcess:
    """`async with StdioProcess(...) as (read, write)`: the server runs inside the block.

    `on_malformed(line)` hears about each stdout line that is not a JSON-RPC message (it is
    dropped; the server keeps running). `closed` is set once stdout ends — the server exited or
    closed it — so the owner can tell a dead server from a quiet one.
    """

    def __init__(
        self,
        command: str,
        args: tuple[str, ...],
        *,
        env: Mapping[str, str],
        cwd: Path | None,
        on_malformed: Callable[[str], None],
    ) -> None:
        self._argv = [command, *args]
        self._env = dict(env)
        self._cwd = cwd
        self._on_malformed = on_malformed
        self._stderr = bytearray()
        self._process: anyio.abc.Process | None = None
        self._group: anyio.abc.TaskGroup | None = None
        self._streams: list[MemoryObjectSendStream[object] | MemoryObjectReceiveStream[object]] = []
        self.closed = anyio.Event()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process is not None else None

    def stderr_tail(self) -> str:
        """The last few KB the server wrote on stderr, decoded leniently."""
        return self._stderr.decode("utf-8", "replace")

    async def __aenter__(
        self,
    ) -> tuple[
        MemoryObjectReceiveStream[SessionMessage | Exception],
        MemoryObjectSendStream[SessionMessage],
    ]:
        process = await anyio.open_process(
            self._argv, env=self._env, cwd=self._cwd, start_new_session=True
        )
        self._process = process
        _live_groups.add(process.pid)
        to_session, read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        self._streams = [to_session, read, write, from_session]  # type: ignore[list-item]
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        group.start_soon(self._read_stdout, process, to_session)
        group.start_soon(self._write_stdin, process, from_session)
        group.start_soon(self._read_stderr, process)
        return read, write

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with anyio.CancelScope(shield=True):
            await self.stop()
            for stream in self._streams:
                stream.close()
            assert self._group is not None
            self._group.cancel_scope.cancel()
            await self._group.__aexit__(None, None, None)

    async def stop(self, grace: float = EXIT_GRACE_SECONDS) -> None:
        """Close stdin, wait up to `grace` seconds, then SIGTERM and at last SIGKILL the group."""
        process = self._process
        if process is None:
            return
        if process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        await self._wait(lambda: process.returncode is not None, grace)
        pgid = process.pid
        if _group_alive(pgid):
            _signal_group(pgid, signal.SIGTERM)
            await self._wait(lambda: not _group_alive(pgid), TERM_GRACE_SECONDS)
            _signal_group(pgid, signal.SIGKILL)
        await self._wait(lambda: process.returncode is not None, TERM_GRACE_SECONDS)
        _live_groups.discard(pgid)

    def kill(self) -> None:
        """SIGKILL the whole group at once (a hung server; no grace)."""
        if self._process is not None:
            _signal_group(self._process.pid, signal.SIGKILL)

    @staticmethod
    async def _wait(condition: Callable[[], bool], seconds: float) -> None:
        deadline = anyio.current_time() + seconds
        # Polled: a process group's end and a pid's exit status raise no event to wait on.
        while not condition() and anyio.current_time() < deadline:  # noqa: ASYNC110
            await anyio.sleep(_POLL_SECONDS)

    async def _read_stdout(
        self, process: anyio.abc.Process, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        assert process.stdout is not None
        buffer = bytearray()
        skipping = False
        try:
            async for chunk in process.stdout:
                buffer += chunk
                while (end := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:end])
                    del buffer[: end + 1]
                    if skipping:
                        skipping = False
                        continue
                    await self._deliver(line, sink)
                if len(buffer) > MAX_LINE_BYTES:
                    self._on_malformed(f"a line longer than {MAX_LINE_BYTES} bytes (dropped)")
                    buffer.clear()
                    skipping = True
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            sink.close()
            self.closed.set()

    async def _deliver(
        self, line: bytes, sink: MemoryObjectSendStream[SessionMessage | Exception]
    ) -> None:
        text = line.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False)
        except ValueError:
            self._on_malformed(text)
            return
        await sink.send(SessionMessage(message))

    async def _write_stdin(
        self, process: anyio.abc.Process, source: MemoryObjectReceiveStream[SessionMessage]
    ) -> None:
        assert process.stdin is not None
        try:
            async for item in source:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await process.stdin.send(data.encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass

    async def _read_stderr(self, process: anyio.abc.Process) -> None:
        assert process.stderr is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in process.stderr:
                self._stderr += chunk
                if len(self._stderr) > STDERR_TAIL_BYTES:
                    del self._stderr[: len(self._stderr) - STDERR_TAIL_BYTES]
