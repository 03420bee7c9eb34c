"""The ways an event can combine its handlers' answers, as small declarative rules.

The event table names one rule per event; the runner's one `emit` drives any of them:

- `Notify`: every handler runs, what it returns is ignored;
- `FirstWins`: the first answer that decides ends the round (a block, a cancel), optionally
  keeping fields that undecided answers set on the way;
- `Chain`: each handler sees the state the earlier ones left (a transformed text, a patched
  result, a replaced message) and may end the round.

A rule starts a `Round` for one emit: what the next handler is called with, what its answer
does, and the outcome once every handler ran (or one ended the round). What a handler returns
is read with `coerce`: None, an instance of the answer class, or a dict of its fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Generic, Protocol, TypeVar

from pith.extensions._registry import Extension, Subscription

__all__ = [
    "Chain",
    "FirstWins",
    "Notify",
    "Round",
    "Rule",
    "coerce",
    "describe_error",
    "from_mapping",
]

_A = TypeVar("_A")
_S = TypeVar("_S")


class Round(Protocol):
    """One emit of one event, handler by handler."""

    def payload(self) -> object:
        """What the next handler is called with."""
        ...

    def take(self, extension: Extension, value: object) -> bool:
        """One handler's answer (raises when it is not a valid one); True ends the round."""
        ...

    def outcome(self) -> object:
        """What the emit returns."""
        ...


class Rule(Protocol):
    def start(self, event: Any, subscriptions: Sequence[Subscription]) -> Round: ...

    def refused(self, extension: Extension, error: BaseException) -> object | None:
        """The outcome when a handler fails: None to skip it, else the round ends with it."""
        ...


@dataclass(frozen=True)
class Notify:
    """Every handler runs; what it returns is ignored; the emit returns None."""

    def start(self, event: Any, subscriptions: Sequence[Subscription]) -> Round:
        return _Notice(event)

    def refused(self, extension: Extension, error: BaseException) -> object | None:
        return None


@dataclass
class _Notice:
    event: object

    def payload(self) -> object:
        return self.event

    def take(self, extension: Extension, value: object) -> bool:
        return False

    def outcome(self) -> object:
        return None


@dataclass(frozen=True)
class FirstWins(Generic[_A]):
    """The first answer that `decides` ends the round and is the outcome. When none does, the
    outcome is `otherwise()`, with the `merge` fields the other answers set (the last one
    given wins). `fail_closed`: a failing handler ends the round with this answer instead of
    being skipped."""

    answer: type[_A]
    decides: Callable[[_A], bool]
    otherwise: Callable[[], _A | None]
    merge: tuple[str, ...] = ()
    fail_closed: Callable[[Extension, BaseException], _A] | None = None

    def start(self, event: Any, subscriptions: Sequence[Subscription]) -> Round:
        return _FirstRound(self, event, self.otherwise())

    def refused(self, extension: Extension, error: BaseException) -> object | None:
        return self.fail_closed(extension, error) if self.fail_closed is not None else None


@dataclass
class _FirstRound(Generic[_A]):
    rule: FirstWins[_A]
    event: object
    result: _A | None

    def payload(self) -> object:
        return self.event

    def take(self, extension: Extension, value: object) -> bool:
        answer = coerce(value, self.rule.answer)
        if answer is None:
            return False
        if self.rule.decides(answer):
            self.result = answer
            return True
        for name in self.rule.merge:
            given = getattr(answer, name)
            if given is not None:
                setattr(self.result, name, given)
        return False

    def outcome(self) -> object:
        return self.result


@dataclass(frozen=True)
class Chain(Generic[_S]):
    """Handlers pass a state along: `start` makes it from the event (and the subscriptions,
    for promises they made), `feed` gives the next handler its payload, `apply` folds one
    raw answer into the state (True ends the round; raising skips that handler) and `finish`
    turns the state into the outcome."""

    start_state: Callable[[Any, Sequence[Subscription]], _S]
    feed: Callable[[_S], object]
    apply: Callable[[_S, Extension, object], bool]
    finish: Callable[[_S], object]

    def start(self, event: Any, subscriptions: Sequence[Subscription]) -> Round:
        return _ChainRound(self, self.start_state(event, subscriptions))

    def refused(self, extension: Extension, error: BaseException) -> object | None:
        return None


@dataclass
class _ChainRound(Generic[_S]):
    rule: Chain[_S]
    state: _S

    def payload(self) -> object:
        return self.rule.feed(self.state)

    def take(self, extension: Extension, value: object) -> bool:
        return self.rule.apply(self.state, extension, value)

    def outcome(self) -> object:
        return self.rule.finish(self.state)


# --- reading answers --------------------------------------------------------------------------

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def from_mapping(kind: type[_A], value: Mapping[str, object]) -> _A:
    """`kind` built from a dict of its fields, snake_case or camelCase keys."""
    assert is_dataclass(kind)
    names = {item.name for item in fields(kind)}
    arguments: dict[str, object] = {}
    for key, item in value.items():
        name = _CAMEL.sub("_", str(key)).lower()
        if name not in names:
            expected = ", ".join(sorted(names))
            raise TypeError(f"unexpected key {key!r} in the result (expected: {expected})")
        arguments[name] = item
    return kind(**arguments)


def coerce(value: object, kind: type[_A]) -> _A | None:
    """A handler's return value as `kind`: None, an instance, or a dict of its fields."""
    if value is None:
        return None
    if isinstance(value, kind):
        return value
    if isinstance(value, Mapping):
        return from_mapping(kind, value)
    raise TypeError(f"expected {kind.__name__} (or a dict), got {type(value).__name__}")


def describe_error(error: BaseException) -> str:
    """`TypeName: message`, for one-line reports of a handler's failure."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
