#!/usr/bin/env python3
"""Cross-check of satcp against ns-3: the TCP-ADaLR thesis FTP download (Fig. 7.2).

Builds in ns-3 (PyPI package ``ns3``, 3.44, cppyy bindings) the network

    server --10 Mb/s, 10 ms-- gateway --250 ms, 2.048 Mb/s down / 256 kb/s up-- client

and measures the response time of one FTP-like download: the client opens a
TCP connection (SYN at t = 0), sends a 100-byte request, the server answers
with the file (50,000,000 bytes by default) and closes; the response time is
from the client's SYN to the in-order arrival of the server's FIN at the
client (satcp's definition, docs/model.md "Applications").  The time of the
last file byte at the client is printed as well.

The applications are a few lines of C++ compiled at run time by cppyy
(ns-3's Python bindings cannot easily bind Python functions to ns-3 socket
callbacks); everything else is plain ns-3 (TcpNewReno, TcpClassicRecovery,
PointToPointNetDevice, DropTailQueue).

Run it with the Python of a virtual environment that has ns-3:

    python3 -m venv /tmp/ns3venv
    /tmp/ns3venv/bin/pip install ns3==3.44.post0
    /tmp/ns3venv/bin/python tools/ns3/thesis_ftp_ns3.py --variant newreno --delack on

Options: --bytes N (file size), --delack on|off, --variant newreno|sack,
--request-bytes N (0: the server sends as soon as the connection is up, like
BulkSendApplication), --ppp-compensation on|off (see docs/validation-ns3.md),
--json (one JSON line instead of the text report).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

CPP_APPS = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <set>

namespace satcpval
{
using namespace ns3;

struct Result
{
    double synTime = -1;       // client calls Connect (its SYN leaves)
    double connTime = -1;      // client sees the SYN-ACK (connection up)
    double reqRxTime = -1;     // server has the whole request
    double lastByteTime = -1;  // client has the last file byte, in order
    double finTime = -1;       // in-order FIN from the server reaches the client
    uint64_t rxBytes = 0;      // file bytes read by the client
    uint64_t srvSent = 0;      // file bytes handed to the server socket
    uint32_t maxCwnd = 0;      // largest cwnd of the server's socket (bytes)
    double cwndPeakTime = -1;  // when it was first reached
    uint64_t srvTxPkts = 0;    // packets sent by the server's device
    uint64_t cliTxPkts = 0;    // packets sent by the client's device
    uint64_t srvRetx = 0;      // server TCP retransmission events (Retransmission trace)
    uint64_t drops = 0;        // packets dropped anywhere (queues, devices)
    uint64_t queueDrops = 0;   // packets dropped by a full device queue
    uint64_t corrupted = 0;    // frames discarded by the receive error model
    uint64_t fastRetx = 0;     // entries into CA_RECOVERY (fast retransmit / recovery episodes)
    uint64_t timeouts = 0;     // retransmission timer expiries of data (ReTxTimeout -> CA_LOSS)
};

Result g_res;

// Optional event log (--events FILE), one line per event, times in s:
//   T t seq len          the server's TCP sent a data segment
//   C t seq len          the client's device discarded a corrupted data frame
//   O t rto_s            the server's RTO changed to rto_s (its "RTO" trace)
//   R t una high cwnd ssthresh state
//                        a retransmission timeout of data: SND.UNA,
//                        HighTxMark, cwnd before the timeout resets it, the
//                        new ssthresh, and the congestion state it left
std::FILE* g_events = nullptr;

void OpenEvents(const std::string& path) { g_events = std::fopen(path.c_str(), "w"); }

void CloseEvents()
{
    if (g_events)
    {
        std::fclose(g_events);
        g_events = nullptr;
    }
}

void ResetResult() { g_res = Result(); }

static void CwndTrace(uint32_t oldv, uint32_t newv)
{
    if (newv > g_res.maxCwnd)
    {
        g_res.maxCwnd = newv;
        g_res.cwndPeakTime = Simulator::Now().GetSeconds();
    }
}

static void SrvTx(Ptr<const Packet>) { g_res.srvTxPkts++; }
static void CliTx(Ptr<const Packet>) { g_res.cliTxPkts++; }
static void Drop(Ptr<const Packet>) { g_res.drops++; }
static void QueueDrop(Ptr<const Packet>) { g_res.drops++; g_res.queueDrops++; }
// A PPP frame's TCP data segment: its sequence number and payload size
// (false for anything else: not TCP, or no payload).
static bool DataSegmentOf(Ptr<const Packet> p, uint32_t& seq, uint32_t& payload)
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
    seq = tcp.GetSequenceNumber().GetValue();
    payload = c->GetSize();
    return payload > 0;
}

static void Corrupt(Ptr<const Packet> p)
{
    g_res.drops++;
    g_res.corrupted++;
    uint32_t seq;
    uint32_t payload;
    if (g_events && DataSegmentOf(p, seq, payload))
    {
        std::fprintf(g_events, "C %.9f %u %u\n", Simulator::Now().GetSeconds(), seq, payload);
    }
}

// Set from Python: true = ssthresh from RFC 5681 Eq. (4) FlightSize
// (SND.NXT - SND.UNA, here highTxMark - lastAckedSeq) instead of ns-3's
// bytesInFlight argument (RFC 6675 pipe when SACK is on).
bool g_flightSizeSsthresh = false;

// TcpNewReno unchanged except that it counts the congestion-state changes
// TcpSocketBase announces: CA_RECOVERY once per fast retransmit
// (EnterRecovery), CA_LOSS once per retransmission timeout of data
// (ReTxTimeout calls CongestionStateSet(CA_LOSS) on every expiry, also
// when the state already is CA_LOSS, unlike the CongState trace source).
class CountingNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("satcpval::CountingNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<CountingNewReno>();
        return tid;
    }

    CountingNewReno()
        : TcpNewReno()
    {
    }

    CountingNewReno(const CountingNewReno& o)
        : TcpNewReno(o)
    {
    }

    std::string GetName() const override { return "CountingNewReno"; }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        if (g_flightSizeSsthresh)
        {
            uint32_t flight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
            return std::max(2 * tcb->m_segmentSize, flight / 2);
        }
        return TcpNewReno::GetSsThresh(tcb, bytesInFlight);
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        if (newState == TcpSocketState::CA_RECOVERY)
        {
            g_res.fastRetx++;
        }
        else if (newState == TcpSocketState::CA_LOSS)
        {
            g_res.timeouts++;
            if (g_events)
            {
                std::fprintf(g_events,
                             "R %.9f %u %u %u %u %s\n",
                             Simulator::Now().GetSeconds(),
                             tcb->m_lastAckedSeq.GetValue(),
                             tcb->m_highTxMark.Get().GetValue(),
                             tcb->m_cWnd.Get(),
                             tcb->m_ssThresh.Get(),
                             TcpSocketState::TcpCongStateName[tcb->m_congState]);
            }
        }
        TcpNewReno::CongestionStateSet(tcb, newState);
    }

    Ptr<TcpCongestionOps> Fork() override { return CopyObject<CountingNewReno>(this); }
};

TypeId CountingNewRenoTypeId() { return CountingNewReno::GetTypeId(); }

// Deterministic losses for tracing (the counterpart of satcp's `errors.drop_seqs`):
// the first data segment that starts at each listed sequence number is
// discarded on arrival; later copies pass.
class DropSeqsErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("satcpval::DropSeqsErrorModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<DropSeqsErrorModel>();
        return tid;
    }

    void Add(uint32_t seq) { m_seqs.insert(seq); }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        uint32_t s;
        uint32_t payload;
        if (!DataSegmentOf(p, s, payload))
        {
            return false;
        }
        if (m_seqs.count(s) && !m_done.count(s))
        {
            m_done.insert(s);
            return true;
        }
        return false;
    }

    void DoReset() override {}

    std::set<uint32_t> m_seqs;
    std::set<uint32_t> m_done;
};

Ptr<DropSeqsErrorModel> InstallDropSeqs(Ptr<NetDevice> rxDev)
{
    Ptr<DropSeqsErrorModel> em = CreateObject<DropSeqsErrorModel>();
    rxDev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    return em;
}

// Downlink bit errors: a RateErrorModel in bit units on the receiving
// (client) device; PER = 1 - (1 - BER)^(8 x frame size incl. the 2-byte PPP header).
void InstallBitErrors(Ptr<NetDevice> rxDev, double ber)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_BIT);
    em->SetRate(ber);
    // A fixed stream: with RngSeedManager::SetRun(seed) the error pattern
    // depends on the seed only, not on what ran before in this process.
    em->AssignStreams(0);
    rxDev->SetAttribute("ReceiveErrorModel", PointerValue(em));
}
static void Retx(Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
                 Ptr<const TcpSocketBase>)
{
    g_res.srvRetx++;
}

static void SrvTcpTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (g_events && p->GetSize() > 0)
    {
        std::fprintf(g_events,
                     "T %.9f %u %u\n",
                     Simulator::Now().GetSeconds(),
                     h.GetSequenceNumber().GetValue(),
                     p->GetSize());
    }
}

static void SrvRto(Time, Time rto)
{
    if (g_events)
    {
        std::fprintf(g_events, "O %.9f %.9f\n", Simulator::Now().GetSeconds(), rto.GetSeconds());
    }
}

void ConnectDeviceTraces(Ptr<NetDevice> srvDev, Ptr<NetDevice> cliDev)
{
    srvDev->TraceConnectWithoutContext("MacTx", MakeCallback(&SrvTx));
    cliDev->TraceConnectWithoutContext("MacTx", MakeCallback(&CliTx));
}

// With no queue disc (uninstalled below) the traffic-control layer drops a
// packet when the device queue is full ("stopped"); the queue itself never
// overflows, so this is where a finite gateway buffer drops.
void ConnectTcDrops(Ptr<Node> node)
{
    node->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop",
                                                                        MakeCallback(&QueueDrop));
}

void ConnectDropTraces(Ptr<NetDevice> dev)
{
    // A full DropTailQueue drops in Queue::Enqueue (its "Drop" trace);
    // MacTxDrop only fires when the device itself refuses a packet.
    dev->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&Drop));
    DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->TraceConnectWithoutContext(
        "Drop",
        MakeCallback(&QueueDrop));
    dev->TraceConnectWithoutContext("PhyTxDrop", MakeCallback(&Drop));
    dev->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&Corrupt));
}

// FTP-like server: waits for `reqBytes` of request, then writes `fileBytes`
// into the socket as fast as the send buffer accepts them, then Close()
// (ns-3 puts the FIN on the last data segment once the buffer drains).
class FileServer : public SimpleRefCount<FileServer>
{
  public:
    FileServer(Ptr<Node> node, uint16_t port, uint64_t fileBytes, uint32_t reqBytes)
        : m_fileBytes(fileBytes),
          m_reqBytes(reqBytes)
    {
        m_listen = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
        m_listen->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        m_listen->Listen();
        m_listen->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&FileServer::Accept, this));
    }

  private:
    void Accept(Ptr<Socket> s, const Address&)
    {
        m_conn = s;
        s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&CwndTrace));
        s->TraceConnectWithoutContext("Retransmission", MakeCallback(&Retx));
        if (g_events)
        {
            s->TraceConnectWithoutContext("Tx", MakeCallback(&SrvTcpTx));
            s->TraceConnectWithoutContext("RTO", MakeCallback(&SrvRto));
        }
        s->SetRecvCallback(MakeCallback(&FileServer::Recv, this));
        s->SetSendCallback(MakeCallback(&FileServer::Fill, this));
        if (m_reqBytes == 0)
        {
            Start(s);
        }
    }

    void Recv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        Address from;
        while ((p = s->RecvFrom(from)))
        {
            if (p->GetSize() == 0)
            {
                break;
            }
            m_reqRx += p->GetSize();
        }
        if (!m_started && m_reqRx >= m_reqBytes)
        {
            Start(s);
        }
    }

    void Start(Ptr<Socket> s)
    {
        m_started = true;
        g_res.reqRxTime = Simulator::Now().GetSeconds();
        Fill(s, s->GetTxAvailable());
    }

    void Fill(Ptr<Socket> s, uint32_t)
    {
        if (!m_started || m_closed)
        {
            return;
        }
        while (m_sent < m_fileBytes)
        {
            uint32_t avail = s->GetTxAvailable();
            if (avail == 0)
            {
                break;
            }
            uint64_t left = m_fileBytes - m_sent;
            uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({left, avail, 1u << 20}));
            int r = s->Send(Create<Packet>(n));
            if (r <= 0)
            {
                break;
            }
            m_sent += static_cast<uint64_t>(r);
        }
        g_res.srvSent = m_sent;
        if (m_sent >= m_fileBytes)
        {
            m_closed = true;
            s->Close();
        }
    }

    Ptr<Socket> m_listen;
    Ptr<Socket> m_conn;
    uint64_t m_fileBytes;
    uint32_t m_reqBytes;
    uint64_t m_reqRx = 0;
    uint64_t m_sent = 0;
    bool m_started = false;
    bool m_closed = false;
};

// FTP-like client: connects, sends the request, reads everything, notes the
// last file byte and the server's FIN, then closes its side.
class FileClient : public SimpleRefCount<FileClient>
{
  public:
    FileClient(Ptr<Node> node, Ipv4Address server, uint16_t port, uint64_t fileBytes,
               uint32_t reqBytes)
        : m_node(node),
          m_server(server),
          m_port(port),
          m_fileBytes(fileBytes),
          m_reqBytes(reqBytes)
    {
    }

    void Start()
    {
        m_sock = Socket::CreateSocket(m_node, TcpSocketFactory::GetTypeId());
        m_sock->Bind();
        m_sock->SetConnectCallback(MakeCallback(&FileClient::Connected, this),
                                   MakeCallback(&FileClient::Failed, this));
        m_sock->SetRecvCallback(MakeCallback(&FileClient::Recv, this));
        m_sock->SetCloseCallbacks(MakeCallback(&FileClient::PeerClosed, this),
                                  MakeCallback(&FileClient::ErrorClosed, this));
        g_res.synTime = Simulator::Now().GetSeconds();
        m_sock->Connect(InetSocketAddress(m_server, m_port));
    }

  private:
    void Connected(Ptr<Socket> s)
    {
        g_res.connTime = Simulator::Now().GetSeconds();
        if (m_reqBytes > 0)
        {
            s->Send(Create<Packet>(m_reqBytes));
        }
    }

    void Failed(Ptr<Socket>)
    {
        std::cerr << "connection failed at " << Simulator::Now().GetSeconds() << std::endl;
    }

    void Recv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        Address from;
        while ((p = s->RecvFrom(from)))
        {
            if (p->GetSize() == 0)
            {
                break;
            }
            g_res.rxBytes += p->GetSize();
        }
        if (g_res.lastByteTime < 0 && g_res.rxBytes >= m_fileBytes)
        {
            g_res.lastByteTime = Simulator::Now().GetSeconds();
        }
    }

    void PeerClosed(Ptr<Socket> s)
    {
        if (g_res.finTime < 0)
        {
            g_res.finTime = Simulator::Now().GetSeconds();
        }
        s->Close();
    }

    void ErrorClosed(Ptr<Socket>)
    {
        std::cerr << "connection error at " << Simulator::Now().GetSeconds() << std::endl;
    }

    Ptr<Node> m_node;
    Ipv4Address m_server;
    uint16_t m_port;
    uint64_t m_fileBytes;
    uint32_t m_reqBytes;
    Ptr<Socket> m_sock;
};

// Keeps the applications alive for the whole run.
std::vector<Ptr<FileServer>> g_servers;
std::vector<Ptr<FileClient>> g_clients;

void InstallFtp(Ptr<Node> server, Ptr<Node> client, Ipv4Address serverAddr, uint16_t port,
                uint64_t fileBytes, uint32_t reqBytes, double startS)
{
    g_servers.push_back(Create<FileServer>(server, port, fileBytes, reqBytes));
    Ptr<FileClient> c = Create<FileClient>(client, serverAddr, port, fileBytes, reqBytes);
    g_clients.push_back(c);
    Simulator::Schedule(Seconds(startS), &FileClient::Start, c);
}

// Between runs of one process (after Simulator::Destroy).
void ResetApps()
{
    g_servers.clear();
    g_clients.clear();
}

void StopWhenDone(double pollS)
{
    if (g_res.finTime >= 0)
    {
        // Let the client's FIN/ACK exchange finish, then stop.
        Simulator::Stop(Seconds(2.0));
        return;
    }
    Simulator::Schedule(Seconds(pollS), &StopWhenDone, pollS);
}
} // namespace satcpval
"""


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--bytes", type=int, default=50_000_000, help="file size in bytes (default 50,000,000)"
    )
    p.add_argument(
        "--delack",
        choices=["on", "off"],
        default="on",
        help="on: DelAckCount 2, DelAckTimeout 0.2 s; off: DelAckCount 1",
    )
    p.add_argument(
        "--variant",
        choices=["newreno", "sack"],
        default="newreno",
        help="TcpNewReno + TcpClassicRecovery with Sack false (newreno) or true (sack)",
    )
    p.add_argument(
        "--request-bytes",
        type=int,
        default=100,
        help="client request size; 0 = server sends on accept (BulkSend-like)",
    )
    p.add_argument(
        "--ppp-compensation",
        choices=["on", "off"],
        default="on",
        help="scale link rates so the 2-byte PPP header costs no time for full data "
        "segments (downstream) and 40-byte ACKs (upstream)",
    )
    p.add_argument("--queue-packets", type=int, default=1000, help="device queue size (packets)")
    p.add_argument(
        "--gateway-queue-packets",
        type=int,
        default=None,
        help="queue size of the gateway's downlink device only (default: --queue-packets)",
    )
    p.add_argument(
        "--ber",
        type=float,
        default=0.0,
        help="bit error rate on the downlink (RateErrorModel, bit unit, on the client's device)",
    )
    p.add_argument("--seed", type=int, default=1, help="ns-3 run number (RngSeedManager::SetRun)")
    p.add_argument(
        "--limited-transmit",
        choices=["on", "off"],
        default="on",
        help="TcpSocketBase::LimitedTransmit (ns-3 default on; only acts without SACK)",
    )
    p.add_argument(
        "--ssthresh-rule",
        choices=["ns3", "flightsize"],
        default="ns3",
        help="ns3: TcpNewReno::GetSsThresh(bytesInFlight) (pipe with SACK); "
        "flightsize: max(FlightSize/2, 2 SMSS) as RFC 5681 Eq. (4)",
    )
    p.add_argument("--max-sim-s", type=float, default=20000.0, help="simulated-time limit")
    p.add_argument(
        "--drop-seqs",
        default="",
        help="comma-separated sequence numbers: the first data segment starting at each is "
        "lost on the downlink (satcp's errors.drop_seqs; for tracing)",
    )
    p.add_argument(
        "--pcap",
        default="",
        help="write a pcap of the gateway's downlink device (data sent to the client and "
        "ACKs received from it) as PREFIX-1-0.pcap",
    )
    p.add_argument(
        "--batch",
        default="",
        help="file of JSON objects, one a line, each overriding options for one run "
        '(keys as the long options with _ for -, e.g. {"ber": 1e-6, "seed": 2}; '
        '"key" is copied to the output); ns-3 is loaded once and each run prints one '
        "JSON line",
    )
    p.add_argument(
        "--events",
        metavar="FILE",
        help="write an event log: the server's data segments, corrupted data frames, RTO "
        "changes and retransmission timeouts with the sender's state (see the C++ comment)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON line")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    t_import = time.perf_counter()
    # Slow (10 s to minutes on a loaded machine): loads the ns-3 libraries through cppyy.
    import cppyy
    from ns import ns

    cppyy.cppdef(CPP_APPS)
    sv = cppyy.gbl.satcpval
    t_ready = time.perf_counter()
    if not args.batch:
        return run_one(args, ns, sv, cppyy, t_import, t_ready)
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
        rc |= run_one(one, ns, sv, cppyy, time.perf_counter(), time.perf_counter())
        sys.stdout.flush()
    return rc


def run_one(args, ns, sv, cppyy, t_import, t_ready):
    # ---------------- TCP defaults (Table 7.4 of the thesis) ----------------
    SD = ns.Config.SetDefault
    # TcpNewReno that counts fast retransmits and timeouts (same behaviour).
    SD("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(sv.CountingNewRenoTypeId()))
    sv.g_flightSizeSsthresh = args.ssthresh_rule == "flightsize"
    SD("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(args.limited_transmit == "on"))
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(args.seed)
    SD(
        "ns3::TcpL4Protocol::RecoveryType",
        ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")),
    )
    SD("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    SD("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
    SD("ns3::TcpSocket::InitialSlowStartThreshold", ns.UintegerValue(65535))
    SD("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(65535))
    SD("ns3::TcpSocket::SndBufSize", ns.UintegerValue(16 * 1024 * 1024))
    SD("ns3::TcpSocket::TcpNoDelay", ns.BooleanValue(True))  # Nagle off (satcp default)
    SD("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(3.0)))  # SYN RTO = initial RTO
    SD("ns3::TcpSocket::DataRetries", ns.UintegerValue(6))
    if args.delack == "on":
        SD("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
        SD("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.2)))
    else:
        SD("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
        SD("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.2)))  # unused with count 1
    SD("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(False))
    SD("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    SD("ns3::TcpSocketBase::Sack", ns.BooleanValue(args.variant == "sack"))
    SD("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1.0)))
    SD("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.Seconds(0.5)))
    SD("ns3::TcpSocketBase::MaxWindowSize", ns.UintegerValue(65535))
    # ns-3 has no "initial RTO" attribute: before the first RTT sample the data
    # RTO is InitialEstimation + max(ClockGranularity, 4 * 0) = 2.5 + 0.5 = 3 s.
    SD("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(2.5)))

    # ---------------- topology ----------------
    nodes = ns.NodeContainer()
    nodes.Create(3)
    server, gateway, client = nodes.Get(0), nodes.Get(1), nodes.Get(2)

    ppp_on = args.ppp_compensation == "on"
    data_scale = (1500 + 2) / 1500 if ppp_on else 1.0  # full data segment: 1,500-byte datagram
    ack_scale = (40 + 2) / 40 if ppp_on else 1.0  # pure ACK: 40-byte datagram

    def rate(bps):
        return ns.DataRateValue(ns.DataRate(round(bps)))

    q = ns.StringValue(f"{args.queue_packets}p")

    eth = ns.PointToPointHelper()
    eth.SetChannelAttribute("Delay", ns.TimeValue(ns.MilliSeconds(10)))
    eth.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", q)
    d_eth = eth.Install(server, gateway)  # Get(0) server side, Get(1) gateway side
    d_eth.Get(0).SetAttribute("DataRate", rate(10e6 * data_scale))  # server -> gateway: data
    d_eth.Get(1).SetAttribute("DataRate", rate(10e6 * ack_scale))  # gateway -> server: ACKs

    sat = ns.PointToPointHelper()
    sat.SetChannelAttribute("Delay", ns.TimeValue(ns.MilliSeconds(250)))
    sat.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", q)
    d_sat = sat.Install(gateway, client)  # Get(0) gateway side, Get(1) client side
    if args.gateway_queue_packets is not None:
        gq = d_sat.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue()
        gq.SetAttribute("MaxSize", ns.StringValue(f"{args.gateway_queue_packets}p"))
    if args.ber > 0:
        sv.InstallBitErrors(d_sat.Get(1), args.ber)
    if args.drop_seqs:
        em = sv.InstallDropSeqs(d_sat.Get(1))
        for x in args.drop_seqs.split(","):
            em.Add(int(x))
    if args.pcap:
        sat.EnablePcap(args.pcap, d_sat.Get(0))
    d_sat.Get(0).SetAttribute("DataRate", rate(2.048e6 * data_scale))  # downlink to client
    d_sat.Get(1).SetAttribute("DataRate", rate(256e3 * ack_scale))  # uplink from client

    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    i_eth = addr.Assign(d_eth)
    addr.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(d_sat)
    # Ipv4AddressHelper::Assign installs a default FqCoDel queue disc on every
    # device; remove it so the only queue is the 1000-packet drop-tail device queue.
    tch = ns.TrafficControlHelper()
    tch.Uninstall(d_eth)
    tch.Uninstall(d_sat)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    sv.ResetResult()
    if getattr(args, "events", None):
        sv.OpenEvents(os.path.abspath(args.events))
    sv.ConnectDeviceTraces(d_eth.Get(0), d_sat.Get(1))
    for c in (d_eth, d_sat):
        for i in range(2):
            sv.ConnectDropTraces(c.Get(i))
    for node in (server, gateway, client):
        sv.ConnectTcDrops(node)
    sv.InstallFtp(server, client, i_eth.GetAddress(0), 21, args.bytes, args.request_bytes, 0.0)
    cppyy.cppexec("ns3::Simulator::Schedule(ns3::Seconds(1.0), &satcpval::StopWhenDone, 1.0);")
    ns.Simulator.Stop(ns.Seconds(args.max_sim_s))

    t0 = time.perf_counter()
    ns.Simulator.Run()
    t1 = time.perf_counter()
    events = int(ns.Simulator.GetEventCount())
    r = sv.g_res
    out = {
        "variant": args.variant,
        "delack": args.delack,
        "bytes": args.bytes,
        "request_bytes": args.request_bytes,
        "ppp_compensation": args.ppp_compensation,
        "response_time_s": (r.finTime - r.synTime) if r.finTime >= 0 else None,
        "last_byte_s": (r.lastByteTime - r.synTime) if r.lastByteTime >= 0 else None,
        "connected_s": r.connTime - r.synTime if r.connTime >= 0 else None,
        "request_at_server_s": r.reqRxTime - r.synTime if r.reqRxTime >= 0 else None,
        "rx_bytes": int(r.rxBytes),
        "max_cwnd_bytes": int(r.maxCwnd),
        "cwnd_peak_at_s": r.cwndPeakTime,
        "server_tx_packets": int(r.srvTxPkts),
        "client_tx_packets": int(r.cliTxPkts),
        "retransmissions": int(r.srvRetx),
        "fast_retransmits": int(r.fastRetx),
        "timeouts": int(r.timeouts),
        "drops": int(r.drops),
        "queue_drops": int(r.queueDrops),
        "corrupted": int(r.corrupted),
        "ber": args.ber,
        "seed": args.seed,
        "limited_transmit": args.limited_transmit,
        "ssthresh_rule": args.ssthresh_rule,
        "gateway_queue_packets": args.gateway_queue_packets or args.queue_packets,
        "key": getattr(args, "key", None),
        "sim_end_s": ns.Simulator.Now().GetSeconds(),
        "events": events,
        "wall_run_s": t1 - t0,
        "wall_setup_s": t0 - t_import,
        "wall_ns3_load_s": t_ready - t_import,
        "events_per_s": events / (t1 - t0) if t1 > t0 else None,
    }
    ns.Simulator.Destroy()
    sv.ResetApps()
    sv.CloseEvents()
    if args.json:
        print(json.dumps(out))
    else:
        f = lambda v, d=3: "n/a" if v is None else f"{v:.{d}f}"  # noqa: E731
        print(
            f"ns-3 thesis FTP: variant={args.variant} delack={args.delack} bytes={args.bytes:,} "
            f"request={args.request_bytes} B ppp-compensation={args.ppp_compensation}"
        )
        print(f"  response time (SYN -> server FIN at client): {f(out['response_time_s'])} s")
        print(f"  last file byte at client:                    {f(out['last_byte_s'])} s")
        print(
            f"  connection up / request at server:           {f(out['connected_s'], 4)} s / "
            f"{f(out['request_at_server_s'], 4)} s"
        )
        print(
            f"  received {out['rx_bytes']:,} B; max cwnd {out['max_cwnd_bytes']:,} B; "
            f"packets server {out['server_tx_packets']:,} client {out['client_tx_packets']:,}; "
            f"retransmissions {out['retransmissions']}; drops {out['drops']}"
        )
        print(
            f"  events {events:,}; Simulator::Run wall {out['wall_run_s']:.3f} s "
            f"({f(out['events_per_s'], 0)} events/s); setup incl. ns-3 load "
            f"{out['wall_setup_s']:.2f} s (load+JIT {out['wall_ns3_load_s']:.2f} s)"
        )
    ok = out["response_time_s"] is not None and out["rx_bytes"] >= args.bytes
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
