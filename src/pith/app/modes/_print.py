"""Print and JSON modes: run the prompts once, write the answer (or every event), exit.

Text mode writes the final assistant text. JSON mode writes a header line, then one JSON object
per event in Pi's shapes. Either way the exit code is 1, with one line on stderr, when the
provider failed, the run was aborted (SIGINT, SIGTERM or SIGHUP, at any point of the run: during
the reply or during a tool), or the reply was cut by the output limit. Each automatic retry is
told on stderr as it starts (the wait, the attempt, the reason), in both modes: stdout stays the
answer (or the events), and a silent wait of many seconds looks like a hang.

A prompt that is a `/command` runs it: what it shows goes to standard output (in JSON mode as a
`{"type": "command_output", "command", "text"}` record), its notices to standard error. Before
anything runs, every prompt is checked: an unknown command, or one that needs the terminal, is
refused with one line and exit code 2. A built-in command that refuses its arguments stops the
run with exit code 2 as well.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from typing import Literal, TextIO

from pith.ai import AssistantMessage, TextContent, is_context_overflow
from pith.app.session import (
    AgentSession,
    AutoRetryEnd,
    AutoRetryStart,
    Prompts,
    SessionEvent,
    event_to_json,
    retry_notice,
)

__all__ = ["failure_line", "run_print_mode"]


def failure_line(
    reply: AssistantMessage | None, context_window: int, retries: int = 0
) -> str | None:
    """The one-line error for a reply that did not succeed, or None; `retries` is how many
    automatic retries failed before it."""
    problem = _failure(reply, context_window)
    if problem is not None and retries and reply is not None and reply.stop_reason == "error":
        problem += f" (gave up after {retries} {'retry' if retries == 1 else 'retries'})"
    return problem


def _failure(reply: AssistantMessage | None, context_window: int) -> str | None:
    if reply is None:
        return "The model did not reply."
    error = reply.error_message if isinstance(reply.error_message, str) else ""
    if reply.stop_reason == "aborted":
        return "Aborted."
    if reply.stop_reason == "error":
        if is_context_overflow(reply, context_window):
            return (
                f"Context overflow: the conversation no longer fits the model's "
                f"{context_window}-token window ({error})"
            )
        return error or "The request failed."
    if reply.stop_reason == "length":
        return "Response was truncated: the model reached its output token limit."
    return None


async def run_print_mode(
    session: AgentSession,
    prompts: Prompts,
    mode: Literal["text", "json"],
    header: dict[str, object] | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run every prompt in order; returns the process exit code."""
    stdout = out or sys.stdout
    stderr = err or sys.stderr
    queue = ([prompts.first] if prompts.first is not None else []) + prompts.rest
    for text in queue:
        problem = session.command_refusal(text)
        if problem is not None:
            stderr.write(f"pith: {problem}\n")
            return 2

    def write_record(payload: dict[str, object]) -> None:
        stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
        stdout.flush()

    def show(command: str, text: str) -> None:
        if mode == "json":
            write_record({"type": "command_output", "command": command, "text": text})
        else:
            stdout.write(text)
            stdout.flush()

    session.command_output = show

    gave_up: list[int] = []

    def tell_retries(event: SessionEvent) -> None:
        if isinstance(event, AutoRetryStart):
            session.ui.notify(retry_notice(event), "warning")
        elif isinstance(event, AutoRetryEnd):
            gave_up[:] = [] if event.success or event.final_error is None else [event.attempt]

    session.subscribe(tell_retries)
    if mode == "json":
        if header is not None:
            stdout.write(json.dumps(header, ensure_ascii=False) + "\n")
        session.subscribe(
            lambda event: write_record(event_to_json(event, will_retry=session.will_retry))
        )
    loop = asyncio.get_running_loop()
    installed = []
    stopped: list[int] = []

    def stop(signum: int) -> None:
        stopped.append(signum)
        session.abort()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # SIGHUP: terminal closed
        try:
            loop.add_signal_handler(signum, stop, signum)
            installed.append(signum)
        except (NotImplementedError, RuntimeError):
            pass
    try:
        reply: AssistantMessage | None = None
        handled = False
        for index, text in enumerate(queue):
            images = prompts.images if index == 0 else []
            outcome = await session.prompt(text, images)
            if outcome.failed:
                return 2  # said as an error notice already
            # A command or an input handler that took the text gives an answer to print only
            # when it started a run itself (send_user_message, say).
            handled = outcome.handled and not outcome.ran
            if handled:
                continue
            reply = outcome.reply
            if stopped or reply is None or reply.stop_reason in ("error", "aborted"):
                break
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
    if stopped:
        # Whatever the last reply says (a tool call whose result was cut short, say), the
        # run did not finish: report it as aborted, as a signal during the reply is.
        stderr.write("pith: Aborted.\n")
        return 1
    if handled and reply is None:
        return 0
    problem = failure_line(reply, session.model.context_window, sum(gave_up))
    if mode == "text" and reply is not None and reply.stop_reason not in ("error", "aborted"):
        for block in reply.content:
            if isinstance(block, TextContent):
                stdout.write(block.text + "\n")
        stdout.flush()
    if problem is not None:
        stderr.write(f"pith: {problem}\n")
        return 1
    return 0
