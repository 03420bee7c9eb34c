"""RPC mode (`pith --mode rpc`): Pi's JSON-lines protocol on standard input and output.

`_protocol` parses and checks records (pure); `_handlers` holds the command table; `_server`
is the loop at the edge. See docs/rpc.md.
"""

from pith.app.modes.rpc._protocol import COMMANDS
from pith.app.modes.rpc._server import RpcConnection
from pith.app.modes.rpc._ui import RpcUI

__all__ = ["COMMANDS", "RpcConnection", "RpcUI"]
