"""The runs of Secs. 7.5.3-7.5.4 (satellite link errors, alone and with
congestion) and the table of their means over seeds.

- :data:`METRICS`: what is read from each run (:func:`run_metrics`), with
  the direction that is better;
- :data:`FIGURES`: thesis figure -> (experiment, metric, delayed ACK);
- :func:`jobs`: every run of a :class:`Plan` (BERs, seeds, file size), the
  thesis's experiments, lossless references and sensitivity runs;
- :func:`collect`: the :data:`Table` of means and 95% confidence intervals,
  read with :func:`mean` and compared with :func:`gain` (Eqs. 7.2-7.3).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ...results import Results
from .._legacy import Experiment
from .measures import satellite_link
from .scenarios import DELAYED_ACK, VARIANTS, thesis_scenario
from .stats import mean_ci95
from .tables import diff_pct
from .thesis_values import thesis_value

BERS: tuple[float, ...] = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5)  # Table 7.1
SEEDS: tuple[int, ...] = (1, 2, 3, 4)
# Gateway buffer (packets) with congestion: Sec. 7.3; Sec. 7.5.2 says the reverse.
BUFFER = {"ftp": 15, "http": 25}
BUFFER_ALT = {"ftp": 25, "http": 15}
QUICK_BERS = (1e-7, 1e-5)
QUICK_SEEDS = (1, 2)
QUICK_FILE_BYTES = 5_000_000
COMPARABLE_PCT = 10.0  # "comparable"/"similar": means within 10%
TIE_PCT = 0.5  # means closer than this (%) are a tie

#: The thesis's experiments with errors.
EXPERIMENTS = {
    "error": "errors only (Sec. 7.5.3)",
    "congestion_error": "congestion and errors (Sec. 7.5.4)",
}


@dataclass(frozen=True)
class Metric:
    key: str
    app: str
    label: str  # y axis, as the thesis figures
    higher_is_better: bool
    digits: int


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric("ftp_response_time_s", "ftp", "Download response time (s)", False, 1),
        Metric("goodput_bps", "ftp", "Goodput (b/s)", True, 0),
        Metric("tcp_throughput_Bps", "ftp", "TCP throughput (bytes/s)", True, 0),
        Metric("link_throughput_bps", "ftp", "Satellite link throughput (b/s)", True, 0),
        Metric("link_utilization_pct", "ftp", "Satellite link utilization (%)", True, 2),
        Metric("http_page_response_time_s", "http", "Page response time (s)", False, 2),
    )
}
# Counters kept as evidence (CSV only).
EXTRA_METRICS = {
    "ftp": (
        "ftp_timeouts",
        "ftp_recovery_episodes",
        "ftp_retransmitted_segments",
        "ftp_queue_drops",
    ),
    "http": (
        "http_timeouts",
        "http_recovery_episodes",
        "http_queue_drops",
        "http_pages_unfinished",
    ),
}
METRIC_ORDER = tuple(METRICS)

#: Figure number -> (experiment, metric, delayed ACK), in the thesis's order:
#: Figs. 7.28-7.39 errors only, 7.40-7.51 congestion and errors; per metric
#: with delayed ACK, then without.
FIGURES: dict[str, tuple[str, str, bool]] = {
    f"7.{28 + i}": key
    for i, key in enumerate(
        (e, m, d) for e in EXPERIMENTS for m in METRIC_ORDER for d in DELAYED_ACK
    )
}

#: Lossless references (experiment, metric) -> the thesis table with them.
REFERENCE_TABLE = {
    ("ideal", "ftp_response_time_s"): "7.5",
    ("ideal", "http_page_response_time_s"): "7.8",
    ("congestion_only", "ftp_response_time_s"): "7.9",
    ("congestion_only", "http_page_response_time_s"): "7.10",
}


def thesis_reference(exp: str, metric: str, variant: str, delayed_ack: bool) -> float | None:
    """The thesis's value of a lossless reference point (None: it has none)."""
    table = REFERENCE_TABLE.get((exp, metric))
    return None if table is None else thesis_value(table, variant, delayed_ack)


def fmt_ber(b: float) -> str:
    """1e-07 -> '1e-7'."""
    return f"1e{round(math.log10(b))}" if b > 0 else "0"


# --------------------------------------------------------------------------
# Scenarios and runs


def build_scenario(
    app: str,
    variant: str,
    delayed_ack: bool,
    ber: float,
    seed: int,
    *,
    buffer: int | None = None,
    downlink_only: bool = False,
    file_bytes: int | None = None,
) -> dict[str, Any]:
    """The thesis scenario of ``app`` ("ftp" or "http") with the satellite
    link's BER set (both directions unless ``downlink_only``) and, for
    congestion, the gateway -> client queue limited to ``buffer`` packets."""
    extra: dict[str, Any] = {} if file_bytes is None else {"file_bytes": file_bytes}
    return thesis_scenario(
        app,
        variant=variant,
        delayed_ack=delayed_ack,
        gateway_buffer_packets=buffer,
        satellite_ber=ber,
        downlink_ber_only=downlink_only,
        sample_interval_s=0.0,
        seed=seed,
        **extra,
    )


def run_metrics(app: str, res: Results) -> dict[str, float]:
    """The metrics of one run (see :mod:`.lossy`)."""
    down = satellite_link(res)
    flows = res.flows
    out: dict[str, float] = {}
    if app == "ftp":
        tr = res.transfers.iloc[0]
        f = flows.iloc[0]
        rt = tr["response_time_s"]
        out["ftp_response_time_s"] = float(rt) if rt is not None and rt == rt else math.nan
        out["goodput_bps"] = float(f["goodput_bps"])
        out["tcp_throughput_Bps"] = float(f["throughput_bps"]) / 8.0
        out["link_throughput_bps"] = float(down["throughput_bps"])
        out["link_utilization_pct"] = 100.0 * float(down["utilization"])
        out["ftp_retransmitted_segments"] = float(f["server_retransmitted_segments"])
    else:
        times = res.response_times("http")
        out["http_page_response_time_s"] = float(times.mean()) if len(times) else math.nan
        pages = int((res.transfers["kind"] == "http").sum())
        out["http_pages_unfinished"] = float(pages - len(times))
    # Counters summed over the run's connections (HTTP: one per page).
    out[f"{app}_timeouts"] = float(flows["server_timeouts"].sum())
    out[f"{app}_recovery_episodes"] = float(flows["server_fast_retransmits"].sum())
    out[f"{app}_queue_drops"] = float(down["queue_drops"])
    return out


@dataclass(frozen=True)
class Key:
    experiment: str
    app: str
    variant: str
    delayed_ack: bool
    ber: float
    seed: int


@dataclass
class Plan:
    bers: tuple[float, ...]
    seeds: tuple[int, ...]
    file_bytes: int | None  # None: the thesis's 50 MB
    quick: bool

    @classmethod
    def of(cls, quick: bool) -> Plan:
        """The full plan, or ``quick``: 2 BERs, 2 seeds, a 5 MB file."""
        if quick:
            return cls(QUICK_BERS, QUICK_SEEDS, QUICK_FILE_BYTES, True)
        return cls(BERS, SEEDS, None, False)


def grid(plan: Plan) -> list[dict[str, Any]]:
    """Every run of ``plan`` (a :class:`Key`'s fields and the scenario's
    ``buffer`` / ``downlink_only``): the thesis's experiments, the lossless
    references and the sensitivity runs."""
    runs: list[dict[str, Any]] = []

    def add(exp: str, app: str, v: str, da: bool, ber: float, seed: int, **kw: Any) -> None:
        runs.append({**asdict(Key(exp, app, v, da, ber, seed)), **kw})

    for exp in EXPERIMENTS:
        for app in ("ftp", "http"):
            buf = BUFFER[app] if exp == "congestion_error" else None
            for v, _ in VARIANTS:
                for da in DELAYED_ACK:
                    for ber in plan.bers:
                        for seed in plan.seeds:
                            add(exp, app, v, da, ber, seed, buffer=buf)
    # Lossless references (no randomness without errors: one seed).
    for exp, buffers in (("ideal", None), ("congestion_only", BUFFER)):
        for app in ("ftp", "http"):
            for v, _ in VARIANTS:
                for da in DELAYED_ACK:
                    add(exp, app, v, da, 0.0, 1, buffer=buffers[app] if buffers else None)
    # Sensitivity: BER on the downlink only (FTP, the two highest BERs), and
    # the congestion buffers of Sec. 7.5.2 (FTP 25, HTTP 15).
    for v, _ in VARIANTS:
        for da in DELAYED_ACK:
            for ber in plan.bers[-2:]:
                for seed in plan.seeds:
                    add("error_downlink_only", "ftp", v, da, ber, seed, downlink_only=True)
            for app in ("ftp", "http"):
                for ber in plan.bers:
                    for seed in plan.seeds:
                        add(
                            "congestion_error_alt_buffer",
                            app,
                            v,
                            da,
                            ber,
                            seed,
                            buffer=BUFFER_ALT[app],
                        )
    return runs


def _key(point: Mapping[str, Any]) -> Key:
    return Key(*(point[f.name] for f in fields(Key)))


def run_metrics_of(point: Mapping[str, Any], res: Results) -> tuple[dict[str, float], bool]:
    """A run's metrics and whether it finished (an FTP download; HTTP runs
    always do)."""
    return run_metrics(point["app"], res), (res.apps_done if point["app"] == "ftp" else True)


def experiment(plan: Plan) -> Experiment:
    """The plan's runs as data; the lossy part writes its files itself
    (:func:`satcp.reproduce.adalr.lossy.reproduce`), so only
    :func:`satcp.reproduce.experiment.measure` runs it."""

    def scenario(p: Mapping[str, Any]) -> dict[str, Any]:
        extra = {k: p[k] for k in ("buffer", "downlink_only") if k in p}
        return build_scenario(
            p["app"],
            p["variant"],
            p["delayed_ack"],
            p["ber"],
            p["seed"],
            file_bytes=plan.file_bytes,
            **extra,
        )

    return Experiment(
        name="lossy",
        csv="",
        grid=grid(plan),
        scenario=scenario,
        metrics=run_metrics_of,
    )


# --------------------------------------------------------------------------
# Means over seeds


@dataclass
class Cell:
    """Mean over seeds of one metric at one point."""

    mean: float
    ci95: float
    n: int
    unfinished: int = 0
    values: list[float] = field(default_factory=list)


#: (experiment, metric, variant, delayed_ack, ber) -> Cell
Table = dict[tuple[str, str, str, bool, float], Cell]


def _aggregate(values: Sequence[float], unfinished: int) -> Cell:
    vals = [v for v in values if not math.isnan(v)]
    if unfinished or not vals:
        return Cell(math.nan, math.nan, len(values), unfinished, list(values))
    mean, ci = mean_ci95(vals)
    return Cell(mean, ci, len(vals), 0, list(values))


def collect(measured: Sequence[tuple[Mapping[str, Any], tuple[dict[str, float], bool]]]) -> Table:
    """The means over seeds of every metric at every point of the runs
    (:func:`experiment`'s measured points)."""
    per: dict[tuple[str, str, str, bool, float], list[tuple[dict[str, float], bool]]] = {}
    for p, (m, finished) in measured:
        k = _key(p)
        per.setdefault((k.experiment, k.app, k.variant, k.delayed_ack, k.ber), []).append(
            (m, finished)
        )
    table: Table = {}
    for (exp, app, v, da, ber), rows in per.items():
        names = [n for n, mm in METRICS.items() if mm.app == app] + list(EXTRA_METRICS[app])
        for name in names:
            vals = [r[name] for r, _ in rows]
            unfinished = sum(1 for _, ok in rows if not ok) if name == "ftp_response_time_s" else 0
            table[(exp, name, v, da, ber)] = _aggregate(vals, unfinished)
    return table


def mean(table: Table, exp: str, metric: str, v: str, da: bool, ber: float) -> float:
    """The mean at one point (NaN if it was not run)."""
    c = table.get((exp, metric, v, da, ber))
    return c.mean if c is not None else math.nan


def gain(m: Metric, a: float, b: float) -> float:
    """Eqs. 7.2-7.3 with the sign such that positive means ``a`` is better."""
    g = diff_pct(a, b)
    return g if m.higher_is_better else -g
