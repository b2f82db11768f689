//! Per-event traces (`[trace]`, `metrics/trace.rs`) on whole runs: a
//! traced run's results are those of the run without the trace; each kind
//! records changes only, and agrees with the counters the run keeps anyway.

use satcp_core::metrics::trace::{Trace, TraceKind};
use serde_json::{json, Value};

/// A download over a GEO hop with a small gateway queue: losses,
/// recoveries, timeouts and a queue that fills and drains.
fn scenario(trace: Value) -> satcp_core::Scenario {
    let v = json!({
        "name": "trace", "seed": 7, "duration_s": 600.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true, "rcv_buffer": 1_000_000, "initial_ssthresh": 1_000_000,
                "window_scaling": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.001},
            {"a": "gateway", "b": "client", "rate_bps": 2e6, "delay_s": 0.275,
             "queue_packets": 10}
        ],
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": 2_000_000}],
        "trace": trace
    });
    satcp_core::parse(&v.to_string()).expect("valid scenario")
}

fn all_kinds() -> Value {
    json!({"kinds": ["cwnd", "ssthresh", "rtt", "srtt", "rto", "state", "retx",
                     "queue", "queue_bytes"]})
}

/// The rows of one kind and subject: (time, value).
fn rows(t: &Trace, kind: TraceKind, subject: u32) -> Vec<(f64, f64)> {
    (0..t.len())
        .filter(|&i| t.kind[i] == kind && t.subject[i] == subject)
        .map(|i| (t.time_s[i], t.value[i]))
        .collect()
}

#[test]
fn a_traced_run_has_the_results_of_the_run_without_it() {
    let off = satcp_core::run(&scenario(json!({})));
    let on = satcp_core::run(&scenario(all_kinds()));
    assert!(off.trace.is_none());
    let trace = on.trace.as_ref().expect("a trace");
    assert!(trace.len() > 1000, "{} rows", trace.len());
    assert_eq!(
        serde_json::to_string(&off).unwrap(),
        serde_json::to_string(&on).unwrap()
    );
}

#[test]
fn each_kind_records_changes_only_in_time_order() {
    let r = satcp_core::run(&scenario(all_kinds()));
    let t = r.trace.unwrap();
    for kind in TraceKind::ALL {
        let subjects = if kind.of_link() { 0..4 } else { 0..2 };
        let mut seen = 0;
        for s in subjects {
            let rs = rows(&t, kind, s);
            seen += rs.len();
            for w in rs.windows(2) {
                assert!(w[0].0 <= w[1].0, "{kind:?} {s}: time goes back");
                if kind != TraceKind::Rtt {
                    // Two equal RTT samples in a row are two samples.
                    assert_ne!(w[0].1, w[1].1, "{kind:?} {s}: a row without a change");
                }
            }
        }
        assert!(seen > 0, "{kind:?}: no rows");
    }
}

#[test]
fn the_trace_agrees_with_the_counters() {
    let r = satcp_core::run(&scenario(all_kinds()));
    let t = r.trace.as_ref().unwrap();
    let server = &r.flows[0].server;
    // The retransmission count ends at the server's counter, and there
    // is an RTT row per sample the server took.
    let retx = rows(t, TraceKind::Retx, 1);
    assert_eq!(retx.last().unwrap().1, server.retransmitted_segments as f64);
    assert_eq!(rows(t, TraceKind::Rtt, 1).len() as u64, server.rtt_samples);
    // The gateway's queue towards the client (link direction 2): every
    // packet offered to it and not dropped (`enqueued_packets` counts the
    // offers) is a step up by one, its largest value is the link's maximum
    // and it ends empty.
    let q = rows(t, TraceKind::Queue, 2);
    let mut ups = 0;
    let mut prev = 0.0;
    for &(_, v) in &q {
        assert!((v - prev).abs() == 1.0, "a queue step of {}", v - prev);
        ups += (v > prev) as u64;
        prev = v;
    }
    let stats = &r.links[2].stats;
    assert!(stats.queue_drops > 0, "the scenario should fill the queue");
    assert_eq!(ups, stats.enqueued_packets - stats.queue_drops);
    let max = q.iter().map(|&(_, v)| v).fold(0.0, f64::max);
    assert_eq!(max, stats.max_queue_packets as f64);
    assert_eq!(q.last().unwrap().1, 0.0);
}

#[test]
fn a_window_and_a_connection_list_restrict_the_rows() {
    let r = satcp_core::run(&scenario(json!({
        "kinds": ["cwnd"], "start_s": 5.0, "end_s": 6.0, "conns": [0]
    })));
    let t = r.trace.unwrap();
    assert!(!t.is_empty());
    assert!(t.time_s.iter().all(|&s| (5.0..6.0).contains(&s)));
    let none = satcp_core::run(&scenario(json!({"kinds": ["cwnd"], "conns": [1]})));
    assert!(none.trace.unwrap().is_empty());
}

#[test]
fn bad_trace_settings_name_the_field() {
    let bad = |trace: Value| {
        let v = json!({
            "nodes": ["a", "b"], "links": [{"a": "a", "b": "b", "rate_bps": 1e6, "delay_s": 0.1}],
            "apps": [{"kind": "bulk", "client": "a", "server": "b", "bytes": 1000}],
            "trace": trace
        });
        satcp_core::parse(&v.to_string()).unwrap_err().to_string()
    };
    let e = bad(json!({"kinds": ["cwnd", "cwin"]}));
    assert!(e.contains("trace.kinds[1]: unknown variant `cwin`"), "{e}");
    let e = bad(json!({"kinds": ["cwnd"], "start_s": 2.0, "end_s": 1.0}));
    assert!(e.contains("trace.end_s: 1"), "{e}");
    let e = bad(json!({"kinds": ["cwnd"], "max_rows": 0}));
    assert!(e.contains("trace.max_rows: 0"), "{e}");
    let e = bad(json!({"kind": ["cwnd"]}));
    assert!(e.contains("trace.kind: unknown field `kind`"), "{e}");
}

#[test]
fn the_trace_counts_in_the_memory_estimate() {
    let s = scenario(json!({"kinds": ["cwnd"], "max_rows": 1000}));
    let e = satcp_core::scenario::validate::estimate_memory(&s);
    let part = e.parts.iter().find(|p| p.0 == "trace.max_rows").unwrap();
    assert_eq!(part.1, 1000.0 * satcp_core::metrics::trace::TRACE_ROW_BYTES);
    let untraced = scenario(json!({}));
    let e = satcp_core::scenario::validate::estimate_memory(&untraced);
    assert!(e.parts.iter().all(|p| p.0 != "trace.max_rows"));
}
