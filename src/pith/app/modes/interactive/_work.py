"""The interactive mode's background work: each prompt, command or shell line the user sends
runs as a task beside the editor. One of them at a time is the main one (a prompt, a command
that changes the session); the others (steering, shortcuts, read-only commands) run beside it.
A failure is shown as a one-line notice, never as a traceback in the terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from pith.errors import InputError

__all__ = ["Work"]


class Work:
    def __init__(
        self,
        *,
        notice: Callable[[str], None],
        after: Callable[[], None],
        refresh: Callable[[], None],
    ) -> None:
        """`notice(text)` shows an error; `after()` runs when any piece of work ends;
        `refresh()` redraws the screen."""
        self._notice = notice
        self._after = after
        self._refresh = refresh
        self._main: asyncio.Task[None] | None = None
        """The prompt or command running now."""
        self._side: set[asyncio.Task[None]] = set()

    @property
    def main_running(self) -> bool:
        return self._main is not None and not self._main.done()

    def spawn(self, work: Awaitable[None], *, main: bool = False) -> None:
        async def guarded() -> None:
            try:
                await work
            except InputError as error:
                self._notice(str(error))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # never a traceback in the terminal
                self._notice(f"pith: {type(error).__name__}: {error}")
            finally:
                self._after()

        task = asyncio.get_running_loop().create_task(guarded())
        if main:
            self._main = task
        else:
            self._side.add(task)
            task.add_done_callback(self._side.discard)
        self._refresh()
