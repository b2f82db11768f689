#!/usr/bin/env python3
"""`make bench-emu`: how much satcp emulate's relay holds in real time
(docs/emulation.md, "Real-time capacity"). Needs root.

First the relay's model alone (`satcp-emu --bench-model`: its cost per
packet, the ceiling of the forwarding rate on one core); then three runs
of satcp-bulk's UDP blast from host "client" to host "server"
through one emulated link of 20 ms:

- flat out: the link at 10 Gb/s, the sender as fast as it can for 2 s:
  the relay's forwarding rate at 1,500-byte packets (frames delivered per
  second), with the frames it lost (socket drops: it fell behind); with
  no drops the sender was the limit and the rate is a lower bound;
- 100 Mb/s offered over a 10 Gb/s link: every packet's one-way delay
  against the link's (20 ms + 1.2 us of serialization): the delay error
  at the 50th and 99th percentile, end to end (the sender's send() to the
  receiver's kernel receive time), and the relay's own lateness;
- 110 Mb/s offered over a 100 Mb/s link: the rate delivered, on average
  (the link idles when the sender stalls) and by the median gap between
  two datagrams (the link's transmission time while it is busy).

Prints a table with the machine's load; writes the forwarding rate to
$XDG_CACHE_HOME/satcp/emu-bench.json (default ~/.cache), where
`satcp emulate` compares a scenario's rates with it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from satcp import emulate

DELAY_S = 0.02
PACKET_BYTES = 1500


def scenario(rate_bps: float, offered_bps: float, seconds: float) -> dict:
    blast = (
        f"sleep 0.5 && satcp-bulk blast $SATCP_ADDR_server --rate-bps {offered_bps} "
        f"--seconds {seconds}"
    )
    return {
        "name": "bench-emu",
        "duration_s": seconds + 30.0,
        "nodes": ["client", "server"],
        "links": [
            {
                "name": "link",
                "a": "client",
                "b": "server",
                "rate_bps": rate_bps,
                "delay_s": DELAY_S,
                "queue_packets": 1_000_000,
            }
        ],
        "apps": [{"kind": "bulk", "client": "client", "server": "server", "bytes": 1}],
        "emulate": {
            "run": [
                {"host": "server", "cmd": "satcp-bulk sink --out $SATCP_OUT", "background": True},
                {"host": "client", "cmd": blast},
            ]
        },
    }


def run(rate_bps: float, offered_bps: float, seconds: float) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory() as out:
        summary = emulate.emulate(
            scenario(rate_bps, offered_bps, seconds), out=out, report=lambda *_: None
        )
        with open(os.path.join(out, "sink.json")) as f:
            return summary, json.load(f)


def lateness(r: dict) -> str:
    p50, p99 = r["lateness_p50_s"] * 1e6, r["lateness_p99_s"] * 1e6
    return f"lateness p50 {p50:.0f} us, p99 {p99:.0f} us"


def load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="blast length per run")
    args = p.parse_args()
    rows = []
    model = json.loads(
        subprocess.run(
            [emulate.relay_binary(), "--bench-model"], capture_output=True, text=True, check=True
        ).stdout
    )
    rows.append(
        (
            "model alone (no sockets)",
            f"{model['packets']:,} packets",
            f"{model['ns_per_packet']:.0f} ns/packet = {model['packets_per_s']:,.0f} pkt/s",
            "",
        )
    )
    s, k = run(10e9, 0, args.seconds)
    r = s["relay"]
    forwarding_pps = k["rate_pps"]
    rows.append(
        (
            "flat out, 10 Gb/s link",
            f"{k['sent']} sent, {k['received']} received, {r['socket_drops']} socket drops, "
            f"{r['send_failures']} send failures",
            f"{forwarding_pps:,.0f} pkt/s = {forwarding_pps * PACKET_BYTES * 8 / 1e6:,.0f} Mb/s",
            lateness(r),
        )
    )
    s, k = run(10e9, 100e6, args.seconds)
    r = s["relay"]
    expected = DELAY_S + PACKET_BYTES * 8 / 10e9
    rows.append(
        (
            "100 Mb/s over 10 Gb/s",
            f"{k['sent']} sent, {k['received']} received, {r['socket_drops']} socket drops, "
            f"{r['send_failures']} send failures",
            f"delay error p50 {(k['one_way_p50_s'] - expected) * 1e6:.0f} us, "
            f"p99 {(k['one_way_p99_s'] - expected) * 1e6:.0f} us",
            lateness(r),
        )
    )
    s, k = run(100e6, 110e6, args.seconds)
    r = s["relay"]
    rows.append(
        (
            "110 Mb/s over 100 Mb/s",
            f"{k['sent']} sent, {k['received']} received, {r['socket_drops']} socket drops, "
            f"{r['send_failures']} send failures",
            f"delivered {k['rate_pps'] * PACKET_BYTES * 8 / 1e6:.2f} Mb/s on average, "
            f"{PACKET_BYTES * 8 / k['gap_p50_s'] / 1e6:.2f} Mb/s by the median gap",
            lateness(r),
        )
    )
    for row in rows:
        print(" | ".join(row))
    print(f"load average: {load()} (on {os.cpu_count()} cores)")
    path = emulate.bench_file()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(
            {"forwarding_pps": forwarding_pps, "model_pps": model["packets_per_s"], "load": load()},
            f,
        )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
