"""`pith --mode rpc`: commands as JSON lines on standard input, responses and session events
as JSON lines on standard output, until standard input closes.

Standard output carries the protocol only: while RPC mode runs, `print` goes to standard error.
Each command is carried out in order (`IMMEDIATE` ones at once); a prompt answers as soon as its
run starts and the run goes on in the background. Closing standard input (or SIGTERM, SIGINT,
SIGHUP) aborts what runs, answers the commands already read, and closes the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any, BinaryIO

from pith.app._rpc._context import RpcContext
from pith.app._rpc._handlers import HANDLERS, IMMEDIATE, SENT
from pith.app._rpc._protocol import (
    Command,
    LineSplitter,
    ProtocolError,
    UiAnswer,
    failure,
    parse_record,
    success,
)
from pith.app._rpc._ui import RpcUI
from pith.app._session import AgentSession
from pith.errors import PithError

__all__ = ["RpcConnection"]

SHUTDOWN_GRACE_SECONDS = 10.0
"""How long closing waits for commands and runs to stop after the abort."""


class RpcConnection:
    """The client at the other end of standard input and output."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._broken = False
        self._lines: asyncio.Queue[bytes | None] | None = None
        self.ui = RpcUI(self.write)
        """The extensions' UI: build the session with it."""

    @classmethod
    def open(cls) -> RpcConnection:
        """Take standard output for the protocol (`print` goes to standard error from now on)."""
        out = sys.stdout.buffer
        sys.stdout.flush()
        sys.stdout = sys.stderr
        return cls(out)

    def write(self, record: dict[str, object]) -> None:
        """One record, one line. A client that stopped reading ends the connection."""
        if self._broken:
            return
        line = json.dumps(record, ensure_ascii=False) + "\n"
        try:
            self._out.write(line.encode("utf-8", "backslashreplace"))
            self._out.flush()
        except OSError:
            self._broken = True
            self._stop()

    def _stop(self) -> None:
        if self._lines is not None:
            self._lines.put_nowait(None)

    # --- serving ----------------------------------------------------------------------------

    async def serve(self, session: AgentSession, stdin_fd: int | None = None) -> int:
        """Answer commands until standard input closes; the exit code (0)."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._lines = lines
        ctx = RpcContext(session, self.write, self.ui)
        unsubscribe = session.subscribe(ctx.on_event)
        fd = sys.stdin.fileno() if stdin_fd is None else stdin_fd
        reader = threading.Thread(target=_read_lines, args=(fd, loop, lines), daemon=True)
        installed = _install_signals(loop, self._stop)
        order = asyncio.Lock()
        commands: set[asyncio.Task[None]] = set()
        try:
            await session.start()
            reader.start()
            while (line := await lines.get()) is not None:
                task = self._dispatch(ctx, line, order)
                if task is not None:
                    commands.add(task)
                    task.add_done_callback(commands.discard)
        finally:
            for signum in installed:
                loop.remove_signal_handler(signum)
            await self._close(ctx, commands)
            unsubscribe()
        return 0

    def _dispatch(
        self, ctx: RpcContext, line: bytes, order: asyncio.Lock
    ) -> asyncio.Task[None] | None:
        try:
            record = parse_record(line)
        except ProtocolError as error:
            self.write(failure(error.id, error.command, str(error)))
            return None
        if record is None:
            return None
        if isinstance(record, UiAnswer):
            if not self.ui.answer(record):
                print(
                    f"pith: rpc: extension_ui_response {record.id!r} answers no open question "
                    "(it timed out, or the id is wrong)",
                    file=sys.stderr,
                )
            return None
        return asyncio.create_task(self._carry_out(ctx, record, order))

    async def _carry_out(self, ctx: RpcContext, command: Command, order: asyncio.Lock) -> None:
        handler = HANDLERS[command.type]
        try:
            if command.type in IMMEDIATE:
                data = await handler(ctx, command)
            else:
                async with order:
                    if ctx.closing:
                        raise ProtocolError(
                            f"{command.type}: not carried out, standard input closed",
                            command=command.type,
                        )
                    data = await handler(ctx, command)
        except (ProtocolError, PithError) as error:
            self.write(failure(command.id, command.type, str(error)))
        except Exception as error:  # a bug: one line to the client and to standard error
            message = f"internal error: {type(error).__name__}: {error}"
            print(f"pith: rpc: {command.type}: {message}", file=sys.stderr)
            self.write(failure(command.id, command.type, message))
        else:
            if data is not SENT:
                self.write(success(command.id, command.type, data))

    async def _close(self, ctx: RpcContext, commands: set[asyncio.Task[None]]) -> None:
        """Abort what runs, let the commands already read answer, close the session."""
        ctx.closing = True
        self.ui.close()
        session = ctx.session
        session.abort()
        await _within(list(commands), SHUTDOWN_GRACE_SECONDS)
        session.abort()
        runs = [task for task in (ctx.run_task, *ctx.side_tasks) if task is not None]
        await _within(runs, SHUTDOWN_GRACE_SECONDS)
        await session.shutdown()


async def _within(tasks: Sequence[asyncio.Task[Any]], seconds: float) -> None:
    pending = [task for task in tasks if not task.done()]
    if not pending:
        return
    _, late = await asyncio.wait(pending, timeout=seconds)
    for task in late:
        task.cancel()
    if late:
        await asyncio.wait(late, timeout=1.0)


def _install_signals(loop: asyncio.AbstractEventLoop, stop: object) -> list[int]:
    installed: list[int] = []
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop)  # type: ignore[arg-type]
            installed.append(signum)
    return installed


def _read_lines(
    fd: int, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[bytes | None]
) -> None:
    """The reader thread: raw reads (no buffered-stdin lock to hold at exit), split on LF."""
    splitter = LineSplitter()

    def hand_over(line: bytes | None) -> bool:
        try:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        except RuntimeError:  # the loop has closed: nobody is listening any more
            return False
        return True

    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            break
        for line in splitter.feed(chunk):
            if not hand_over(line):
                return
    for line in splitter.finish():
        hand_over(line)
    hand_over(None)
