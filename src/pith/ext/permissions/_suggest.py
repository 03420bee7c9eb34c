"""The pattern offered when the user allows something "for this session" (or always).

- bash: the command's first words up to its *arity* (`git status --short` → `git status *`,
  `npm run dev` → `npm run dev*`, `ls` → `ls`, an unknown command → `mytool *`);
- a path: its parent directory and `*`, in absolute form (`/p/src/a.py` → `/p/src/*`; a
  directory written with a trailing `/` → itself and `*`; the root → `/*`);
- a tool called without a path, and anything else: `*`.
"""

from __future__ import annotations

import posixpath

__all__ = ["command_arity", "suggest_command", "suggest_path"]

_ARITY: dict[str, int] = {
    **dict.fromkeys(
        (
            "npm run", "npm exec", "pnpm run", "pnpm exec", "pnpm dlx", "yarn run", "bun run",
            "bun x", "deno run", "deno task", "deno compile", "uv run", "uv pip", "go run",
            "bundle exec", "docker compose", "docker container", "docker image",
            "docker network", "docker volume", "podman compose", "gh pr", "gh issue",
            "gh repo", "aws", "az", "gcloud",
        ),
        3,
    ),
    **dict.fromkeys(
        (
            "git", "hg", "svn", "npm", "npx", "pnpm", "yarn", "bun", "bun add", "deno", "pip",
            "pip3", "uv", "cargo", "go", "bundle", "docker", "podman", "kubectl", "helm", "fly",
            "vercel", "wrangler", "bazel", "terraform", "tofu", "pulumi", "systemctl",
            "service", "brew", "apt", "apt-get", "yum", "dnf",
        ),
        2,
    ),
}  # fmt: skip
"""How many leading words name *what* a command does; anything unlisted has arity 1."""


def command_arity(words: list[str]) -> int:
    """The arity of the longest listed prefix of `words` (lowercased), clamped to their
    number; 1 when none is listed."""
    lowered = [word.lower() for word in words]
    best = 1
    for length in range(1, min(len(lowered), 3) + 1):
        arity = _ARITY.get(" ".join(lowered[:length]))
        if arity is not None:
            best = arity
    return min(best, max(len(words), 1))


def suggest_command(text: str) -> str:
    """The bash pattern to approve for `text` (one command unit)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    words = " ".join(lines).split()
    if not words:
        return "*"
    arity = command_arity(words)
    head = " ".join(words[:arity])
    if len(words) == 1:
        return head
    if arity >= len(words):
        return head + "*"
    return head + " *"


def suggest_path(absolute: str, *, directory: bool = False) -> str:
    """The path pattern to approve for `absolute`: its parent (or itself, for a directory)
    followed by `/*`."""
    base = absolute.rstrip("/") if directory else posixpath.dirname(absolute.rstrip("/"))
    if base in ("", "/"):
        return "/*"
    return base + "/*"
