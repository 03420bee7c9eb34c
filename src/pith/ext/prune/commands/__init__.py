"""`/pruner` and its subcommands (`_command`), the settings menu (`_menu`), the settings saved
to settings.json (`_settings_file`) and the tree of indexed calls (`_tree`).
"""

from pith.ext.prune.commands._command import SUBCOMMANDS, complete, run_command

__all__ = ["SUBCOMMANDS", "complete", "run_command"]
