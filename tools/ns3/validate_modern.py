#!/usr/bin/env python3
"""satcp's modern congestion controls against ns-3 3.44 (`make validate-modern`).

One bulk transfer of fixed length over one drop-tail bottleneck, a GEO
path and a LEO-like one, lossless and with random packet loss, for each
configuration below: satcp with `tcp.profile = "linux"` (and one row with
`"rfc"`) next to the ns-3 congestion control and loss recovery that
correspond. The ns-3 side runs `tools/ns3/modern_ns3.py` under the Python
of a separate virtual environment with the PyPI `ns3` package
(`--ns3-python`), in at most `--jobs` processes, and each run's JSON is
kept in `--cache` (keyed by the run's settings and a hash of the ns-3
scripts), so an interrupted validation resumes and a second call only runs
satcp again.

Written: one Markdown table (goodput, retransmitted segments and
retransmission timeouts per configuration, path and loss rate: ns-3's and
satcp's means over the seeds with their standard deviation, and satcp /
ns-3), printed and stored as `summary.md`, with `runs.csv` (one row per
run and simulator) beside it. A third satcp column, "satcp with ns-3's
mechanisms", runs the same satcp configuration with the Linux mechanisms
ns-3 3.44 does not have switched off (`NS3_MECHANISMS`), which separates
what those mechanisms do from what differs in the congestion control.
docs/validation-ns3.md, "Modern congestion controls", explains every
setting and every difference above 10 %.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NS3_SCRIPT = HERE / "modern_ns3.py"


@dataclass(frozen=True)
class Path_:
    name: str
    rate_mbps: float
    rtt_ms: float
    seconds: float

    @property
    def bdp_packets(self) -> int:
        """The bandwidth-delay product in 1,500-byte packets (the queue)."""
        return round(self.rate_mbps * 1e6 * self.rtt_ms / 1e3 / 8 / 1500)


PATHS = [
    Path_("GEO", 10.0, 600.0, 90.0),
    Path_("LEO", 50.0, 40.0, 20.0),
]
LOSSES = [0.0, 1e-5, 1e-4]

# Linux mechanisms satcp's linux profile runs and ns-3 3.44 has not (no
# RACK-TLP, F-RTO or undo, no quick-ACK mode at the receiver, RFC 6298's
# RTO instead of Linux's); the rest of each configuration stays.
NS3_MECHANISMS = {
    "rack_tlp": False,
    "frto": False,
    "undo": False,
    "dsack": False,
    "quick_acks": 0,
    "rto_algorithm": "rfc6298",
}


@dataclass(frozen=True)
class Config:
    label: str
    # satcp's [tcp] table
    satcp: dict
    # modern_ns3.py options
    ns3: dict
    # What "satcp with ns-3's mechanisms" changes besides NS3_MECHANISMS:
    # the slow start and window-growth rules of ns-3's class.
    ns3_like: dict = field(default_factory=dict)
    compare_ns3_like: bool = True


# ns-3's TcpNewReno (and TcpWestwoodPlus, TcpHybla, built on it) grows
# cwnd by one segment per ACK in slow start and by SMSS^2 / cwnd per ACK
# in congestion avoidance, whatever the ACK covers, with no HyStart and
# growing when not cwnd-limited too; TcpCubic counts segments in slow
# start, runs its own HyStart and grows only when cwnd-limited.
# TcpNewReno::GetSsThresh (TcpHybla's too) halves the bytes in flight,
# where Linux and ns-3's TcpCubic take cwnd in segments.
RENO_GROWTH = {
    "byte_counting": False,
    "hystart": False,
    "cwnd_validation": False,
    "ssthresh_from": "flight_size",
}

CONFIGS = [
    Config(
        "CUBIC",
        {"variant": "cubic", "profile": "linux"},
        {"cc": "cubic", "recovery": "prr"},
        # ns-3's HyStart never leaves slow start early on the GEO path
        # (TcpCubic::HystartDelayThresh); satcp has HyStart++ or none.
        {"hystart": False},
    ),
    Config(
        "BBR",
        {"variant": "bbr", "profile": "linux"},
        {"cc": "bbr", "recovery": "prr"},
        # ns-3's TcpBbr sets cwnd itself in recovery (TcpSocketBase skips
        # the recovery ops when HasCongControl), as Linux's BBR does
        # (tcp_cong_control returns before tcp_cwnd_reduction).
        {"prr": False},
    ),
    Config(
        "Westwood+",
        # SACK recovery as Linux's Westwood+ (the family's default is NewReno's)
        {"variant": "westwood", "recovery": "sack", "profile": "linux"},
        {"cc": "westwood", "recovery": "prr"},
        RENO_GROWTH,
    ),
    Config(
        "Hybla",
        {"variant": "hybla", "profile": "linux"},
        # TcpHybla with its rho repaired (modern_ns3.py, HyblaRho): stock
        # TcpHybla keeps rho = 1 on these paths and runs as NewReno.
        {"cc": "hybla-rho", "recovery": "prr", "hybla_rrtt_ms": 25.0},
        RENO_GROWTH,
    ),
    Config(
        "NewReno + PRR",
        {"variant": "sack", "profile": "linux"},
        {"cc": "newreno", "recovery": "prr"},
        RENO_GROWTH,
    ),
    Config(
        "NewReno, classic recovery",
        {"variant": "sack", "profile": "linux", "prr": False},
        {"cc": "newreno", "recovery": "classic"},
        RENO_GROWTH,
    ),
    Config(
        "NewReno, rfc profile",
        # The rfc profile (RFC 5681 / 6675 / 6298 with the thesis's values:
        # IW 2, 1 s minimum RTO, G = 0.5 s, 200 ms delayed ACK, no
        # timestamps) with the path's buffers: window scaling and 3 MB,
        # and slow start up to the first loss, as ns-3's defaults.
        {
            "variant": "sack",
            "profile": "rfc",
            "window_scaling": True,
            "rcv_buffer": 3_145_728,
            "initial_ssthresh": 1_000_000_000_000,
        },
        {"cc": "newreno", "recovery": "classic", "stack": "rfc"},
        compare_ns3_like=False,
    ),
]

METRICS = [
    ("goodput_mbps", "goodput (Mb/s)"),
    ("retransmissions", "retransmitted segments"),
    ("timeouts", "timeouts"),
]


def loss_pattern(path: Path_, loss: float, seed: int) -> list[int]:
    """The data segments a run loses (0-based indices of full segments in
    sequence order): each with probability `loss`, independently, drawn
    from (path, loss, seed) alone, so every configuration and both
    simulators lose the same segments. Indices go up to what the link
    could carry in the run."""
    if loss <= 0:
        return []
    rng = random.Random(f"validate-modern/{path.name}/{loss!r}/{seed}")
    n = math.ceil(path.rate_mbps * 1e6 * path.seconds / 8 / 1448)
    out, k = [], -1
    while True:
        # geometric gaps: the index of the next lost segment
        k += 1 + int(math.log(1.0 - rng.random()) / math.log(1.0 - loss))
        if k >= n:
            return out
        out.append(k)


@dataclass(frozen=True)
class Run:
    config: Config
    path: Path_
    loss: float
    seed: int
    # "shared": the same data segments lost in both simulators
    # (loss_pattern, as drop_seqs); "independent": each simulator draws
    # its own per-packet losses (satcp's `loss`, ns-3's RateErrorModel)
    loss_model: str = "shared"

    @property
    def payload(self) -> int:
        """Payload bytes of a full segment: MSS 1460 less 12 bytes of timestamps."""
        return 1460 if self.config.ns3.get("stack") == "rfc" else 1448

    def drop_seqs(self) -> list[int]:
        if self.loss_model != "shared":
            return []
        # data starts at sequence number 1 in both (ISN 0)
        return [1 + k * self.payload for k in loss_pattern(self.path, self.loss, self.seed)]

    def ns3_spec(self) -> dict:
        drops = self.drop_seqs()
        random_loss = self.loss if self.loss_model == "independent" else 0.0
        spec = {
            "cc": "newreno",
            "recovery": "prr",
            "stack": "linux",
            "rate_mbps": self.path.rate_mbps,
            "rtt_ms": self.path.rtt_ms,
            "queue_packets": self.path.bdp_packets,
            "loss": random_loss,
            "drop_seqs": ",".join(map(str, drops)),
            "seconds": self.path.seconds,
            # The seed matters to ns-3 only through its random loss and
            # TcpBbr's first ProbeBW phase: other runs with the same losses
            # are the same run (and share a cache entry).
            "seed": self.seed if random_loss > 0 or self.config.ns3["cc"] == "bbr" else 1,
        }
        spec.update(self.config.ns3)
        return spec

    def ns3_key(self, version: str) -> str:
        s = json.dumps(self.ns3_spec(), sort_keys=True)
        return hashlib.sha256((version + s).encode()).hexdigest()[:20]


def ns3_version() -> str:
    """A hash of what the ns-3 side runs (its C++ and the functions that set
    up a run, not its help texts): a cached run is reused only if that did
    not change."""
    import inspect

    sys.path.insert(0, str(HERE))
    import modern_ns3
    import thesis_ftp_ns3

    h = hashlib.sha256()
    for part in (
        thesis_ftp_ns3.CPP_APPS,
        modern_ns3.CPP_COUNTING,
        inspect.getsource(modern_ns3.configure_tcp),
        inspect.getsource(modern_ns3.run_one),
    ):
        h.update(part.encode())
    return h.hexdigest()[:12]


# ----------------------------------------------------------------- ns-3 side
def run_ns3_batch(runs: list[Run], python: str, cache: Path, version: str, i: int) -> None:
    """Runs `runs` in one ns-3 process (ns-3 loads once: loading takes
    longer than a run) and stores each result as it arrives. A process that
    dies (an ns-3 assertion) loses only the run it was in: the rest go to a
    new process."""
    while runs:
        batch = cache / f"batch_{i}.jsonl"
        batch.write_text(
            "".join(json.dumps({"key": r.ns3_key(version), **r.ns3_spec()}) + "\n" for r in runs)
        )
        by_key = {r.ns3_key(version): r for r in runs}
        # cwd: the ns3 package looks for its libraries below the working
        # directory too; the cache directory keeps that quick and unambiguous.
        cmd = [os.path.abspath(python), str(NS3_SCRIPT), "--batch", str(batch)]
        done = set()
        with subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cache
        ) as proc:
            for line in proc.stdout:
                if not line.startswith("{"):
                    continue
                out = json.loads(line)
                run = by_key[out["key"]]
                write_atomic(cache / f"ns3_{out['key']}.json", json.dumps(out))
                done.add(out["key"])
                print(
                    f"  ns-3 {describe(run)}: {out['goodput_mbps']:.3f} Mb/s "
                    f"(run loop {out['wall_run_s']:.1f} s)",
                    file=sys.stderr,
                    flush=True,
                )
            err = proc.stderr.read()
        rest = [r for r in runs if r.ns3_key(version) not in done]
        if not rest:
            return
        # The first run without a result is the one the process died in.
        failed = rest[0]
        write_atomic(
            cache / f"ns3_{failed.ns3_key(version)}.json",
            json.dumps({"key": failed.ns3_key(version), "error": err[-2000:]}),
        )
        print(f"  ns-3 {describe(failed)}: FAILED\n{err[-800:]}", file=sys.stderr, flush=True)
        runs = rest[1:]


def describe(r: Run) -> str:
    return f"{r.config.label} {r.path.name} loss {r.loss:g} seed {r.seed}"


# ---------------------------------------------------------------- satcp side
def satcp_scenario(run: Run, tcp_extra: dict | None = None) -> dict:
    tcp = dict(run.config.satcp)
    tcp.update(tcp_extra or {})
    # ns-3 caps the backed-off RTO at 60 s (TcpSocketBase::ReTxTimeout).
    tcp["max_rto"] = 60.0
    p = run.path
    return {
        "name": "validate-modern",
        "seed": run.seed,
        "duration_s": p.seconds,
        "sample_interval_s": 0,
        "nodes": ["server", "client"],
        "links": [
            {
                "a": "server",
                "b": "client",
                "rate_bps": p.rate_mbps * 1e6,
                "delay_s": p.rtt_ms / 2e3,
                "ab": {
                    "queue_packets": p.bdp_packets,
                    "errors": {
                        "loss": run.loss if run.loss_model == "independent" else 0.0,
                        "drop_seqs": run.drop_seqs(),
                    },
                },
            }
        ],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}],
        "tcp": tcp,
    }


def satcp_metrics(res) -> dict:
    flow = res.raw["flows"][0]
    srv, cli = flow["server"], flow["client"]
    link = res.raw["links"][0]["stats"] if res.raw.get("links") else {}
    return {
        "rx_bytes": cli["bytes_delivered"],
        "goodput_mbps": cli["bytes_delivered"] * 8 / flow["duration_s"] / 1e6,
        "retransmissions": srv["retransmitted_segments"],
        "recoveries": srv["fast_retransmits"],
        "timeouts": srv["timeouts"],
        "queue_drops": link.get("queue_drops"),
        # random losses and listed drops both count as `lost`
        "random_losses": link.get("lost"),
    }


def run_satcp_all(runs: list[Run], workers: int) -> tuple[list[dict], list[dict | None]]:
    import satcp

    scen = [satcp_scenario(r) for r in runs]
    like_runs = [r for r in runs if r.config.compare_ns3_like]
    scen_like = [satcp_scenario(r, {**NS3_MECHANISMS, **r.config.ns3_like}) for r in like_runs]
    results = satcp.run_many(scen + scen_like, workers=workers)
    ours = [satcp_metrics(x) for x in results[: len(scen)]]
    like_iter = iter(satcp_metrics(x) for x in results[len(scen) :])
    like = [next(like_iter) if r.config.compare_ns3_like else None for r in runs]
    return ours, like


# ------------------------------------------------------------------- tables
def mean_sd(xs: list[float]) -> tuple[float, float]:
    xs = [x for x in xs if x is not None]
    if not xs:
        return math.nan, math.nan
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else math.nan)


def fmt(m: float, sd: float, metric: str) -> str:
    if math.isnan(m):
        return "n/a"
    digits = 2 if metric == "goodput_mbps" else (1 if m < 100 else 0)
    s = f"{m:,.{digits}f}"
    if not math.isnan(sd):
        s += f" ± {sd:,.{digits}f}"
    return s


def ratio(a: float, b: float) -> str:
    if math.isnan(a) or math.isnan(b):
        return "n/a"
    if b == 0:
        return "=" if a == 0 else "∞"
    return f"{a / b:.2f}"


def markdown(rows: list[dict], configs: list[Config]) -> str:
    head = (
        "| variant | path | loss | seeds | goodput ns-3 | goodput satcp | ratio | "
        "satcp, ns-3's mechanisms | ratio | retx ns-3 | retx satcp | ratio | "
        "timeouts ns-3 | timeouts satcp |"
    )
    lines = [head, "|" + "---|" * 14]
    order = {c.label: i for i, c in enumerate(configs)}
    keys = sorted(
        {(r["config"], r["path"], r["loss"]) for r in rows},
        key=lambda k: (order[k[0]], [p.name for p in PATHS].index(k[1]), k[2]),
    )
    for cfg, path, loss in keys:
        sel = [r for r in rows if (r["config"], r["path"], r["loss"]) == (cfg, path, loss)]
        cell = {}
        for who in ("ns3", "satcp", "like"):
            for m, _ in METRICS:
                cell[who, m] = mean_sd([r.get(f"{who}_{m}") for r in sel])
        g3, gs, gl = (cell[w, "goodput_mbps"] for w in ("ns3", "satcp", "like"))
        r3, rs = (cell[w, "retransmissions"] for w in ("ns3", "satcp"))
        t3, ts = (cell[w, "timeouts"] for w in ("ns3", "satcp"))
        lines.append(
            f"| {cfg} | {path} | {loss:g} | {len(sel)} | "
            f"{fmt(*g3, 'goodput_mbps')} | {fmt(*gs, 'goodput_mbps')} | {ratio(gs[0], g3[0])} | "
            f"{fmt(*gl, 'goodput_mbps')} | {ratio(gl[0], g3[0])} | "
            f"{fmt(*r3, 'r')} | {fmt(*rs, 'r')} | {ratio(rs[0], r3[0])} | "
            f"{fmt(*t3, 't')} | {fmt(*ts, 't')} |"
        )
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    names: list[str] = []
    for r in rows:
        names += [k for k in r if k not in names]
    w = csv.DictWriter(buf, fieldnames=names)
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


# satcp's linux mechanisms, each switched off alone (`--ablate`): what one
# mechanism contributes to a difference from ns-3.
ABLATIONS = [
    ("RACK-TLP off", {"rack_tlp": False}),
    ("F-RTO and undo off", {"frto": False, "undo": False}),
    ("RFC 6298 RTO", {"rto_algorithm": "rfc6298"}),
    ("HyStart++ off", {"hystart": False}),
    ("byte counting off", {"byte_counting": False}),
    ("cwnd validation off", {"cwnd_validation": False}),
    ("quick ACKs off", {"quick_acks": 0}),
    ("PRR off", {"prr": False}),
]


def ablation(runs: list[Run], workers: int) -> str:
    """satcp alone: each configuration with one linux mechanism off at a
    time, and with all of ns-3's off, beside the configuration itself
    (means over the seeds)."""
    import satcp

    runs = [r for r in runs if r.config.compare_ns3_like]
    variants = [("linux profile", {}), *ABLATIONS, ("ns-3's mechanisms", None)]
    scen = []
    for r in runs:
        for _, extra in variants:
            if extra is None:
                extra = {**NS3_MECHANISMS, **r.config.ns3_like}
            scen.append(satcp_scenario(r, extra))
    res = iter(satcp.run_many(scen, workers=workers))
    cells: dict[tuple, list[list[dict]]] = {}
    for r in runs:
        key = (r.config.label, r.path.name, r.loss)
        per = cells.setdefault(key, [[] for _ in variants])
        for i in range(len(variants)):
            per[i].append(satcp_metrics(next(res)))
    head = "| variant | path | loss | " + " | ".join(name for name, _ in variants) + " |"
    lines = [
        "goodput in Mb/s (retransmitted segments / timeouts), means over the seeds",
        "",
        head,
        "|" + "---|" * (3 + len(variants)),
    ]
    for (cfg, path, loss), per in cells.items():
        row = []
        for ms in per:
            g = statistics.fmean(m["goodput_mbps"] for m in ms)
            rx = statistics.fmean(m["retransmissions"] for m in ms)
            to = statistics.fmean(m["timeouts"] for m in ms)
            row.append(f"{g:.2f} ({rx:,.0f} / {to:.1f})")
        lines.append(f"| {cfg} | {path} | {loss:g} | " + " | ".join(row) + " |")
    return "\n".join(lines) + "\n"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ns3-python", default=str(ROOT / "build" / "ns3-venv" / "bin" / "python"))
    p.add_argument("--seeds", type=int, default=5, help="seeds 1..N per lossy point (default 5)")
    p.add_argument(
        "--lossless-seeds",
        type=int,
        default=1,
        help="seeds per lossless point (default 1: nothing random but BBR's first phase)",
    )
    p.add_argument("--jobs", type=int, default=2, help="ns-3 processes at a time (default 2)")
    p.add_argument("--cache", type=Path, default=ROOT / "build" / "validate-modern" / "runs")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "validate-modern")
    p.add_argument(
        "--configs", default="all", help="comma-separated labels (e.g. 'CUBIC,BBR'), or all"
    )
    p.add_argument("--paths", default="all", help="comma-separated path names (GEO, LEO), or all")
    p.add_argument("--losses", default="all", help="comma-separated loss rates, or all")
    p.add_argument(
        "--seconds-scale",
        type=float,
        default=1.0,
        help="scale every path's duration (shorter runs while developing)",
    )
    p.add_argument(
        "--loss-model",
        choices=["shared", "independent"],
        default="shared",
        help="shared: the same data segments lost in both simulators (default); "
        "independent: each draws its own per-packet losses",
    )
    p.add_argument("--only", choices=["ns3", "satcp", "both"], default="both")
    p.add_argument(
        "--ablate",
        action="store_true",
        help="satcp only: each configuration with one linux mechanism off at a time "
        "(ABLATIONS), written to ablation.md; no ns-3",
    )
    return p.parse_args(argv)


def select(args) -> list[Run]:
    configs = CONFIGS
    if args.configs != "all":
        want = [w.strip() for w in args.configs.split(",")]
        configs = [c for c in CONFIGS if c.label in want]
    paths = PATHS
    if args.paths != "all":
        want = {w.strip() for w in args.paths.split(",")}
        paths = [p for p in PATHS if p.name in want]
    if args.seconds_scale != 1.0:
        paths = [
            Path_(p.name, p.rate_mbps, p.rtt_ms, p.seconds * args.seconds_scale) for p in paths
        ]
    losses = LOSSES if args.losses == "all" else [float(x) for x in args.losses.split(",")]
    runs = []
    for c in configs:
        for p in paths:
            for loss in losses:
                n = args.lossless_seeds if loss == 0 else args.seeds
                runs += [Run(c, p, loss, s, args.loss_model) for s in range(1, n + 1)]
    return runs


def main(argv=None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    runs = select(args)
    version = ns3_version()
    args.cache = args.cache.resolve()  # the ns-3 processes run inside it
    args.cache.mkdir(parents=True, exist_ok=True)

    if args.ablate:
        md = ablation(runs, args.jobs)
        write_atomic(args.out / "ablation.md", md)
        print(md)
        return 0

    def cached(r: Run) -> Path:
        return args.cache / f"ns3_{r.ns3_key(version)}.json"

    if args.only in ("ns3", "both"):
        # Runs with the same ns-3 settings are one ns-3 run.
        todo = list({r.ns3_key(version): r for r in runs if not cached(r).exists()}.values())
        jobs = max(1, min(args.jobs, len(todo)))
        print(
            f"ns-3: {len(todo)} runs to do for {len(runs)} table entries, in {jobs} processes",
            file=sys.stderr,
        )
        # Deal the runs out by expected cost (GEO first, lossless first).
        todo.sort(key=lambda r: (-r.path.seconds * r.path.rate_mbps, r.loss))
        chunks = [todo[i::jobs] for i in range(jobs)]
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = [
                ex.submit(run_ns3_batch, c, args.ns3_python, args.cache, version, i)
                for i, c in enumerate(chunks)
                if c
            ]
            for f in futs:
                f.result()
    if args.only == "ns3":
        return 0

    t_satcp = time.perf_counter()
    ours, like = run_satcp_all(runs, workers=args.jobs)
    print(f"satcp: {2 * len(runs)} runs in {time.perf_counter() - t_satcp:.1f} s", file=sys.stderr)
    rows = []
    failed = []
    for r, us, ul in zip(runs, ours, like, strict=True):
        path = cached(r)
        if not path.exists():
            print(f"no ns-3 result for {describe(r)}; run without --only satcp", file=sys.stderr)
            return 1
        theirs = json.loads(path.read_text())
        row = {
            "config": r.config.label,
            "path": r.path.name,
            "rate_mbps": r.path.rate_mbps,
            "rtt_ms": r.path.rtt_ms,
            "queue_packets": r.path.bdp_packets,
            "seconds": r.path.seconds,
            "loss": r.loss,
            "seed": r.seed,
        }
        if "error" in theirs:
            failed.append(describe(r))
        for k in ("goodput_mbps", "retransmissions", "recoveries", "timeouts"):
            row[f"ns3_{k}"] = theirs.get(k)
            row[f"satcp_{k}"] = us[k]
            row[f"like_{k}"] = ul[k] if ul else None
        for k in ("queue_drops", "random_losses"):
            row[f"ns3_{k}"] = theirs.get(k)
            row[f"satcp_{k}"] = us[k]
        rows.append(row)

    md = markdown(rows, CONFIGS)
    if failed:
        md += "\nns-3 runs that failed (left out of the means): " + ", ".join(failed) + "\n"
    write_atomic(args.out / "runs.csv", to_csv(rows))
    write_atomic(args.out / "summary.md", md)
    print(md)
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"written: {args.out}/runs.csv, summary.md; wall {time.perf_counter() - t_start:.0f} s, "
        f"CPU {kids.ru_utime + kids.ru_stime:.0f} s in ns-3 processes and "
        f"{own.ru_utime + own.ru_stime:.0f} s here (satcp)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
