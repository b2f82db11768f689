#!/usr/bin/env python3
"""First divergence between an ns-3 and a satcp run of the same lossy download.

Reads two pcap files of the satellite downlink: ns-3's capture of the
gateway's downlink device (``thesis_ftp_ns3.py --pcap PREFIX``: link type
PPP, data segments as they start to leave the gateway and ACKs as they
arrive from the client) and satcp's ``--pcap satellite:ab`` (link type raw
IPv4, segments as they start to leave).  Lists the data segments the server
sent, in the order they left the gateway (time, sequence number, length,
whether the sequence number was sent before), side by side, and stops a few
lines after the first one that differs in sequence number or by more than
``--tolerance-ms`` in time (the lossless runs agree to 0.3 ms).

Both simulators start data at sequence number 1, so sequence numbers compare
directly.  Only the standard library is used.
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path


def read_pcap(path: Path) -> list[tuple[float, bytes]]:
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0xA1B2C3D4:
        endian, scale = "<", 1e-6
    elif magic == 0xA1B23C4D:
        endian, scale = "<", 1e-9
    elif magic == 0xD4C3B2A1:
        endian, scale = ">", 1e-6
    elif magic == 0x4D3CB2A1:
        endian, scale = ">", 1e-9
    else:
        raise ValueError(f"{path}: not a pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    skip = {9: 2, 101: 0, 228: 0, 1: 14}.get(linktype)
    if skip is None:
        raise ValueError(f"{path}: link type {linktype} not handled")
    out = []
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(endian + "IIII", data[off : off + 16])
        pkt = data[off + 16 : off + 16 + incl]
        off += 16 + incl
        out.append((sec + frac * scale, pkt[skip:], _orig - skip))
    return out


def tcp_segments(path: Path) -> list[dict]:
    segs = []
    for t, ip, _orig_len in read_pcap(path):
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        tcp = ip[ihl:]
        sport, dport, seq, ack = struct.unpack("!HHII", tcp[:12])
        doff = (tcp[12] >> 4) * 4
        flags = tcp[13]
        payload = total - ihl - doff
        sacks = []
        opts = tcp[20:doff]
        i = 0
        while i < len(opts):
            kind = opts[i]
            if kind == 0:
                break
            if kind == 1:
                i += 1
                continue
            ln = opts[i + 1] if i + 1 < len(opts) else 0
            if ln < 2:
                break
            if kind == 5:
                for j in range(i + 2, i + ln, 8):
                    sacks.append(struct.unpack("!II", opts[j : j + 8]))
            i += ln
        segs.append(
            {
                "t": t,
                "sport": sport,
                "dport": dport,
                "seq": seq,
                "ack": ack,
                "len": payload,
                "flags": flags,
                "sacks": sacks,
            }
        )
    return segs


def data_sends(segs: list[dict]) -> list[dict]:
    """Data segments of the side that sends the most payload, in order, each
    marked as a retransmission when its sequence number was sent before."""
    by_port: dict[int, int] = {}
    for s in segs:
        by_port[s["sport"]] = by_port.get(s["sport"], 0) + s["len"]
    server = max(by_port, key=by_port.get)
    seen: set[int] = set()
    out = []
    for s in segs:
        if s["sport"] != server or s["len"] == 0:
            continue
        s = dict(s, rtx=s["seq"] in seen)
        seen.add(s["seq"])
        out.append(s)
    return out


def fmt(s: dict | None) -> str:
    if s is None:
        return "-"
    return f"{s['t']:12.6f} {s['seq']:>10} {s['len']:>5}{' RTX' if s['rtx'] else '    '}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("ns3_pcap", type=Path)
    p.add_argument("satcp_pcap", type=Path)
    p.add_argument("--tolerance-ms", type=float, default=2.0)
    p.add_argument("--context", type=int, default=8, help="lines shown before and after")
    args = p.parse_args(argv)
    a = data_sends(tcp_segments(args.ns3_pcap))
    b = data_sends(tcp_segments(args.satcp_pcap))
    n = max(len(a), len(b))
    first = None
    for i in range(n):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        if x is None or y is None or x["seq"] != y["seq"]:
            first = i
            break
        if abs(x["t"] - y["t"]) * 1e3 > args.tolerance_ms:
            first = i
            break
    print(
        f"data segments sent: ns-3 {len(a)} (retransmitted {sum(s['rtx'] for s in a)}), "
        f"satcp {len(b)} (retransmitted {sum(s['rtx'] for s in b)})"
    )
    if first is None:
        print("no divergence")
        return 0
    print(f"first divergence at data segment #{first}")
    print(f"{'#':>6}  {'ns-3: time (s)      seq   len':<36}  satcp: time (s)      seq   len")
    for i in range(max(0, first - args.context), min(n, first + args.context + 1)):
        x = a[i] if i < len(a) else None
        y = b[i] if i < len(b) else None
        mark = ">>" if i == first else "  "
        print(f"{mark}{i:>4}  {fmt(x):<36}  {fmt(y)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
