"""The `pith` command: argument parsing and nothing else."""

from pith.cli._main import main

__all__ = ["main"]
