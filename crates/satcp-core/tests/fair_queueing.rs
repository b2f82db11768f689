//! Per-flow queueing end to end: four long-lived NewReno flows whose round
//! trips differ eightfold (20 to 160 ms) share a 2 Mb/s bottleneck. A
//! drop-tail FIFO gives the short-RTT flows the larger share (TCP's window
//! grows once per RTT); deficit round robin and FQ-CoDel, which serve the
//! flows in turn, bring Jain's fairness index near 1. CoDel alone keeps
//! the standing queue short but leaves the shares to TCP.

use satcp_core::RunResult;
use serde_json::{json, Value};

const DURATION_S: f64 = 120.0;

fn run(queue: Value) -> RunResult {
    let mut links = vec![];
    let mut apps = vec![];
    let mut nodes = vec!["gw".to_string(), "client".to_string()];
    // One-way access delays: RTTs of 20, 40, 80 and 160 ms with the
    // bottleneck's 5 ms each way.
    for (i, d) in [0.005, 0.015, 0.035, 0.075].into_iter().enumerate() {
        let s = format!("s{i}");
        nodes.push(s.clone());
        links.push(json!({"a": s, "b": "gw", "rate_bps": 100e6, "delay_s": d}));
        apps.push(json!({"kind": "bulk", "client": "client", "server": s}));
    }
    let mut bottleneck = json!({"name": "bottleneck", "a": "gw", "b": "client",
        "rate_bps": 2e6, "delay_s": 0.005});
    let ab = bottleneck.as_object_mut().unwrap();
    ab.insert("ab".into(), queue);
    links.push(bottleneck);
    let v = json!({
        "name": "fq", "seed": 5, "duration_s": DURATION_S,
        "nodes": nodes, "links": links, "apps": apps,
        "tcp": {"variant": "newreno", "rcv_buffer": 262144, "window_scaling": true},
    });
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

/// Jain's index (sum x)^2 / (n sum x^2): 1 when all shares are equal,
/// 1/n when one flow has everything.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

fn shares(r: &RunResult) -> (Vec<f64>, f64) {
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let total = g.iter().sum();
    (g, total)
}

#[test]
fn per_flow_queues_share_the_bottleneck_fairly_across_rtts() {
    let cases = [
        ("drop_tail", json!({"queue_packets": 50})),
        ("drr", json!({"queue": "drr", "queue_packets": 50})),
        (
            "fq_codel",
            json!({"queue": "fq_codel", "queue_packets": 50}),
        ),
        ("codel", json!({"queue": "codel", "queue_packets": 50})),
    ];
    let mut index = vec![];
    for (name, q) in cases {
        let r = run(q);
        let (g, total) = shares(&r);
        let j = jain(&g);
        let link = r.links.iter().find(|l| l.from == "gw" && l.to == "client");
        eprintln!(
            "{name:>9}: jain {j:.3}, total {:.0} kb/s, per flow {:?} kb/s, link {:?}",
            total / 1e3,
            g.iter().map(|x| (x / 1e3).round()).collect::<Vec<_>>(),
            link.map(|l| (l.stats.queue_drops, l.stats.max_queue_packets))
        );
        // Every discipline keeps the link busy.
        assert!(total > 1.7e6, "{name}: {total}");
        let spread =
            g.iter().cloned().fold(0.0, f64::max) / g.iter().cloned().fold(f64::MAX, f64::min);
        index.push((name, j, spread));
    }
    let get = |n: &str| *index.iter().find(|(k, _, _)| *k == n).unwrap();
    // Drop-tail: the 20 ms flow gets about twice the 160 ms flow's share.
    assert!(get("drop_tail").2 > 1.5, "{index:?}");
    for fq in ["drr", "fq_codel"] {
        let (_, j, spread) = get(fq);
        assert!(j > 0.99 && j > get("drop_tail").1, "{index:?}");
        assert!(spread < 1.25, "{index:?}");
    }
}
