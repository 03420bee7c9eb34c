"""The in-process API behind `pith`'s public names (see docs/sdk.md), and the session creation
the `pith` command's own subcommands use.

Each name loads its module on first use: the `pith` command takes only the steps it runs.
"""

from __future__ import annotations

from pith._lazy import lazy_names as _lazy_names

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pith.sdk._assemble import (
        ResourceChoice,
        SessionSetup,
        Warn,
        assemble_session,
        choose_thinking,
        load_session_resources,
    )
    from pith.sdk._catalog import list_models
    from pith.sdk._create import SessionSource, create_session, open_session, print_warning
    from pith.sdk._events import EventStream
    from pith.sdk._models import (
        COMMAND_LINE,
        PYTHON,
        Wording,
        add_local_models,
        choose_model,
        no_model_hint,
        pick_model,
    )
    from pith.sdk._project import AskTrust, Project, load_project, untrusted_notice
    from pith.sdk._report import ContextReport, context_report
    from pith.sdk._session import Session

_HOMES = {
    "pith.sdk._assemble": (
        "ResourceChoice",
        "SessionSetup",
        "Warn",
        "assemble_session",
        "choose_thinking",
        "load_session_resources",
    ),
    "pith.sdk._catalog": ("list_models",),
    "pith.sdk._create": (
        "SessionSource",
        "create_session",
        "open_session",
        "print_warning",
    ),
    "pith.sdk._events": ("EventStream",),
    "pith.sdk._models": (
        "COMMAND_LINE",
        "PYTHON",
        "Wording",
        "add_local_models",
        "choose_model",
        "no_model_hint",
        "pick_model",
    ),
    "pith.sdk._project": (
        "AskTrust",
        "Project",
        "load_project",
        "untrusted_notice",
    ),
    "pith.sdk._report": (
        "ContextReport",
        "context_report",
    ),
    "pith.sdk._session": ("Session",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "COMMAND_LINE",
    "PYTHON",
    "AskTrust",
    "ContextReport",
    "EventStream",
    "Project",
    "ResourceChoice",
    "Session",
    "SessionSetup",
    "SessionSource",
    "Warn",
    "Wording",
    "add_local_models",
    "assemble_session",
    "choose_model",
    "choose_thinking",
    "context_report",
    "create_session",
    "list_models",
    "load_project",
    "load_session_resources",
    "no_model_hint",
    "open_session",
    "pick_model",
    "print_warning",
    "untrusted_notice",
]


__getattr__, __dir__ = _lazy_names(__name__, globals(), _HOME_OF, __all__)
