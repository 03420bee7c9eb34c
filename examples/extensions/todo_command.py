"""todo_command: a `/todo` command that keeps a to-do list inside the session.

    /todo add TEXT    add an item
    /todo list        show the items (also plain `/todo`)
    /todo done N      tick off item N (as numbered by list)

The list lives in the session file as `custom` entries, which the model never sees, so it costs
no context. Each change appends the whole list as a new entry, and reading takes the newest one
on the current branch: go back to an earlier point of the session tree (or fork from it) and the
list is what it was then.

Try it (a model must be configured, although these commands never call it):

    pith -p "/todo add write the docs" "/todo list" -e examples/extensions/todo_command.py

Replies are notices; in print mode they go to standard error.
"""

from __future__ import annotations

from pith.extensions import ExtensionAPI, ExtensionContext
from pith.session import CustomEntry

ENTRY_TYPE = "todo"
USAGE = "usage: /todo add TEXT | /todo list | /todo done N"


def register(api: ExtensionAPI) -> None:
    async def todo(args: str, ctx: ExtensionContext) -> None:
        action, _, rest = args.partition(" ")
        rest = rest.strip()
        items = load_items(ctx)
        if action in ("", "list"):
            ctx.ui.notify(render(items) if items else "the to-do list is empty")
        elif action == "add":
            if not rest:
                ctx.ui.notify(f"/todo add needs the text of the item; {USAGE}", "error")
                return
            items.append({"text": rest, "done": False})
            api.append_entry(ENTRY_TYPE, {"items": items})
            ctx.ui.notify(f"added #{len(items)}: {rest}")
        elif action == "done":
            number = int(rest) if rest.isdigit() else 0
            if not 1 <= number <= len(items):
                count = f"1 to {len(items)}" if items else "none yet"
                ctx.ui.notify(f"/todo done needs an item number ({count}), got {rest!r}", "error")
                return
            items[number - 1]["done"] = True
            api.append_entry(ENTRY_TYPE, {"items": items})
            ctx.ui.notify(f"done #{number}: {items[number - 1]['text']}")
        else:
            ctx.ui.notify(f"unknown action {action!r}; {USAGE}", "error")

    api.register_command(
        "todo",
        todo,
        description="a to-do list kept in the session: add TEXT, list, done N",
        get_argument_completions=lambda prefix: [
            word for word in ("add", "list", "done") if word.startswith(prefix)
        ],
    )


def load_items(ctx: ExtensionContext) -> list[dict[str, object]]:
    """The newest list on the current branch (a fresh copy the caller may change)."""
    session = ctx.session
    if session is None:
        return []
    for entry in reversed(session.get_branch()):
        if isinstance(entry, CustomEntry) and entry.custom_type == ENTRY_TYPE:
            data = entry.data
            # Entries come back from JSON when a session is resumed, and files can be edited by
            # hand: keep only well-formed items instead of trusting the shape.
            raw = data.get("items") if isinstance(data, dict) else None
            return [
                {"text": item["text"], "done": bool(item.get("done"))}
                for item in (raw if isinstance(raw, list) else [])
                if isinstance(item, dict) and isinstance(item.get("text"), str)
            ]
    return []


def render(items: list[dict[str, object]]) -> str:
    lines = [
        f"{number}. [{'x' if item['done'] else ' '}] {item['text']}"
        for number, item in enumerate(items, start=1)
    ]
    return "to-do:\n" + "\n".join(lines)
