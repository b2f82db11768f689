#!/usr/bin/env python3
"""The core's TOML reader (``_core.parse_toml``) against tomllib on the TOML
1.0 conformance suite (github.com/toml-lang/toml-test, its
``tests/files-toml-1.0.0`` list), each document also with CRLF line ends.

For every document the reader must give tomllib's dict (values, types,
float signs, key order) or None (tomllib then answers, in
``satcp.scenario.parse_toml``); reading what tomllib refuses, or reading it
differently, is a failure. Prints the counts; exits 1 on any failure.

  git clone https://github.com/toml-lang/toml-test
  .venv/bin/python tools/toml_conformance.py toml-test/tests
"""

from __future__ import annotations

import math
import sys
import tomllib
from collections import Counter
from pathlib import Path

from satcp import _core


def same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and (a == b or (a != a and b != b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(same, a, b))
    return a == b


def verdict(text: str) -> str:
    try:
        ref: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        ref = None
    ours = _core.parse_toml(text)
    if ours is None:
        return f"left to tomllib, which {'refuses' if ref is None else 'reads'} it"
    if ref is None:
        return "FAIL: read, tomllib refuses it"
    return "same as tomllib" if same(ours, ref) else "FAIL: read differently"


def main(tests: Path) -> int:
    names = (tests / "files-toml-1.0.0").read_text().split()
    counts: Counter[str] = Counter()
    for name in names:
        if not name.endswith(".toml"):
            continue
        try:
            text = (tests / name).read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            counts["not UTF-8 (refused before parsing)"] += 1
            continue
        variants = [text] + ([text.replace("\n", "\r\n")] if "\r" not in text else [])
        for i, t in enumerate(variants):
            v = verdict(t)
            counts[v + (" (CRLF)" if i else "")] += 1
            if v.startswith("FAIL"):
                print(f"{v}: {name}{' (CRLF)' if i else ''}")
    for what, n in sorted(counts.items()):
        print(f"{n:5d}  {what}")
    return 1 if any(k.startswith("FAIL") for k in counts) else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
