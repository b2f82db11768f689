// ns-3 counterpart of satcp's benchmark scenario (a), as a compiled C++
// program: the TCP-ADaLR thesis's 50 MB GEO FTP download with SACK and
// delayed ACK, the network and settings of tools/ns3/thesis_ftp_ns3.py with
// its defaults (--variant sack --delack on --request-bytes 100
// --ppp-compensation on --queue-packets 1000, no bit errors, seed 1).
//
//   server --10 Mb/s, 10 ms-- gateway --250 ms, 2.048 Mb/s down / 256 kb/s up-- client
//
// The applications and the counting TcpNewReno are those of the Python
// script (its CPP_APPS, written to satcp_apps.h by tools/ns3/build_cpp.sh),
// so both programs simulate the same thing; this one is what an ns-3 user
// runs: no interpreter, no bindings, no run-time compilation.
//
// Prints one JSON line: the response time, the events, the wall time of
// Simulator::Run alone (wall_run_s; cpu_run_s: its processor time) and of
// everything before it (wall_setup_s). Options: --bytes N (default 50000000).

#include "satcp_apps.h"

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ns3;

int
main(int argc, char** argv)
{
    auto tStart = std::chrono::steady_clock::now();
    uint64_t fileBytes = 50000000;
    for (int i = 1; i + 1 < argc; i += 2)
    {
        if (std::strcmp(argv[i], "--bytes") == 0)
        {
            fileBytes = std::strtoull(argv[i + 1], nullptr, 10);
        }
    }
    const uint32_t requestBytes = 100;

    // TCP defaults (Table 7.4 of the thesis), as thesis_ftp_ns3.py sets them.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(satcpval::CountingNewRenoTypeId()));
    satcpval::g_flightSizeSsthresh = false;
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
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

    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> server = nodes.Get(0);
    Ptr<Node> gateway = nodes.Get(1);
    Ptr<Node> client = nodes.Get(2);

    // The 2-byte PPP header costs no time for full data segments (1,500-byte
    // datagrams, downstream) and 40-byte ACKs (upstream).
    const double dataScale = (1500.0 + 2) / 1500;
    const double ackScale = (40.0 + 2) / 40;
    auto rate = [](double bps) { return DataRateValue(DataRate(std::llround(bps))); };
    StringValue q("1000p");

    PointToPointHelper eth;
    eth.SetChannelAttribute("Delay", TimeValue(MilliSeconds(10)));
    eth.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", q);
    NetDeviceContainer dEth = eth.Install(server, gateway);
    dEth.Get(0)->SetAttribute("DataRate", rate(10e6 * dataScale));
    dEth.Get(1)->SetAttribute("DataRate", rate(10e6 * ackScale));

    PointToPointHelper sat;
    sat.SetChannelAttribute("Delay", TimeValue(MilliSeconds(250)));
    sat.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", q);
    NetDeviceContainer dSat = sat.Install(gateway, client);
    dSat.Get(0)->SetAttribute("DataRate", rate(2.048e6 * dataScale));
    dSat.Get(1)->SetAttribute("DataRate", rate(256e3 * ackScale));

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase(Ipv4Address("10.1.1.0"), Ipv4Mask("255.255.255.0"));
    Ipv4InterfaceContainer iEth = addr.Assign(dEth);
    addr.SetBase(Ipv4Address("10.1.2.0"), Ipv4Mask("255.255.255.0"));
    addr.Assign(dSat);
    // Assign installs an FqCoDel queue disc on every device: removed, so the
    // only queue is the 1000-packet drop-tail device queue.
    TrafficControlHelper tch;
    tch.Uninstall(dEth);
    tch.Uninstall(dSat);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    satcpval::ResetResult();
    satcpval::ConnectDeviceTraces(dEth.Get(0), dSat.Get(1));
    for (NetDeviceContainer* c : {&dEth, &dSat})
    {
        for (uint32_t i = 0; i < 2; i++)
        {
            satcpval::ConnectDropTraces(c->Get(i));
        }
    }
    for (Ptr<Node> n : {server, gateway, client})
    {
        satcpval::ConnectTcDrops(n);
    }
    satcpval::InstallFtp(server, client, iEth.GetAddress(0), 21, fileBytes, requestBytes, 0.0);
    Simulator::Schedule(Seconds(1.0), &satcpval::StopWhenDone, 1.0);
    Simulator::Stop(Seconds(20000.0));

    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    Simulator::Run();
    std::clock_t c1 = std::clock();
    auto t1 = std::chrono::steady_clock::now();
    const satcpval::Result& r = satcpval::g_res;
    uint64_t events = Simulator::GetEventCount();
    double run = std::chrono::duration<double>(t1 - t0).count();
    double setup = std::chrono::duration<double>(t0 - tStart).count();
    std::printf("{\"variant\": \"sack\", \"bytes\": %llu, \"response_time_s\": %.9f, "
                "\"last_byte_s\": %.9f, \"rx_bytes\": %llu, \"retransmissions\": %llu, "
                "\"drops\": %llu, \"sim_end_s\": %.9f, \"events\": %llu, "
                "\"wall_run_s\": %.6f, \"cpu_run_s\": %.6f, \"wall_setup_s\": %.6f}\n",
                static_cast<unsigned long long>(fileBytes),
                r.finTime >= 0 ? r.finTime - r.synTime : -1.0,
                r.lastByteTime >= 0 ? r.lastByteTime - r.synTime : -1.0,
                static_cast<unsigned long long>(r.rxBytes),
                static_cast<unsigned long long>(r.srvRetx),
                static_cast<unsigned long long>(r.drops),
                Simulator::Now().GetSeconds(),
                static_cast<unsigned long long>(events),
                run,
                static_cast<double>(c1 - c0) / CLOCKS_PER_SEC,
                setup);
    Simulator::Destroy();
    satcpval::ResetApps();
    bool ok = r.finTime >= 0 && r.rxBytes >= fileBytes;
    return ok ? 0 : 1;
}
