"""Record Pi's truncation results as golden data: `python tests/conformance/record_truncation.py`.

Needs Pi 1.6 and the oracle harness in the folder that `PITH_PI_ORACLE` names
(tests/conformance/README.md). Writes tests/conformance/truncation.json; the tests
read only that file and never need Node.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

from oracle_location import oracle_dir

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(oracle_dir()))

from pi_oracle import PiOracle  # noqa: E402

SEED = 20261129
PIECES = ["a", "b", "xyz", " ", "é", "ß", "日本", "😀", "👩‍💻", "\n", "\n", "\n", "\r\n", "\t"]
LINE_CAPS = [1, 2, 3, 5, 10, 2000]
BYTE_CAPS = [1, 2, 3, 4, 5, 6, 7, 9, 10, 16, 33, 50, 100, 51200]
# Inputs too big to store literally are stored as recipes: prefix + unit * times + suffix.
BIG_RECIPES = [
    {"prefix": "", "unit": "x", "times": 120_000, "suffix": ""},
    {"prefix": "head\n", "unit": "y", "times": 120_000, "suffix": "\n"},
    {"prefix": "", "unit": "line\n", "times": 5_000, "suffix": ""},
    {"prefix": "", "unit": "ligne é\r\n", "times": 3_000, "suffix": "fin"},
    {"prefix": "", "unit": "😀", "times": 20_000, "suffix": ""},
    {"prefix": "first\n", "unit": "日本語", "times": 30_000, "suffix": "\nlast\n"},
    {"prefix": "", "unit": "a" * 99 + "\n", "times": 600, "suffix": ""},
    {"prefix": "", "unit": "\n", "times": 2_500, "suffix": ""},
]
SPECIAL = [
    "",
    "\n",
    "\n\n",
    "a",
    "a\n",
    "a\nb",
    "a\nb\n",
    "\r\n",
    "😀",
    "😀\n😀",
    "é" * 30,
    "ab\ncd\nef\n",
]


def build(recipe: dict[str, object]) -> str:
    return (
        str(recipe["prefix"])
        + str(recipe["unit"]) * int(str(recipe["times"]))
        + str(recipe["suffix"])
    )


def random_text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 40)))


def compact(result: dict[str, object]) -> dict[str, object]:
    content = str(result["content"])
    if len(content) > 2000:
        result = dict(result)
        del result["content"]
        result["contentSha256"] = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return result


def main() -> None:
    rng = random.Random(SEED)
    cases: list[dict[str, object]] = []
    with PiOracle(env={"LC_ALL": "C"}) as pi:
        version = pi.call("version")
        inputs: list[tuple[dict[str, object], dict[str, int]]] = []
        for text in SPECIAL:
            for caps in ({}, {"maxLines": 1, "maxBytes": 1}, {"maxLines": 2, "maxBytes": 3}):
                inputs.append(({"content": text}, caps))
        for _ in range(400):
            caps = {"maxLines": rng.choice(LINE_CAPS), "maxBytes": rng.choice(BYTE_CAPS)}
            inputs.append(({"content": random_text(rng)}, caps))
        for recipe in BIG_RECIPES:
            for caps in (
                {},
                {"maxLines": 100, "maxBytes": 1000},
                {"maxLines": 10**9, "maxBytes": 7},
            ):
                inputs.append(({"recipe": recipe}, caps))
        for source, caps in inputs:
            text = build(source["recipe"]) if "recipe" in source else str(source["content"])  # type: ignore[arg-type]
            for fn in ("truncateHead", "truncateTail"):
                result = pi.call(fn, content=text, options=caps)
                cases.append(
                    {"fn": fn, "input": source, "options": caps, "result": compact(result)}
                )
        for _ in range(150):
            line = "".join(rng.choice(PIECES[:9]) for _ in range(rng.randint(0, 300)))
            max_chars = rng.choice([1, 2, 3, 5, 10, 50, 500])
            result = pi.call("truncateLine", line=line, maxChars=max_chars)
            cases.append(
                {
                    "fn": "truncateLine",
                    "input": {"content": line},
                    "options": {"maxChars": max_chars},
                    "result": result,
                }
            )
        for line in ["x" * 499, "x" * 500, "x" * 501, "x" * 499 + "😀", "😀" * 300, "é" * 600]:
            result = pi.call("truncateLine", line=line)
            cases.append(
                {"fn": "truncateLine", "input": {"content": line}, "options": {}, "result": result}
            )
        sizes = [0, 1, 1023, 1024, 1025, 1280, 1331, 51200, 52428, 1048575, 1048576, 1572864, 10**9]
        sizes += [rng.randint(0, 5 * 1024 * 1024) for _ in range(100)]
        for size in sizes:
            cases.append(
                {
                    "fn": "formatSize",
                    "input": {"bytes": size},
                    "options": {},
                    "result": pi.call("formatSize", bytes=size),
                }
            )
    out = {
        "pi": {"version": version["piVersion"], "node": version["node"]},
        "recordedBy": "tests/conformance/record_truncation.py",
        "seed": SEED,
        "cases": cases,
    }
    (HERE / "truncation.json").write_text(
        json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8"
    )
    print(f"recorded {len(cases)} cases")


if __name__ == "__main__":
    main()
