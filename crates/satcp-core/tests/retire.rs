//! Connections that are over for good give back their endpoints
//! (`Simulation::retire_ended`): with many short flows under loss,
//! duplication and reordering in both directions (so that stray segments
//! and retransmitted FINs arrive late), every finished connection is
//! retired by the end, none that could still act is, and the results and
//! time series read what the endpoints held.

use satcp_core::scenario::{build, results};
use satcp_core::sim::Endpoint;
use serde_json::json;

fn short_flows(n: usize) -> satcp_core::Scenario {
    let apps: Vec<_> = (0..n)
        .map(|i| {
            json!({"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": 30_000, "start_s": 0.2 * i as f64})
        })
        .collect();
    let v = json!({
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
    });
    satcp_core::parse(&v.to_string()).expect("valid scenario")
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
