//! RED with and without ECN end to end: one bulk transfer through a
//! 1 Mb/s bottleneck whose RED queue (min_th 5, max_th 15, limit 100) the
//! sender's 64 KB window would otherwise fill. With ECN the router marks
//! instead of dropping, the receiver echoes, the sender halves its window
//! once per window and nothing is lost; without ECN the same RED drops and
//! the sender recovers from losses.

use satcp_core::RunResult;
use serde_json::json;

const BYTES: u64 = 5_000_000;

fn run(ecn: bool) -> RunResult {
    let v = json!({
        "name": "red-ecn", "seed": 3, "duration_s": 600.0,
        "nodes": ["server", "gw", "client"],
        "links": [
            {"name": "access", "a": "server", "b": "gw", "rate_bps": 100e6, "delay_s": 0.001},
            {"name": "bottleneck", "a": "gw", "b": "client", "rate_bps": 1e6, "delay_s": 0.05,
                "ab": {"queue": "red", "queue_packets": 100,
                    "red": {"min_th": 5.0, "max_th": 15.0, "max_p": 0.1, "wq": 0.002,
                            "ecn_marking": ecn}}},
        ],
        "apps": [{"kind": "bulk", "client": "client", "server": "server", "bytes": BYTES}],
        "tcp": {"variant": "newreno", "ecn": ecn},
    });
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

#[test]
fn ecn_marks_replace_drops() {
    let r = run(true);
    assert!(r.apps_done);
    let link = &r.links[2].stats; // gw -> client
    let f = &r.flows[0];
    eprintln!(
        "ecn: {link:?}\nserver {:?}\nclient {:?}",
        f.server, f.client
    );
    assert!(link.ce_marks > 10, "{}", link.ce_marks);
    assert!(f.client.ce_marks_received == link.ce_marks);
    assert!(f.server.ecn_reductions > 5, "{}", f.server.ecn_reductions);
    assert!(f.server.ecn_reductions <= link.ce_marks);
    assert!(link.queue_drops <= 2, "{}", link.queue_drops);
    assert!(f.server.retransmitted_segments <= 2);
    assert_eq!(f.client.bytes_delivered, BYTES);

    let plain = run(false);
    assert!(plain.apps_done);
    let link = &plain.links[2].stats;
    let f = &plain.flows[0];
    eprintln!("drop: {link:?}\nserver {:?}", f.server);
    assert_eq!(link.ce_marks, 0);
    assert_eq!(f.server.ecn_reductions, 0);
    assert!(link.queue_drops > 10, "{}", link.queue_drops);
    assert!(f.server.retransmitted_segments >= link.queue_drops / 2);
}

/// RED's draws come from the queue's own stream: the same seed gives the
/// same run.
#[test]
fn red_runs_are_reproducible() {
    let a = serde_json::to_string(&run(true)).unwrap();
    let b = serde_json::to_string(&run(true)).unwrap();
    assert_eq!(a, b);
}

/// Bad RED settings are one-line errors naming the field.
#[test]
fn red_settings_are_validated() {
    let err = |link: serde_json::Value| {
        let v = json!({"nodes": ["a", "b"], "links": [link], "apps": []});
        satcp_core::parse(&v.to_string()).unwrap_err().to_string()
    };
    let e = err(json!({"a": "a", "b": "b", "rate_bps": 1e6, "queue": "red",
        "red": {"min_th": 10.0, "max_th": 5.0}}));
    assert!(
        e.contains("links[0].red.max_th") && !e.contains('\n'),
        "{e}"
    );
    let e = err(json!({"a": "a", "b": "b", "rate_bps": 1e6, "queue": "red",
        "ab": {"red": {"max_p": 1.5}}}));
    assert!(e.contains("links[0].ab.red.max_p"), "{e}");
    let e = err(json!({"a": "a", "b": "b", "rate_bps": 1e6, "red": {"ecn_marking": true}}));
    assert!(
        e.contains("links[0].red: applies only to queue = \"red\""),
        "{e}"
    );
    let e = err(json!({"a": "a", "b": "b", "rate_bps": 1e6, "ecn_marking": true}));
    assert!(
        e.contains("links[0].ecn_marking: renamed to red.ecn_marking"),
        "{e}"
    );
    let e = err(json!({"a": "a", "b": "b", "rate_bps": 1e6, "queue": "rde"}));
    assert!(e.contains("links[0].queue"), "{e}");
}
