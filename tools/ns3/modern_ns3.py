#!/usr/bin/env python3
"""ns-3 side of `make validate-modern`: one bulk transfer over one bottleneck.

Builds in ns-3 (PyPI package ``ns3``, 3.44, cppyy bindings) the network

    server --rate, one-way delay RTT/2, drop-tail queue of Q packets-- client

(the queue on the server's device; the reverse direction, which carries
the ACKs, has the same rate and delay and a queue that never fills), with
random packet loss at probability --loss on the data direction
(RateErrorModel, packet unit, on the client's device) or the loss of the
first copy of the data segments that carry listed sequence numbers
(--drop-seqs), and runs one
bulk transfer for --seconds: the client connects at t = 0, the server
sends without end from the moment it accepts (BulkSend-like; the
applications of ``thesis_ftp_ns3.py``). It reports the bytes the client
application read in order, the server's retransmitted segments (its
``Retransmission`` trace), its fast recoveries (entries into CA_RECOVERY)
and its retransmission timeouts (every expiry of the data timer:
ReTxTimeout calls CongestionStateSet(CA_LOSS) on each one), plus the
packets the queue dropped and the error model discarded.

Congestion controls (--cc): TcpCubic, TcpBbr, TcpWestwoodPlus, TcpHybla,
TcpNewReno, each wrapped in a subclass that only counts the congestion
states (behaviour unchanged). Loss recovery (--recovery): TcpPrrRecovery
or TcpClassicRecovery. The stack (--stack) sets the TCP attributes to what
satcp's `tcp.profile` of the same name sets, as far as ns-3 has them
(docs/validation-ns3.md, "Modern congestion controls").

Run it with the Python of the virtual environment that has ns-3 (see
``thesis_ftp_ns3.py``); ``--batch FILE`` runs one line of JSON option
overrides per run in one process (ns-3 loads once) and prints one JSON
line per run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Counting wrappers: the congestion control unchanged, each congestion
# state it is told of counted. CongestionStateSet(CA_RECOVERY) comes from
# TcpSocketBase::EnterRecovery (once per fast recovery), CA_LOSS from
# ReTxTimeout (once per expiry of the data timer, also when the state
# already is CA_LOSS).
CPP_COUNTING = r"""
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/core-module.h"
#include "ns3/point-to-point-module.h"

#include <set>

namespace satcpmod
{
using namespace ns3;

struct Counts
{
    uint64_t recoveries = 0;
    uint64_t timeouts = 0;
};

Counts g_cnt;

void ResetCounts() { g_cnt = Counts(); }

inline void Count(TcpSocketState::TcpCongState_t s)
{
    if (s == TcpSocketState::CA_RECOVERY)
    {
        g_cnt.recoveries++;
    }
    else if (s == TcpSocketState::CA_LOSS)
    {
        g_cnt.timeouts++;
    }
}

// Fork() gives the accepted socket its congestion control: a fresh object,
// not a copy. The listening socket's object has no state to copy, and two
// copy constructors of ns-3.44 (unchanged in ns-3-dev) lose fields:
// TcpHybla's leaves m_rRtt (the RRTT attribute) at 0, so rho = minRtt /
// 0 = inf whenever RecalcParam runs (and congestion avoidance then adds
// inf to m_cWndCnt and cwnd stops growing for good); TcpWestwoodPlus's
// leaves m_ackedSegments and m_lastAck uninitialized, so the first
// bandwidth sample counts whatever was in memory and runs differ from
// process to process.
#define SATCP_COUNTING(NAME, BASE)                                                        \
    class NAME : public BASE                                                                    \
    {                                                                                           \
      public:                                                                                   \
        static TypeId GetTypeId()                                                               \
        {                                                                                       \
            static TypeId tid = TypeId("satcpmod::" #NAME)                                      \
                                    .SetParent<BASE>()                                          \
                                    .SetGroupName("Internet")                                   \
                                    .AddConstructor<NAME>();                                    \
            return tid;                                                                         \
        }                                                                                       \
        NAME()                                                                                  \
            : BASE()                                                                            \
        {                                                                                       \
        }                                                                                       \
        NAME(const NAME& o)                                                                     \
            : BASE(o)                                                                           \
        {                                                                                       \
        }                                                                                       \
        void CongestionStateSet(Ptr<TcpSocketState> tcb,                                        \
                                const TcpSocketState::TcpCongState_t s) override                \
        {                                                                                       \
            Count(s);                                                                           \
            BASE::CongestionStateSet(tcb, s);                                                   \
        }                                                                                       \
        Ptr<TcpCongestionOps> Fork() override                                                   \
        {                                                                                       \
            return CreateObject<NAME>();                                                        \
        }                                                                                       \
    };

SATCP_COUNTING(CountingCubic, TcpCubic)
SATCP_COUNTING(CountingBbr, TcpBbr)
SATCP_COUNTING(CountingWestwoodPlus, TcpWestwoodPlus)
SATCP_COUNTING(CountingHybla, TcpHybla)
SATCP_COUNTING(CountingNewReno, TcpNewReno)

// TcpHybla with rho as the paper defines it (TcpHybla::PktsAcked
// recomputes rho only when the RTT it is given, SRTT, equals the smallest
// SRTT; after the handshake's sample that never happens and rho stays 1):
// rho from the smallest SRTT on every ACK, and the slow-start exponent
// bounded at 16 as Linux's tcp_hybla.c (2^rho segments per ACK at rho = 24
// overflows TcpHybla::SlowStart's 32-bit increment), cwnd clamped to
// ssthresh and to 65,535 segments (Linux's snd_cwnd_clamp). Congestion
// avoidance is TcpHybla's own.
double g_hyblaRrttMs = 25.0;

class HyblaRho : public TcpHybla
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("satcpmod::HyblaRho")
                                .SetParent<TcpHybla>()
                                .SetGroupName("Internet")
                                .AddConstructor<HyblaRho>();
        return tid;
    }

    HyblaRho()
        : TcpHybla()
    {
    }

    HyblaRho(const HyblaRho& o)
        : TcpHybla(o)
    {
    }

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time&) override
    {
        if (tcb->m_minRtt != Time::Max())
        {
            TcpHybla::PktsAcked(tcb, segmentsAcked, tcb->m_minRtt);
        }
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t s) override
    {
        Count(s);
        TcpHybla::CongestionStateSet(tcb, s);
    }

    Ptr<TcpCongestionOps> Fork() override { return CreateObject<HyblaRho>(); }

  protected:
    uint32_t SlowStart(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (segmentsAcked == 0)
        {
            return 0;
        }
        double rho = 1.0;
        if (tcb->m_minRtt != Time::Max())
        {
            rho = std::max((double)tcb->m_minRtt.GetMilliSeconds() / g_hyblaRrttMs, 1.0);
        }
        double inc = std::pow(2.0, std::min(rho, 16.0)) - 1.0;
        uint64_t c = tcb->m_cWnd.Get() + static_cast<uint64_t>(inc * tcb->m_segmentSize);
        c = std::min<uint64_t>(c, tcb->m_ssThresh.Get());
        c = std::min<uint64_t>(c, 65535ull * tcb->m_segmentSize);
        tcb->m_cWnd = static_cast<uint32_t>(c);
        return segmentsAcked - 1;
    }
};

TypeId CcTypeId(const std::string& cc)
{
    if (cc == "hybla-rho")
    {
        return HyblaRho::GetTypeId();
    }
    if (cc == "cubic")
    {
        return CountingCubic::GetTypeId();
    }
    if (cc == "bbr")
    {
        return CountingBbr::GetTypeId();
    }
    if (cc == "westwood")
    {
        return CountingWestwoodPlus::GetTypeId();
    }
    if (cc == "hybla")
    {
        return CountingHybla::GetTypeId();
    }
    return CountingNewReno::GetTypeId();
}

// Random packet loss on the data direction: a RateErrorModel in packet
// units on the receiving (client) device, on a fixed stream so that with
// RngSeedManager::SetRun(seed) the pattern depends on the seed only.
void InstallPacketLoss(Ptr<NetDevice> rxDev, double p)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(p);
    em->AssignStreams(0);
    rxDev->SetAttribute("ReceiveErrorModel", PointerValue(em));
}
// Optional trace (--trace FILE) of the server's socket: one line per
// sample every `interval` s and one per change of ssthresh or congestion
// state:  t cwnd ssthresh state srtt_s rto_s bytes_in_flight pacing_bps
struct Trace
{
    std::FILE* f = nullptr;
    uint32_t cwnd = 0;
    uint32_t ssthresh = 0;
    uint32_t inflight = 0;
    int state = 0;
    double srtt = 0;
    double rto = 0;
    double pacing = 0;
};

Trace g_tr;

void TraceLine()
{
    if (g_tr.f)
    {
        std::fprintf(g_tr.f,
                     "%.4f %u %u %d %.4f %.4f %u %.0f\n",
                     Simulator::Now().GetSeconds(),
                     g_tr.cwnd,
                     g_tr.ssthresh,
                     g_tr.state,
                     g_tr.srtt,
                     g_tr.rto,
                     g_tr.inflight,
                     g_tr.pacing);
    }
}

static void TrCwnd(uint32_t, uint32_t v) { g_tr.cwnd = v; }
static void TrInflight(uint32_t, uint32_t v) { g_tr.inflight = v; }
static void TrSsthresh(uint32_t, uint32_t v)
{
    g_tr.ssthresh = v;
    TraceLine();
}
static void TrState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    g_tr.state = v;
    TraceLine();
}
static void TrSrtt(Time, Time v) { g_tr.srtt = v.GetSeconds(); }
static void TrRto(Time, Time v) { g_tr.rto = v.GetSeconds(); }
static void TrPacing(DataRate, DataRate v) { g_tr.pacing = v.GetBitRate(); }

void TraceSample(double interval)
{
    TraceLine();
    Simulator::Schedule(Seconds(interval), &TraceSample, interval);
}

// The server's connected socket is the second on node 0 (the first
// listens); call once it exists.
void TraceServerSocket(double interval)
{
    std::string base = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/1/";
    Config::ConnectWithoutContext(base + "CongestionWindow", MakeCallback(&TrCwnd));
    Config::ConnectWithoutContext(base + "SlowStartThreshold", MakeCallback(&TrSsthresh));
    Config::ConnectWithoutContext(base + "BytesInFlight", MakeCallback(&TrInflight));
    Config::ConnectWithoutContext(base + "CongState", MakeCallback(&TrState));
    Config::ConnectWithoutContext(base + "RTT", MakeCallback(&TrSrtt));
    Config::ConnectWithoutContext(base + "RTO", MakeCallback(&TrRto));
    Config::ConnectWithoutContext(base + "PacingRate", MakeCallback(&TrPacing));
    TraceSample(interval);
}

void OpenTrace(const std::string& path, double at, double interval)
{
    g_tr = Trace();
    g_tr.f = std::fopen(path.c_str(), "w");
    Simulator::Schedule(Seconds(at), &TraceServerSocket, interval);
}

void CloseTrace()
{
    if (g_tr.f)
    {
        std::fclose(g_tr.f);
    }
    g_tr = Trace();
}
// Listed losses (--drop-seqs): the first data segment that carries each
// listed sequence number is discarded on arrival; later copies pass.
// satcp's drop_seqs matches segments by their first sequence number, and
// its full segments always start at 1 + k x MSS; ns-3's need not (after
// some recoveries TcpSocketBase sends a segment shorter than the MSS, and
// the boundaries after it move), so the match here is by cover.
class DropCoveringErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("satcpmod::DropCoveringErrorModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<DropCoveringErrorModel>();
        return tid;
    }

    void Add(uint32_t seq) { m_seqs.insert(seq); }

    uint64_t Misaligned() const { return m_misaligned; }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp;
        c->RemoveHeader(ppp);
        Ipv4Header ip;
        c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6)
        {
            return false;
        }
        TcpHeader tcp;
        c->RemoveHeader(tcp);
        uint32_t len = c->GetSize();
        if (len == 0)
        {
            return false;
        }
        uint32_t seq = tcp.GetSequenceNumber().GetValue();
        auto it = m_seqs.lower_bound(seq);
        if (it == m_seqs.end() || *it >= seq + len)
        {
            return false;
        }
        if (*it != seq)
        {
            m_misaligned++;
        }
        m_seqs.erase(it);
        return true;
    }

    void DoReset() override {}

    std::set<uint32_t> m_seqs;
    uint64_t m_misaligned = 0;
};

Ptr<DropCoveringErrorModel> g_drops;

void InstallDropCovering(Ptr<NetDevice> rxDev)
{
    g_drops = CreateObject<DropCoveringErrorModel>();
    rxDev->SetAttribute("ReceiveErrorModel", PointerValue(g_drops));
}

void AddDrop(uint32_t seq) { g_drops->Add(seq); }

uint64_t DropsMisaligned() { return g_drops ? g_drops->Misaligned() : 0; }

void ResetDrops() { g_drops = nullptr; }
} // namespace satcpmod
"""

CCS = ["cubic", "bbr", "westwood", "hybla", "hybla-rho", "newreno"]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--cc",
        choices=CCS,
        default="cubic",
        help="congestion control (hybla-rho: TcpHybla with rho from the minimum RTT on "
        "every ACK and the slow-start exponent bounded at 16, see HyblaRho)",
    )
    p.add_argument(
        "--recovery",
        choices=["prr", "classic"],
        default="prr",
        help="TcpPrrRecovery (ns-3's default) or TcpClassicRecovery",
    )
    p.add_argument(
        "--stack",
        choices=["linux", "rfc"],
        default="linux",
        help="TCP attributes as satcp's tcp.profile of that name sets them",
    )
    p.add_argument("--rate-mbps", type=float, default=10.0, help="bottleneck rate, Mb/s")
    p.add_argument("--rtt-ms", type=float, default=600.0, help="round-trip propagation delay")
    p.add_argument("--queue-packets", type=int, default=500, help="bottleneck queue (packets)")
    p.add_argument("--loss", type=float, default=0.0, help="packet loss probability (data)")
    p.add_argument("--seconds", type=float, default=120.0, help="length of the transfer")
    p.add_argument(
        "--drop-seqs",
        default="",
        help="comma-separated sequence numbers: the first data segment carrying each is "
        "lost on the data direction (satcp's drop_seqs; later copies pass)",
    )
    p.add_argument("--seed", type=int, default=1, help="RngSeedManager::SetRun(seed)")
    p.add_argument(
        "--rcv-buffer", type=int, default=3_145_728, help="RcvBufSize (window scale from it)"
    )
    p.add_argument(
        "--hybla-rrtt-ms",
        type=float,
        default=25.0,
        help="TcpHybla::RRTT (ns-3's default is 50 ms; the paper's and satcp's 25 ms)",
    )
    p.add_argument(
        "--pacing",
        choices=["auto", "on", "off"],
        default="auto",
        help="TcpSocketState::EnablePacing; auto: on for Hybla (satcp paces Hybla by "
        "default) and BBR (which turns it on itself), off otherwise",
    )
    p.add_argument(
        "--batch",
        default="",
        help="file of JSON objects, one a line, each overriding options for one run "
        '(keys as the long options with _ for -; "key" is copied to the output)',
    )
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="write the server socket's cwnd, ssthresh, congestion state, SRTT, RTO, bytes "
        "in flight and pacing rate to FILE: a line every --trace-interval s and at each "
        "change of ssthresh or state",
    )
    p.add_argument("--trace-interval", type=float, default=0.1)
    p.add_argument("--json", action="store_true", help="print one JSON line")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    t_import = time.perf_counter()
    sys.path.insert(0, HERE)
    import cppyy
    from ns import ns
    from thesis_ftp_ns3 import CPP_APPS

    cppyy.cppdef(CPP_APPS)
    cppyy.cppdef(CPP_COUNTING)
    sv = cppyy.gbl.satcpval
    sm = cppyy.gbl.satcpmod
    load_s = time.perf_counter() - t_import
    if not args.batch:
        return run_one(args, ns, sv, sm, load_s)
    rc = 0
    with open(args.batch) as f:
        specs = [json.loads(ln) for ln in f if ln.strip()]
    for spec in specs:
        one = argparse.Namespace(**vars(args))
        key = spec.pop("key", None)
        for k, v in spec.items():
            if not hasattr(one, k):
                raise SystemExit(f"--batch: unknown option {k!r}")
            setattr(one, k, v)
        one.json = True
        one.key = key
        rc |= run_one(one, ns, sv, sm, load_s)
        load_s = 0.0
        sys.stdout.flush()
    return rc


def configure_tcp(args, ns, sm):
    """Config::SetDefault for every TCP attribute the comparison fixes."""
    SD = ns.Config.SetDefault
    linux = args.stack == "linux"
    SD("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(sm.CcTypeId(args.cc)))
    recovery = "ns3::TcpPrrRecovery" if args.recovery == "prr" else "ns3::TcpClassicRecovery"
    SD("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(recovery)))
    # MSS 1460 less the 12 bytes of timestamps when they are on: ns-3's
    # SegmentSize is the payload, options come on top (satcp's and Linux's
    # MSS counts options in); every full data packet is 1,500 bytes.
    SD("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448 if linux else 1460))
    SD("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10 if linux else 2))
    SD("ns3::TcpSocket::InitialSlowStartThreshold", ns.UintegerValue(2**32 - 1))
    SD("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(args.rcv_buffer))
    SD("ns3::TcpSocket::SndBufSize", ns.UintegerValue(64 * 1024 * 1024))
    SD("ns3::TcpSocket::TcpNoDelay", ns.BooleanValue(True))
    SD("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    SD("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.04 if linux else 0.2)))
    SD("ns3::TcpSocket::DataRetries", ns.UintegerValue(15 if linux else 6))
    # Initial RTO: the SYN's is ConnTimeout; data before the first sample
    # gets InitialEstimation + max(ClockGranularity, 0).
    SD("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(1.0 if linux else 3.0)))
    SD(
        "ns3::RttEstimator::InitialEstimation",
        ns.TimeValue(ns.Seconds(1.0 - 0.001 if linux else 2.5)),
    )
    SD("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    SD("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(linux))
    SD("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    SD("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(0.2 if linux else 1.0)))
    SD(
        "ns3::TcpSocketBase::ClockGranularity",
        ns.TimeValue(ns.Seconds(0.001 if linux else 0.5)),
    )
    SD("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(3))
    SD("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(True))
    SD("ns3::TcpHybla::RRTT", ns.TimeValue(ns.MilliSeconds(args.hybla_rrtt_ms)))
    sm.g_hyblaRrttMs = args.hybla_rrtt_ms
    pacing = args.pacing == "on" or (
        args.pacing == "auto" and args.cc in ("hybla", "hybla-rho", "bbr")
    )
    SD("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(pacing))
    # Linux's ratios, satcp's Hybla pacing: 2 x cwnd / SRTT in slow start,
    # 1.2 x in congestion avoidance (ns-3's defaults too).
    SD("ns3::TcpSocketState::PacingSsRatio", ns.UintegerValue(200))
    SD("ns3::TcpSocketState::PacingCaRatio", ns.UintegerValue(120))
    SD("ns3::TcpSocketState::PaceInitialWindow", ns.BooleanValue(False))
    return pacing


def run_one(args, ns, sv, sm, load_s):
    t_setup = time.perf_counter()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(args.seed)
    pacing = configure_tcp(args, ns, sm)

    nodes = ns.NodeContainer()
    nodes.Create(2)
    server, client = nodes.Get(0), nodes.Get(1)
    p2p = ns.PointToPointHelper()
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.MicroSeconds(round(args.rtt_ms * 500))))
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("100000p"))
    devs = p2p.Install(server, client)
    # PointToPointNetDevice adds a 2-byte PPP header; satcp adds no framing.
    # The rate is scaled so that a full 1,500-byte datagram takes as long
    # as in satcp (docs/validation-ns3.md, "PPP header").
    rate = ns.DataRateValue(ns.DataRate(round(args.rate_mbps * 1e6 * 1502 / 1500)))
    devs.Get(0).SetAttribute("DataRate", rate)
    devs.Get(1).SetAttribute("DataRate", rate)
    q = devs.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue()
    q.SetAttribute("MaxSize", ns.StringValue(f"{args.queue_packets}p"))
    if args.loss > 0 and args.drop_seqs:
        raise SystemExit("give --loss or --drop-seqs, not both")
    if args.loss > 0:
        sm.InstallPacketLoss(devs.Get(1), args.loss)
    sm.ResetDrops()
    if args.drop_seqs:
        sm.InstallDropCovering(devs.Get(1))
        for x in str(args.drop_seqs).split(","):
            sm.AddDrop(int(x))

    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    ifs = addr.Assign(devs)
    # No queue disc: the device's drop-tail queue is the only queue.
    ns.TrafficControlHelper().Uninstall(devs)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sv.ResetResult()
    sm.ResetCounts()
    for i in range(2):
        sv.ConnectDropTraces(devs.Get(i))
    for node in (server, client):
        sv.ConnectTcDrops(node)
    sv.InstallFtp(server, client, ifs.GetAddress(0), 5000, 1 << 50, 0, 0.0)
    if getattr(args, "trace", None):
        # The server's socket exists once the SYN has arrived (RTT / 2).
        sm.OpenTrace(os.path.abspath(args.trace), args.rtt_ms * 0.75e-3, args.trace_interval)
    ns.Simulator.Stop(ns.Seconds(args.seconds))

    t0, c0 = time.perf_counter(), time.process_time()
    ns.Simulator.Run()
    t1, c1 = time.perf_counter(), time.process_time()
    r = sv.g_res
    out = {
        "key": getattr(args, "key", None),
        "cc": args.cc,
        "recovery": args.recovery,
        "stack": args.stack,
        "pacing": pacing,
        "rate_mbps": args.rate_mbps,
        "rtt_ms": args.rtt_ms,
        "queue_packets": args.queue_packets,
        "loss": args.loss,
        "drop_seqs": args.drop_seqs,
        "seconds": args.seconds,
        "seed": args.seed,
        "rx_bytes": int(r.rxBytes),
        "goodput_mbps": r.rxBytes * 8 / args.seconds / 1e6,
        "retransmissions": int(r.srvRetx),
        "recoveries": int(sm.g_cnt.recoveries),
        "timeouts": int(sm.g_cnt.timeouts),
        "queue_drops": int(r.queueDrops),
        "random_losses": int(r.corrupted),
        # listed losses that hit a segment not starting at the listed number
        "drops_misaligned": int(sm.DropsMisaligned()),
        "max_cwnd_bytes": int(r.maxCwnd),
        "events": int(ns.Simulator.GetEventCount()),
        "wall_run_s": t1 - t0,
        "cpu_run_s": c1 - c0,
        "wall_setup_s": t0 - t_setup,
        "wall_ns3_load_s": load_s,
    }
    ns.Simulator.Destroy()
    sv.ResetApps()
    sm.CloseTrace()
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:>18}: {v}")
    return 0 if out["rx_bytes"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
