// ns-3 counterpart of satcp's benchmark scenario (b), as a compiled C++
// program: 20 bulk flows sharing a 10 Mb/s, 250 ms GEO bottleneck with a
// 50-packet drop-tail queue for 550 simulated seconds, the network and
// settings of tools/ns3/twenty_flows_ns3.py (which follows
// crates/satcp-core/benches/common/mod.rs `twenty_flows`):
//
//   s_i --100 Mb/s, 1 ms-- gateway --10 Mb/s, 250 ms, 50 packets-- terminal --100 Mb/s, 1 ms-- c_i
//
// flow i starts at 0.1 i s and sends without end. The applications are the
// Python script's (satcp_apps.h, written by tools/ns3/build_cpp.sh). It
// compares speed, not results. Prints one JSON line (events, wall time of
// Simulator::Run alone, its processor time, the set-up's wall time).
// Options: --flows N, --seconds S.

#include "satcp_apps.h"

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace ns3;

int
main(int argc, char** argv)
{
    auto tStart = std::chrono::steady_clock::now();
    uint32_t flows = 20;
    double seconds = 550.0;
    for (int i = 1; i + 1 < argc; i += 2)
    {
        if (std::strcmp(argv[i], "--flows") == 0)
        {
            flows = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
        }
        else if (std::strcmp(argv[i], "--seconds") == 0)
        {
            seconds = std::strtod(argv[i + 1], nullptr);
        }
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpNewReno")));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpClassicRecovery")));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(65535));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(65535));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 * 1024 * 1024));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(3.0)));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(6));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(0.2)));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1.0)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(Seconds(0.5)));
    Config::SetDefault("ns3::TcpSocketBase::MaxWindowSize", UintegerValue(65535));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(2.5)));

    NodeContainer gwNodes;
    gwNodes.Create(2);
    Ptr<Node> gateway = gwNodes.Get(0);
    Ptr<Node> terminal = gwNodes.Get(1);
    NodeContainer servers;
    servers.Create(flows);
    NodeContainer clients;
    clients.Create(flows);
    InternetStackHelper stack;
    stack.Install(gwNodes);
    stack.Install(servers);
    stack.Install(clients);

    auto p2p = [](double rateBps, double delayMs, uint32_t queuePackets) {
        PointToPointHelper h;
        h.SetDeviceAttribute("DataRate", DataRateValue(DataRate(std::llround(rateBps))));
        h.SetChannelAttribute("Delay", TimeValue(MilliSeconds(delayMs)));
        h.SetQueue("ns3::DropTailQueue<Packet>",
                   "MaxSize",
                   StringValue(std::to_string(queuePackets) + "p"));
        return h;
    };

    Ipv4AddressHelper addr;
    TrafficControlHelper tch;
    NetDeviceContainer devs = p2p(10e6, 250, 50).Install(gateway, terminal);
    addr.SetBase(Ipv4Address("10.0.0.0"), Ipv4Mask("255.255.255.0"));
    addr.Assign(devs);
    tch.Uninstall(devs);
    PointToPointHelper access = p2p(100e6, 1, 1000);
    std::vector<Ipv4Address> serverAddrs;
    for (uint32_t i = 0; i < flows; i++)
    {
        NetDeviceContainer d = access.Install(servers.Get(i), gateway);
        std::string base = "10.1." + std::to_string(i) + ".0";
        addr.SetBase(Ipv4Address(base.c_str()), Ipv4Mask("255.255.255.0"));
        serverAddrs.push_back(addr.Assign(d).GetAddress(0));
        tch.Uninstall(d);
        d = access.Install(terminal, clients.Get(i));
        base = "10.2." + std::to_string(i) + ".0";
        addr.SetBase(Ipv4Address(base.c_str()), Ipv4Mask("255.255.255.0"));
        addr.Assign(d);
        tch.Uninstall(d);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    satcpval::ResetResult();
    for (uint32_t i = 0; i < flows; i++)
    {
        satcpval::InstallFtp(servers.Get(i),
                             clients.Get(i),
                             serverAddrs[i],
                             static_cast<uint16_t>(5000 + i),
                             uint64_t(1) << 50,
                             0,
                             0.1 * i);
    }
    Simulator::Stop(Seconds(seconds));

    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    Simulator::Run();
    std::clock_t c1 = std::clock();
    auto t1 = std::chrono::steady_clock::now();
    uint64_t events = Simulator::GetEventCount();
    uint64_t rx = satcpval::g_res.rxBytes;
    std::printf("{\"flows\": %u, \"seconds\": %g, \"rx_bytes\": %llu, \"events\": %llu, "
                "\"wall_run_s\": %.6f, \"cpu_run_s\": %.6f, \"wall_setup_s\": %.6f}\n",
                flows,
                seconds,
                static_cast<unsigned long long>(rx),
                static_cast<unsigned long long>(events),
                std::chrono::duration<double>(t1 - t0).count(),
                static_cast<double>(c1 - c0) / CLOCKS_PER_SEC,
                std::chrono::duration<double>(t0 - tStart).count());
    Simulator::Destroy();
    satcpval::ResetApps();
    return rx > 0 ? 0 : 1;
}
