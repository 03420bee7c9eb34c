"""The export page's inline style sheet and script, and the policy that allows only them.

The page loads nothing: the Content-Security-Policy allows no source but inline styles, the one
script below (by its hash, so no script that came in with session content could ever run) and
`data:` images.
"""

from __future__ import annotations

import base64
import hashlib

__all__ = ["CSS", "SCRIPT", "content_security_policy"]

CSS = """
:root { --bg:#fbfbfa; --fg:#1d1f21; --muted:#6b7078; --line:#d9dadc; --card:#fff;
  --user:#e9f1fd; --assistant:#fff; --tool:#f4f5f6; --error:#b3261e; --accent:#2d5fb0;
  --summary:#fdf6e3; --system:#8e6bbf; --messages:#3f7fd8; --tools:#e39b35;
  --pruned:#9aa0a6; --compaction:#c0392b; --leaf:#1e8e3e; }
@media (prefers-color-scheme: dark) {
  :root { --bg:#17181a; --fg:#e3e3e3; --muted:#9aa0a6; --line:#34363a; --card:#1f2023;
    --user:#1d2a3d; --assistant:#1f2023; --tool:#25272b; --error:#f28b82; --accent:#8ab4f8;
    --summary:#2e2a1e; --leaf:#81c995; }
}
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
  font:14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 16px 20px 80px; }
h1 { font-size: 1.45em; margin: 0.4em 0 0.2em; word-break: break-word; }
h2 { font-size: 1.15em; margin: 1.6em 0 0.6em; border-bottom: 1px solid var(--line); }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
.muted { color: var(--muted); }
.info { display:grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; }
.info dt { color: var(--muted); } .info dd { margin: 0; word-break: break-all; }
.toolbar { position: sticky; top: 0; background: var(--bg); padding: 6px 0; z-index: 2;
  border-bottom: 1px solid var(--line); display:flex; gap: 8px; flex-wrap: wrap;
  align-items: center; }
.toolbar button { font: inherit; padding: 2px 10px; border: 1px solid var(--line);
  background: var(--card); color: var(--fg); border-radius: 4px; cursor: pointer; }
.warnings { border-left: 3px solid var(--error); padding: 4px 10px; background: var(--card); }
.entry { margin: 8px 0; padding: 6px 10px; border: 1px solid var(--line); border-radius: 6px;
  background: var(--card); }
.entry.minor { padding: 2px 10px; border-style: dashed; background: transparent;
  color: var(--muted); }
.e-user { background: var(--user); }
.e-tool { background: var(--tool); }
.e-summary { background: var(--summary); }
.entry.off-path { opacity: 0.92; }
.entry.leaf { outline: 2px solid var(--leaf); }
.meta { font-size: 12px; color: var(--muted); display:flex; gap: 8px; flex-wrap: wrap;
  align-items: baseline; }
.meta .kind { font-weight: 600; color: var(--fg); }
.meta a.id { color: var(--muted); text-decoration: none; font-family: ui-monospace, monospace; }
.badge { display:inline-block; padding: 0 6px; border-radius: 9px; font-size: 11px;
  border: 1px solid var(--line); }
.badge.label { background: #fff3c4; color: #5c4a00; border-color: #e6cf6a; }
.badge.leaf { background: var(--leaf); color: #fff; border-color: var(--leaf); }
.badge.error { background: var(--error); color: #fff; border-color: var(--error); }
.text { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
.error-text { color: var(--error); }
details > summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
details.thinking .text { color: var(--muted); font-style: italic; }
.tool-call { margin: 6px 0; padding: 4px 8px; border-left: 3px solid var(--tools); }
.tool-name { font-weight: 600; font-family: ui-monospace, monospace; }
details.output.error > summary { color: var(--error); }
details.output pre, details.data pre { max-height: 60vh; overflow: auto;
  background: var(--bg); padding: 6px; border-radius: 4px; }
.cut { color: var(--error); font-style: italic; }
details.branch { margin: 10px 0 10px 6px; padding-left: 10px;
  border-left: 3px solid var(--line); }
details.branch > summary { font-size: 13px; }
img.attached { max-width: 100%; max-height: 480px; display:block; margin: 4px 0; }
.legend { display:flex; gap: 14px; flex-wrap: wrap; font-size: 12.5px; margin: 4px 0; }
.swatch { display:inline-block; width: 12px; height: 12px; margin-right: 4px;
  vertical-align: -2px; border-radius: 2px; }
.swatch.s-system, rect.s-system { background: var(--system); fill: var(--system); }
.swatch.s-messages, rect.s-messages { background: var(--messages); fill: var(--messages); }
.swatch.s-tools, rect.s-tools { background: var(--tools); fill: var(--tools); }
.swatch.s-pruned { background: repeating-linear-gradient(45deg, var(--pruned) 0 2px,
  transparent 2px 5px); border: 1px solid var(--pruned); }
rect.s-pruned { fill: url(#hatch); stroke: var(--pruned); stroke-width: 0.5; }
.hatch-bg { fill: transparent; } .hatch-line { stroke: var(--pruned); stroke-width: 2; }
.swatch.s-compaction { background: var(--compaction); width: 3px; }
svg.chart { width: 100%; height: auto; display:block; background: var(--card);
  border: 1px solid var(--line); border-radius: 6px; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .axis { fill: var(--muted); font-size: 11px; }
svg.chart .bar:hover rect { opacity: 0.75; }
svg.chart .compaction line { stroke: var(--compaction); stroke-width: 1.5;
  stroke-dasharray: 4 3; }
svg.chart .compaction circle { fill: var(--compaction); }
ul.notes { font-size: 13px; padding-left: 18px; }
table { border-collapse: collapse; font-size: 12.5px; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 2px 6px; text-align: right; }
th:nth-child(2), td:nth-child(2), th:nth-child(3), td:nth-child(3) { text-align: left; }
tr.compaction-row td { color: var(--compaction); text-align: left; }
#js-errors { color: var(--error); }
"""

SCRIPT = """
(function () {
  "use strict";
  var body = document.body;
  function report(message) {
    var box = document.getElementById("js-errors");
    if (box) { box.hidden = false; box.textContent += message + "\\n"; }
    body.setAttribute("data-js-errors", "1");
  }
  window.addEventListener("error", function (event) { report(String(event.message)); });
  try {
    function setAll(selector, open) {
      var found = document.querySelectorAll(selector);
      for (var i = 0; i < found.length; i++) { found[i].open = open; }
    }
    var actions = {
      "expand-outputs": function () { setAll("details.output, details.thinking", true); },
      "collapse-outputs": function () { setAll("details.output, details.thinking", false); },
      "expand-branches": function () { setAll("details.branch", true); },
      "collapse-branches": function () { setAll("details.branch", false); },
      "go-leaf": function () {
        var leaf = document.querySelector(".entry.leaf");
        if (!leaf) { return; }
        var node = leaf.parentElement;
        while (node) {
          if (node.tagName === "DETAILS") { node.open = true; }
          node = node.parentElement;
        }
        leaf.scrollIntoView({block: "center"});
      }
    };
    var buttons = document.querySelectorAll("button[data-action]");
    for (var i = 0; i < buttons.length; i++) {
      var action = actions[buttons[i].getAttribute("data-action")];
      if (action) { buttons[i].addEventListener("click", action); buttons[i].hidden = false; }
    }
    body.setAttribute("data-export-ready", "1");
  } catch (error) {
    report(String(error && error.message || error));
  }
})();
"""


def content_security_policy() -> str:
    """The page's policy: nothing from the network, only this module's style and script."""
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'"
    )
