"""Reproductions of published results (``satcp reproduce NAME``).

:data:`REGISTRY` is the one list of them: each entry names its module and
says in one line what it reproduces; ``satcp reproduce`` lists it and runs
from it. A reproduction module has ``DEFAULT_OUT`` and
``reproduce(out_dir, workers, quick)`` (``baseline``: no ``quick``).

Shared by the reproductions: :mod:`.experiment` (the engine: a
reproduction's parts run into one output directory all or nothing, an
experiment's grid of runs into a table and claims), :mod:`.paper_file` and
:mod:`.paper_run` (a paper's data file read, checked and run; the format:
docs/reproductions.md), :mod:`.expressions` (its expressions and
templates), :mod:`.metrics` (what is read from a run), :mod:`.claims` (one
claim type, its tolerance, its tables), :mod:`.tables` (Markdown tables,
CSV files, percentage differences) and :mod:`.plotstyle` (the figures).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

__all__ = ["REGISTRY", "Entry", "UnknownReproduction", "listing", "load"]


class UnknownReproduction(KeyError):
    """A name that is not in :data:`REGISTRY`."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Entry:
    """A reproduction: its module (in this package), what it reproduces and
    whether it has a reduced ``--quick`` set."""

    module: str
    summary: str
    quick: bool = True


#: Every reproduction, in the order ``satcp reproduce`` lists them.
REGISTRY: dict[str, Entry] = {
    "baseline": Entry(
        "baseline", "TCP-ADaLR thesis Tables 7.5 and 7.8, and the ideal-path bound", quick=False
    ),
    "adalr": Entry(
        "adalr", "the TCP-ADaLR thesis experiments (Chapter 7: tables, figures, claims)"
    ),
    "peach": Entry("peach", "TCP-Peach (Akyildiz et al. 2001), Figs. 3-20"),
    "slowstart": Entry("slowstart", "modified slow start over GEO (Marchese), Table I, Figs. 2-8"),
    "tcpr": Entry("tcpr", "TCP-R with EPDN (Sathiaseelan 2009), Figs. 2-11"),
    "pep": Entry(
        "pep", "end to end vs a split-connection PEP (RFC 3135, PEPsal) on GEO, 10 kB-100 MB"
    ),
    "kuhn2013": Entry(
        "kuhn2013", "DVB-RCS2 random vs dedicated access (Kuhn et al. 2013), the headline"
    ),
}


def load(name: str) -> ModuleType:
    """The module of reproduction ``name``: :class:`UnknownReproduction` if it
    is not registered; an ImportError if it is but its module is missing."""
    entry = REGISTRY.get(name)
    if entry is None:
        raise UnknownReproduction(f"unknown reproduction {name!r} (known: {', '.join(REGISTRY)})")
    return importlib.import_module(f"{__name__}.{entry.module}")


def listing() -> list[str]:
    """One line per reproduction: its name and what it reproduces."""
    width = max(len(n) for n in REGISTRY)
    return [f"{n:<{width}}  {e.summary}" for n, e in REGISTRY.items()]
