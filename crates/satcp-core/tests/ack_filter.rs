//! ACK filtering end to end (`queue = "ack_filter"`, docs/satellite-access.md,
//! "ACK filtering"): a 1 MB download over a GEO path whose return link is
//! narrow (10 Mb/s forward, 16 kb/s return). The ACKs of a full-rate
//! download need several times what the return link carries, so with
//! drop-tail the ACK queue overflows and the ACKs that pass wait behind
//! older ones; removing the redundant ones lets the newest cumulative ACK
//! through sooner, and the download ends sooner (Balakrishnan et al. 1997).

use satcp_core::RunResult;
use serde_json::{json, Value};

/// server -100 Mb/s, 10 ms- gateway -GEO, 250 ms, 10 Mb/s down, 16 kb/s
/// up- client, which downloads 1 MB; `up_queue` the return direction's
/// queue settings.
fn run(up_queue: Value) -> RunResult {
    let mut ba = json!({"rate_bps": 16e3});
    for (k, v) in up_queue.as_object().unwrap() {
        ba[k.as_str()] = v.clone();
    }
    let v = json!({
        "name": "ack-filter", "seed": 1, "duration_s": 60.0,
        "nodes": ["server", "gateway", "client"],
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 100e6, "delay_s": 0.010},
            {"name": "satellite", "a": "gateway", "b": "client", "delay_s": 0.25,
             "queue_packets": 500, "ab": {"rate_bps": 10e6}, "ba": ba},
        ],
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": 1_000_000}],
        "tcp": {"profile": "linux", "variant": "reno", "window_scaling": true,
                "rcv_buffer": 8_000_000},
    });
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

fn return_link(r: &RunResult) -> &satcp_core::net::link::LinkStats {
    &r.links
        .iter()
        .find(|l| l.from == "client" && l.to == "gateway")
        .expect("the return direction")
        .stats
}

#[test]
fn ack_filtering_shortens_a_download_over_a_narrow_return_link() {
    for packets in [5, 50] {
        let drop_tail = run(json!({"queue_packets": packets}));
        let filtered = run(json!({"queue": "ack_filter", "queue_packets": packets}));
        let t = |r: &RunResult| r.flows[0].duration_s;
        let (dt, af) = (return_link(&drop_tail), return_link(&filtered));
        eprintln!(
            "ACK queue {packets}: drop-tail {:.2} s ({} ACKs sent, {} dropped), \
             ack_filter {:.2} s ({} sent, {} dropped, {} filtered)",
            t(&drop_tail),
            dt.tx_packets,
            dt.queue_drops,
            t(&filtered),
            af.tx_packets,
            af.queue_drops,
            af.acks_filtered
        );
        assert!(drop_tail.flows[0].state == filtered.flows[0].state);
        // Drop-tail loses ACKs or queues them; the filter removes the
        // redundant ones instead, loses none and sends fewer.
        assert!(dt.queue_drops > 100, "{dt:?}");
        assert_eq!(dt.acks_filtered, 0);
        assert!(af.acks_filtered > 100, "{af:?}");
        assert_eq!(af.queue_drops, 0, "{af:?}");
        assert!(af.tx_packets < dt.tx_packets);
        // The download ends sooner.
        assert!(
            t(&filtered) < 0.95 * t(&drop_tail),
            "{} vs {}",
            t(&filtered),
            t(&drop_tail)
        );
    }
}

#[test]
fn ack_filtering_is_deterministic() {
    let a = run(json!({"queue": "ack_filter", "queue_packets": 5}));
    let b = run(json!({"queue": "ack_filter", "queue_packets": 5}));
    assert_eq!(a.flows[0].duration_s, b.flows[0].duration_s);
    assert_eq!(a.flows[0].goodput_bps, b.flows[0].goodput_bps);
    assert_eq!(return_link(&a), return_link(&b));
}
