#!/usr/bin/env python3
"""`make validate-linux` (first slice): the same bulk download simulated
(satcp, `linux` profile) and emulated (the kernel's own TCP over the same
links, `satcp emulate`), for reno, cubic and bbr, on a lossless GEO path
and a GEO path with Gilbert-Elliott bursts. Needs root. Prints one
Markdown table: download time (connection open to last byte: the
emulated one adds the handshake to satcp-bulk's download time), goodput
and segments retransmitted, simulated against emulated, with the
difference in percent. Nothing is explained here yet: issue 34, item 4.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import satcp
from satcp import emulate

BYTES = 5_000_000
#: Each path: its link settings (one link, server -> client is ab).
PATHS = {
    "geo": {"rate_bps": 10e6, "delay_s": 0.27, "queue_packets": 1000},
    "geo-ge": {
        "rate_bps": 10e6,
        "delay_s": 0.27,
        "queue_packets": 1000,
        "ab": {"errors": {"gilbert_elliott": {"p": 0.0008, "r": 0.2}}},
    },
}
CCS = ("reno", "cubic", "bbr")


def scenario(path: str, cc: str, seed: int) -> dict:
    return {
        "name": f"{path}-{cc}",
        "seed": seed,
        "duration_s": 300.0,
        "nodes": ["server", "client"],
        "links": [{"name": "sat", "a": "server", "b": "client", **PATHS[path]}],
        "apps": [
            {
                "kind": "bulk",
                "client": "client",
                "server": "server",
                "bytes": BYTES,
                "tcp": {"profile": "linux", "variant": cc},
            }
        ],
        "emulate": {
            "run": [
                {
                    "host": "server",
                    "cmd": f"satcp-bulk serve --cc {cc} --once --out $SATCP_OUT",
                    "background": True,
                },
                {
                    "host": "client",
                    "cmd": f"satcp-bulk get $SATCP_ADDR_server --bytes {BYTES} --out $SATCP_OUT"
                    " >/dev/null",
                },
            ]
        },
    }


def simulated(sc: dict) -> tuple[float, float, int]:
    r = satcp.run(sc)
    (t,) = r.transfers["response_time_s"]
    retrans = int(r.flows["server_retransmitted_segments"].sum())
    return t, BYTES * 8 / t, retrans


def emulated(sc: dict) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as out:
        emulate.emulate(sc, out=out, report=lambda *_: None)
        with open(os.path.join(out, "transfer.json")) as f:
            tr = json.load(f)
        with open(os.path.join(out, "flow_series.csv")) as f:
            rows = list(csv.DictReader(f))
    t = tr["download_time_s"] + tr["handshake_rtt_s"]
    return t, BYTES * 8 / t, int(rows[-1]["retransmitted_segments"])


def diff(sim: float, emu: float) -> str:
    return f"{(sim - emu) / emu * 100:+.0f} %" if emu else "-"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=1, help="seeds per point")
    args = p.parse_args()
    print("| path | cc | seed | time sim | time emu | diff | goodput sim | goodput emu |"
          " retrans sim | retrans emu |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in PATHS:
        for cc in CCS:
            for seed in range(1, args.seeds + 1):
                sc = scenario(path, cc, seed)
                ts, gs, rs = simulated(sc)
                te, ge, re_ = emulated(sc)
                print(
                    f"| {path} | {cc} | {seed} | {ts:.2f} s | {te:.2f} s | {diff(ts, te)} | "
                    f"{gs / 1e6:.2f} Mb/s | {ge / 1e6:.2f} Mb/s | {rs} | {re_} |",
                    flush=True,
                )
    with open("/proc/loadavg") as f:
        print(f"\nload average: {' '.join(f.read().split()[:3])} (on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
