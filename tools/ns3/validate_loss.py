#!/usr/bin/env python3
"""Cross-validation of satcp against ns-3 3.44 under loss (`make validate`).

Runs the thesis FTP download (Fig. 7.2; SACK; delayed ACK on and off) in
both simulators for several seeds at each point

- bit errors on the downlink at BER 1e-7, 1e-6 and 1e-5 (gateway buffer
  1000 packets, as the lossless validation), and
- a 15-packet gateway buffer without bit errors (congestion losses only,
  thesis Sec. 7.5.1: "finite buffer sizes of the gateway to 15 ... packets
  for FTP"),

and writes the seed means of download time, retransmitted segments, fast
retransmits and retransmission timeouts side by side (CSV and Markdown),
plus one CSV row per run.  docs/validation-ns3.md, "Under loss", explains
the settings and every difference.

Run it with the project's Python (it imports satcp); the ns-3 side runs
`tools/ns3/thesis_ftp_ns3.py` under the Python of a separate virtual
environment that has the PyPI `ns3` package (`--ns3-python`), at most
`--jobs` ns-3 processes at a time.  Each ns-3 run's JSON is kept in
`--cache`, so an interrupted validation resumes and a second call only
recomputes the table.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NS3_SCRIPT = HERE / "thesis_ftp_ns3.py"
SCENARIO = ROOT / "scenarios" / "thesis_ftp.toml"

FULL_FILE = 50_000_000

METRICS = [
    ("download_time_s", "download time (s)"),
    ("retransmitted_segments", "retransmitted segments"),
    ("fast_retransmits", "fast retransmits"),
    ("timeouts", "retransmission timeouts"),
]


@dataclass(frozen=True)
class Point:
    name: str
    ber: float
    gateway_queue: int
    file_bytes: int


def default_points(bytes_1e5: int) -> list[Point]:
    return [
        Point("BER 1e-7", 1e-7, 1000, FULL_FILE),
        Point("BER 1e-6", 1e-6, 1000, FULL_FILE),
        Point("BER 1e-5", 1e-5, 1000, bytes_1e5),
        Point("15-packet buffer", 0.0, 15, FULL_FILE),
    ]


@dataclass(frozen=True)
class Run:
    point: Point
    delack: bool
    seed: int

    @property
    def key(self) -> str:
        d = "on" if self.delack else "off"
        return (
            f"ber{self.point.ber:g}_q{self.point.gateway_queue}_b{self.point.file_bytes}"
            f"_delack{d}_seed{self.seed}"
        )


# ----------------------------------------------------------------- ns-3 side
def ns3_spec(run: Run, key: str) -> dict:
    """One line of a `thesis_ftp_ns3.py --batch` file."""
    return {
        "key": key,
        "delack": "on" if run.delack else "off",
        "bytes": run.point.file_bytes,
        "ber": run.point.ber,
        "gateway_queue_packets": run.point.gateway_queue,
        "seed": run.seed,
        "max_sim_s": 400000.0,
    }


def ns3_cache_path(cache: Path, run: Run, tag: str) -> Path:
    return cache / f"ns3{tag}_{run.key}.json"


def run_ns3_batch(runs: list[Run], python: str, cache: Path, extra: list[str], tag: str, i: int):
    """Runs `runs` in one ns-3 process (ns-3 loads once: loading takes far
    longer than a run) and stores each result as it arrives."""
    if not runs:
        return
    batch = cache / f"batch{tag}_{i}.jsonl"
    batch.write_text("".join(json.dumps(ns3_spec(r, r.key)) + "\n" for r in runs))
    by_key = {r.key: r for r in runs}
    # cwd: the ns3 package looks for its libraries below the working
    # directory too; a small directory keeps that quick and unambiguous.
    # The child runs in `cache`: make the interpreter's path absolute (not
    # resolved: a venv's python is a symlink that must stay one).
    cmd = [
        os.path.abspath(python),
        str(NS3_SCRIPT),
        "--variant",
        "sack",
        "--batch",
        str(batch),
        *extra,
    ]
    with subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cache
    ) as proc:
        for line in proc.stdout:
            if not line.startswith("{"):
                continue
            out = json.loads(line)
            run = by_key[out["key"]]
            path = ns3_cache_path(cache, run, tag)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(out))
            os.replace(tmp, path)
            print(
                f"  ns-3 {run.key}: {out['response_time_s']} s "
                f"(run loop {out['wall_run_s']:.1f} s)",
                file=sys.stderr,
                flush=True,
            )
        err = proc.stderr.read()
    missing = [r.key for r in runs if not ns3_cache_path(cache, r, tag).exists()]
    if missing:
        raise RuntimeError(f"ns-3 gave no result for {missing}: {err[-800:]}")


def ns3_metrics(out: dict) -> dict:
    return {
        "download_time_s": out["response_time_s"],
        "retransmitted_segments": out["retransmissions"],
        "fast_retransmits": out["fast_retransmits"],
        "timeouts": out["timeouts"],
        "corrupted": out["corrupted"],
        "queue_drops": out["queue_drops"],
    }


# ---------------------------------------------------------------- satcp side
def satcp_overrides(run: Run) -> list[str]:
    return [
        "tcp.variant=sack",
        f"tcp.delayed_ack={'true' if run.delack else 'false'}",
        # ns-3 caps the backed-off RTO at 60 s (TcpSocketBase::ReTxTimeout).
        "tcp.max_rto=60",
        f"links[1].ab.errors.ber={run.point.ber!r}",
        f"links[1].ab.queue_packets={run.point.gateway_queue}",
        f"apps[0].file_bytes={run.point.file_bytes}",
        "duration_s=400000",
        "sample_interval_s=0",
    ]


def run_satcp(run: Run) -> dict:
    import satcp

    r = satcp.run(SCENARIO, seed=run.seed, overrides=satcp_overrides(run))
    d = r.raw
    flow = d["flows"][0]
    srv = flow["server"]
    transfers = d.get("transfers") or []
    down = next((ln for ln in d["links"] if ln["name"] == "satellite:ab"), None)
    return {
        "download_time_s": transfers[0]["response_time_s"] if transfers else None,
        "retransmitted_segments": srv["retransmitted_segments"],
        "fast_retransmits": srv["fast_retransmits"],
        "timeouts": srv["timeouts"],
        "corrupted": down["stats"]["corrupted"] if down else None,
        "queue_drops": down["stats"]["queue_drops"] if down else None,
    }


# ------------------------------------------------------------------- tables
def mean(xs: list[float]) -> float:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else math.nan


def diff_pct(ns3: float, ours: float) -> float:
    if ns3 == 0:
        return 0.0 if ours == 0 else math.inf
    return 100.0 * (ours - ns3) / ns3


def summarise(rows: list[dict]) -> list[dict]:
    out = []
    keys = sorted(
        {(r["point"], r["delack"]) for r in rows}, key=lambda k: (_order(k[0]), k[1] != "on")
    )
    for point, delack in keys:
        sel = [r for r in rows if r["point"] == point and r["delack"] == delack]
        for m, label in METRICS:
            n3 = mean([r[f"ns3_{m}"] for r in sel])
            us = mean([r[f"satcp_{m}"] for r in sel])
            out.append(
                {
                    "point": point,
                    "file_bytes": sel[0]["file_bytes"],
                    "delack": delack,
                    "seeds": len(sel),
                    "metric": label,
                    "ns3_mean": n3,
                    "satcp_mean": us,
                    "diff_pct": diff_pct(n3, us),
                }
            )
    return out


_POINT_ORDER: list[str] = []


def _order(name: str) -> int:
    return _POINT_ORDER.index(name) if name in _POINT_ORDER else len(_POINT_ORDER)


def fmt(v: float, metric: str) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{v:,.1f}" if metric.startswith("download") else f"{v:,.2f}"


def markdown(summary: list[dict]) -> str:
    lines = [
        "| point | file | delayed ACK | metric | ns-3 mean | satcp mean | satcp - ns-3 |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in summary:
        d = s["diff_pct"]
        ds = "n/a" if math.isnan(d) else ("inf" if math.isinf(d) else f"{d:+.1f}%")
        lines.append(
            f"| {s['point']} | {s['file_bytes'] / 1e6:g} MB | {s['delack']} | {s['metric']} | "
            f"{fmt(s['ns3_mean'], s['metric'])} | {fmt(s['satcp_mean'], s['metric'])} | {ds} |"
        )
    return "\n".join(lines) + "\n"


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0].keys()))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ns3-python", default=str(ROOT / "build" / "ns3-venv" / "bin" / "python"))
    p.add_argument("--seeds", type=int, default=8, help="seeds 1..N per point (default 8)")
    p.add_argument("--jobs", type=int, default=2, help="ns-3 processes at a time (default 2)")
    p.add_argument("--cache", type=Path, default=ROOT / "build" / "validate-ns3" / "runs")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "validate-ns3")
    p.add_argument(
        "--bytes-1e5",
        type=int,
        default=FULL_FILE,
        help="file size at BER 1e-5 (a smaller file keeps ns-3's run time down)",
    )
    p.add_argument(
        "--points",
        default="all",
        help="comma-separated subset of point names (e.g. 'BER 1e-6,BER 1e-5')",
    )
    p.add_argument("--delack", choices=["on", "off", "both"], default="both")
    p.add_argument("--only", choices=["ns3", "satcp", "both"], default="both")
    p.add_argument(
        "--ns3-extra",
        default="",
        help="extra options for thesis_ftp_ns3.py (e.g. '--ssthresh-rule flightsize'); "
        "their runs are cached under their own tag",
    )
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    points = default_points(args.bytes_1e5)
    _POINT_ORDER[:] = [pt.name for pt in points]
    if args.points != "all":
        wanted = {w.strip() for w in args.points.split(",")}
        points = [pt for pt in points if pt.name in wanted]
    delacks = {"on": [True], "off": [False], "both": [True, False]}[args.delack]
    runs = [Run(pt, d, s) for pt in points for d in delacks for s in range(1, args.seeds + 1)]
    extra = args.ns3_extra.split()
    tag = ("_" + "_".join(x.lstrip("-") for x in extra)) if extra else ""
    args.cache = args.cache.resolve()  # the ns-3 processes run inside it
    args.cache.mkdir(parents=True, exist_ok=True)

    if args.only in ("ns3", "both"):
        todo = [r for r in runs if not ns3_cache_path(args.cache, r, tag).exists()]
        jobs = max(1, min(args.jobs, len(todo)))
        print(
            f"ns-3: {len(todo)} of {len(runs)} runs to do, in {jobs} processes",
            file=sys.stderr,
            flush=True,
        )
        # Longest first within each process does not matter; split evenly by
        # expected work (BER 1e-5 runs are the long ones).
        todo.sort(key=lambda r: -r.point.ber)
        chunks = [todo[i::jobs] for i in range(jobs)]
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = [
                ex.submit(run_ns3_batch, c, args.ns3_python, args.cache, extra, tag, i)
                for i, c in enumerate(chunks)
            ]
            for f in futs:
                f.result()
    if args.only == "ns3":
        return 0

    rows = []
    incomplete: list[str] = []
    for r in runs:
        ours = run_satcp(r)
        path = ns3_cache_path(args.cache, r, tag)
        theirs = json.loads(path.read_text()) if path.exists() else None
        if theirs is None:
            print(f"no ns-3 result for {r.key}; run without --only satcp", file=sys.stderr)
            return 1
        t = ns3_metrics(theirs)
        row = {
            "point": r.point.name,
            "ber": r.point.ber,
            "gateway_queue_packets": r.point.gateway_queue,
            "file_bytes": r.point.file_bytes,
            "delack": "on" if r.delack else "off",
            "seed": r.seed,
        }
        for k in t:
            row[f"ns3_{k}"] = t[k]
            row[f"satcp_{k}"] = ours[k]
        rows.append(row)
        for who, v in (("ns-3", t["download_time_s"]), ("satcp", ours["download_time_s"])):
            if v is None:
                incomplete.append(f"{who} {r.key}")

    summary = summarise(rows)
    md = markdown(summary)
    if incomplete:
        # Means leave these runs out; say so rather than hide it.
        md += (
            "\nTransfers that did not complete (left out of the means): "
            + ", ".join(incomplete)
            + "\n"
        )
    write_atomic(args.out / f"runs{tag}.csv", to_csv(rows))
    write_atomic(args.out / f"summary{tag}.csv", to_csv(summary))
    write_atomic(args.out / f"summary{tag}.md", md)
    print(md)
    print(f"written: {args.out}/runs{tag}.csv, summary{tag}.csv, summary{tag}.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
