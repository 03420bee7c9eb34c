"""What one prompt came to."""

from __future__ import annotations

from dataclasses import dataclass

from pith.ai import AssistantMessage

__all__ = ["PromptOutcome"]


@dataclass(frozen=True)
class PromptOutcome:
    """What became of what the user typed.

    `handled`: a command or an extension's `input` handler took it instead of the model.
    `ran`: an agent run happened meanwhile (the model's answer, or a run the command started
    itself). `reply`: that run's final assistant message, if there was a run. `failed`: a
    built-in command refused (said as an error notice). `editor_text`: text a command handed
    back for the user to edit and send (`/fork`'s message).
    """

    handled: bool = False
    ran: bool = False
    reply: AssistantMessage | None = None
    failed: bool = False
    editor_text: str | None = None
