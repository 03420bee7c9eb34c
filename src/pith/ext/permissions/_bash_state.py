"""The shell state `_bash_walk` carries while walking a command, and the names it must not
trust.

The state is what the text of the command determines: the directories the shell may be in
(more than one after `cd x; y`, where the `cd` may have failed) and the variables assigned
literals so far. Each statement leaves two states, one for when it succeeded and one for when
it failed, so that `cd x && y` runs `y` in `x` and `cd x || y` runs it where it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Flow", "State"]


@dataclass(frozen=True)
class State:
    dirs: tuple[str | None, ...]
    """Where the shell may be (None: somewhere unknown)."""
    variables: Mapping[str, str | None]
    """Variables assigned in the command so far (None: not a literal, or not one value)."""

    def join(self, other: State) -> State:
        """Either of two states (after two branches): every directory of both; a variable
        keeps its value only when both branches assigned it the same one."""
        if other is self:
            return self
        mine, theirs = self.variables, other.variables
        variables = {
            name: mine[name] if name in mine and name in theirs and mine[name] == theirs[name]
            else None
            for name in dict.fromkeys([*mine, *theirs])
        }  # fmt: skip
        return State(tuple(dict.fromkeys(self.dirs + other.dirs)), variables)

    def lost(self) -> State:
        """The same, plus a directory nobody knows (a `cd` the walk cannot follow)."""
        return State(tuple(dict.fromkeys((*self.dirs, None))), self.variables)

    def unknown(self) -> State:
        """After something that may have changed directory and variables."""
        forgotten = {name: None for name in (*self.variables, "HOME", "PWD")}
        return State(self.lost().dirs, forgotten)


@dataclass(frozen=True, slots=True)
class Flow:
    """The states a statement leaves, for `&&` (run on success) and `||` (run on failure)."""

    ok: State
    """When it succeeded."""
    fail: State
    """When it failed."""

    @staticmethod
    def same(state: State) -> Flow:
        """Whether it succeeds or fails, the shell is in `state`."""
        return Flow(state, state)

    def either(self) -> State:
        """Where the shell is after it, success or failure."""
        return self.ok.join(self.fail)
