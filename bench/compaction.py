"""Compaction policy on a big session: cut-point search, preparation, the between-turn check.

    python bench/compaction.py [ENTRIES] [--quick]

A 20 000-entry session (~50 MB) is written with pith's store from the generator of
bench/session_open.py (user prompts, replies calling tools, tool results from a few hundred
bytes to 100 KB), once without a compaction (preparation then summarizes almost everything:
the heaviest case) and once as session_open.py builds it (three abandoned branches, a branch
summary, a compaction near the end).

Timed, best of several runs, on the active branch: `find_cut_point` (keepRecentTokens 20 000)
and `prepare_compaction` against Pi's `findCutPoint` and `prepareCompaction` on the same file
in the same run (Pi 1.6 and its Node from the folder `PITH_PI_ORACLE` names, see
tests/conformance/README.md). Target: ratio at most 1.0.

The between-turn threshold check: Pi re-projects the path and re-estimates it before every
model call (`buildSessionProjection` + `estimateProjectedContextTokens` + `shouldCompact`), so
its cost grows with the history. pith's `ContextTokenTracker` estimates only what a turn
appended (here a reply with two tool calls and their results); its cost per turn must be the
same at 400 and at 20 000 entries. pith's full (non-incremental) check is shown for reference.

`--quick`: 4 000 entries, fewer runs (a smoke test). The last line is the summary: per row
(`cut`, `prepare`, `check`) `<row>_pith_ms`, `<row>_pi_ms` and `<row>_ratio` on the session
without a compaction, `branched_<row>_...` on the other, then the between-turn figures.
"""

from __future__ import annotations

import gc
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import PI_NODE, PI_PACKAGE, best_of, oracle_available, summary
from pith.ai import TextContent, ToolCall, ToolResultMessage
from pith.compaction import (
    CompactionPreparation,
    ContextTokenTracker,
    ResolvedCompactionSettings,
    estimate_projected_context_tokens,
    find_cut_point,
    prepare_compaction,
    should_compact,
)
from pith.session import SessionEntry, SessionStore
from session_open import MODELS, SEED, generate, turn

ENTRIES = 20_000
QUICK_ENTRIES = 4_000
SMALL = 400
REPEAT = 5
QUICK_REPEAT = 2
TURNS = 200
WINDOW = 200_000
SETTINGS = ResolvedCompactionSettings()

PI_TIMER = r"""
const [pkg, file, repeat] = process.argv.slice(1);
const url = (rel) => "file://" + pkg + "/dist/" + rel;
const { SessionManager, findCutPoint, shouldCompact } = await import(url("index.js"));
const compaction = await import(url("core/compaction/compaction.js"));
const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };
const sm = SessionManager.open(file);
const branch = sm.getBranch();
function best(fn, n) {
  let min = Infinity, value;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    value = fn();
    min = Math.min(min, performance.now() - t0);
  }
  return [min / 1000, value];
}
const [cut, cutResult] = best(() => findCutPoint(branch, 0, branch.length, 20000), Number(repeat));
const [prepare, prep] = best(() => compaction.prepareCompaction(branch, settings), Number(repeat));
const check = () => {
  const projection = sm.buildSessionProjection();
  const tokens = compaction.estimateProjectedContextTokens(projection, sm.getBranch()).tokens;
  return shouldCompact(tokens, 200000, settings);
};
const [checkTime] = best(check, Number(repeat) * 4);
console.log(JSON.stringify({
  cut, prepare, check: checkTime, cutIndex: cutResult.firstKeptEntryIndex,
  firstKept: prep ? prep.firstKeptEntryId : null, branch: branch.length,
}));
"""


def generate_plain(directory: Path, entries: int) -> Path:
    """Turns only (no branch, no compaction), exactly `entries` entries."""
    rng = random.Random(SEED)
    store = SessionStore.create("/work/project", directory)
    turns = 0
    while len(store.entries) < entries:
        turns += 1
        for message in turn(rng, MODELS[0], turns * 100):
            if len(store.entries) >= entries:
                break
            store.append_message(message)
    store.close()
    assert store.path is not None
    return store.path


def pi_times(path: Path, repeat: int) -> dict[str, float] | None:
    if not oracle_available():
        return None
    with tempfile.TemporaryDirectory(prefix="pith-bench-pi-") as temporary:
        copy = Path(temporary) / path.name
        shutil.copyfile(path, copy)
        completed = subprocess.run(
            [
                str(PI_NODE),
                "--input-type=module",
                "-e",
                PI_TIMER,
                str(PI_PACKAGE),
                str(copy),
                str(repeat),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=900,
        )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def pith_times(path: Path, repeat: int) -> dict[str, float | int | str | None]:
    with SessionStore.open(path) as store:
        branch = store.get_branch()
        gc.collect()
        cut_time = best_of(lambda: find_cut_point(branch, 0, len(branch), 20_000), repeat)
        prepare_time = best_of(lambda: prepare_compaction(branch, SETTINGS), repeat)

        def full_check() -> bool:
            projection = store.projection()
            tokens = estimate_projected_context_tokens(projection, store.get_branch()).tokens
            return should_compact(tokens, WINDOW, SETTINGS)

        check_time = best_of(full_check, repeat * 4)
        cut = find_cut_point(branch, 0, len(branch), 20_000)
        prep = prepare_compaction(branch, SETTINGS)
        return {
            "cut": cut_time,
            "prepare": prepare_time,
            "check": check_time,
            "cutIndex": cut.first_kept_entry_index,
            "firstKept": prep.first_kept_entry_id
            if isinstance(prep, CompactionPreparation)
            else None,
            "branch": len(branch),
        }


def _turn_entries(store: SessionStore, number: int) -> list[SessionEntry]:
    """One between-turn step: a reply calling two tools, and the two results."""
    from pith.ai import AssistantMessage, Usage

    calls = [
        ToolCall(id=f"b{number}-{i}", name="bash", arguments={"command": f"echo {number} {i}"})
        for i in range(2)
    ]
    reply = AssistantMessage(
        content=[TextContent(text="Running two commands."), *calls],
        api="anthropic-messages",
        provider="anthropic",
        model=MODELS[0],
        usage=Usage(input=120_000 + number, output=40),
        stop_reason="toolUse",
    )
    entries: list[SessionEntry] = [store.append_message(reply)]
    for call in calls:
        result = ToolResultMessage(
            tool_call_id=call.id, tool_name="bash", content=[TextContent(text="ok\n" * 200)]
        )
        entries.append(store.append_message(result))
    return entries


def per_turn_check(path: Path, turns: int) -> float:
    """Median seconds per between-turn check with the tracker, over `turns` turns."""
    with SessionStore.open(path) as store:
        tracker = ContextTokenTracker.start(store.projection(), store.get_branch())
        times = []
        for number in range(turns):
            entries = _turn_entries(store, number)
            started = time.perf_counter()
            for entry in entries:
                tracker.add_entry(entry)
            tracker.exceeds(WINDOW, SETTINGS)
            times.append(time.perf_counter() - started)
        times.sort()
        return times[len(times) // 2]


def main() -> None:
    arguments = [argument for argument in sys.argv[1:] if argument != "--quick"]
    quick = len(arguments) < len(sys.argv) - 1
    entries = int(arguments[0]) if arguments else QUICK_ENTRIES if quick else ENTRIES
    repeat = QUICK_REPEAT if quick else REPEAT
    turns = TURNS // 4 if quick else TURNS
    rows: list[tuple[str, dict[str, float | int | str | None], dict[str, float] | None]] = []
    with tempfile.TemporaryDirectory(prefix="pith-bench-compaction-") as temporary:
        root = Path(temporary)
        plain = generate_plain(root / "plain", entries)
        branched = generate(root / "branched", entries)
        small = generate_plain(root / "small", SMALL)
        size_mb = plain.stat().st_size / 1e6
        for label, path in (("no compaction", plain), ("branches + compaction", branched)):
            ours = pith_times(path, repeat)
            gc.collect()
            theirs = pi_times(path, repeat)
            rows.append((label, ours, theirs))
        small_ours = pith_times(small, repeat)
        small_theirs = pi_times(small, repeat)
        turn_small = per_turn_check(small, turns)
        turn_big = per_turn_check(plain, turns)

    print(f"session: {entries} entries, {size_mb:.1f} MB (no-compaction file)")
    print(f"{'case':<42} {'pith ms':>10} {'pi ms':>10} {'ratio':>8}")
    mismatches = []
    for label, ours, theirs in rows:
        for key in ("cut", "prepare", "check"):
            name = {
                "cut": "find_cut_point",
                "prepare": "prepare_compaction",
                "check": "full check",
            }[key]
            mine = float(ours[key] or 0)
            pi = theirs.get(key) if theirs else None
            pi_text = f"{pi * 1000:10.2f}" if pi else f"{'-':>10}"
            ratio = f"{mine / pi:8.3f}" if pi else f"{'-':>8}"
            print(f"{name + ', ' + label:<42} {mine * 1000:10.2f} {pi_text} {ratio}")
        if theirs and (ours["cutIndex"], ours["firstKept"]) != (
            theirs["cutIndex"],
            theirs["firstKept"],
        ):
            mismatches.append(label)
    print()
    print(f"{'between-turn check':<42} {'pith us':>10} {'pi us':>10}")
    pi_small = small_theirs["check"] * 1e6 if small_theirs else None
    pi_big = rows[0][2]["check"] * 1e6 if rows[0][2] else None
    for label, mine, pi in (
        (f"{SMALL} entries (tracker)", turn_small * 1e6, pi_small),
        (f"{entries} entries (tracker)", turn_big * 1e6, pi_big),
    ):
        pi_text = f"{pi:10.1f}" if pi else f"{'-':>10}"
        print(f"{label:<42} {mine:10.1f} {pi_text}")
    print(
        f"{f'{SMALL} entries (pith full check)':<42} {float(small_ours['check'] or 0) * 1e6:10.1f}"
    )
    big_full = float(rows[0][1]["check"] or 0) * 1e6
    print(f"{f'{entries} entries (pith full check)':<42} {big_full:10.1f}")

    figures: dict[str, object] = {"entries": entries}
    for prefix, (_, ours, theirs) in zip(("", "branched_"), rows, strict=True):
        for key in ("cut", "prepare", "check"):
            mine = float(ours[key] or 0)
            figures[f"{prefix}{key}_pith_ms"] = round(mine * 1000, 3)
            if theirs:
                figures[f"{prefix}{key}_pi_ms"] = round(theirs[key] * 1000, 3)
                figures[f"{prefix}{key}_ratio"] = round(mine / theirs[key], 3)
    if rows[0][2]:
        figures["target"] = "<=1.0"
    else:
        figures["pi"] = "oracle-not-installed"
    figures["turn_check_400_us"] = round(turn_small * 1e6, 1)
    figures[f"turn_check_{entries}_us"] = round(turn_big * 1e6, 1)
    if pi_small and pi_big:
        figures["pi_turn_check_400_us"] = round(pi_small, 1)
        figures[f"pi_turn_check_{entries}_us"] = round(pi_big, 1)
    if mismatches:
        figures["decision_mismatch"] = ",".join(mismatches)  # a difference worth a look
    print(summary("compaction", **figures))


if __name__ == "__main__":
    main()
