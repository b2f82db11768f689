"""Python's cycle collector during a long command that keeps many results.

A reproduction or ``satcp compare`` parses hundreds of megabytes of
results into dicts and lists (containers the collector tracks), while
tens of thousands of objects from the imports (pandas, matplotlib) stay
alive to the end. With the default thresholds the collector runs every
700 new containers and, now and then, walks all of them: about 1 % of a
TCP-R or Peach reproduction's CPU time. :func:`few_collections` freezes
what exists when the command starts (the collector no longer walks it)
and collects less often; memory is still freed by reference counting,
only cycles wait longer. Outputs do not depend on it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["few_collections"]

#: Thresholds while a long command runs (the defaults are 700, 10, 10).
THRESHOLDS = (10_000, 20, 20)


@contextmanager
def few_collections() -> Iterator[None]:
    """Within the block: the objects that exist at its start frozen, and
    :data:`THRESHOLDS`; both as before afterwards. A process that froze
    objects itself (``gc.freeze`` has no partial undo) keeps its frozen
    set: only the thresholds change then."""
    before = gc.get_threshold()
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if freeze:
            gc.unfreeze()
