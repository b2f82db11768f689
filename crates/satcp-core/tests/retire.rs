//! Connections that are over for good give back their endpoints
//! (`Simulation::retire_ended`): with many short flows under loss,
//! duplication and reordering in both directions (so that stray segments
//! and retransmitted FINs arrive late), every finished connection is
//! retired by the end, none that could still act is, and the results and
//! time series read what the endpoints held.

use satcp_core::scenario::{build, results};
use satcp_core::sim::Endpoint;
use satcp_core::tcp::ConnState;
use serde_json::json;

fn short_flows(n: usize) -> satcp_core::Scenario {
    satcp_core::parse(&short_flows_json(n).to_string()).expect("valid scenario")
}

fn short_flows_json(n: usize) -> serde_json::Value {
    let apps: Vec<_> = (0..n)
        .map(|i| {
            json!({"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": 30_000, "start_s": 0.2 * i as f64})
        })
        .collect();
    json!({
        "name": "retire", "seed": 3, "duration_s": 0.2 * n as f64 + 300.0,
        "sample_interval_s": 1.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.001},
            {"a": "gateway", "b": "client", "rate_bps": 2e6, "delay_s": 0.250,
             "queue_packets": 20,
             "ab": {"errors": {"loss": 0.02, "duplicate": 0.02}, "reorder": {"prob": 0.02}},
             "ba": {"errors": {"loss": 0.02, "duplicate": 0.02}}}
        ],
        "apps": apps
    })
}

#[test]
fn finished_connections_are_retired_and_their_results_kept() {
    let s = short_flows(60);
    let mut sim = build::build(&s);
    // Not stopped when the applications are done: the last samples come
    // after every connection has ended.
    sim.run(
        satcp_core::engine::SimTime::from_secs_f64(s.duration_s),
        false,
    );
    let r = results::collect(&s, &sim);
    assert_eq!(r.flows.len(), 60);
    let mut retired = 0;
    for (c, f) in r.flows.iter().enumerate() {
        let (cli, srv) = (&sim.endpoints[2 * c].ep, &sim.endpoints[2 * c + 1].ep);
        let both_retired =
            matches!(cli, Endpoint::Retired(_)) && matches!(srv, Endpoint::Retired(_));
        let one_retired =
            matches!(cli, Endpoint::Retired(_)) || matches!(srv, Endpoint::Retired(_));
        // Both sides of a connection go together.
        assert_eq!(both_retired, one_retired, "conn {c}");
        if both_retired {
            retired += 1;
            assert_eq!(f.state, "Finished", "conn {c}");
            // The kept counters are the endpoints' own: the client got the
            // whole file, the server sent at least that much.
            assert!(f.client.bytes_delivered >= 30_000, "conn {c}");
            assert!(f.server.segments_sent > 20, "conn {c}");
        }
    }
    // The loss makes some connections end on a timer or a late segment;
    // still, nearly all finish well before the end of the run.
    assert!(retired >= 50, "only {retired} of 60 retired");
    // The time series go on reading retired connections: the last sample
    // of each still shows its final counters.
    let fs = &r.flow_series;
    let last = fs.time_s.last().copied().unwrap();
    for (c, f) in r.flows.iter().enumerate() {
        let i = (0..fs.time_s.len())
            .rev()
            .find(|&i| fs.time_s[i] == last && fs.conn[i] == c as u32)
            .expect("a sample of every connection at the last sample time");
        assert_eq!(fs.bytes_delivered[i], f.client.bytes_delivered, "conn {c}");
    }
}

/// Through a proxy, each flow is two connections: the client and the
/// server, and the proxy's two legs; each endpoint's peer is in the other
/// one (the client's the client-side leg, the server's the server-side
/// leg). A connection that is over must wait for its peers: the client
/// whose acknowledgement of its FIN was lost sends the FIN again, to the
/// leg. With loss both ways on the client's side, such FINs come;
/// no endpoint is retired while its peer can still send to it, and nearly
/// every connection is retired by the end.
#[test]
fn a_proxys_legs_retire_only_after_their_peers() {
    let n = 40;
    let mut v = short_flows_json(n);
    v["pep"] = json!([{"node": "gateway"}]);
    let s = satcp_core::parse(&v.to_string()).expect("valid scenario");
    let mut sim = build::build(&s);
    // Without the wait, a FIN sent again reaches a retired leg and the run
    // fails on "a retired endpoint was called".
    sim.run(
        satcp_core::engine::SimTime::from_secs_f64(s.duration_s),
        false,
    );
    let mut retired_while_peer_could_send = Vec::new();
    for (e, slot) in sim.endpoints.iter().enumerate() {
        if !matches!(slot.ep, Endpoint::Retired(_)) {
            continue;
        }
        let finished = match &sim.endpoints[slot.peer as usize].ep {
            Endpoint::Live(p) => p.state == ConnState::Finished,
            Endpoint::Retired(_) => true,
        };
        if !finished {
            retired_while_peer_could_send.push(e);
        }
    }
    assert!(
        retired_while_peer_could_send.is_empty(),
        "retired while the peer was not finished: endpoints {:?}",
        &retired_while_peer_could_send[..retired_while_peer_could_send.len().min(5)]
    );
    // Twice as many connections as flows, and (the loss notwithstanding)
    // nearly all of them over and retired by the end.
    assert_eq!(sim.conns.len(), 2 * n);
    let retired = sim
        .endpoints
        .iter()
        .filter(|s| matches!(s.ep, Endpoint::Retired(_)))
        .count();
    assert!(
        retired >= 2 * 2 * n * 5 / 6,
        "only {retired} of {} endpoints retired",
        4 * n
    );
}
