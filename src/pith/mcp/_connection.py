"""One server's connection: a long-lived task that owns the transport and the SDK session.

Every SDK context manager of a connection (the transport, `ClientSession`) is entered and left
by that one task, so their cancel scopes stay in the task that made them; calls from other
tasks only send requests through the session. The task connects (initialize, every page of
`tools/list`), keeps the server's `instructions`, re-lists tools on
`notifications/tools/list_changed`, writes log notifications to `mcp.log`, and ends when it is
told to stop or the server goes away — then the state says why.

A request's timeout is the server's `timeout`, started again by each progress notification; an
abort signal cancels the request (the SDK sends `notifications/cancelled`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from pith._version import __version__
from pith.agent import AbortSignal
from pith.mcp._log import format_log_line, write_log
from pith.mcp._oauth_auth import StoredTokenAuth
from pith.mcp._oauth_store import uses_oauth
from pith.mcp._stdio import StdioProcess, server_environment
from pith.mcp._types import ServerConfig, ServerState, ServerStatus

__all__ = ["CallFailed", "Connection", "ProgressCallback"]

T = TypeVar("T")
MAX_PAGES = 100
"""`tools/list` pages read at most: a server that keeps sending cursors is not followed forever."""
CONNECT_SECONDS = 30.0
"""Starting a server and its handshake may take at least this long, whatever its `timeout`:
a wrapper such as `npx` or `uvx` may be installing the server first."""
STOP_SECONDS = 10.0
"""How long waiting for a connection's task to wind down may take (a hang guard)."""

ProgressCallback = Callable[[float, float | None, str | None], None]


class _SessionProgress(Protocol):
    async def __call__(
        self, progress: float, total: float | None, message: str | None, /
    ) -> None: ...


class CallFailed(Exception):
    """A request that got no answer: `kind` is `aborted`, `timeout`, `closed` or `error`."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Connection:
    """One configured server: `start()` connects in the background, `request()` runs a call."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        agent_dir: Path,
        cwd: Path,
        on_change: Callable[[], None],
        roots: Callable[[], Awaitable[types.ListRootsResult]] | None = None,
    ) -> None:
        self.config = config
        self._roots = roots
        self._agent_dir = agent_dir
        self._cwd = cwd
        self._on_change = on_change
        self.status: ServerStatus = "connecting" if config.enabled else "disabled"
        self.error: str | None = None
        self.instructions: str | None = None
        self.tools: list[types.Tool] = []
        self.capabilities: types.ServerCapabilities | None = None
        self.ever_connected = False
        self._session: ClientSession | None = None
        self._stdio: StdioProcess | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = anyio.Event()
        self._stopping = False
        self._unauthorized = False
        self._malformed: list[str] = []

    # -- life cycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Connect in a task of the running loop (again, after a failure or a stop)."""
        if self._task is not None and not self._task.done():
            return
        self.status = "connecting"
        self.error = None
        self._ready = asyncio.Event()
        self._stop = anyio.Event()
        self._stopping = False
        self._unauthorized = False
        self._malformed = []
        self._task = asyncio.get_running_loop().create_task(
            self._run(), name=f"mcp:{self.config.name}"
        )

    async def wait_ready(self) -> None:
        """Return once the connection is up or has failed."""
        await self._ready.wait()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def stop(self, *, status: ServerStatus = "closed") -> None:
        """End the connection (the server process too) and wait for its task."""
        task = self._task
        if task is None or task.done():
            if self.status in ("connected", "connecting"):
                self.status = status
            return
        self._stopping = True
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_SECONDS)
        except TimeoutError:
            task.cancel()
        self.status = status

    def kill(self) -> None:
        """Kill a stdio server's process group at once (it hung); the task then winds down."""
        if self._stdio is not None:
            self._stdio.kill()

    async def wait_closed(self, seconds: float = STOP_SECONDS) -> None:
        if self._task is not None:
            await asyncio.wait([self._task], timeout=seconds)

    @property
    def connect_seconds(self) -> float:
        return max(self.config.timeout, CONNECT_SECONDS)

    def offers(self, what: str) -> bool:
        """Whether the server said it has `resources` or `prompts` (unknown: assume it does)."""
        if self.capabilities is None:
            return True
        return getattr(self.capabilities, what, None) is not None

    def state(self) -> ServerState:
        stderr = self._stdio.stderr_tail() if self._stdio is not None else ""
        return ServerState(
            name=self.config.name,
            status=self.status,
            tool_count=len(self.tools) if self.status == "connected" else 0,
            error=self.error,
            stderr_tail=stderr,
            instructions=self.instructions,
        )

    # -- the task ------------------------------------------------------------------------

    async def _run(self) -> None:
        failure: BaseException | None = None
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        logging_callback=self._on_log,
                        message_handler=self._on_message,
                        list_roots_callback=self._list_roots if self._roots else None,
                        client_info=types.Implementation(name="pith", version=__version__),
                    )
                )
                result = await self._handshake(session)
                if result is not None:  # None: stopped while connecting
                    self.instructions = result.instructions
                    self.capabilities = session.server_capabilities
                    self._session = session
                    self.status = "connected"
                    self.ever_connected = True
                    self._ready.set()
                    self._on_change()
                    await self._wait_for_end()
        except Exception as exc:
            failure = exc
        except BaseExceptionGroup as group:
            failure = group
        finally:
            self._session = None
        self._finish(failure)

    async def _handshake(self, session: ClientSession) -> types.InitializeResult | None:
        """Initialize and list the tools, unless `stop()` comes first (then None at once: a
        server that never answers must not hold up pith's exit)."""
        outcome: list[types.InitializeResult] = []
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                await self._stop.wait()
                group.cancel_scope.cancel()

            group.start_soon(watch)
            with anyio.fail_after(self.connect_seconds):
                outcome.append(await session.initialize())
                self.tools = await self._list_tools(session)
            group.cancel_scope.cancel()
        return outcome[0] if outcome and not self._stopping else None

    def _finish(self, failure: BaseException | None) -> None:
        was_connected = self.status == "connected"
        if self._stopping:
            self.status = "closed"
        elif self._unauthorized:
            self.status = "needs-auth"
            name = self.config.name
            self.error = (
                f"MCP server {name!r} needs authorization (HTTP 401); run `pith mcp login {name}`"
            )
        else:
            self.status = "failed"
            self.error = self._failure_line(failure, was_connected)
            write_log(
                self._agent_dir, format_log_line(self.config.name, "error", "pith", self.error)
            )
        self._ready.set()
        if was_connected:
            self._on_change()

    def _failure_line(self, failure: BaseException | None, was_connected: bool) -> str:
        name = self.config.name
        stdio = self._stdio
        if stdio is not None and stdio.returncode is not None:
            when = "while connected" if was_connected else "at start"
            line = f"MCP server {name!r} exited {when} (exit code {stdio.returncode})"
        elif isinstance(failure, TimeoutError):
            line = (
                f"MCP server {name!r} did not finish connecting within {self.connect_seconds:g} s"
            )
        elif failure is not None:
            line = f"MCP server {name!r} failed: {_describe(failure)}"
        else:
            line = f"MCP server {name!r} closed the connection"
        if self._malformed:
            line += f"; it wrote {len(self._malformed)} stdout line(s) that are not MCP messages, "
            line += f"the first: {self._malformed[0][:120]!r}"
        tail = stdio.stderr_tail().strip() if stdio is not None else ""
        if tail:
            line += f"; stderr: {tail.splitlines()[-1][:300]}"
        return line

    async def _wait_for_end(self) -> None:
        async with anyio.create_task_group() as group:

            async def watch(event: anyio.Event) -> None:
                await event.wait()
                group.cancel_scope.cancel()

            group.start_soon(watch, self._stop)
            if self._stdio is not None:
                group.start_soon(watch, self._stdio.closed)

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        config = self.config
        if config.transport == "stdio":
            assert config.command is not None
            cwd = config.cwd if config.cwd is not None else self._cwd
            self._stdio = StdioProcess(
                config.command,
                config.args,
                env=server_environment(config.env),
                cwd=cwd,
                on_malformed=self._on_malformed,
            )
            async with self._stdio as streams:
                yield streams
            return

        async def note_status(response: httpx2.Response) -> None:
            # The last answer decides: a 401 that a refreshed token then got past does not count.
            self._unauthorized = response.status_code == 401

        assert config.url is not None
        auth = StoredTokenAuth(config, self._agent_dir) if uses_oauth(config) else None
        client = httpx2.AsyncClient(
            auth=auth,
            headers=dict(config.headers),
            timeout=httpx2.Timeout(30.0, read=300.0),
            event_hooks={"response": [note_status]},
        )
        async with client, streamable_http_client(config.url, http_client=client) as http_streams:
            yield http_streams

    async def _list_tools(self, session: ClientSession) -> list[types.Tool]:
        capabilities = session.server_capabilities
        if capabilities is not None and capabilities.tools is None:
            return []
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    # -- what the server sends on its own ------------------------------------------------

    async def _list_roots(self, context: object) -> types.ListRootsResult:
        assert self._roots is not None
        return await self._roots()

    async def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        write_log(
            self._agent_dir,
            format_log_line(self.config.name, params.level, params.logger, params.data),
        )

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._on_malformed(str(message))
            return
        if isinstance(message, types.ToolListChangedNotification):
            session = self._session
            if session is None:
                return
            try:
                with anyio.fail_after(self.config.timeout):
                    self.tools = await self._list_tools(session)
            except (Exception, BaseExceptionGroup) as exc:
                self._on_malformed(f"listing tools after a change failed: {_describe(exc)}")
                return
            self._on_change()
        elif isinstance(
            message, types.ResourceListChangedNotification | types.PromptListChangedNotification
        ):
            self._on_change()

    def _on_malformed(self, line: str) -> None:
        if len(self._malformed) < 20:
            self._malformed.append(line)
        write_log(
            self._agent_dir,
            format_log_line(
                self.config.name, "warning", "pith", f"not an MCP message: {line[:500]}"
            ),
        )

    # -- requests ------------------------------------------------------------------------

    async def request(
        self,
        run: Callable[[ClientSession, _SessionProgress], Awaitable[T]],
        *,
        signal: AbortSignal | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> T:
        """`run(session, progress)` under the server's timeout (restarted by progress) and the
        abort signal; raises `CallFailed` when no answer came."""
        session = self._session
        if session is None:
            raise CallFailed("closed", f"MCP server {self.config.name!r} is not connected")
        timeout = self.config.timeout
        aborted = False
        result: T
        with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:

            async def progress(value: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + timeout
                if on_progress is not None:
                    on_progress(value, total, message)

            def abort() -> None:
                nonlocal aborted
                aborted = True
                scope.cancel()

            unsubscribe = signal.on_abort(abort) if signal is not None else None
            try:
                result = await run(session, progress)
            except MCPError as exc:
                if exc.code == types.CONNECTION_CLOSED:
                    await self.wait_closed()
                    raise CallFailed("closed", self._closed_line()) from None
                raise CallFailed(
                    "error", f"MCP server {self.config.name!r}: {exc.error.message}"
                ) from None
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                await self.wait_closed()
                raise CallFailed("closed", self._closed_line()) from None
            finally:
                if unsubscribe is not None:
                    unsubscribe()
            return result
        if aborted:
            raise CallFailed(
                "aborted", f"The call to MCP server {self.config.name!r} was cancelled"
            )
        if self._stdio is not None:
            self.kill()
            await self.wait_closed()
        raise CallFailed(
            "timeout",
            f"MCP server {self.config.name!r} did not answer within {timeout:g} s"
            + (
                "; its process was stopped and reconnects on the next call"
                if self._stdio is not None
                else ""
            ),
        )

    def _closed_line(self) -> str:
        line = f"MCP server {self.config.name!r} closed the connection during the call"
        stdio = self._stdio
        if stdio is not None and stdio.returncode is not None:
            code = stdio.returncode
            line = f"MCP server {self.config.name!r} exited during the call (exit code {code})"
        tail = stdio.stderr_tail().strip() if stdio is not None else ""
        if tail:
            line += f"; stderr: {tail.splitlines()[-1][:300]}"
        return line + "; it reconnects on the next call"


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return exc.error.message
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename}" if exc.filename else str(exc)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
