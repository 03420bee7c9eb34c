"""pith's built-in extensions. Each uses only the public extension API (`pith.extensions`) and
the layers below it, exactly as a third-party package would, and is loaded through the
`pith.extensions` entry-point group."""
