"""Record Pi's edit diffs as golden data: `python tests/conformance/record_diff.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). Writes tests/conformance/diff.json; the tests read only
that file and never need Node.

Three kinds of case:

- `generateDiffString` and `generateUnifiedPatch`: Pi's exported functions, called directly.
- `editDiff`: Pi's `edit` tool run on a file holding `base`; its `details` are what
  `generateEditDiff` returned for the (exact, unique) edits.

Long texts are stored as recipes (`build_text`, duplicated in test_diff_conformance.py and
checked there against a stored sha256) to keep the file small.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(oracle_dir()))

from pi_oracle import PiOracle  # noqa: E402

SEED = 20261129
PATH = "f.txt"
MAX_LITERAL = 4000  # characters; longer inputs are stored as recipes
REPEATED = ["", "}", "    pass", "    return x", "end", "a", "b"]
WORDS = ["alpha", "beta", "gamma", "delta", "é", "日本語", "😀", "👩‍💻", "x", "y = 1", "#"]


# --- recipes (keep in sync with test_diff_conformance.py) --------------------------------------


def recipe_lines(recipe: dict[str, object]) -> list[str]:
    """Lines (without terminators) of a generated file."""
    kind = recipe["kind"]
    n = int(str(recipe["n"]))
    if kind == "numbered":
        period = int(str(recipe.get("period", 0)))
        return [f"line {i % period if period else i}" for i in range(n)]
    if kind == "blocks":
        lines: list[str] = []
        for i in range(n):
            lines += [f"def f{i}(x):", "    if x:", "        return x", "    pass", ""]
        return lines
    raise ValueError(f"unknown recipe kind {kind!r}")


def build_text(source: dict[str, object]) -> str:
    """A stored input: literal `text`, or `recipe` lines with `ops` applied and joined."""
    if "text" in source:
        return str(source["text"])
    lines = recipe_lines(source["recipe"])  # type: ignore[arg-type]
    # ops: [line index, lines deleted, lines inserted], applied from the last one back.
    for index, deleted, inserted in sorted(source.get("ops", []), reverse=True):  # type: ignore[call-overload]
        lines[index : index + deleted] = inserted
    eol = str(source.get("eol", "\n"))
    text = eol.join(lines)
    return text + eol if source.get("finalNewline", True) and lines else text


# --- generators ----------------------------------------------------------------------------------


def stored(text: str, source: dict[str, object] | None = None) -> dict[str, object]:
    if source is None or len(text) <= MAX_LITERAL:
        return {"text": text}
    assert build_text(source) == text
    return {**source, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def random_small(rng: random.Random, max_lines: int) -> str:
    pool = rng.sample(REPEATED + WORDS, rng.randint(1, 6))
    lines = [rng.choice(pool) for _ in range(rng.randint(0, max_lines))]
    text = "\n".join(lines)
    return text + "\n" if lines and rng.random() < 0.8 else text


def mutate_lines(rng: random.Random, lines: list[str], changes: int) -> list[list[object]]:
    """Non-overlapping line ops (index, deleted, inserted) sorted by index."""
    ops: list[list[object]] = []
    taken: set[int] = set()
    for _ in range(changes):
        index = rng.randint(0, len(lines))
        deleted = min(rng.choice([0, 1, 1, 1, 2, 5]), len(lines) - index)
        span = set(range(index - 1, index + deleted + 1))
        if span & taken:
            continue
        taken |= span
        inserted = [rng.choice([*REPEATED, f"new {index}", f"changed {rng.random():.3f}"])]
        inserted *= rng.choice([0, 1, 1, 2, 3])
        if deleted == 0 and not inserted:
            inserted = ["inserted"]
        ops.append([index, deleted, inserted])
    return sorted(ops)


def pair_cases(rng: random.Random) -> list[tuple[dict[str, object], dict[str, object], int]]:
    """(old, new, context lines) for the whole-text functions."""
    literal = [
        ("", ""),
        ("", "a\n"),
        ("a\n", ""),
        ("", "a"),
        ("a", ""),
        ("a\n", "a\n"),
        ("a", "a"),
        ("a", "a\n"),
        ("a\n", "a"),
        ("a", "b"),
        ("a\nb\nc\n", "x\na\nb\nc\n"),
        ("a\nb\nc\n", "a\nb\nx\nc\n"),
        ("a\nb\nc\n", "a\nb\nc\nx\n"),
        ("a\nb\nc", "a\nb\nc\nx"),
        ("a\nb\nc\n", "b\nc\n"),
        ("a\nb\nc\n", "a\nc\n"),
        ("a\nb\nc\n", "a\nb\n"),
        ("a\nb\nc", "a\nb"),
        ("\n\n\n", "\n\n"),
        ("\n", "\n\n\n"),
        ("a\na\na\n", "a\na\n"),
        ("a\nb\na\nb\n", "b\na\nb\na\n"),
        ("x\n}\n}\ny\n", "x\n}\ny\n}\n"),
        ("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"),
        ("a\r\nb\r\n", "a\nb\n"),
        ("a\r\nb", "a\r\nb\r\n"),
        ("a\rb\nc\n", "a\rb\nC\n"),
        ("\r\n\r\n", "\r\n"),
        ("😀\n👩‍💻\né\n", "😀\n👩‍💻!\né\n"),
        ("日本語\n", "日本\n語\n"),
    ]
    cases: list[tuple[dict[str, object], dict[str, object], int]] = [
        ({"text": old}, {"text": new}, context) for old, new in literal for context in (4, 0, 1)
    ]
    for _ in range(250):
        old = random_small(rng, 14)
        if rng.random() < 0.6:
            lines = old.split("\n")
            ops = mutate_lines(rng, lines, rng.randint(1, 3))
            for index, deleted, inserted in reversed(ops):
                lines[index : index + deleted] = inserted  # type: ignore[index, misc]
            new = "\n".join(lines)
        else:
            new = random_small(rng, 14)
        if rng.random() < 0.1:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        cases.append(({"text": old}, {"text": new}, rng.choice([4, 4, 4, 2, 0])))
    # Long texts with scattered changes: context skipping and merged / separate hunks.
    for n, kind, period in [
        (200, "numbered", 0),
        (400, "numbered", 7),
        (300, "blocks", 0),
        (800, "numbered", 0),
        (1000, "blocks", 0),
        (2000, "numbered", 3),
        (1500, "numbered", 0),
        (600, "numbered", 2),
    ]:
        for final_newline in (True, False):
            recipe: dict[str, object] = {"kind": kind, "n": n, "period": period}
            base_source: dict[str, object] = {"recipe": recipe, "finalNewline": final_newline}
            lines = recipe_lines(recipe)
            ops = mutate_lines(rng, lines, rng.randint(2, 12))
            new_source = {**base_source, "ops": ops}
            if rng.random() < 0.25:
                base_source = {**base_source, "eol": "\r\n"}
                new_source = {**new_source, "eol": "\r\n"}
            old_text, new_text = build_text(base_source), build_text(new_source)
            cases.append(
                (stored(old_text, base_source), stored(new_text, new_source), rng.choice([4, 4, 2]))
            )
    return cases


def unique_at(base: str, start: int, end: int) -> bool:
    old = base[start:end]
    return bool(old) and base.find(old) == start and base.find(old, start + 1) == -1


def random_edits(rng: random.Random, base: str, count: int, spread: int) -> list[dict[str, str]]:
    """Up to `count` disjoint exact edits with unique oldText, close together if spread is small."""
    starts = [0] + [i + 1 for i, ch in enumerate(base) if ch == "\n" and i + 1 < len(base)]
    anchor = rng.randrange(len(starts))
    spans: list[tuple[int, int]] = []
    edits: list[dict[str, str]] = []
    for _ in range(count * 4):
        if len(edits) >= count:
            break
        line = min(len(starts) - 1, max(0, anchor + rng.randint(-spread, spread)))
        start = starts[line]
        end = starts[min(len(starts) - 1, line + rng.choice([1, 1, 2, 3]))]
        if end <= start:
            end = len(base)
        style = rng.random()
        if style < 0.2 and end - start > 3:  # part of a line or lines
            start += rng.randint(0, 2)
            end -= rng.randint(1, 2)
        while not unique_at(base, start, end) and end < len(base):
            end = base.find("\n", end + 1) + 1 or len(base)
        if not unique_at(base, start, end) or any(s < end and start < e for s, e in spans):
            continue
        old = base[start:end]
        choice = rng.random()
        if choice < 0.2:
            new = ""
        elif choice < 0.4:
            new = old + "    pass\n" * rng.randint(1, 3)
        elif choice < 0.55:
            new = "\n" + old
        elif choice < 0.7:
            new = old.replace("x", "y").replace("line", "LINE") + "😀 added\n"
        elif choice < 0.85:
            new = old[: len(old) // 2] + "\n\n" + old[len(old) // 2 :]
        else:
            new = "}\n" + old.upper()
        if new == old:
            new = old + "!"
        spans.append((start, end))
        edits.append({"oldText": old, "newText": new})
    return edits


def edit_cases(rng: random.Random) -> list[tuple[dict[str, object], list[dict[str, str]]]]:
    """(base, edits) pairs for the edit tool."""
    small = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
    cases: list[tuple[dict[str, object], list[dict[str, str]]]] = [
        ({"text": small}, [{"oldText": "five\n", "newText": "FIVE\n"}]),
        ({"text": small}, [{"oldText": "one", "newText": "ONE"}]),
        ({"text": small}, [{"oldText": "ten\n", "newText": ""}]),
        ({"text": small}, [{"oldText": "ten\n", "newText": "ten"}]),
        ({"text": small.rstrip("\n")}, [{"oldText": "ten", "newText": "ten\n"}]),
        ({"text": small.rstrip("\n")}, [{"oldText": "ten", "newText": "TEN"}]),
        ({"text": small}, [{"oldText": "three\nfour\n", "newText": ""}]),
        ({"text": small}, [{"oldText": "ree\nfo", "newText": "REE\nFO"}]),
        ({"text": small}, [{"oldText": "two\n", "newText": "two\n2a\n2b\n"}]),
        ({"text": small}, [{"oldText": "one\n", "newText": "zero\none\n"}]),
        (
            {"text": small},
            [{"oldText": "two", "newText": "2"}, {"oldText": "nine", "newText": "9"}],
        ),
        (
            {"text": small},
            [{"oldText": "two\n", "newText": ""}, {"oldText": "three", "newText": "3"}],
        ),
        ({"text": "a\n}\n}\n}\nb\n"}, [{"oldText": "a\n}\n", "newText": "a\n}\n}\n"}]),
        ({"text": "x\n\n\n\ny\n"}, [{"oldText": "y\n", "newText": "\ny\n"}]),
        ({"text": "😀 one\n日本語 two\n"}, [{"oldText": "日本語", "newText": "にほんご"}]),
        ({"text": "only"}, [{"oldText": "only", "newText": "changed"}]),
        ({"text": "only\n"}, [{"oldText": "only\n", "newText": ""}]),
    ]
    # Two one-line edits k lines apart: windows (32 margin lines) merge, touch or stay apart.
    numbered: dict[str, object] = {"recipe": {"kind": "numbered", "n": 200}, "finalNewline": True}
    for k in [*range(1, 10), *range(60, 70)]:
        cases.append(
            (
                stored(build_text(numbered), numbered),
                [
                    {"oldText": "line 50\n", "newText": "line fifty\n"},
                    {"oldText": f"line {50 + k}\n", "newText": ""},
                ],
            )
        )
    for _ in range(150):
        text = random_small(rng, 30)
        if not text.strip():
            continue
        cases.append(({"text": text}, random_edits(rng, text, rng.randint(1, 3), 6)))
    for n, kind, period, final_newline in [
        (200, "blocks", 0, True),
        (70, "numbered", 0, True),
        (500, "numbered", 0, False),
        (1000, "blocks", 0, True),
        (2000, "numbered", 0, True),
        (400, "blocks", 0, False),
        (150, "numbered", 0, False),
    ]:
        recipe: dict[str, object] = {"kind": kind, "n": n, "period": period}
        source: dict[str, object] = {"recipe": recipe, "finalNewline": final_newline}
        base = build_text(source)
        total = base.count("\n") + 1
        for count, spread in [(1, 0), (2, 10), (3, 40), (4, total), (6, total), (3, 70), (5, 4)]:
            for _ in range(3):
                cases.append((stored(base, source), random_edits(rng, base, count, spread)))
    return [(base, edits) for base, edits in cases if edits]


def compact(result: str) -> object:
    if len(result) > 20000:
        return {"sha256": hashlib.sha256(result.encode("utf-8")).hexdigest()}
    return result


def main() -> None:
    rng = random.Random(SEED)
    cases: list[dict[str, object]] = []
    rejected = 0
    with PiOracle(env={"LC_ALL": "C"}) as pi:
        version = pi.call("version")
        for old, new, context in pair_cases(rng):
            old_text, new_text = build_text(old), build_text(new)
            shown = pi.call(
                "generateDiffString",
                oldContent=old_text,
                newContent=new_text,
                contextLines=context,
            )
            cases.append(
                {
                    "fn": "generateDiffString",
                    "old": old,
                    "new": new,
                    "contextLines": context,
                    "result": {
                        "diff": compact(shown["diff"]),
                        "firstChangedLine": shown.get("firstChangedLine"),
                    },
                }
            )
            patch = pi.call(
                "generateUnifiedPatch",
                path=PATH,
                oldContent=old_text,
                newContent=new_text,
                contextLines=context,
            )
            cases.append(
                {
                    "fn": "generateUnifiedPatch",
                    "old": old,
                    "new": new,
                    "contextLines": context,
                    "result": compact(patch),
                }
            )
        for base, edits in edit_cases(rng):
            with tempfile.TemporaryDirectory() as work:
                Path(work, PATH).write_text(build_text(base), encoding="utf-8", newline="")
                result = pi.call(
                    "runTool", tool="edit", cwd=work, params={"path": PATH, "edits": edits}
                )
            if result["isError"]:
                rejected += 1
                continue
            details = result["details"]
            cases.append(
                {
                    "fn": "editDiff",
                    "base": base,
                    "edits": edits,
                    "result": {
                        "diff": details["diff"],
                        "patch": details["patch"],
                        "firstChangedLine": details.get("firstChangedLine"),
                    },
                }
            )
    out = {
        "pi": {"version": version["piVersion"], "diff": version["dependencies"]["diff"]},
        "node": version["node"],
        "recordedBy": "tests/conformance/record_diff.py",
        "seed": SEED,
        "cases": cases,
    }
    (HERE / "diff.json").write_text(
        json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )
    print(f"recorded {len(cases)} cases ({rejected} edit calls rejected by Pi and skipped)")


if __name__ == "__main__":
    main()
