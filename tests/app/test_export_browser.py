"""The exported page opens in a real browser (headless Chromium) without script errors.

The page's script records any error into the DOM (`data-js-errors`, `#js-errors`) and sets
`data-export-ready` when it has run; Chromium's `--dump-dom` shows both. A screenshot of each
page is kept in the test's temporary directory (its path is printed). CI installs Chromium
(`.ci/run`); without it these tests fail rather than skip.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pith.ai import TextContent, ToolCall
from pith.app.export._assets import SCRIPT
from pith.app.export._write import export_html
from pith.session import SessionStore
from tests.app.export_sessions import reply, result, rich_session, user

_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail("Chromium is not installed: apt-get install -y chromium (CI's .ci/run does)")
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    return subprocess.run(
        [binary, *_FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )


def open_page(tmp_path: Path, page: Path) -> str:
    """The page's DOM after its script ran; a screenshot saved beside it."""
    shot = page.with_suffix(".png")
    taken = chromium(tmp_path, page, f"--screenshot={shot}", "--window-size=1280,2000")
    assert shot.is_file(), taken.stderr[-2000:]
    assert shot.stat().st_size > 10_000
    print(f"screenshot of {page.name}: {shot}")
    dumped = chromium(tmp_path, page, "--dump-dom")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    return dumped.stdout


def body_tag(dom: str) -> str:
    match = re.search(r"<body[^>]*>", dom)
    assert match is not None, dom[:500]
    return match.group(0)


def test_the_export_of_a_full_session_opens_without_errors(tmp_path: Path) -> None:
    page = export_html(rich_session(tmp_path / "s"), tmp_path / "full.html")
    dom = open_page(tmp_path, page)
    assert 'data-export-ready="1"' in body_tag(dom)
    assert "data-js-errors" not in body_tag(dom)
    assert '<pre id="js-errors" hidden=""></pre>' in dom
    assert re.search(r'<button type="button" data-action="go-leaf">', dom)  # shown by the script
    # The session's hostile text stayed text: no element came from it.
    assert dom.count("<script") == 1
    assert re.search(r"<[a-z]+ [^>]*onerror=", dom) is None


def test_a_large_session_with_huge_outputs_opens_without_errors(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), tmp_path / "s")
    big = "x" * 999 + "\n"
    for turn in range(400):
        store.append_message(user(f"step {turn}", turn * 10 + 1))
        call = ToolCall(id=f"c{turn}", name="bash", arguments={"command": f"make {turn}"})
        store.append_message(reply(call, input_tokens=1000 + 40 * turn, stamp=turn * 10 + 2))
        output = big * 1000 if turn % 40 == 0 else f"ok {turn}\n" * 50  # 1 MB every 40 turns
        store.append_message(result(f"c{turn}", output, turn * 10 + 3))
        store.append_message(reply(TextContent(text=f"done {turn}"), input_tokens=1100 + 40 * turn))
    store.close()
    assert store.path is not None
    assert store.path.stat().st_size > 10_000_000
    page = export_html(store.path, tmp_path / "large.html")
    assert page.stat().st_size < 3_000_000
    dom = open_page(tmp_path, page)
    assert 'data-export-ready="1"' in body_tag(dom)
    assert "data-js-errors" not in body_tag(dom)
    assert dom.count('<rect class="s-tools"') == 799  # all but the first request


def test_a_script_error_in_the_page_is_caught_by_the_check(tmp_path: Path) -> None:
    """The check above can fail: a page whose script throws shows the error in its DOM."""
    page = export_html(rich_session(tmp_path / "s"), tmp_path / "broken.html")
    broken_script = SCRIPT.replace(
        'body.setAttribute("data-export-ready", "1");', "notDefinedAnywhere();"
    )
    assert broken_script != SCRIPT
    digest = base64.b64encode(hashlib.sha256(broken_script.encode()).digest()).decode()
    text = page.read_text()
    text = re.sub(r"'sha256-[^']+'", f"'sha256-{digest}'", text).replace(SCRIPT, broken_script)
    page.write_text(text)
    dom = open_page(tmp_path, page)
    assert 'data-js-errors="1"' in body_tag(dom)
    assert "data-export-ready" not in body_tag(dom)
    assert "notDefinedAnywhere is not defined" in dom
