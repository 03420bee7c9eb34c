"""Where extensions come from, in which order, and what happens to broken or unwelcome ones.

Every extension here proves it loaded by appending `NAME:TAG` to the file named by `$EXT_LOG`
from its `register(api)`; the project extension in the trust test would write a marker file
the moment it is imported.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest

from pith.app import load_extension_runner
from pith.app import run_tool as run_tool_call
from pith.extensions import Extension, ExtensionRunner
from pith.resources import load_settings
from tests.extensions.harness import pith_env, run_pith, warnings_of

MARK = """
import os

def register(api):
    with open(os.environ["EXT_LOG"], "a") as log:
        log.write(api.name + ":" + {tag!r} + "\\n")
"""


def mark_source(tag: str) -> str:
    return MARK.format(tag=tag)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ext.log"
    monkeypatch.setenv("EXT_LOG", str(path))
    (tmp_path / "agent").mkdir()
    (tmp_path / "work").mkdir()
    return path


def marks(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def added(runner: ExtensionRunner) -> list[Extension]:
    """The extensions a test set up (pith's own built-ins always load first)."""
    return [e for e in runner.extensions if e.source != "builtin"]


def load(
    tmp_path: Path, *, paths: tuple[str, ...] = (), no_extensions: bool = False
) -> ExtensionRunner:
    """Load extensions exactly as `pith` does, for `tmp_path/work` and `tmp_path/agent`."""
    agent = tmp_path / "agent"
    return asyncio.run(
        load_extension_runner(
            str(tmp_path / "work"),
            agent,
            load_settings(agent),
            paths=paths,
            no_extensions=no_extensions,
        )
    )


def settings(tmp_path: Path, extensions: list[str]) -> None:
    write(tmp_path / "agent" / "settings.json", json.dumps({"extensions": extensions}))


# --- a fake installed distribution ------------------------------------------------------------

PACKAGE = """
import os
from pith.agent import text_result
from pith.extensions import ToolDefinition

def _register(api, tag):
    with open(os.environ["EXT_LOG"], "a") as log:
        log.write(api.name + ":" + tag + "\\n")

    def hello(call_id, args, signal, on_update, ctx):
        return text_result("hello from " + api.name)

    api.register_tool(ToolDefinition(
        name="hello_" + api.name,
        description="says hello",
        parameters={"type": "object", "properties": {}},
        execute=hello,
    ))

def register(api):
    _register(api, "module")

def setup(api):
    _register(api, "function")
"""


def install_package(site: Path, entry_points: str) -> Path:
    """`mypkg` as an installed distribution in `site` (put it on PYTHONPATH)."""
    write(site / "mypkg" / "__init__.py", PACKAGE)
    info = site / "mypkg-0.1.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1\n")
    write(info / "entry_points.txt", f"[pith.extensions]\n{entry_points}\n")
    return site


def run_tool(
    tmp_path: Path, *args: str, pythonpath: Path | None = None
) -> subprocess.CompletedProcess[str]:
    extra = {"EXT_LOG": str(tmp_path / "ext.log")}
    if pythonpath is not None:
        extra["PYTHONPATH"] = os.pathsep.join(
            [str(pythonpath), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    return run_pith(tmp_path, "tool", *args, env=pith_env(tmp_path, **extra))


def test_an_installed_package_entry_point_loads(tmp_path: Path, log: Path) -> None:
    site = install_package(tmp_path / "site", "mine = mypkg")
    result = run_tool(tmp_path, "hello_mine", "{}", pythonpath=site)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello from mine\n"
    assert marks(log) == ["mine:module"]


def test_an_entry_point_may_name_the_register_function(tmp_path: Path, log: Path) -> None:
    site = install_package(tmp_path / "site", "viafunc = mypkg:setup")
    result = run_tool(tmp_path, "hello_viafunc", "{}", pythonpath=site)
    assert result.returncode == 0, result.stderr
    assert marks(log) == ["viafunc:function"]


def test_sources_load_in_the_documented_order(tmp_path: Path, log: Path) -> None:
    site = install_package(tmp_path / "site", "pkg = mypkg")
    write(tmp_path / "agent" / "extensions" / "fromagent.py", mark_source("agent"))
    listed = write(tmp_path / "elsewhere" / "fromsettings.py", mark_source("settings"))
    settings(tmp_path, [str(listed)])
    write(tmp_path / "work" / "fromcli.py", mark_source("cli"))
    result = run_tool(tmp_path, "ls", "{}", "-e", "fromcli.py", pythonpath=site)
    assert result.returncode == 0, result.stderr
    assert marks(log) == ["pkg:module", "fromagent:agent", "fromsettings:settings", "fromcli:cli"]


def test_a_python_file_in_the_agent_extensions_folder_loads(tmp_path: Path, log: Path) -> None:
    write(tmp_path / "agent" / "extensions" / "solo.py", mark_source("file"))
    runner = load(tmp_path)
    assert marks(log) == ["solo:file"]
    assert [(e.name, e.source) for e in added(runner)] == [("solo", "agent")]
    assert runner.diagnostics == []


def test_a_package_folder_in_the_agent_extensions_folder_loads(tmp_path: Path, log: Path) -> None:
    folder = tmp_path / "agent" / "extensions" / "bundle"
    write(folder / "tag.py", 'TAG = "relative import works"\n')
    write(
        folder / "__init__.py",
        "import os\nfrom .tag import TAG\n\ndef register(api):\n"
        '    open(os.environ["EXT_LOG"], "a").write(api.name + ":" + TAG + "\\n")\n',
    )
    runner = load(tmp_path)
    assert marks(log) == ["bundle:relative import works"]
    assert [(e.name, e.source) for e in added(runner)] == [("bundle", "agent")]


def test_the_agent_folder_ignores_private_hidden_and_non_python_entries(
    tmp_path: Path, log: Path
) -> None:
    folder = tmp_path / "agent" / "extensions"
    write(folder / "_private.py", mark_source("private"))
    write(folder / ".hidden.py", mark_source("hidden"))
    write(folder / "notes.txt", mark_source("text"))
    write(folder / "noinit" / "module.py", mark_source("noinit"))
    write(folder / "kept.py", mark_source("kept"))
    runner = load(tmp_path)
    assert marks(log) == ["kept:kept"]
    assert runner.diagnostics == []


def test_a_path_in_the_extensions_setting_loads(tmp_path: Path, log: Path) -> None:
    path = write(tmp_path / "elsewhere" / "listed.py", mark_source("settings"))
    settings(tmp_path, [str(path)])
    runner = load(tmp_path)
    assert marks(log) == ["listed:settings"]
    assert [(e.name, e.source) for e in added(runner)] == [("listed", "settings")]


def test_a_missing_path_in_the_extensions_setting_is_reported(tmp_path: Path, log: Path) -> None:
    missing = tmp_path / "nowhere" / "gone.py"
    settings(tmp_path, [str(missing)])
    runner = load(tmp_path)
    assert runner.diagnostics == [f"extension {missing} does not exist; skipped"]


def test_an_e_file_loads_through_the_cli(tmp_path: Path, log: Path) -> None:
    write(tmp_path / "work" / "mine.py", mark_source("cli"))
    result = run_tool(tmp_path, "ls", "{}", "-e", "mine.py")
    assert result.returncode == 0, result.stderr
    assert marks(log) == ["mine:cli"]
    assert warnings_of(result) == []


def test_an_e_module_name_is_imported(
    tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "lib" / "acme_tools" / "__init__.py", "")
    write(tmp_path / "lib" / "acme_tools" / "lint.py", mark_source("module"))
    monkeypatch.syspath_prepend(str(tmp_path / "lib"))
    runner = load(tmp_path, paths=("acme_tools.lint",))
    assert marks(log) == ["lint:module"]
    assert [(e.name, e.source, e.location) for e in added(runner)] == [
        ("lint", "cli", "acme_tools.lint")
    ]


def test_no_extensions_skips_discovered_ones_but_e_still_loads(tmp_path: Path, log: Path) -> None:
    write(tmp_path / "agent" / "extensions" / "discovered.py", mark_source("agent"))
    listed = write(tmp_path / "elsewhere" / "listed.py", mark_source("settings"))
    settings(tmp_path, [str(listed)])
    write(tmp_path / "work" / "explicit.py", mark_source("cli"))
    result = run_tool(tmp_path, "ls", "{}", "--no-extensions", "-e", "explicit.py")
    assert result.returncode == 0, result.stderr
    assert marks(log) == ["explicit:cli"]


def test_a_dash_name_in_the_setting_disables_that_extension(tmp_path: Path, log: Path) -> None:
    write(tmp_path / "agent" / "extensions" / "wanted.py", mark_source("agent"))
    write(tmp_path / "agent" / "extensions" / "unwanted.py", mark_source("agent"))
    settings(tmp_path, ["-unwanted"])
    runner = load(tmp_path)
    assert marks(log) == ["wanted:agent"]
    assert runner.diagnostics == []


def test_of_two_discovered_extensions_with_one_name_the_first_is_kept(
    tmp_path: Path, log: Path
) -> None:
    first = write(tmp_path / "agent" / "extensions" / "twin.py", mark_source("agent"))
    second = write(tmp_path / "elsewhere" / "twin.py", mark_source("settings"))
    settings(tmp_path, [str(second)])
    runner = load(tmp_path)
    assert marks(log) == ["twin:agent"]
    assert runner.diagnostics == [
        f"extension twin at {second} was not loaded: {first} has the same name"
    ]


def test_an_e_extension_replaces_a_discovered_one_of_the_same_name(
    tmp_path: Path, log: Path
) -> None:
    write(tmp_path / "agent" / "extensions" / "twin.py", mark_source("agent"))
    write(tmp_path / "agent" / "extensions" / "zeta.py", mark_source("agent"))
    override = write(tmp_path / "mine" / "twin.py", mark_source("cli"))
    runner = load(tmp_path, paths=(str(override),))
    assert marks(log) == ["zeta:agent", "twin:cli"]  # and it loads last, as -e does
    assert runner.diagnostics == []


def test_an_async_register_is_awaited(tmp_path: Path, log: Path) -> None:
    write(
        tmp_path / "agent" / "extensions" / "later.py",
        "import asyncio, os\n\nasync def register(api):\n    await asyncio.sleep(0)\n"
        '    open(os.environ["EXT_LOG"], "a").write("later:async\\n")\n',
    )
    load(tmp_path)
    assert marks(log) == ["later:async"]


# --- broken extensions ------------------------------------------------------------------------

BROKEN = {
    "syntax": ("def register(api)\n    pass\n", "SyntaxError"),
    "no_register": ("VALUE = 1\n", "AttributeError: {path} has no register(api) function"),
    "raises": (
        "def register(api):\n    raise RuntimeError('cannot start')\n",
        "RuntimeError: cannot start",
    ),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_extension_is_reported_and_the_rest_still_load(
    tmp_path: Path, log: Path, kind: str
) -> None:
    source, problem = BROKEN[kind]
    broken = write(tmp_path / "agent" / "extensions" / "a_broken.py", source)
    write(tmp_path / "agent" / "extensions" / "b_fine.py", mark_source("fine"))
    runner = load(tmp_path)
    assert marks(log) == ["b_fine:fine"]
    assert [e.name for e in added(runner)] == ["b_fine"]
    [diagnostic] = runner.diagnostics
    prefix = f"extension a_broken ({broken}) failed to load: "
    assert diagnostic.startswith(prefix + problem.format(path=broken)), diagnostic


def test_a_failed_register_is_logged_with_its_traceback(tmp_path: Path, log: Path) -> None:
    write(tmp_path / "agent" / "extensions" / "broken.py", BROKEN["raises"][0])
    load(tmp_path)
    text = (tmp_path / "agent" / "logs" / "extensions.log").read_text()
    assert "broken (" in text
    assert "Traceback" in text
    assert "RuntimeError: cannot start" in text


PARTIAL = """
from pith.agent import text_result
from pith.extensions import ToolDefinition

def register(api):
    api.on("input", lambda event, ctx: None)
    api.register_tool(ToolDefinition(
        name="half_tool", description="", parameters={"type": "object"},
        execute=lambda *args: text_result("x"),
    ))
    api.register_command("half", lambda args, ctx: None)
    api.register_flag("half-flag", default=True)
    api.register_shortcut("ctrl+h", lambda ctx: None)
    raise RuntimeError("changed my mind")
"""


def test_a_failed_register_takes_back_what_it_had_registered(tmp_path: Path, log: Path) -> None:
    write(tmp_path / "agent" / "extensions" / "half.py", PARTIAL)
    runner = load(tmp_path)
    (tmp_path / "clean" / "work").mkdir(parents=True)
    builtins_only = load(tmp_path / "clean")  # what pith's own extensions registered
    assert len(runner.diagnostics) == 1
    assert [s.extension for s in runner._handlers.get("input", [])] == [
        s.extension for s in builtins_only._handlers.get("input", [])
    ]
    assert set(runner.tools) == set(builtins_only.tools)
    assert set(runner.commands) == set(builtins_only.commands)
    assert set(runner.flags) == set(builtins_only.flags)
    assert runner.flag_values == builtins_only.flag_values
    assert runner.shortcuts == builtins_only.shortcuts


SHARED_TOOL = """
from pith.agent import text_result
from pith.extensions import ToolDefinition

def register(api):
    api.register_tool(ToolDefinition(
        name="shared", description="", parameters={{"type": "object"}},
        execute=lambda *args: text_result("from {owner}"),
    ))
    {then}
"""


def test_a_failed_register_gives_back_the_tool_it_had_replaced(tmp_path: Path, log: Path) -> None:
    folder = tmp_path / "agent" / "extensions"
    write(folder / "a_first.py", SHARED_TOOL.format(owner="first", then="pass"))
    write(folder / "b_second.py", SHARED_TOOL.format(owner="second", then="raise RuntimeError"))
    runner = load(tmp_path)
    outcome = asyncio.run(run_tool_call("shared", {}, str(tmp_path / "work"), extensions=runner))
    assert outcome.result.text() == "from first"


def test_a_failed_register_takes_back_its_event_bus_subscriptions(
    tmp_path: Path, log: Path
) -> None:
    write(
        tmp_path / "agent" / "extensions" / "half.py",
        "import os\n\ndef register(api):\n"
        '    api.events.on("news", lambda data: open(os.environ["EXT_LOG"], "a")'
        '.write("half heard " + data + "\\n"))\n'
        '    raise RuntimeError("changed my mind")\n',
    )
    runner = load(tmp_path)
    asyncio.run(runner.events.emit("news", "hello"))
    assert marks(log) == []


def test_a_broken_e_extension_is_a_warning_and_the_tool_still_runs(
    tmp_path: Path, log: Path
) -> None:
    source = "def register(api):\n    raise LookupError('no config')\n"
    broken = write(tmp_path / "work" / "broken.py", source)
    result = run_tool(tmp_path, "ls", "{}", "-e", "broken.py")
    assert result.returncode == 0, result.stderr
    log_file = tmp_path / "agent" / "logs" / "extensions.log"
    assert warnings_of(result) == [
        f"pith: warning: extension broken ({broken}) failed to load: LookupError: no config; "
        f"details in {log_file}"
    ]


# --- project extensions are not trusted -------------------------------------------------------


def test_project_extensions_are_refused_and_the_warning_names_the_folder(
    tmp_path: Path, log: Path
) -> None:
    marker = tmp_path / "evil-ran"
    folder = tmp_path / "work" / ".pith" / "extensions"
    write(
        folder / "evil.py",
        f"open({str(marker)!r}, 'w').write('imported')\n\ndef register(api):\n    pass\n",
    )
    result = run_tool(tmp_path, "ls", "{}")
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert warnings_of(result) == [
        f"pith: warning: this project is not trusted, so pith does not load {folder}; run "
        "`pith trust` to decide, or pass --approve for this run"
    ]


def test_project_extensions_load_when_the_project_is_approved(tmp_path: Path, log: Path) -> None:
    folder = tmp_path / "work" / ".pith" / "extensions"
    write(folder / "proj.py", mark_source("project"))
    result = run_tool(tmp_path, "ls", "{}", "--approve")
    assert result.returncode == 0, result.stderr
    assert marks(log) == ["proj:project"]


def test_pith_s_own_extensions_load_first_even_without_extensions(tmp_path: Path) -> None:
    write(tmp_path / "agent" / "extensions" / "mine.py", mark_source("agent"))
    runner = load(tmp_path)
    builtins = [
        ("guard", "builtin"),
        ("permissions", "builtin"),
        ("prune", "builtin"),
        ("mcp", "builtin"),
    ]
    assert [(e.name, e.source) for e in runner.extensions][: len(builtins)] == builtins
    bare = load(tmp_path, no_extensions=True)
    assert [(e.name, e.source) for e in bare.extensions] == builtins
