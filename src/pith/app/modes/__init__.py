"""The run modes: print and JSON (`-p`, `--mode json`), RPC (`--mode rpc`) and the terminal UI.

Each name loads its mode on first use: a print run does not import the RPC server.
"""

from __future__ import annotations

from pith._lazy import lazy_names as _lazy_names

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


__getattr__, __dir__ = _lazy_names(__name__, globals(), _HOME_OF, __all__)
