"""The run modes: print and JSON (`-p`, `--mode json`), RPC (`--mode rpc`) and the terminal UI."""

from pith.app.modes._print import failure_line, run_print_mode
from pith.app.modes.rpc import RpcConnection

__all__ = [
    "RpcConnection",
    "failure_line",
    "run_print_mode",
]
