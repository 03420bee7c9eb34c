"""Reading shortcut key names and choosing which shortcuts are bound (pure)."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from prompt_toolkit.filters import Condition
from prompt_toolkit.keys import Keys

from pith.app.modes.interactive._keys import key_bindings, reserved_sequences
from pith.app.modes.interactive._shortcuts import parse_key, plan_shortcuts
from pith.extensions import Shortcut


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("alt+k", ("escape", "k")),
        ("Alt+K", ("escape", "k")),
        ("alt+shift+k", ("escape", "K")),
        ("ctrl+alt+t", ("escape", "c-t")),
        ("ctrl+x", ("c-x",)),
        ("ctrl+space", ("c-@",)),
        ("f5", ("f5",)),
        ("ctrl+f5", ("c-f5",)),
        ("shift+tab", ("s-tab",)),
        ("ctrl+shift+left", ("c-s-left",)),
        ("enter", ("c-m",)),
        ("ctrl+m", ("c-m",)),
        ("alt+enter", ("escape", "c-m")),
        ("esc", ("escape",)),
        ("alt++", ("escape", "+")),
    ],
)
def test_key_names_become_the_sequences_a_terminal_sends(name: str, keys: tuple[str, ...]) -> None:
    assert parse_key(name) == keys


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("hyper+q", "unknown modifier 'hyper' (use ctrl, alt or shift)"),
        ("k", "a plain character is typing; add ctrl or alt"),
        ("shift+k", "a plain character is typing; add ctrl or alt"),
        ("ctrl+1", "terminals cannot send ctrl+1"),
        ("ctrl+shift+k", "terminals send ctrl+shift+<character> as ctrl+<character>"),
        ("ctrl+enter", "terminals cannot send ctrl+enter"),
        ("alt+banana", "'banana' is not a key name (e.g. k, enter, tab, up, f5)"),
        ("ctrl+ctrl+k", "a modifier is named twice"),
        ("ctrl+", "no key after the modifiers"),
    ],
)
def test_a_key_no_terminal_sends_apart_is_refused_with_the_reason(name: str, reason: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(reason)}$"):
        parse_key(name)


def shortcut(key: str, extension: str) -> Shortcut:
    return Shortcut(key, lambda ctx: None, "", extension)


def test_reserved_keys_win_the_first_extension_keeps_a_key_and_bad_names_are_named() -> None:
    first, again, taken, bad, reserved = (
        shortcut("alt+k", "one"),
        shortcut("Alt+K", "two"),
        shortcut("ctrl+t", "two"),
        shortcut("ctrl+1", "two"),
        shortcut("ctrl+w", "three"),
    )
    plan = plan_shortcuts([first, again, taken, bad, reserved], reserved_sequences())
    assert plan.bound == [(("escape", "k"), first)]
    assert plan.warnings == [
        "two: shortcut Alt+K is already one's (alt+k); the first one loaded keeps it",
        "two: shortcut ctrl+t is pith's key for showing or hiding thinking; pith's key wins "
        "and the shortcut is not bound",
        "two: shortcut 'ctrl+1' is not a key: terminals cannot send ctrl+1; it is not bound",
        "three: shortcut ctrl+w is pith's key for deleting the word before the cursor; "
        "pith's key wins and the shortcut is not bound",
    ]


def test_every_key_pith_binds_is_reserved() -> None:
    # A key added to the interactive mode without listing it would let a shortcut take it.
    never = Condition(lambda: False)
    bindings = key_bindings(cast(Any, object()), never, never)
    reserved = reserved_sequences()
    digits = {(digit,) for digit in "123456789"}  # a choice in a short list: plain typing
    keys = {tuple(str(getattr(k, "value", k)) for k in b.keys) for b in bindings.bindings}
    keys -= digits | {(Keys.Any.value,)}
    assert keys - set(reserved) == set()
