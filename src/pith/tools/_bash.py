"""`bash`: run a command, keep the tail of its output, save the rest (see docs/tools.md).

The command runs in its own process group with stdin closed; stdout and stderr share one pipe so
they interleave as they happened. Abort and timeout kill the whole group. After the shell exits
background children may still hold the pipe: a call with a timeout reads on while they write
(until the pipe closes, has been quiet for a moment, or the timeout fires); a call without one
reads for BACKGROUND_GRACE_SECONDS at most, then says that their later output is not shown. Either
way they keep running (a dev server started with `&`): the rest of the pipe is drained.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import math
import os
import shutil
import signal as signals
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, ClassVar

from pith.agent import AbortSignal, ToolError, ToolResult, UpdateCallback
from pith.ai import UNSET, TextContent, to_builtins
from pith.tools._base import BuiltinTool
from pith.tools._output import OutputAccumulator, OutputSnapshot
from pith.tools._output_files import DEFAULT_FULL_OUTPUT_MAX_BYTES
from pith.tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

__all__ = [
    "BACKGROUND_NOTE",
    "BashTool",
    "CapturedOutput",
    "ShellRun",
    "find_shell",
    "run_shell",
]

MAX_TIMEOUT_SECONDS = 2_147_483.647
UPDATE_INTERVAL_SECONDS = 0.1
QUIET_AFTER_EXIT_SECONDS = 0.1
EXIT_POLL_SECONDS = 0.1
READ_SIZE = 1 << 20
KILL_DRAIN_SECONDS = 1.0
BACKGROUND_GRACE_SECONDS = 1.0
"""Without a timeout, how long the tool reads after the shell exited while background children
still hold the output pipe."""
BACKGROUND_NOTE = (
    "Background processes are still running; what they print from now on is not shown."
)


def find_shell(shell_path: str | None = None) -> str:
    """The shell to run commands with: a configured path, /bin/bash, bash on PATH, then sh."""
    if shell_path:
        if os.path.exists(shell_path):
            return shell_path
        raise ToolError(f"Configured shell not found: {shell_path}")
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"


class BashTool(BuiltinTool):
    name = "bash"
    label = "bash"
    description = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. "
        f"Output is truncated to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB "
        "(whichever is hit first). If truncated, full output is saved to a temp file. "
        "Optionally provide a timeout in seconds."
    )
    parameters: ClassVar[dict[str, object]] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "Shell command to execute"},
            "timeout": {
                "type": "number",
                "description": "Timeout in seconds (optional, no default timeout)",
            },
        },
        "required": ["command"],
    }
    prompt_snippet = "Execute bash commands (ls, grep, find, etc.)"
    # The "inspect PITH_* variables" guideline arrives with sessions, which export them.

    def __init__(
        self,
        cwd: str,
        *,
        shell_path: str | None = None,
        command_prefix: str | None = None,
        env: Callable[[], dict[str, str]] | None = None,
        full_output_max_bytes: int = DEFAULT_FULL_OUTPUT_MAX_BYTES,
    ) -> None:
        super().__init__(cwd)
        self.shell_path = shell_path
        self.command_prefix = command_prefix
        self.full_output_max_bytes = full_output_max_bytes
        self._env = env
        if env is not None:  # the session's variables are exported: tell the model
            self.prompt_guidelines = (
                "You can inspect PITH_* environment variables for current model and session "
                "details.",
            )

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        run = self._run(args, signal, on_update, cut_later=False)
        return await run.execute(_timeout_seconds(args.get("timeout")), args.get("timeout"))

    async def execute_captured(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> tuple[ToolResult, CapturedOutput]:
        """`execute`, and the output byte for byte for a wrapper that post-processes it (the
        tool guard). The full-output file keeps every byte, past its size limit, until the
        caller's `CapturedOutput.release()`; if the call fails it is cut at once."""
        run = self._run(args, signal, on_update, cut_later=True)
        try:
            result = await run.execute(_timeout_seconds(args.get("timeout")), args.get("timeout"))
        except BaseException:
            run.output.cut_file()
            raise
        output = run.output
        captured = CapturedOutput(
            output.raw_output(),
            output.full_output_path,
            output.file_max_bytes,
            run.background_running,
            output,
        )
        return result, captured

    def _run(
        self,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        *,
        cut_later: bool,
    ) -> _Run:
        command = str(args["command"])
        _timeout_seconds(args.get("timeout"))
        if self.command_prefix:
            command = f"{self.command_prefix}\n{command}"
        if not os.path.isdir(self.cwd):
            raise ToolError(
                f"Working directory does not exist: {self.cwd}\nCannot execute bash commands."
            )
        output = OutputAccumulator(
            file_prefix="pith-bash", file_max_bytes=self.full_output_max_bytes, cut_later=cut_later
        )
        shell = find_shell(self.shell_path)
        return _Run(command, self.cwd, shell, self._env, signal, on_update, output)


@dataclass
class CapturedOutput:
    """What a command printed, byte for byte (`BashTool.execute_captured`)."""

    data: bytes | None
    """All of it, when it stayed under the caps and so in memory."""
    path: str | None
    """Otherwise the full-output file: every byte until `release()`."""
    max_file_bytes: int
    """The size `release()` cuts the file at."""
    background_running: bool
    """Background processes were still writing when the tool stopped reading."""
    _output: OutputAccumulator | None = None

    @property
    def over_limit(self) -> bool:
        """The output is larger than the full-output file may be: `release()` cuts it."""
        return self._output is not None and self._output.file_cut

    def open(self) -> BinaryIO:
        """A reader over all of the output (raises OSError when the file is gone)."""
        if self.data is not None:
            return io.BytesIO(self.data)
        assert self.path is not None
        return open(self.path, "rb")

    def release(self) -> bool:
        """Cut the full-output file at its size limit; True when it was cut."""
        return self._output is not None and self._output.cut_file()


def _timeout_seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError("Invalid timeout: must be a finite number of seconds")
    if not math.isfinite(value) or value <= 0:
        raise ToolError("Invalid timeout: must be a finite number of seconds")
    if value > MAX_TIMEOUT_SECONDS:
        raise ToolError(f"Invalid timeout: maximum is {MAX_TIMEOUT_SECONDS} seconds")
    return float(value)


def _seconds_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass
class ShellRun:
    """How a command ended: its output (tail + full-output file) and why it stopped."""

    snapshot: OutputSnapshot
    exit_code: int
    killed_by: str | None
    """"abort", "timeout" or None."""
    exited_before_timeout: tuple[int, float] | None = None
    """(exit code, seconds) when the shell itself ended before a timeout fired."""
    last_line_bytes: int = 0
    background_running: bool = False
    """The tool stopped reading while background processes still wrote (BACKGROUND_NOTE)."""

    @property
    def cancelled(self) -> bool:
        return self.killed_by is not None


async def run_shell(
    command: str,
    cwd: str,
    signal: AbortSignal,
    *,
    timeout_seconds: float | None = None,
    shell_path: str | None = None,
    env: dict[str, str] | None = None,
    on_update: UpdateCallback | None = None,
    full_output_max_bytes: int = DEFAULT_FULL_OUTPUT_MAX_BYTES,
) -> ShellRun:
    """Run `command` with the bash tool's machinery (process group, bounded memory, full-output
    file); for a user's `!command`. Raises `ToolError` only when the shell cannot start."""
    environment = (lambda: dict(env)) if env is not None else None
    output = OutputAccumulator(file_prefix="pith-bash", file_max_bytes=full_output_max_bytes)
    run = _Run(command, cwd, find_shell(shell_path), environment, signal, on_update, output)
    return await run.run(timeout_seconds)


class _Run:
    def __init__(
        self,
        command: str,
        cwd: str,
        shell: str,
        env: Callable[[], dict[str, str]] | None,
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        output: OutputAccumulator,
    ) -> None:
        self.command = command
        self.cwd = cwd
        self.shell = shell
        self.env = env() if env is not None else dict(os.environ)
        self.signal = signal
        self.on_update = on_update
        self.output = output
        self.last_update = 0.0
        self.update_pending = False
        self.update_timer: asyncio.TimerHandle | None = None
        self.killed_by: str | None = None
        self.killed_at = 0.0
        self.shell_exit: tuple[int, float] | None = None
        """The shell's exit code and the monotonic time it exited."""
        self.background_running = False
        self.pipe_closed = False
        """Everything holding the output pipe's write end is gone (the read saw its end)."""

    async def execute(self, seconds: float | None, seconds_arg: object) -> ToolResult:
        if self.signal.aborted:
            raise ToolError("Command aborted")
        if self.on_update is not None:
            self.on_update(ToolResult(content=[]))
        run = await self.run(seconds)
        snapshot = run.snapshot
        if run.killed_by == "abort":
            raise ToolError(_with_status(self._format(snapshot, "")[0], "Command aborted"))
        if run.killed_by == "timeout":
            status = f"Command timed out after {_seconds_text(seconds_arg)} seconds"
            if run.exited_before_timeout is not None:
                code, after = run.exited_before_timeout
                status += (
                    f". The shell exited with code {code} after {round(after, 1)} seconds, but "
                    "background processes it started kept writing output until the timeout."
                )
            raise ToolError(_with_status(self._format(snapshot, "")[0], status))
        text, details = self._format(snapshot, "(no output)")
        if run.background_running:
            text = _with_status(text, BACKGROUND_NOTE)
        if run.exit_code != 0:
            return ToolResult(
                content=[
                    TextContent(
                        text=_with_status(text, f"Command exited with code {run.exit_code}")
                    )
                ],
                details=details,
                is_error=True,
            )
        return ToolResult(content=[TextContent(text=text)], details=details)

    async def run(self, seconds: float | None) -> ShellRun:
        """Run the command to its end (or its timeout or abort); never raises for its failure."""
        started = time.monotonic()
        read_fd, write_fd = os.pipe()
        _widen_pipe(read_fd)
        try:
            # Popen, not asyncio: pith owns the pipe, so it can stop reading (and close it)
            # while background children still hold the write end. Spawning takes ~1 ms.
            process = subprocess.Popen(  # noqa: ASYNC220
                [self.shell, "-c", self.command],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
            )
        except OSError as error:
            os.close(read_fd)
            raise ToolError(f"Cannot start {self.shell}: {error.strerror or error}") from None
        finally:
            os.close(write_fd)  # the command holds the only write end now

        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=READ_SIZE)
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
        )

        def kill(reason: str) -> None:
            if self.killed_by is None:
                self.killed_by = reason
                self.killed_at = time.monotonic()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signals.SIGKILL)

        unsubscribe = self.signal.on_abort(lambda: kill("abort"))
        deadline = loop.call_later(seconds, kill, "timeout") if seconds is not None else None
        try:
            await self._pump(process, reader, grace=seconds is None)
            return_code = await _wait_for_exit(process)
        finally:
            unsubscribe()
            if deadline is not None:
                deadline.cancel()
            if self.update_timer is not None:
                self.update_timer.cancel()
            try:
                if not self.pipe_closed:
                    # Background children keep running (a dev server, say): what they print
                    # from now on is drained to /dev/null, so a write cannot kill them.
                    pipe = transport.get_extra_info("pipe")
                    if pipe is not None:
                        await _discard_rest(pipe.fileno(), self.shell)
            finally:
                transport.close()
        snapshot = self._finish()
        exited_early = None
        shell_exit = self.shell_exit
        timed_out = self.killed_by == "timeout"
        if timed_out and shell_exit is not None and self.killed_at >= shell_exit[1]:
            exited_early = (shell_exit[0], shell_exit[1] - started)
        return ShellRun(
            snapshot=snapshot,
            exit_code=_exit_code(return_code),
            killed_by=self.killed_by,
            exited_before_timeout=exited_early,
            last_line_bytes=self.output.last_line_bytes,
            background_running=self.background_running,
        )

    async def _pump(
        self, process: subprocess.Popen[bytes], stream: asyncio.StreamReader, *, grace: bool
    ) -> None:
        """Read output until the pipe closes, or the shell is gone and then

        - with `grace` (no timeout to end the call): BACKGROUND_GRACE_SECONDS have passed since
          its exit — a child that never stops writing would hold the call forever;
        - otherwise: the pipe went quiet, i.e. no output for QUIET_AFTER_EXIT_SECONDS since the
          later of the exit and the last chunk, so children that keep writing are captured
          until the timeout.
        """
        watch = _ExitWatch(process)
        last_chunk = time.monotonic()
        try:
            while True:
                now = time.monotonic()
                if self.killed_by is not None and now - self.killed_at > KILL_DRAIN_SECONDS:
                    return  # something outside the process group still holds the pipe
                exit_at = watch.exit_time()
                wait = EXIT_POLL_SECONDS
                if exit_at is not None:
                    if self.shell_exit is None:
                        self.shell_exit = (_exit_code(watch.code()), exit_at)
                    if grace:
                        wait = BACKGROUND_GRACE_SECONDS - (now - exit_at)
                        if wait <= 0:
                            self.background_running = self.killed_by is None
                            return
                    else:
                        wait = QUIET_AFTER_EXIT_SECONDS - (now - max(exit_at, last_chunk))
                        if wait <= 0:
                            return
                try:
                    async with asyncio.timeout(wait):
                        chunk = await stream.read(READ_SIZE)
                except TimeoutError:
                    continue
                if not chunk:
                    self.pipe_closed = True
                    return
                last_chunk = time.monotonic()
                self.output.append(chunk)
                self._schedule_update()
        finally:
            watch.close()

    def _schedule_update(self) -> None:
        if self.on_update is None:
            return
        self.update_pending = True
        delay = UPDATE_INTERVAL_SECONDS - (time.monotonic() - self.last_update)
        if delay <= 0:
            if self.update_timer is not None:
                self.update_timer.cancel()
                self.update_timer = None
            self._emit_update()
        elif self.update_timer is None:
            self.update_timer = asyncio.get_running_loop().call_later(delay, self._emit_update)

    def _emit_update(self) -> None:
        self.update_timer = None
        if self.on_update is None or not self.update_pending:
            return
        self.update_pending = False
        self.last_update = time.monotonic()
        snapshot = self.output.snapshot(persist_if_truncated=True)
        details: dict[str, object] = {}
        if snapshot.truncation.truncated:
            details["truncation"] = to_builtins(snapshot.truncation)
        if snapshot.full_output_path:
            details["fullOutputPath"] = snapshot.full_output_path
        self.on_update(ToolResult(content=[TextContent(text=snapshot.content)], details=details))

    def _finish(self) -> OutputSnapshot:
        self.output.finish()
        self._emit_update()
        snapshot = self.output.snapshot(persist_if_truncated=True)
        self.output.close_file()
        return snapshot

    def _format(self, snapshot: OutputSnapshot, empty: str) -> tuple[str, object]:
        truncation = snapshot.truncation
        text = snapshot.content or empty
        if not truncation.truncated:
            return text, UNSET
        details = {
            "truncation": to_builtins(truncation),
            "fullOutputPath": snapshot.full_output_path,
        }
        first = truncation.total_lines - truncation.output_lines + 1
        last = truncation.total_lines
        path = snapshot.full_output_path
        if snapshot.full_output_cut_at is not None:
            path = f"{path} (cut at {format_size(snapshot.full_output_cut_at)})"
        if truncation.last_line_partial:
            line_size = format_size(self.output.last_line_bytes)
            text += (
                f"\n\n[Showing last {format_size(truncation.output_bytes)} of line {last} "
                f"(line is {line_size}). Full output: {path}]"
            )
        elif truncation.truncated_by == "lines":
            text += (
                f"\n\n[Showing lines {first}-{last} of {truncation.total_lines}. "
                f"Full output: {path}]"
            )
        else:
            text += (
                f"\n\n[Showing lines {first}-{last} of {truncation.total_lines} "
                f"({format_size(DEFAULT_MAX_BYTES)} limit). Full output: {path}]"
            )
        return text, details


class _ExitWatch:
    """Notes the moment the shell exits: a pidfd on Linux, polling elsewhere."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self._exit_at: float | None = None
        self._pidfd: int | None = None
        self._loop = asyncio.get_running_loop()
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            try:
                self._pidfd = pidfd_open(process.pid)
            except OSError:
                self._pidfd = None
            else:
                self._loop.add_reader(self._pidfd, self._exited)

    def _exited(self) -> None:
        if self._exit_at is None:
            self._exit_at = time.monotonic()
        self.close()

    def exit_time(self) -> float | None:
        if self._exit_at is None and self._pidfd is None and self.process.poll() is not None:
            self._exit_at = time.monotonic()
        return self._exit_at

    def code(self) -> int:
        return self.process.wait()  # called once the shell has exited: never blocks

    def close(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None


async def _discard_rest(descriptor: int, shell: str) -> None:
    """Hand the read end of the output pipe to a detached `cat > /dev/null`, which lives as
    long as something still writes to the pipe; pith keeps no descriptor or thread for it."""
    try:
        os.set_blocking(descriptor, True)  # the event loop made it non-blocking; cat needs it
        helper = subprocess.Popen(  # noqa: ASYNC220 - returns at once, polled below
            # A background job's stdin is /dev/null unless redirected: hand it the pipe as fd 3.
            [shell, "-c", "exec 3<&0; cat <&3 >/dev/null 3<&- &"],
            stdin=descriptor,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return  # then the writers lose the pipe, as when pith exits
    await _wait_for_exit(helper)  # the shell exits at once; its `cat` is adopted by init


def _widen_pipe(descriptor: int) -> None:
    """Ask Linux for a 1 MB pipe: 16x fewer wakeups than the 64 KB default on loud commands."""
    set_pipe_size = getattr(fcntl, "F_SETPIPE_SZ", 1031 if sys.platform == "linux" else None)
    if set_pipe_size is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(descriptor, set_pipe_size, READ_SIZE)


async def _wait_for_exit(process: subprocess.Popen[bytes]) -> int:
    """The shell's return code, polled so the event loop never blocks."""
    delay = 0.001
    while (code := process.poll()) is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)
    return code


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def _exit_code(return_code: int) -> int:
    """A signal-killed shell reports 128 + the signal number, as shells do."""
    return 128 - return_code if return_code < 0 else return_code
