"""The claims of the TCP-R reproduction: the reproductions' one
:class:`~satcp.reproduce.claims.Claim` built by a few rules, so that each
part states its claims as data:

- :func:`ratios`: "TCP-R gives an X % improvement (or n times more) over
  Y at x": satcp's throughput ratio s beside the paper's p, within
  :data:`RATIO` (the shared :class:`~satcp.reproduce.claims.Tolerance`
  "ratio": |s - p| <= 15 % of the improvement p - 1 plus 0.05, and s on
  the same side of 1: a "4 % improvement" holds for 1.00-1.09, "three
  fold" for 2.65-3.35);
- :func:`best`: "TCP-R outperforms the others at every tested x": holds
  when its mean throughput is the highest at every x (the value is at how
  many x it is);
- :func:`similar`, :func:`compare`, :func:`small`, :func:`bound`:
  statements without a number of the paper ("performs similarly": within
  :data:`SIMILAR`; "more/fewer ... than"; "zero / almost zero": below
  :data:`ZERO`), which give ``holds`` themselves and say their criterion
  in the row's note.

Every threshold is stated here and in the row's note; none was chosen to
make a claim hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..claims import Claim, Tolerance
from .common import VARIANTS, Lookup

__all__ = [
    "RATIO",
    "SIMILAR",
    "ZERO",
    "best",
    "bound",
    "compare",
    "mean_over",
    "over_best",
    "ratios",
    "similar",
    "small",
]

#: A ratio of throughputs s holds when |s - p| <= 15 % of (p - 1) + 0.05.
RATIO = Tolerance(15.0, "ratio", slack=0.05)
#: "Similar": two mean throughputs within this relative difference.
SIMILAR = 0.10
#: "Zero" or "almost zero" ratio: below this per data packet sent.
ZERO = 1e-3

RATIO_NOTE = f"within {RATIO.describe()}"


def _label(key: str) -> str:
    return VARIANTS[key].label


def ratios(
    fig: str, lk: Lookup, x: float, xtext: str, pairs: Sequence[tuple[str, float, str]]
) -> list[Claim]:
    """TCP-R's throughput over each ``(other, paper ratio, paper's words)``
    at ``x``."""
    out = []
    for other, paper, words in pairs:
        got = lk.thr("tcpr", x) / lk.thr(other, x)
        out.append(
            Claim(
                fig,
                f"{xtext}: TCP-R / {_label(other)} throughput ({words})",
                paper,
                got,
                "x",
                note=RATIO_NOTE,
                tolerance=RATIO,
            )
        )
    return out


def over_best(
    fig: str,
    lk: Lookup,
    x: float,
    xtext: str,
    others: Sequence[str],
    paper: float,
    words: str,
    more_than: bool = False,
) -> Claim:
    """TCP-R's throughput over the best of ``others`` at x: about
    ``paper`` (within :data:`RATIO`), or more than it (``more_than``)."""
    got = min(lk.thr("tcpr", x) / lk.thr(o, x) for o in others)
    return Claim(
        fig,
        f"{xtext}: TCP-R / the best other protocol ({words})",
        paper,
        got,
        "x",
        holds=got > paper if more_than else None,
        paper_text=f"> {paper:g}" if more_than else None,
        note="more than the paper's factor" if more_than else RATIO_NOTE,
        tolerance=RATIO,
    )


def best(fig: str, lk: Lookup, xs: Sequence[float], others: Sequence[str], words: str) -> Claim:
    """TCP-R has the highest mean throughput at every x."""
    wins = sum(lk.thr("tcpr", x) >= max(lk.thr(o, x) for o in others) for x in xs)
    lost = [x for x in xs if lk.thr("tcpr", x) < max(lk.thr(o, x) for o in others)]
    return Claim(
        fig,
        words,
        None,
        float(wins),
        f"of {len(xs)} x",
        holds=wins == len(xs),
        digits=0,
        note="highest mean at every x"
        + (f"; not at x = {', '.join(f'{x:g}' for x in lost)}" if lost else ""),
    )


def similar(
    fig: str, words: str, values: Sequence[tuple[float, float]], tol: float = SIMILAR
) -> Claim:
    """Each pair of means within ``tol``; the value is the largest
    relative difference."""
    worst = max(abs(a - b) / max(a, b, 1e-12) for a, b in values)
    return Claim(
        fig,
        words,
        None,
        100.0 * worst,
        "% max diff",
        holds=worst <= tol,
        note=f"similar: within {tol:.0%} at every point",
    )


def compare(
    fig: str,
    words: str,
    a: float,
    b: float,
    more: bool,
    unit: str = "",
    digits: int = 4,
    slightly: bool = False,
) -> Claim:
    """``a`` more (or less) than ``b``; ``slightly``: by at most
    :data:`SIMILAR`. The value is a / b (``unit``: of a and b, in the
    note)."""
    got = a / b if b else float("inf") if a else 1.0
    ok = (a > b) if more else (a < b)
    if slightly:
        ok = ok and abs(got - 1.0) <= SIMILAR
    note = f"satcp: {a:.{digits}g} vs {b:.{digits}g}" + (f" {unit}" if unit else "")
    return Claim(
        fig,
        words,
        None,
        got,
        "x",
        holds=ok,
        digits=2,
        note=note + (f"; slightly: by at most {SIMILAR:.0%}" if slightly else ""),
    )


def bound(fig: str, words: str, value: float, limit: float, above: bool, unit: str = "") -> Claim:
    """A value above (or below) a stated bound."""
    return Claim(
        fig,
        words,
        None,
        value,
        unit,
        holds=value > limit if above else value < limit,
        digits=3,
        paper_text=f"{'>' if above else '<'} {limit:g}",
        note=f"bound {limit:g} (ours)",
    )


def small(fig: str, words: str, value: float, limit: float = ZERO) -> Claim:
    """A ratio that the paper calls zero or almost zero."""
    return Claim(
        fig,
        words,
        None,
        value,
        "per packet",
        holds=value < limit,
        digits=5,
        note=f"zero: below {limit:g} per data packet sent",
    )


def mean_over(lk: Lookup, key: str, xs: Sequence[float], attr: Callable) -> float:
    """The mean over ``xs`` of ``attr(point)``."""
    vals = [attr(lk.point(key, x)) for x in xs]
    return sum(vals) / len(vals)
