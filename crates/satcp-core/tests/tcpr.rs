//! EPDN gateways, RN-TCP and TCP-R end to end on the TCP-R paper's network
//! (Sec. 3): src -10 Mb/s, 1 ms- R1 -1.5 Mb/s, 300 ms- R2 -10 Mb/s, 1 ms-
//! dst, 1500-byte packets, RED with ECN marking (queue = BDP, 75 packets),
//! window = BDP (113 kB, window scaling), DSACK, min RTO 1 s, EPDN v2
//! gateways at R1 and R2, one bulk flow. Readings: docs/tcpr.md.

use satcp_core::tcp::FlowStats;
use satcp_core::RunResult;
use serde_json::{json, Value};

const DURATION: f64 = 300.0;

struct Net {
    variant: &'static str,
    /// Link options of the R1 -> R2 direction on top of the RED queue.
    r1r2: Value,
    /// Router function kind at R1 and R2 (None: plain routers).
    gateway: Option<&'static str>,
    ecn: bool,
    rcv_buffer: u64,
}

fn scenario(n: &Net) -> Value {
    let red = json!({"queue": "red", "queue_packets": 75, "red": {"ecn_marking": n.ecn}});
    let mut r1r2 = red.clone();
    for (k, v) in n.r1r2.as_object().unwrap() {
        r1r2[k] = v.clone();
    }
    if r1r2["queue"] != "red" {
        r1r2.as_object_mut().unwrap().remove("red");
    }
    let routers: Vec<Value> = match n.gateway {
        Some(kind) => vec![
            json!({"node": "R1", "kind": kind}),
            json!({"node": "R2", "kind": kind}),
        ],
        None => vec![],
    };
    json!({
        "name": "tcpr-paper", "seed": 11, "duration_s": DURATION,
        "nodes": ["src", "R1", "R2", "dst"],
        "links": [
            {"name": "access", "a": "src", "b": "R1", "rate_bps": 10e6, "delay_s": 0.001,
                "ab": red, "ba": red},
            {"name": "sat", "a": "R1", "b": "R2", "rate_bps": 1.5e6, "delay_s": 0.3,
                "ab": r1r2, "ba": red},
            {"name": "tail", "a": "R2", "b": "dst", "rate_bps": 10e6, "delay_s": 0.001,
                "ab": red, "ba": red},
        ],
        "apps": [{"kind": "bulk", "client": "dst", "server": "src"}],
        "tcp": {"variant": n.variant, "mss": 1460, "ecn": n.ecn, "window_scaling": true,
            "rcv_buffer": n.rcv_buffer, "dsack": true, "min_rto": 1.0},
        "routers": routers,
    })
}

fn run(n: &Net) -> RunResult {
    let v = scenario(n);
    let text = v.to_string();
    let s = satcp_core::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    satcp_core::run(&s)
}

fn counter(r: &RunResult, name: &str) -> u64 {
    r.flows[0].variant_counters.get(name).copied().unwrap_or(0)
}

fn goodput_bps(r: &RunResult) -> f64 {
    r.flows[0].client.bytes_delivered as f64 * 8.0 / DURATION
}

fn fr_ratio(s: &FlowStats) -> f64 {
    s.fast_retransmits as f64 / s.data_segments_sent as f64
}

/// 4 % of the data packets on R1 -> R2 are delayed N(0.6 s, 0.2 s).
fn reordering() -> Value {
    json!({"reorder": {"prob": 0.04, "delay": "normal", "mean_s": 0.6, "sd_s": 0.2},
        "errors": {"data_only": true}})
}

fn report(name: &str, r: &RunResult) {
    let s = &r.flows[0].server;
    println!(
        "{name}: goodput {:.0} b/s, fast retransmits {} ({:.5} per data packet), timeouts {}, \
         retransmitted {}, ecn reductions {}, duplicates at the receiver {}, counters {:?}",
        goodput_bps(r),
        s.fast_retransmits,
        fr_ratio(s),
        s.timeouts,
        s.retransmitted_segments,
        s.ecn_reductions,
        r.flows[0].client.duplicate_segments_received,
        r.flows[0].variant_counters
    );
    let drops: Vec<_> = r
        .links
        .iter()
        .map(|l| (l.stats.queue_drops, l.stats.ce_marks))
        .collect();
    println!("  queue drops and CE marks per link direction: {drops:?}");
}

#[test]
fn with_reordering_only_tcpr_has_almost_no_fast_retransmits_and_at_least_sacks_goodput() {
    let net = |variant| Net {
        variant,
        r1r2: reordering(),
        gateway: Some("epdn-v2"),
        ecn: true,
        rcv_buffer: 113_000,
    };
    let sack = run(&net("sack"));
    let tcpr = run(&net("tcpr"));
    let rntcp = run(&net("rntcp"));
    report("sack", &sack);
    report("tcpr", &tcpr);
    report("rntcp", &rntcp);
    let (s, t) = (&sack.flows[0].server, &tcpr.flows[0].server);
    assert!(s.fast_retransmits > 20, "reordering fools SACK: {s:?}");
    assert!(fr_ratio(t) < 0.0005, "{t:?}");
    assert!(counter(&tcpr, "reorder_retransmits") > 20);
    assert!(goodput_bps(&tcpr) >= goodput_bps(&sack));
    // RN-TCP (k = cwnd) waits out much of the reordering too.
    assert!(goodput_bps(&rntcp) > goodput_bps(&sack));
}

#[test]
fn without_reordering_tcpr_equals_sack() {
    let net = |variant| Net {
        variant,
        r1r2: json!({}),
        gateway: Some("epdn-v2"),
        ecn: true,
        rcv_buffer: 113_000,
    };
    let sack = run(&net("sack"));
    let tcpr = run(&net("tcpr"));
    report("sack", &sack);
    report("tcpr", &tcpr);
    assert_eq!(sack.flows[0].server, tcpr.flows[0].server);
    assert_eq!(sack.flows[0].client, tcpr.flows[0].client);
    assert_eq!(counter(&tcpr, "reorder_retransmits"), 0);
    assert!(sack.flows[0].client.bytes_delivered > 30_000_000);
}

/// A 10-packet drop-tail queue at R1 overflows (window 300 kB): R1 reports
/// the drops, the holes are in the receiver's drop list, the duplicate
/// ACKs carry DN = 0 and TCP-R retransmits and halves as SACK does.
/// Without gateways the same holes look reordered (DN = 1) and TCP-R
/// takes them for reordering.
#[test]
fn a_congestion_drop_reported_by_epdn_leads_to_a_normal_fast_retransmit() {
    let net = |variant, gateway| Net {
        variant,
        r1r2: json!({"queue": "drop_tail", "queue_packets": 10}),
        gateway,
        ecn: false,
        // A window beyond BDP + queue: the queue overflows.
        rcv_buffer: 300_000,
    };
    let epdn = run(&net("tcpr", Some("epdn-v2")));
    let plain = run(&net("tcpr", None));
    let v3 = run(&net("tcpr", Some("epdn-v3")));
    report("tcpr with epdn-v2", &epdn);
    report("tcpr with epdn-v3", &v3);
    report("tcpr without gateways", &plain);
    let drops = epdn.links.iter().map(|l| l.stats.queue_drops).sum::<u64>();
    assert!(drops > 0);
    let s = &epdn.flows[0].server;
    assert!(s.fast_retransmits >= 1, "{s:?}");
    assert_eq!(counter(&epdn, "reorder_retransmits"), 0);
    assert!(counter(&epdn, "bypass_refused_dn") >= 1);
    // Congestion drops: v3 records them as v2 does.
    assert_eq!(epdn.flows[0].server, v3.flows[0].server);
    assert!(counter(&plain, "reorder_retransmits") >= 1);
    // RN-TCP with the gateways: DN = 0, fast retransmit at 3 as SACK.
    let rn = run(&net("rntcp", Some("epdn-v2")));
    report("rntcp with epdn-v2", &rn);
    assert!(rn.flows[0].server.fast_retransmits >= 1);
}
