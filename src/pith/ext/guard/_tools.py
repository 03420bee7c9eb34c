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

import contextvars
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pith.agent import AbortSignal, Tool, ToolResult, UpdateCallback
from pith.ai import UNSET, TextContent, to_builtins
from pith.ext.guard._arguments import normalize_arguments
from pith.ext.guard._plan import GuardPlan, plan_command
from pith.ext.guard._project import Projection, apply_views
from pith.tools.bash import RAW_OUTPUT, find_shell
from pith.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail

__all__ = ["CONTRACT_VERSION", "GuardSettings", "GuardedTool", "sweep_logs"]

CONTRACT_VERSION = 1
LOG_PREFIX = "pith-guard-"
LOG_TTL_SECONDS = 24 * 3600
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


def _details_with(details: object, guard: dict[str, object]) -> object:
    if isinstance(details, Mapping):
        return {**details, "guard": guard}
    if details is UNSET or details is None:
        return {"guard": guard}
    return details  # a tool's own structured details: leave them alone


def _rename_records(renames: tuple[object, ...]) -> list[object]:
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
            guard = {"version": CONTRACT_VERSION, "renames": _rename_records(renames)}
            result.details = _details_with(result.details, guard)
        return result

    # --- bash -----------------------------------------------------------------------------------

    def _plan(self, command: str) -> GuardPlan:
        """The plan for `command` as the shell runs it: after the bash tool's command prefix
        (the `shellCommandPrefix` setting), which must leave the plan as it is — a prefix that
        sets `pipefail` or `LC_ALL`, or prints anything, leaves the command untouched."""
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
            for channel in (sink, after):
                if channel is not None:
                    Path(channel).write_bytes(b"")  # opened before the run: `>>` never fails
            cleaned = plan.render(sink, marker, after)
            raw: list[bytes | None] = []
            token = RAW_OUTPUT.set(raw.append)  # the output byte for byte, not decoded
            started = time.monotonic()
            try:
                result = await self.inner.execute(
                    call_id, {**args, "command": cleaned}, signal, on_update
                )
            finally:
                RAW_OUTPUT.reset(token)
            command_ms = (time.monotonic() - started) * 1000
            side = Path(sink).read_bytes() if sink is not None else b""
            later = Path(after).read_bytes() if after is not None else b""
            ran = marker is None or os.path.exists(marker)
            output = raw[0] if raw else None
            return await self._projected(
                plan, result, side, ran, output, command_ms, signal, settings, renames, later
            )
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    async def _projected(
        self,
        plan: GuardPlan,
        result: ToolResult,
        side: bytes,
        ran: bool,
        raw: bytes | None,
        command_ms: float,
        signal: AbortSignal,
        settings: GuardSettings,
        renames: tuple[object, ...],
        after: bytes = b"",
    ) -> ToolResult:
        """The model's result; `after` is what a `cd` after the pipeline printed (shown
        after the projection, as it came after the view's output)."""
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        details = result.details if isinstance(result.details, Mapping) else {}
        source = details.get("fullOutputPath") if isinstance(details, Mapping) else None
        window, status = _split_status(text, result.is_error)
        truncated = isinstance(source, str) and bool(details.get("truncation"))
        if raw is not None:
            full = raw  # exactly what the command printed (invalid UTF-8 included)
        elif truncated:
            assert isinstance(source, str)
            full = _read(source)
        else:
            # Only when the tool gave no raw bytes (another bash tool): its text is all there is.
            empty = window == "(no output)"
            full = b"" if empty else window.encode("utf-8", "surrogateescape")
        guard: dict[str, object] = {
            "version": CONTRACT_VERSION,
            "originalCommand": plan.original,
            "cleanedCommand": plan.cleaned,
            "removedPipeline": plan.pipeline,
        }
        if renames:
            guard["renames"] = _rename_records(renames)
        slow = command_ms >= settings.fast_threshold_ms
        if not ran:
            # A prefix short-circuited: the pipeline (and its views) never ran.
            guard.update(outcome="full-output", capped=False)
            return self._result(side, full, status, result, guard, source, after)
        shell = find_shell(getattr(self.inner, "shell_path", None))
        directory = plan.view_directory(self._cwd())  # where the shell was: `cd logs && …`
        projection: Projection = await apply_views(plan.views, full, directory, shell, signal)
        code = status if plan.has_following_statement else projection.exit_code
        projected = side + projection.output + after
        output = projected.decode("utf-8", "replace").rstrip()
        capped = truncate_tail(output, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
        shown = capped.content
        path = source if isinstance(source, str) else None
        if capped.truncated and (path is None or side or after):
            # What was cut must stay readable; the run's own file lacks the side channels.
            path = _persist(side + full + after)
        if slow and path is None:
            path = _persist(full)
        if capped.truncated:
            where = f" Full output: {path}" if path else ""
            shown += (
                f"\n\n[Showing the last {capped.output_lines} of {capped.total_lines} lines "
                f"of the projection ({format_size(DEFAULT_MAX_BYTES)} limit).{where}]"
            )
        guard.update(
            outcome="projection-applied",
            capped=capped.truncated,
            timing={
                "commandMs": round(command_ms, 1),
                "extractorMs": round(projection.milliseconds, 1),
            },
        )
        if path is not None:
            guard["fullOutputPath"] = path
        if not truncated:
            guard["projection"] = {
                "linesBefore": full.count(b"\n"),
                "linesAfter": projection.output.count(b"\n"),
                "bytesBefore": len(full),
                "bytesAfter": len(projection.output),
            }
        noop = not truncated and output == (side + full + after).decode("utf-8", "replace").rstrip()
        if slow and path is not None:
            shown += (
                f"\n\n[This command took {command_ms / 1000:.1f} s. Its full output is saved in "
                f"{path}: read it from there (the read tool with offset/limit) instead of "
                "running the command again.]"
            )
            if not noop:
                self._notify(
                    f"Ran `{plan.cleaned}` without "
                    f"`| {plan.pipeline}` and applied the view to its full output ({path})"
                )
        out_details: dict[str, object] = dict(details) if isinstance(details, Mapping) else {}
        if path is not None:
            out_details["fullOutputPath"] = path
        out_details["guard"] = guard
        body_text = shown or "(no output)"
        if code != 0:
            body_text += f"{_STATUS}{code}"
        return ToolResult(
            content=[TextContent(text=body_text)], details=out_details, is_error=code != 0
        )

    def _result(
        self,
        side: bytes,
        full: bytes,
        status: int,
        result: ToolResult,
        guard: dict[str, object],
        source: object,
        after: bytes = b"",
    ) -> ToolResult:
        text = (side + full + after).decode("utf-8", "replace")
        capped = truncate_tail(text, max_lines=DEFAULT_MAX_LINES, max_bytes=DEFAULT_MAX_BYTES)
        shown = capped.content or "(no output)"
        details = dict(result.details) if isinstance(result.details, Mapping) else {}
        if capped.truncated:
            # Like the bash tool: say what was cut and where all of it is (with the side
            # channel, which the run's own file lacks).
            own = isinstance(source, str) and not side and not after
            path = source if own else _persist(side + full + after)
            where = f" Full output: {path}" if path else ""
            shown += f"\n\n[Showing the last {capped.output_lines} lines.{where}]"
            if path:
                details["fullOutputPath"] = guard["fullOutputPath"] = path
        if status != 0:
            shown += f"{_STATUS}{status}"
        details["guard"] = guard
        return ToolResult(content=[TextContent(text=shown)], details=details, is_error=status != 0)

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


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def _persist(data: bytes) -> str | None:
    """Save a slow command's full output (`pith-guard-<hex>.log` in the temp folder)."""
    sweep_logs()
    try:
        descriptor, path = tempfile.mkstemp(prefix=LOG_PREFIX, suffix=".log")
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
    except OSError:
        return None
    return path


def sweep_logs(now: float | None = None) -> None:
    """Remove saved full outputs older than a day (best effort)."""
    folder = Path(tempfile.gettempdir())
    limit = (now if now is not None else time.time()) - LOG_TTL_SECONDS
    try:
        candidates = list(folder.glob(f"{LOG_PREFIX}*.log"))
    except OSError:
        return
    for path in candidates:
        try:
            if path.stat().st_mtime < limit:
                path.unlink()
        except OSError:
            continue
