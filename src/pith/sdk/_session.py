"""`Session`: one conversation driven from Python, a thin face on the runtime every mode uses."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from types import TracebackType

from pith.ai import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    Model,
    TextContent,
    ThinkingLevel,
    UserMessage,
    content_text,
)
from pith.app.export import export_store
from pith.app.session import AgentSession, ForkOutcome, SessionEvent
from pith.errors import InputError
from pith.sdk._events import EventStream
from pith.sdk._report import ContextReport, context_report

__all__ = ["Session"]


class Session:
    """A pith session: prompt it, read its events, steer or stop a run, fork it, look at its
    next request, export it. Made by `pith.create_session` or `pith.open_session`; close it
    (or use `async with`) to tell extensions it ends and release its file."""

    def __init__(self, runtime: AgentSession, *, agent_dir: Path) -> None:
        self._runtime = runtime
        self._agent_dir = agent_dir
        self._streams: list[EventStream] = []
        self._busy = False
        self._closed = False

    # --- what it is -------------------------------------------------------------------------

    @property
    def runtime(self) -> AgentSession:
        """The session runtime underneath, which pith's own modes drive (for what this class
        does not offer; its interface may change between versions)."""
        return self._runtime

    @property
    def id(self) -> str:
        return self._runtime.store.id

    @property
    def path(self) -> Path | None:
        """The session file; None for a session kept in memory (or before its first reply
        is saved, the file is only made once there is one)."""
        path = self._runtime.store.path
        return Path(path) if path is not None else None

    @property
    def cwd(self) -> str:
        return self._runtime.cwd

    @property
    def model(self) -> Model:
        return self._runtime.model

    @property
    def thinking(self) -> ThinkingLevel:
        return self._runtime.thinking

    @property
    def messages(self) -> list[AgentMessage]:
        """The conversation the model sees, oldest first (the current branch)."""
        return list(self._runtime.messages)

    @property
    def last_reply(self) -> AssistantMessage | None:
        """The model's newest reply, when the conversation ends with one."""
        return self._runtime.last_reply()

    @property
    def last_text(self) -> str:
        """The text of `last_reply` ("" when there is none)."""
        reply = self.last_reply
        return content_text(reply.content) if reply is not None else ""

    @property
    def is_running(self) -> bool:
        """Whether a prompt is being answered."""
        return self._busy

    # --- prompting --------------------------------------------------------------------------

    async def prompt(
        self, text: str, images: Sequence[ImageContent] = ()
    ) -> AssistantMessage | None:
        """Send `text` (a message, or a `/command` of an extension, a template or a skill) and
        wait until the model is done, tools and automatic retries included. Returns the final
        reply; None when a command or an extension took the text instead. A reply that ended
        in an error is returned too (its `stop_reason` is "error"); a `/command` this session
        does not know raises `InputError`."""
        self._check_open()
        if self._busy:
            raise InputError(
                "a prompt is running in this session; steer() or follow_up() adds to it, "
                "abort() stops it"
            )
        self._busy = True
        try:
            return (await self._runtime.prompt(text, images)).reply
        finally:
            self._busy = False

    async def stream(
        self, text: str, images: Sequence[ImageContent] = ()
    ) -> AsyncIterator[SessionEvent]:
        """`prompt(text)`, yielding its events as they happen; the reply is `last_reply`
        afterwards. Leaving the loop early aborts the run."""
        events = self.events()
        task = asyncio.ensure_future(self.prompt(text, images))
        task.add_done_callback(lambda _: events.close())
        try:
            async for event in events:
                yield event
        finally:
            events.close()
            if not task.done():
                self.abort()
            await task  # a failure of the prompt surfaces here

    def events(self) -> EventStream:
        """Every event of this session from now on, as an async iterator (`async for event in
        session.events()`), until it is closed or the session is."""
        self._check_open()
        stream = EventStream(self._subscribe)
        self._streams.append(stream)
        return stream

    def _subscribe(self, listener: Callable[[SessionEvent], None]) -> Callable[[], None]:
        return self._runtime.subscribe(listener)

    def steer(self, text: str) -> None:
        """Add a message to the running prompt: the model gets it after the tools it called
        now, before its next step."""
        self._queue(text, steer=True)

    def follow_up(self, text: str) -> None:
        """Queue a message for when the running prompt would end: the run goes on with it."""
        self._queue(text, steer=False)

    def _queue(self, text: str, *, steer: bool) -> None:
        if not self._busy:
            what = "steer" if steer else "follow_up"
            raise InputError(f"{what}: no prompt is running; send the text with prompt()")
        message = UserMessage(content=[TextContent(text=text)])
        agent = self._runtime.agent
        if steer:
            agent.steer(message)
        else:
            agent.follow_up(message)

    def abort(self) -> None:
        """Stop the running prompt: the model's reply, the tools in flight, a retry wait."""
        self._runtime.abort()

    # --- branches ---------------------------------------------------------------------------

    def fork_points(self) -> list[tuple[str, str]]:
        """Your messages a fork can start from, as `(entry id, text)`, oldest first."""
        return self._runtime.fork_points()

    async def fork(self, entry_id: str) -> ForkOutcome:
        """Go on in a new session holding the conversation up to just before your message
        `entry_id` (from `fork_points`); the message's text is in the outcome's
        `selected_text`, to send again or change. An extension may cancel (`cancelled`)."""
        self._check_idle("fork")
        return await self._runtime.fork(entry_id)

    async def clone(self) -> ForkOutcome:
        """Go on in a new session holding the whole current conversation."""
        self._check_idle("clone")
        return await self._runtime.clone()

    # --- models -----------------------------------------------------------------------------

    def models(self) -> list[Model]:
        """The models this session can switch to (those with credentials)."""
        return self._runtime.usable_models()

    async def set_model(self, model: Model | str) -> None:
        """Switch to `model` (a `Model`, or `provider/id` as on the command line) for the next
        prompt; raises `InputError` when it has no credentials."""
        chosen = self._runtime.registry.find(model).model if isinstance(model, str) else model
        if not await self._runtime.set_model(chosen):
            raise InputError(f"no API key for {chosen.key}; set one in models.json or the env")
        self._runtime.fit_thinking()

    def set_thinking(self, level: ThinkingLevel) -> None:
        """The thinking level of the next requests (`off` for a model that does not reason)."""
        if level not in self._runtime.thinking_levels():
            raise InputError(f"{self.model.key} does not reason; its only thinking level is off")
        self._runtime.set_thinking_level(level)

    # --- looking at it ----------------------------------------------------------------------

    async def context(self) -> ContextReport:
        """What the next request would contain (as `pith context` shows it): the system
        prompt's sections, the tools, every message, each with a token estimate. The
        extensions' context hooks run as for a real request (the pruner's stubs show)."""
        self._check_idle("context")
        path = self.path
        return await context_report(
            self._runtime,
            model=self.model,
            source=str(path) if path is not None else None,
            agent_dir=self._agent_dir,
        )

    def export_html(self, out: str | os.PathLike[str] | None = None) -> Path:
        """Write the session as one self-contained HTML page (see docs/export.md); `out` is a
        file or a folder (default: `pith-session-<id>.html` here). Returns the path written."""
        return export_store(self._runtime.store, out, cwd=self.cwd)

    # --- the end ----------------------------------------------------------------------------

    async def close(self) -> None:
        """Tell extensions the session ends, end the event streams and release the file. A
        second call does nothing."""
        if self._closed:
            return
        self._closed = True
        if self._busy:
            self.abort()
        try:
            await self._runtime.shutdown()
        finally:
            for stream in self._streams:
                stream.close()
            self._streams.clear()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise InputError("this session is closed; open it again with pith.open_session()")

    def _check_idle(self, what: str) -> None:
        self._check_open()
        if self._busy:
            raise InputError(f"{what}: a prompt is running; wait for it or abort() it first")
