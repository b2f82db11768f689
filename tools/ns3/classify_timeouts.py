#!/usr/bin/env python3
"""Classifies every retransmission timeout of data by what had happened, when
the timer fired, to the segment at SND.UNA (docs/validation-ns3.md, item 8).

    classify_timeouts.py ns3 EVENTS...     event logs of thesis_ftp_ns3.py --events
    classify_timeouts.py satcp TRACES...   stderr of a satcp build with
                                           tools/ns3/satcp_timeout_trace.patch

Input lines (times in s; the first data byte is sequence number 1 in both):
  T t seq len         the server's TCP sent a data segment
  C t seq len         (ns-3) a corrupted data frame reached the client
  L t link seq size c (satcp) a data packet finished transmission on `link`;
                      c = 1 if it is corrupted (the downlink is the link
                      with corrupted packets)
  R t una high cwnd ...  a timeout: SND.UNA, HighTxMark, cwnd; ns-3 ends the
                      line with the congestion state it left; in satcp's
                      line the field after cwnd is 1 if it was in fast
                      recovery (then the back-off count and the RTO)
  F t una high cwnd   (satcp) entry into fast recovery

Classes, by the last copy of the segment at SND.UNA sent before the timer
fired: a1 a fast/SACK retransmission that was corrupted; a2 a timeout
retransmission that was corrupted; b no retransmission, the original was
corrupted (b2: it was not); c a fast/SACK retransmission that got through,
the timer fired before its ACK; d a timeout retransmission that got through.
Each class is split by the sender's state: in fast recovery, in the loss
phase of an earlier timeout (SND.UNA below that timeout's HighTxMark), or
neither. ns-3's corrupted copies are matched to transmissions by time (a
frame needs at least MIN_OWD to reach the client).
"""

import collections
import sys

MIN_OWD = 0.262  # shortest server-to-client time of a full data frame (s)

CLASSES = {
    "a1": "fast/SACK retransmission corrupted",
    "a2": "timeout retransmission corrupted",
    "b": "never retransmitted, original corrupted",
    "b2": "never retransmitted, original got through",
    "c": "fast/SACK retransmission got through, timer fired first",
    "d": "timeout retransmission got through, timer fired again",
}


def load(path):
    tx = collections.defaultdict(list)
    corrupt = collections.defaultdict(list)
    links = {}
    rtos = []
    fast = 0
    with open(path) as f:
        for ln in f:
            x = ln.split()
            if not x:
                continue
            if x[0] == "T":
                tx[int(x[2])].append(float(x[1]))
            elif x[0] == "C":
                corrupt[int(x[2])].append(float(x[1]))
            elif x[0] == "L":
                per = links.setdefault(int(x[2]), collections.defaultdict(list))
                per[int(x[3])].append(x[5] == "1")
            elif x[0] == "R":
                rtos.append((float(x[1]), int(x[2]), int(x[3]), int(x[4]), x[5:]))
            elif x[0] == "F":
                fast += 1
    return tx, corrupt, links, rtos, fast


def classify(kind, path):
    tx, corrupt, links, rtos, fast = load(path)
    down = None
    if kind == "satcp":
        lk = max(links, key=lambda k: sum(sum(v) for v in links[k].values()))
        down = links[lk]
    rto_times = {round(t, 6) for t, *_ in rtos}
    n = collections.Counter()
    prev_high = None
    for t, una, high, _cwnd, extra in rtos:
        if una <= 1:  # the SYN-ACK timer
            continue
        sends = [s for s in tx.get(una, []) if s < t - 1e-9]
        if kind == "satcp":
            fates = down.get(una, [])[: len(sends)]
        else:
            cs = corrupt.get(una, [])
            fates = []
            for i, s in enumerate(sends):
                nxt = sends[i + 1] if i + 1 < len(sends) else float("inf")
                fates.append(any(s + MIN_OWD - 0.01 <= c < nxt + MIN_OWD - 0.01 for c in cs))
        by_rto = bool(sends) and round(sends[-1], 6) in rto_times
        if len(sends) == 1:
            cls = "b" if fates[0] else "b2"
        elif fates[-1]:
            cls = "a2" if by_rto else "a1"
        else:
            cls = "d" if by_rto else "c"
        in_rec = extra[-1] == "CA_RECOVERY" if kind == "ns3" else extra[0] == "1"
        in_loss = prev_high is not None and una < prev_high
        state = "recovery" if in_rec else "loss phase" if in_loss else "open"
        n[(cls, state)] += 1
        if cls == "b" and state == "open":
            n[("b-flight", min((high - una) // 1460, 3))] += 1
        prev_high = high
    return n, fast


def main(argv):
    if len(argv) < 3 or argv[1] not in ("ns3", "satcp"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: classify_timeouts.py ns3|satcp FILE...", file=sys.stderr)
        return 2
    kind = argv[1]
    tot = collections.Counter()
    fast = 0
    for p in argv[2:]:
        n, f = classify(kind, p)
        tot.update(n)
        fast += f
    runs = len(argv) - 2
    total = sum(v for k, v in tot.items() if k[0] in CLASSES)
    print(f"{kind}: {runs} runs, {total} timeouts ({total / runs:.1f} per run)")
    for c, label in CLASSES.items():
        row = [tot[(c, s)] for s in ("recovery", "loss phase", "open")]
        split = f"recovery {row[0]}, loss phase {row[1]}, open {row[2]}"
        print(f"  {c:3s} {label:58s} {sum(row):6d}  ({split})")
    fl = [tot[("b-flight", k)] for k in range(4)]
    print(f"  b in open state by segments in flight: 0:{fl[0]} 1:{fl[1]} 2:{fl[2]} 3+:{fl[3]}")
    if kind == "satcp":
        print(f"  fast retransmits: {fast}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
