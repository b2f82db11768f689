#!/usr/bin/env python3
"""`make validate-linux`: the same bulk download simulated (satcp, `linux`
profile) and emulated (the kernel's own TCP over the same links, `satcp
emulate`), for reno, cubic and bbr, on the paths of issue 34: GEO lossless,
GEO with a bit error rate, a LEO schedule with handovers, GEO with
Gilbert-Elliott bursts. Needs root. docs/validation-linux.md has the
results and what explains them.

Writes to --out (build/validate-linux): table.md (download time from
connection open to last byte, goodput, segments retransmitted, simulated
against emulated, and their ratio), rows.json, and cwnd_<path>_<cc>.png
(the simulated cwnd and the kernel's, from TCP_INFO, against time since the
connection opened, one line each per seed).

Emulated runs are cached in --out/runs/<key>/ (key: a hash of the
scenario and the repeat), so a rerun emulates only what changed; --fresh
redoes them. --repeats N runs the kernel N times on each random scenario
(the same seed draws the same losses per packet, but the kernel's packets
and timers vary from run to run): the table gives the median run, the
range, and the ratio to the median.
The simulated run starts its download when the emulated connection opened
(the relay's clock starts a little before the commands), so a schedule's
handovers fall at the same point of both downloads.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

GEO = {"rate_bps": 10e6, "delay_s": 0.27, "queue_packets": 1000}


def _leo_links() -> list[dict]:
    """The links of the bundled emulation example: delay, rate and handover
    outages on a schedule."""
    with open(ROOT / "scenarios" / "examples" / "emulate_leo_cubic.toml", "rb") as f:
        return tomllib.load(f)["links"]


#: Each path: its links (server -> client is ab), the bytes downloaded and
#: whether it draws random numbers (if not, one seed suffices).
PATHS: dict[str, dict] = {
    "geo": {"links": [{"name": "sat", "a": "server", "b": "client", **GEO}], "bytes": 5_000_000},
    "geo-ber": {
        "links": [{"name": "sat", "a": "server", "b": "client", **GEO, "errors": {"ber": 1e-7}}],
        "bytes": 5_000_000,
        "random": True,
    },
    "leo": {"links": None, "bytes": 40_000_000},
    "geo-ge": {
        "links": [
            {
                "name": "sat",
                "a": "server",
                "b": "client",
                **GEO,
                "ab": {"errors": {"gilbert_elliott": {"p": 0.0008, "r": 0.2}}},
            }
        ],
        "bytes": 5_000_000,
        "random": True,
    },
}
CCS = ("reno", "cubic", "bbr")


def links_of(path: str) -> list[dict]:
    links = PATHS[path]["links"]
    if links is None:
        (leo,) = _leo_links()
        links = [{**leo, "a": "server", "b": "client"}]
    return links


def scenario(path: str, cc: str, seed: int) -> dict:
    n = PATHS[path]["bytes"]
    return {
        "name": f"{path}-{cc}",
        "seed": seed,
        "duration_s": 300.0,
        "sample_interval_s": 0.05,
        "nodes": ["server", "client"],
        "links": links_of(path),
        "apps": [
            {
                "kind": "bulk",
                "client": "client",
                "server": "server",
                "bytes": n,
                "tcp": {"profile": "linux", "variant": cc},
            }
        ],
        "emulate": {
            "run": [
                {
                    "host": "server",
                    "cmd": f"satcp-bulk serve --cc {cc} --sample-ms 50 --once --out $SATCP_OUT",
                    "background": True,
                },
                {
                    "host": "client",
                    "cmd": f"satcp-bulk get $SATCP_ADDR_server --bytes {n} --out $SATCP_OUT"
                    " >/dev/null",
                },
            ]
        },
    }


def seeds_of(path: str, seeds: int) -> range:
    return range(1, (seeds if PATHS[path].get("random") else 1) + 1)


def cache_key(sc: dict, repeat: int = 0) -> str:
    """The cached run's key: the scenario, and for a repeat beyond the
    first its number (repeats of one scenario are separate kernel runs)."""
    keyed = sc if repeat == 0 else {**sc, "repeat": repeat}
    return hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()[:16]


def _load_1min() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def emulated(
    sc: dict, runs: Path, fresh: bool, repeat: int = 0
) -> tuple[dict, list[dict], float | None]:
    """The kernel's download over the scenario's links (cached): its
    transfer.json, TCP_INFO series and the machine's 1-minute load average
    when it ended (None in a cache entry written without it)."""
    from satcp import emulate

    done = runs / cache_key(sc, repeat)
    if fresh or not (done / "transfer.json").exists():
        tmp = done.with_name(done.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        emulate.emulate(sc, out=str(tmp), report=lambda *_: None)
        (tmp / "scenario.json").write_text(json.dumps(sc, indent=1, sort_keys=True))
        (tmp / "load.txt").write_text(f"{_load_1min()}\n")
        shutil.rmtree(done, ignore_errors=True)
        os.replace(tmp, done)
    with open(done / "transfer.json") as f:
        transfer = json.load(f)
    with open(done / "flow_series.csv") as f:
        series = list(csv.DictReader(f))
    load = done / "load.txt"
    return transfer, series, float(load.read_text()) if load.exists() else None


def simulated(sc: dict, start_s: float):
    """satcp's run of the scenario, its download starting at ``start_s``."""
    import satcp

    sc = json.loads(json.dumps(sc))
    sc["apps"][0]["start_s"] = start_s
    return satcp.run(sc)


def emulated_time(transfer: dict) -> float:
    """The kernel's time from connection open to the last byte."""
    return transfer["download_time_s"] + transfer["handshake_rtt_s"]


def median_run(runs: list[tuple]) -> tuple:
    """Of repeated emulated runs (transfer, series, load), the one whose
    time is the median (the lower middle of an even number): the kernel's
    run-to-run spread on a random path is not the simulator's error."""
    ordered = sorted(runs, key=lambda r: emulated_time(r[0]))
    return ordered[(len(ordered) - 1) // 2]


def row(
    path: str,
    cc: str,
    seed: int,
    n: int,
    sim,
    transfer: dict,
    series: list[dict],
    emu_times: list[float] | None = None,
) -> dict:
    """One line of the table from both runs; ``emu_times``: every repeat's
    emulated time, when the scenario was emulated more than once."""
    (t_sim,) = sim.transfers["response_time_s"]
    t_emu = emulated_time(transfer)
    times = emu_times or [t_emu]
    return {
        "path": path,
        "cc": cc,
        "seed": seed,
        "time_sim_s": float(t_sim),
        "time_emu_s": t_emu,
        "goodput_sim_bps": n * 8 / t_sim,
        "goodput_emu_bps": n * 8 / t_emu,
        "retrans_sim": int(sim.flows["server_retransmitted_segments"].sum()),
        "retrans_emu": int(series[-1]["retransmitted_segments"]),
        "time_emu_min_s": min(times),
        "time_emu_max_s": max(times),
        "emu_runs": len(times),
    }


def ratio(sim: float, emu: float) -> float:
    return sim / emu if emu else math.nan


def table(rows: list[dict]) -> str:
    """The Markdown table of ``rows`` (from `row`); a ratio is sim / emu."""
    lines = [
        "| path | cc | seed | time sim | time emu | emu range | ratio | goodput sim |"
        " goodput emu | retrans sim | retrans emu |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        q = ratio(r["time_sim_s"], r["time_emu_s"])
        flag = " **" if abs(q - 1) > 0.10 else ""
        spread = "-"
        if r.get("emu_runs", 1) > 1:
            spread = f"{r['time_emu_min_s']:.2f}-{r['time_emu_max_s']:.2f} s ({r['emu_runs']})"
        lines.append(
            f"| {r['path']} | {r['cc']} | {r['seed']} | {r['time_sim_s']:.2f} s |"
            f" {r['time_emu_s']:.2f} s | {spread} | {q:.2f}{flag} |"
            f" {r['goodput_sim_bps'] / 1e6:.2f} Mb/s | {r['goodput_emu_bps'] / 1e6:.2f} Mb/s |"
            f" {r['retrans_sim']} | {r['retrans_emu']} |"
        )
    return "\n".join(lines) + "\n"


def load_note(loads: list[float | None], cores: int | None) -> str:
    """The machine's load while the emulated runs ran (they run in real
    time, so a loaded machine shows in them)."""
    known = [x for x in loads if x is not None]
    text = "load average (1 minute) at the end of each emulated run: "
    text += f"{min(known):.1f} to {max(known):.1f}" if known else "not recorded"
    if len(known) < len(loads):
        text += f" ({len(loads) - len(known)} of {len(loads)} runs cached without it)"
    return text + f", on {cores} cores\n"


def emulated_cwnd(transfer: dict, series: list[dict]) -> tuple[list[float], list[float]]:
    """The kernel's cwnd (bytes) against time since its connection opened
    (the request went out a handshake after the connection opened)."""
    t_open = transfer["start_s"] - transfer["handshake_rtt_s"]
    return (
        [float(s["time_s"]) - t_open for s in series],
        [float(s["cwnd"]) for s in series],
    )


def simulated_cwnd(sim, start_s: float) -> tuple[list[float], list[float]]:
    fs = sim.flow_series
    fs = fs[fs["time_s"] >= start_s]
    return list(fs["time_s"] - start_s), list(fs["cwnd"].astype(float))


def plot(path: str, cc: str, curves: list[tuple[int, tuple, tuple]], out: Path) -> None:
    """cwnd simulated (solid) and emulated (dashed), one colour per seed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    for i, (seed, (ts, cs), (te, ce)) in enumerate(curves):
        colour = f"C{i}"
        ax.plot(ts, [c / 1e3 for c in cs], color=colour, label=f"satcp, seed {seed}")
        ax.plot(te, [c / 1e3 for c in ce], color=colour, ls="--", label=f"kernel, seed {seed}")
    ax.set_xlabel("time since the connection opened (s)")
    ax.set_ylabel("cwnd (kB)")
    ax.set_title(f"{path}, {cc}: satcp linux profile (solid) and the kernel (dashed)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    tmp = out / f".cwnd_{path}_{cc}.png"
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, out / f"cwnd_{path}_{cc}.png")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=3, help="seeds per random path (default 3)")
    p.add_argument("--paths", default=",".join(PATHS), help="comma-separated paths")
    p.add_argument("--ccs", default=",".join(CCS), help="comma-separated variants")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "validate-linux")
    p.add_argument("--fresh", action="store_true", help="redo cached emulated runs")
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="kernel runs per random scenario; the table shows the median and the range"
        " (default 1)",
    )
    args = p.parse_args()
    paths = args.paths.split(",")
    ccs = args.ccs.split(",")
    for name, known in (("--paths", PATHS), ("--ccs", CCS)):
        bad = [x for x in (paths if name == "--paths" else ccs) if x not in known]
        if bad:
            print(
                f"validate_linux: {name}: unknown {bad[0]!r} (known: {list(known)})",
                file=sys.stderr,
            )
            return 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    loads: list[float | None] = []
    print(table([]), end="", flush=True)
    for path in paths:
        for cc in ccs:
            curves = []
            for seed in seeds_of(path, args.seeds):
                sc = scenario(path, cc, seed)
                repeats = args.repeats if PATHS[path].get("random") else 1
                runs = [emulated(sc, args.out / "runs", args.fresh, k) for k in range(repeats)]
                loads.extend(load for _, _, load in runs)
                transfer, series, _ = median_run(runs)
                times = [emulated_time(t) for t, _, _ in runs]
                start = round(transfer["start_s"] - transfer["handshake_rtt_s"], 3)
                sim = simulated(sc, max(0.0, start))
                n = PATHS[path]["bytes"]
                rows.append(row(path, cc, seed, n, sim, transfer, series, times))
                print(table(rows[-1:]).splitlines()[-1], flush=True)
                curves.append(
                    (seed, simulated_cwnd(sim, max(0.0, start)), emulated_cwnd(transfer, series))
                )
            plot(path, cc, curves, args.out)
    note = "\n" + load_note(loads, os.cpu_count())
    print(note, end="")
    (args.out / "table.md").write_text(table(rows) + note)
    (args.out / "rows.json").write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
