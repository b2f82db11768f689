#!/usr/bin/env python3
"""Where a satcp command's CPU time goes (docs/performance.md, "The paper
set"): the command runs in this process with a few functions wrapped, each
summing the CPU time of the thread that calls it (all threads together):

- core: ``_core.run_json`` (the simulations, the results' JSON included),
- results JSON: :class:`satcp.results.Results` made from that JSON
  (``json.loads``),
- data frames: ``Results._frame`` (the pandas tables the metrics read),
- figures: ``plotstyle.save_png`` (``tight_layout``, ``savefig``, the PNG
  encoding), inside ``outputs.draw_figures`` for a reproduction (all of
  drawing a figure);

then the process's whole CPU time (user + system). What is left is the
interpreter's start, the imports, the data files' expressions, tables and
text.

  tools/cpu_split.py reproduce peach [ARGS...]
  tools/cpu_split.py compare [ARGS...]

Run it with the Python that runs satcp (``.venv/bin/python``); the split
goes to standard error after the command's own output.
"""

from __future__ import annotations

import atexit
import functools
import resource
import sys
import threading
import time
from typing import Any

#: What is timed, in the order of the report.
_LABELS = (
    "core (_core.run_json)",
    "results JSON (Results)",
    "data frames (Results._frame)",
    "figures of a reproduction (draw_figures)",
    "  of which tight_layout, savefig (save_png)",
)
_spent: dict[str, float] = {}
_lock = threading.Lock()
_depth = threading.local()


def _timed(owner: Any, name: str, label: str) -> None:
    """Wraps ``owner.name`` so that its calls add their thread's CPU time
    to ``label`` (a nested call of the same label counts once)."""
    f = getattr(owner, name)

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        depth = getattr(_depth, label, 0)
        setattr(_depth, label, depth + 1)
        start = time.thread_time()
        try:
            return f(*args, **kwargs)
        finally:
            setattr(_depth, label, depth)
            if depth == 0:
                with _lock:
                    _spent[label] = _spent.get(label, 0.0) + time.thread_time() - start

    setattr(owner, name, wrapper)


def _report() -> None:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    total = ru.ru_utime + ru.ru_stime
    lines = [f"CPU time: {total:.1f} s (user {ru.ru_utime:.1f} s, system {ru.ru_stime:.1f} s)"]
    for label in _LABELS:
        s = _spent.get(label, 0.0)
        lines.append(f"  {label:<44} {s:7.1f} s {100 * s / total:5.1f} %")
    print("\n".join(lines), file=sys.stderr)


def main() -> int:
    from satcp import _core, results
    from satcp.cli import main as satcp_main
    from satcp.reproduce import outputs, plotstyle

    _timed(_core, "run_json", "core (_core.run_json)")
    _timed(results.Results, "__init__", "results JSON (Results)")
    _timed(results.Results, "_frame", "data frames (Results._frame)")
    _timed(outputs, "draw_figures", "figures of a reproduction (draw_figures)")
    _timed(plotstyle, "save_png", "  of which tight_layout, savefig (save_png)")
    atexit.register(_report)
    return satcp_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
