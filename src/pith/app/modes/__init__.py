"""The run modes: print and JSON (`-p`, `--mode json`), RPC (`--mode rpc`) and the terminal UI.

Each name loads its mode on first use: a print run does not import the RPC server.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pith.app.modes._print import failure_line, run_print_mode
    from pith.app.modes.rpc import RpcConnection

_HOMES = {
    "pith.app.modes._print": (
        "failure_line",
        "run_print_mode",
    ),
    "pith.app.modes.rpc": ("RpcConnection",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "RpcConnection",
    "failure_line",
    "run_print_mode",
]


def __getattr__(name: str) -> object:
    """A public name, imported from its module on first use (then kept here)."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
