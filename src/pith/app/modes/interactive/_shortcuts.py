"""Extension shortcuts in the terminal UI (`api.register_shortcut`): reading key names and
deciding which shortcuts get bound. Pure.

A key name is modifiers and a key joined by `+`, in any case: `alt+k`, `ctrl+alt+t`, `ctrl+x`,
`f5`, `shift+tab`, `ctrl+left`. Modifiers: `ctrl`, `alt`, `shift`. Keys: a letter, digit or
punctuation character, `enter`, `tab`, `escape` (`esc`), `space`, `backspace`, `delete`,
`insert`, `home`, `end`, `pageup`, `pagedown`, `up`, `down`, `left`, `right`, `f1` to `f24`.
A name is refused when a terminal cannot send it apart from another key (`ctrl+1`,
`ctrl+shift+k`) or when it is plain typing (`k`, `shift+k`).

Which shortcut wins: pith's own keys and the editor's line-editing keys (`reserved`, from
`_keys.RESERVED_KEYS`) always do, so a shortcut never changes what a key the user already
relies on does; the shortcut is not bound and a warning names both. Between two extensions
the one loaded first keeps the key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from prompt_toolkit.keys import Keys

from pith.extensions import Shortcut

__all__ = ["KeySequence", "ShortcutPlan", "parse_key", "plan_shortcuts"]

KeySequence = tuple[str, ...]
"""prompt_toolkit's names for the keys a shortcut is, in order (`("escape", "k")` for Alt+K)."""

_MODIFIERS = ("ctrl", "alt", "shift")
_ALIASES = {"esc": "escape", "return": "enter", "del": "delete", "ins": "insert"}
_NAMED = frozenset(
    {
        "enter",
        "tab",
        "escape",
        "space",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        *(f"f{n}" for n in range(1, 25)),
    }
)
_PLAIN = {"enter": "c-m", "tab": "c-i", "backspace": "c-h", "space": " ", "escape": "escape"}
"""Named keys without modifiers, as prompt_toolkit reads them (Enter is Ctrl+M, ...)."""
_SPECIAL: dict[tuple[str, ...], str] = {("ctrl", "space"): "c-@", ("shift", "tab"): "s-tab"}
_CTRL_CHARACTERS = frozenset("@\\]^_")
"""Punctuation a terminal sends with Ctrl (besides the letters)."""
_KEYS = frozenset(key.value for key in Keys)


def parse_key(name: str) -> KeySequence:
    """The key sequence `name` means; raises ValueError with the reason when it is none."""
    text = name.strip().lower()
    parts = text.split("+")
    if text.endswith("++"):  # the `+` key itself: `ctrl++` is unreadable, `alt++` is fine
        parts = [*parts[:-2], "+"]
    *modifiers, key = parts
    key = _ALIASES.get(key, key)
    for modifier in modifiers:
        if modifier not in _MODIFIERS:
            raise ValueError(f"unknown modifier {modifier!r} (use ctrl, alt or shift)")
    if len(set(modifiers)) != len(modifiers):
        raise ValueError("a modifier is named twice")
    if not key:
        raise ValueError("no key after the modifiers")
    prefix: KeySequence = ("escape",) if "alt" in modifiers else ()
    rest = tuple(m for m in _MODIFIERS if m in modifiers and m != "alt")
    return (*prefix, _last_key(key, rest, alt="alt" in modifiers))


def _last_key(key: str, modifiers: tuple[str, ...], *, alt: bool) -> str:
    ctrl, shift = "ctrl" in modifiers, "shift" in modifiers
    if len(key) == 1:
        if ctrl and shift:
            raise ValueError("terminals send ctrl+shift+<character> as ctrl+<character>")
        if ctrl:
            if (key.isalpha() and key.isascii()) or key in _CTRL_CHARACTERS:
                return f"c-{key}"
            raise ValueError(f"terminals cannot send ctrl+{key}")
        if not alt:
            raise ValueError("a plain character is typing; add ctrl or alt")
        return key.upper() if shift else key
    if key not in _NAMED:
        raise ValueError(f"{key!r} is not a key name (e.g. k, enter, tab, up, f5)")
    special = _SPECIAL.get((*modifiers, key)) if modifiers else None
    if special is not None:
        return special
    if not modifiers:
        return _PLAIN.get(key, key)
    value = ("c-" if ctrl else "") + ("s-" if shift else "") + key
    if value not in _KEYS:
        raise ValueError(f"terminals cannot send {'+'.join((*modifiers, key))}")
    return value


@dataclass
class ShortcutPlan:
    bound: list[tuple[KeySequence, Shortcut]] = field(default_factory=list)
    """The shortcuts to bind, with their keys, in registration order."""
    warnings: list[str] = field(default_factory=list)
    """One line per shortcut that is not bound, naming the extension, the key and why."""


def plan_shortcuts(
    shortcuts: Sequence[Shortcut], reserved: Mapping[KeySequence, str]
) -> ShortcutPlan:
    """Which of `shortcuts` to bind: not the ones whose key is invalid, is one of `reserved`
    (key sequence -> what pith's key does), or was taken by an earlier shortcut."""
    plan = ShortcutPlan()
    taken: dict[KeySequence, Shortcut] = {}
    for shortcut in shortcuts:
        owner = shortcut.extension or "an extension"
        try:
            keys = parse_key(shortcut.key)
        except ValueError as error:
            plan.warnings.append(
                f"{owner}: shortcut {shortcut.key!r} is not a key: {error}; it is not bound"
            )
            continue
        if keys in reserved:
            plan.warnings.append(
                f"{owner}: shortcut {shortcut.key} is pith's key for {reserved[keys]}; "
                "pith's key wins and the shortcut is not bound"
            )
            continue
        earlier = taken.get(keys)
        if earlier is not None:
            plan.warnings.append(
                f"{owner}: shortcut {shortcut.key} is already {earlier.extension}'s "
                f"({earlier.key}); the first one loaded keeps it"
            )
            continue
        taken[keys] = shortcut
        plan.bound.append((keys, shortcut))
    return plan
