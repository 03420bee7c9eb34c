"""The guarded tools: pith's own tools wrapped, nothing else changed about them.

`GuardedTool` keeps the wrapped tool's name, description, schema and prompt lines (the system
prompt stays byte-identical) and adds **argument normalization** before the tool's own
`prepare_arguments`; the renames it made are reported in the result's `details.guard`.
For `bash` it also runs **pipeline stripping**: the command is planned (`_plan.py`); when
views were stripped, the cleaned command runs with the wrapped bash tool and the views are
applied to its **full** output (`_project.py`), the exit status being the view's, exactly as
bash reports it. See docs/guard.md.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pith.agent import AbortSignal, Tool, ToolResult, UpdateCallback
from pith.ai import UNSET, TextContent, to_builtins
from pith.ext.guard._arguments import normalize_arguments
from pith.ext.guard._output_tail import count_newlines, read_tail
from pith.tools import (
    BACKGROUND_NOTE,
    DEFAULT_FULL_OUTPUT_MAX_BYTES,
    DEFAULT_MAX_BYTES,
    BashTool,
    CapturedOutput,
    find_shell,
    format_size,
    write_output_file,
)

if TYPE_CHECKING:
    from pith.ext.guard._plan import GuardPlan

__all__ = [
    "CONTRACT_VERSION",
    "LOG_PREFIX",
    "GuardSettings",
    "GuardedTool",
    "details_with",
    "rename_records",
]

CONTRACT_VERSION = 1
LOG_PREFIX = "pith-guard"
"""Saved full outputs: `pith-guard-<hex>.log` in the temp folder, swept like the bash tool's."""
_STATUS = "\n\nCommand exited with code "

_renames: contextvars.ContextVar[tuple[object, ...]] = contextvars.ContextVar(
    "pith_guard_renames", default=()
)
"""The renames argument normalization made for the call running in this task."""


@dataclass
class GuardSettings:
    enabled: bool = True
    strip_pipelines: bool = True
    repair_tool_names: bool = True
    fast_threshold_ms: int = 10_000


def details_with(details: object, guard: dict[str, object]) -> object:
    if isinstance(details, Mapping):
        return {**details, "guard": guard}
    if details is UNSET or details is None:
        return {"guard": guard}
    return details  # a tool's own structured details: leave them alone


def rename_records(renames: tuple[object, ...]) -> list[object]:
    return [to_builtins(rename) for rename in renames]


class GuardedTool:
    """`inner` with argument normalization (and, for bash, pipeline stripping)."""

    guarded = True
    default_active = False
    """Wrapping a tool never makes it active: the wrapper takes the tool's place only."""

    def __init__(
        self,
        inner: Tool,
        settings: Callable[[], GuardSettings],
        notify: Callable[[str], None],
    ) -> None:
        self.inner = inner
        self._settings = settings
        self._notify = notify

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def description(self) -> str:
        return self.inner.description

    @property
    def parameters(self) -> dict[str, object]:
        return self.inner.parameters

    def prepare_arguments(self, args: object) -> object:
        renames: tuple[object, ...] = ()
        if self._settings().enabled:
            args, found = normalize_arguments(self.inner.name, args)
            renames = tuple(found)
        _renames.set(renames)
        prepare = getattr(self.inner, "prepare_arguments", None)
        return prepare(args) if callable(prepare) else args

    async def execute(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> ToolResult:
        renames = _renames.get()
        _renames.set(())
        settings = self._settings()
        command = args.get("command")
        if (
            self.inner.name == "bash"
            and settings.enabled
            and settings.strip_pipelines
            and isinstance(command, str)
        ):
            plan = self._plan(command)
            if plan.changed:
                guarded = await self._guarded_bash(
                    plan, call_id, args, signal, on_update, settings, renames
                )
                if guarded is not None:
                    return guarded
        result = await self.inner.execute(call_id, args, signal, on_update)
        if renames:
            guard = {"version": CONTRACT_VERSION, "renames": rename_records(renames)}
            result.details = details_with(result.details, guard)
        return result

    # --- bash -----------------------------------------------------------------------------------

    def _plan(self, command: str) -> GuardPlan:
        """The plan for `command` as the shell runs it: after the bash tool's command prefix
        (the `shellCommandPrefix` setting), which must leave the plan as it is — a prefix that
        sets `pipefail` or `LC_ALL`, or prints anything, leaves the command untouched."""
        # Imported on the first bash call: the shell parser is a large share of a start-up
        # that may never run a command (`pith -p` answering in words).
        from pith.ext.guard._plan import GuardPlan, plan_command

        plan = plan_command(command)
        prefix = getattr(self.inner, "command_prefix", None)
        if not plan.changed or not isinstance(prefix, str) or not prefix.strip():
            return plan
        whole = plan_command(f"{prefix}\n{command}")
        if whole.changed and whole.hoisted == plan.hoisted:
            return plan
        reason = whole.reason if not whole.changed else "the shell command prefix prints"
        return GuardPlan(command, False, f"shellCommandPrefix: {reason}", cleaned=command)

    async def _guarded_bash(
        self,
        plan: GuardPlan,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
        settings: GuardSettings,
        renames: tuple[object, ...],
    ) -> ToolResult | None:
        """The projected result; None (nothing ran) when the side-channel paths cannot be
        quoted, so the command runs as it is."""
        folder = tempfile.mkdtemp(prefix="pith-guard-run-")
        if "'" in folder:
            os.rmdir(folder)
            return None
        try:
            sink = os.path.join(folder, "sink.out") if plan.needs_sink else None
            marker = os.path.join(folder, "ran") if plan.needs_marker else None
            after = os.path.join(folder, "after.out") if plan.needs_after else None
            # The result is built in one file: the side channel, then the views' output, then
            # what a `cd` after the pipeline printed.
            shown = sink or os.path.join(folder, "shown.out")
            for channel in (shown, after):
                if channel is not None:
                    Path(channel).write_bytes(b"")  # exists before the run: `>>` never fails
            cleaned = plan.render(sink, marker, after)
            started = time.monotonic()
            result, output = await self._run_bash(
                call_id, {**args, "command": cleaned}, signal, on_update
            )
            try:
                ran = marker is None or os.path.exists(marker)
                command_ms = (time.monotonic() - started) * 1000
                later = Path(after).read_bytes() if after is not None else b""
                run = _GuardedRun(
                    plan, result, output, shown, os.path.getsize(shown), command_ms, later
                )
                if not ran:
                    return await self._unprojected(run, renames)
                return await self._projected(run, signal, settings, renames)
            finally:
                output.release()  # the views have read all of it: now cut it to its limit
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    async def _run_bash(
        self,
        call_id: str,
        args: dict[str, object],
        signal: AbortSignal,
        on_update: UpdateCallback | None,
    ) -> tuple[ToolResult, CapturedOutput]:
        if isinstance(self.inner, BashTool):
            return await self.inner.execute_captured(call_id, args, signal, on_update)
        # Another bash tool: its text is all there is.
        result = await self.inner.execute(call_id, args, signal, on_update)
        window, _ = _split_status(_text(result), result.is_error)
        data = b"" if window == "(no output)" else window.encode("utf-8", "surrogateescape")
        return result, CapturedOutput(data, None, DEFAULT_FULL_OUTPUT_MAX_BYTES, False)

    def _guard_record(self, plan: GuardPlan, renames: tuple[object, ...]) -> dict[str, object]:
        guard: dict[str, object] = {
            "version": CONTRACT_VERSION,
            "originalCommand": plan.original,
            "cleanedCommand": plan.cleaned,
            "removedPipeline": plan.pipeline,
        }
        if renames:
            guard["renames"] = rename_records(renames)
        return guard

    async def _projected(
        self,
        run: _GuardedRun,
        signal: AbortSignal,
        settings: GuardSettings,
        renames: tuple[object, ...],
    ) -> ToolResult:
        plan, result, output = run.plan, run.result, run.output
        _, status = _split_status(_text(result), result.is_error)
        guard = self._guard_record(plan, renames)
        shell = find_shell(getattr(self.inner, "shell_path", None))
        target = os.open(run.shown, os.O_WRONLY | os.O_APPEND)
        try:
            from pith.ext.guard._project import apply_views

            directory = plan.view_directory(self._cwd())  # where the shell was: `cd logs && …`
            with output.open() as reader:
                projection = await apply_views(plan.views, reader, target, directory, shell, signal)
            if run.after:
                os.write(target, run.after)  # shown after the views' output, as it came
        finally:
            os.close(target)
        code = status if plan.has_following_statement else projection.exit_code
        tail = await asyncio.to_thread(read_tail, run.shown, strip=True)
        shown = tail.content
        truncated = output.path is not None  # the run's own output went past the caps
        path, cut = (output.path, output.over_limit) if truncated else (None, False)
        if tail.truncated and (path is None or run.side or run.after):
            # What was cut must stay readable; the run's own file lacks the side channels.
            path, cut = run.persist(with_side=True)
        slow = run.command_ms >= settings.fast_threshold_ms
        if slow and path is None:
            path, cut = run.persist(with_side=False)
        if tail.truncated:
            where = f" Full output: {_named(path, cut, output)}" if path else ""
            shown += (
                f"\n\n[Showing the last {tail.output_lines} of {tail.total_lines} lines "
                f"of the projection ({format_size(DEFAULT_MAX_BYTES)} limit).{where}]"
            )
        guard.update(
            outcome="projection-applied",
            capped=tail.truncated,
            timing={
                "commandMs": round(run.command_ms, 1),
                "extractorMs": round(projection.milliseconds, 1),
            },
        )
        if path is not None:
            guard["fullOutputPath"] = path
        noop = False
        if output.data is not None:
            guard["projection"] = run.projection_sizes(output.data)
            noop = tail.whole is not None and tail.whole == run.unprojected_text(output.data)
        if slow and path is not None:
            shown += (
                f"\n\n[This command took {run.command_ms / 1000:.1f} s. Its full output is saved "
                f"in {_named(path, cut, output)}: read it from there (the read tool with "
                "offset/limit) instead of running the command again.]"
            )
            if not noop:
                self._notify(
                    f"Ran `{plan.cleaned}` without "
                    f"`| {plan.pipeline}` and applied the view to its full output ({path})"
                )
        details = dict(result.details) if isinstance(result.details, Mapping) else {}
        if path is not None:
            details["fullOutputPath"] = path
        details["guard"] = guard
        body = _with_endings(shown or "(no output)", output, code)
        return ToolResult(content=[TextContent(text=body)], details=details, is_error=code != 0)

    async def _unprojected(self, run: _GuardedRun, renames: tuple[object, ...]) -> ToolResult:
        """A prefix short-circuited: the pipeline (and its views) never ran, so the result is
        the side channel and the run's own output, as the bash tool shows output."""
        output = run.output
        _, status = _split_status(_text(run.result), run.result.is_error)
        guard = self._guard_record(run.plan, renames)
        guard.update(outcome="full-output", capped=False)
        source = output.path
        if source is None or run.side or run.after:
            await asyncio.to_thread(run.append_output)
            source = run.shown
        tail = await asyncio.to_thread(read_tail, source, strip=False)
        shown = tail.content or "(no output)"
        details = dict(run.result.details) if isinstance(run.result.details, Mapping) else {}
        if tail.truncated:
            # Like the bash tool: say what was cut and where all of it is (with the side
            # channel, which the run's own file lacks).
            path: str | None
            if output.path is not None and not run.side and not run.after:
                path, cut = output.path, output.over_limit
            else:
                path, cut = run.persist(with_side=True)
            where = f" Full output: {_named(path, cut, output)}" if path else ""
            shown += f"\n\n[Showing the last {tail.output_lines} lines.{where}]"
            if path:
                details["fullOutputPath"] = guard["fullOutputPath"] = path
        details["guard"] = guard
        body = _with_endings(shown, output, status)
        return ToolResult(content=[TextContent(text=body)], details=details, is_error=status != 0)

    def _cwd(self) -> str:
        cwd = getattr(self.inner, "cwd", None)
        return cwd if isinstance(cwd, str) else os.getcwd()


def _split_status(text: str, is_error: bool) -> tuple[str, int]:
    """The bash tool's text without its `Command exited with code N` line, and N (0 when
    there is none)."""
    if is_error:
        index = text.rfind(_STATUS)
        if index >= 0:
            tail = text[index + len(_STATUS) :].strip()
            if tail.isdigit():
                return text[:index], int(tail)
    return text, 0


def _text(result: ToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def _with_endings(body: str, output: CapturedOutput, code: int) -> str:
    """`body` with the bash tool's closing lines: background processes, then the status."""
    if output.background_running:
        body += f"\n\n{BACKGROUND_NOTE}"
    if code != 0:
        body += f"{_STATUS}{code}"
    return body


def _named(path: str | None, cut: bool, output: CapturedOutput) -> str | None:
    """A full-output file as a notice names it: with the size it was cut at, if it was."""
    if path is None or not cut:
        return path
    return f"{path} (cut at {format_size(output.max_file_bytes)})"


@dataclass
class _GuardedRun:
    """One stripped command, run: what the bash tool gave and where the result is built."""

    plan: GuardPlan
    result: ToolResult
    output: CapturedOutput
    shown: str
    """The file the result is built in: the side channel, then what is shown after it."""
    side: int
    """How many bytes of `shown` the side channel wrote."""
    command_ms: float
    after: bytes = b""
    """What a `cd` after the pipeline printed: shown after everything else."""

    def _output_part(self) -> bytes | tuple[str, int, int]:
        if self.output.data is not None:
            return self.output.data
        assert self.output.path is not None
        return (self.output.path, 0, os.path.getsize(self.output.path))

    def append_output(self) -> None:
        """Add the run's whole output to `shown`, after the side channel."""
        part = self._output_part()
        with open(self.shown, "ab") as target:
            if isinstance(part, bytes):
                target.write(part)
            else:
                with self.output.open() as reader:
                    shutil.copyfileobj(reader, target, 1 << 20)
            target.write(self.after)

    def persist(self, *, with_side: bool) -> tuple[str | None, bool]:
        """Save the run's full output (after the side channel, `with_side`) to a
        `pith-guard-<hex>.log` file, cut at the bash tool's limit; its path, and whether it
        was cut."""
        parts: list[bytes | tuple[str, int, int]] = []
        if with_side and self.side:
            parts.append((self.shown, 0, self.side))
        parts.append(self._output_part())
        if with_side and self.after:
            parts.append(self.after)
        saved = write_output_file(LOG_PREFIX, parts, self.output.max_file_bytes)
        return saved if saved is not None else (None, False)

    def projection_sizes(self, data: bytes) -> dict[str, int]:
        size = os.path.getsize(self.shown)
        with open(self.shown, "rb") as handle:
            lines_after = count_newlines(handle, self.side, size) - self.after.count(b"\n")
        return {
            "linesBefore": data.count(b"\n"),
            "linesAfter": lines_after,
            "bytesBefore": len(data),
            "bytesAfter": size - self.side - len(self.after),
        }

    def unprojected_text(self, data: bytes) -> str:
        """What the command would have shown without its views (the side channel, then the
        output), as the projection's text is compared with it."""
        with open(self.shown, "rb") as handle:
            side = handle.read(self.side)
        return (side + data + self.after).decode("utf-8", "replace").rstrip()
