"""Chain compression: a finished task (a chain: a user prompt and every turn up to the final
answer) leaves the outgoing context as one message once newer tasks follow it.

Detection and selection (`_detect`), what to compress (`_plan`), the bodies (`_body`), writing
the `prune-chain` entries (`_compress`), applying them at render time (`_render`).
"""

from pith.ext.prune.chains._compress import ChainCompressor
from pith.ext.prune.chains._render import apply_chains

__all__ = ["ChainCompressor", "apply_chains"]
