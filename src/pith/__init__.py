"""pith: a terminal coding agent whose edge is context engineering."""

__version__ = "0.1.0"

__all__ = ["__version__"]
