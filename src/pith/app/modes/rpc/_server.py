"""`pith --mode rpc`: commands as JSON lines on standard input, responses and session events
as JSON lines on standard output, until standard input closes.

Standard output carries the protocol only: while RPC mode runs, `print` goes to standard error.
Each command is carried out in order (`IMMEDIATE` ones at once); a prompt answers as soon as its
run starts and the run goes on in the background. A command that arrived before an earlier
prompt was answered (a script that pipes its commands in without reading the responses) waits
until that prompt's run has finished, as it would have had someone typed it after the reply.

The end of standard input means "no more commands": every command read is carried out, the runs
finish, and the session closes. SIGTERM, SIGINT and SIGHUP (or a client that stopped reading)
abort what runs instead, answer the commands not carried out yet with an error, and close.
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

from pith.app.modes.rpc._context import RpcContext
from pith.app.modes.rpc._handlers import HANDLERS, IMMEDIATE, SENT
from pith.app.modes.rpc._protocol import (
    Command,
    LineSplitter,
    ProtocolError,
    UiAnswer,
    failure,
    parse_record,
    success,
)
from pith.app.modes.rpc._ui import RpcUI
from pith.app.session import AgentSession
from pith.errors import PithError

__all__ = ["RpcConnection"]

SHUTDOWN_GRACE_SECONDS = 10.0
"""How long closing waits for commands and runs to stop after the abort."""


class RpcConnection:
    """The client at the other end of standard input and output."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._broken = False
        self._lines: asyncio.Queue[list[bytes] | None] | None = None
        self._stopped = asyncio.Event()
        """A signal came, or the client stopped reading: abort, do not finish."""
        self._unanswered = 0
        """Prompts read whose response is not written yet."""
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
        self._stopped.set()
        if self._lines is not None:
            self._lines.put_nowait(None)

    # --- serving ----------------------------------------------------------------------------

    async def serve(self, session: AgentSession, stdin_fd: int | None = None) -> int:
        """Answer commands until standard input closes; the exit code (0)."""
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[list[bytes] | None] = asyncio.Queue()
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
            while (batch := await lines.get()) is not None:
                # One read's lines are dispatched together: whether a command came before an
                # earlier prompt's response depends on what was sent, not on scheduling.
                for line in batch:
                    task = self._dispatch(ctx, line, order)
                    if task is not None:
                        commands.add(task)
                        task.add_done_callback(commands.discard)
            if not self._stopped.is_set():
                await self._finish(ctx, commands)
        finally:
            for signum in installed:
                loop.remove_signal_handler(signum)
            await self._close(ctx, commands)
            unsubscribe()
        return 0

    async def _finish(self, ctx: RpcContext, commands: set[asyncio.Task[None]]) -> None:
        """End of input: carry out every command read and let the runs end (unless a signal
        comes first). Nobody is left to answer an extension's question."""
        self.ui.close()

        async def drain() -> None:
            while pending := [*commands, *ctx.running()]:
                await asyncio.wait(pending)
            await ctx.session.wait_for_idle()

        drained = asyncio.create_task(drain())
        stopped = asyncio.create_task(self._stopped.wait())
        try:
            await asyncio.wait({drained, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (drained, stopped):
                task.cancel()
            await asyncio.wait({drained, stopped})

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
        behind = self._unanswered > 0 and record.type not in IMMEDIATE
        if record.type == "prompt":
            self._unanswered += 1
        return asyncio.create_task(self._carry_out(ctx, record, order, behind=behind))

    async def _carry_out(
        self, ctx: RpcContext, command: Command, order: asyncio.Lock, *, behind: bool
    ) -> None:
        handler = HANDLERS[command.type]
        try:
            if command.type in IMMEDIATE:
                data = await handler(ctx, command)
            else:
                async with order:
                    if behind and not ctx.closing:
                        await ctx.wait_for_runs()  # sent without waiting for the reply
                    if ctx.closing:
                        raise ProtocolError(
                            f"{command.type}: not carried out, pith is stopping "
                            "(a signal, or standard output closed)",
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
        finally:
            if command.type == "prompt":
                self._unanswered -= 1

    async def _close(self, ctx: RpcContext, commands: set[asyncio.Task[None]]) -> None:
        """Abort what still runs, let the commands not carried out answer, close the session."""
        ctx.closing = True
        self.ui.close()
        session = ctx.session
        session.abort()
        await _within(list(commands), SHUTDOWN_GRACE_SECONDS)
        session.abort()
        await _within(ctx.running(), SHUTDOWN_GRACE_SECONDS)
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
    fd: int, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[list[bytes] | None]
) -> None:
    """The reader thread: raw reads (no buffered-stdin lock to hold at exit), split on LF; the
    lines of one read are handed over together."""
    splitter = LineSplitter()

    def hand_over(batch: list[bytes] | None) -> bool:
        try:
            loop.call_soon_threadsafe(lines.put_nowait, batch)
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
        lines_read = splitter.feed(chunk)
        if lines_read and not hand_over(lines_read):
            return
    rest = splitter.finish()
    if rest:
        hand_over(rest)
    hand_over(None)
