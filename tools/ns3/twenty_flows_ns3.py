#!/usr/bin/env python3
"""ns-3 counterpart of satcp's benchmark scenario (b): 20 bulk flows sharing a GEO bottleneck.

Builds in ns-3 (PyPI package ``ns3``, 3.44) the network of
``crates/satcp-core/benches/common/mod.rs`` ``twenty_flows``:

    s_i --100 Mb/s, 1 ms-- gateway --10 Mb/s, 250 ms, 50-packet queue-- terminal
    terminal --100 Mb/s, 1 ms-- c_i

for i = 0..19; flow i starts at 0.1 i s: client c_i connects to server s_i,
which sends without end (BulkSend-like: it starts on accept); the run lasts
550 simulated seconds. TCP settings are those of ``thesis_ftp_ns3.py``
(satcp's defaults: NewReno with SACK, delayed ACK, 1460-byte MSS, initial
window 2, 64 KB receive window), and its applications are reused.

It exists to compare speed (``make bench-ns3``), not results: it prints the
event count and the wall time of ``Simulator::Run``. Options: --flows N,
--seconds S, --json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--flows", type=int, default=20)
    p.add_argument("--seconds", type=float, default=550.0)
    p.add_argument("--json", action="store_true", help="print one JSON line")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    t_import = time.perf_counter()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cppyy
    from ns import ns
    from thesis_ftp_ns3 import CPP_APPS

    cppyy.cppdef(CPP_APPS)
    sv = cppyy.gbl.satcpval
    t_ready = time.perf_counter()

    SD = ns.Config.SetDefault
    SD("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpNewReno")))
    SD(
        "ns3::TcpL4Protocol::RecoveryType",
        ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")),
    )
    SD("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    SD("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
    SD("ns3::TcpSocket::InitialSlowStartThreshold", ns.UintegerValue(65535))
    SD("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(65535))
    SD("ns3::TcpSocket::SndBufSize", ns.UintegerValue(16 * 1024 * 1024))
    SD("ns3::TcpSocket::TcpNoDelay", ns.BooleanValue(True))
    SD("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(3.0)))
    SD("ns3::TcpSocket::DataRetries", ns.UintegerValue(6))
    SD("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    SD("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.2)))
    SD("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(False))
    SD("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    SD("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    SD("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1.0)))
    SD("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.Seconds(0.5)))
    SD("ns3::TcpSocketBase::MaxWindowSize", ns.UintegerValue(65535))
    SD("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(2.5)))

    gw_nodes = ns.NodeContainer()
    gw_nodes.Create(2)
    gateway, terminal = gw_nodes.Get(0), gw_nodes.Get(1)
    servers = ns.NodeContainer()
    servers.Create(args.flows)
    clients = ns.NodeContainer()
    clients.Create(args.flows)
    stack = ns.InternetStackHelper()
    stack.Install(gw_nodes)
    stack.Install(servers)
    stack.Install(clients)

    def p2p(rate_bps, delay_ms, queue_packets):
        h = ns.PointToPointHelper()
        h.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(round(rate_bps))))
        h.SetChannelAttribute("Delay", ns.TimeValue(ns.MilliSeconds(delay_ms)))
        h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{queue_packets}p"))
        return h

    addr = ns.Ipv4AddressHelper()
    tch = ns.TrafficControlHelper()
    devs = p2p(10e6, 250, 50).Install(gateway, terminal)
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(devs)
    tch.Uninstall(devs)
    access = p2p(100e6, 1, 1000)
    server_addrs = []
    for i in range(args.flows):
        d = access.Install(servers.Get(i), gateway)
        addr.SetBase(ns.Ipv4Address(f"10.1.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        server_addrs.append(addr.Assign(d).GetAddress(0))
        tch.Uninstall(d)
        d = access.Install(terminal, clients.Get(i))
        addr.SetBase(ns.Ipv4Address(f"10.2.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(d)
        tch.Uninstall(d)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sv.ResetResult()
    for i in range(args.flows):
        sv.InstallFtp(
            servers.Get(i), clients.Get(i), server_addrs[i], 5000 + i, 1 << 50, 0, 0.1 * i
        )
    ns.Simulator.Stop(ns.Seconds(args.seconds))

    t0 = time.perf_counter()
    ns.Simulator.Run()
    t1 = time.perf_counter()
    out = {
        "flows": args.flows,
        "seconds": args.seconds,
        "rx_bytes": int(sv.g_res.rxBytes),
        "events": int(ns.Simulator.GetEventCount()),
        "wall_run_s": t1 - t0,
        "wall_setup_s": t0 - t_import,
        "wall_ns3_load_s": t_ready - t_import,
    }
    ns.Simulator.Destroy()
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"ns-3 {args.flows} bulk flows, {args.seconds:g} s: received {out['rx_bytes']:,} B; "
            f"events {out['events']:,}; Simulator::Run wall {out['wall_run_s']:.2f} s; "
            f"setup incl. ns-3 load {out['wall_setup_s']:.2f} s"
        )
    return 0 if out["rx_bytes"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
