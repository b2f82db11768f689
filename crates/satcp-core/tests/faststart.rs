//! TCP Fast Start end to end, on the TCP-Peach paper's Sec. V network (one
//! flow unless said otherwise): a sender, Earth station A with a priority
//! queue of K = 50 segments, a GEO channel of c = 1,300 segments/s, RTT
//! 550 ms, rwnd 64 segments of 1,000 bytes, ACKs not delayed, Reno from one
//! segment. The workload is the `web` application: S = 50-segment files,
//! each over a new connection, after a think time.
//!
//! - the second transfer starts from the window the first one ended with,
//!   sends it at low priority paced over one RTT, and finishes rounds of
//!   slow start earlier than NewReno's (Sec. II-A);
//! - when a congested priority router drops that burst, the sender falls
//!   back to slow start from the initial window and the transfer still
//!   completes, without the competing ordinary traffic losing anything to
//!   the burst;
//! - transfers complete under link errors, duplication and reordering.

use satcp_core::RunResult;
use serde_json::{json, Value};

const MSS: u64 = 1000;
const RTT: f64 = 0.55;
const S: u64 = 50;

fn merge(v: &mut Value, extra: &Value) {
    for (k, x) in extra.as_object().expect("object") {
        v[k] = x.clone();
    }
}

/// The Sec. V network with a `web` app of `transfers` files of S segments
/// `think_s` apart (fixed), the sender at `server`; `tcp` is merged into the
/// shared TCP settings.
fn scenario(variant: &str, transfers: u32, think_s: f64, tcp: Value) -> Value {
    let rate = 1300.0 * (MSS + 40) as f64 * 8.0;
    let mut t = json!({"variant": variant, "mss": MSS, "rcv_buffer": 64 * MSS,
        "delayed_ack": false, "initial_window": 1});
    merge(&mut t, &tcp);
    json!({
        "name": "faststart", "seed": 1, "duration_s": 300.0, "sample_interval_s": 0.01,
        "nodes": ["server", "gw", "client"],
        "links": [
            {"name": "access", "a": "server", "b": "gw", "rate_bps": 100e6, "delay_s": 0.001},
            {"name": "satellite", "a": "gw", "b": "client", "rate_bps": rate,
                "delay_s": RTT / 2.0 - 0.001, "queue": "priority", "queue_packets": 50},
        ],
        "apps": [{"kind": "web", "client": "client", "server": "server", "segments": S,
            "transfers": transfers, "think_time": "fixed", "think_time_s": think_s}],
        "tcp": t,
    })
}

fn run(v: &Value) -> RunResult {
    let text = v.to_string();
    // Up to 3,000 s sampled every 10 ms: above the default memory limit,
    // whose estimate counts Python's copies of the series too.
    let s =
        satcp_core::scenario::parse_within(&text, 1e10).unwrap_or_else(|e| panic!("{e}\n{text}"));
    satcp_core::run(&s)
}

/// Response time of the web app's transfer `i` (app 0), seconds.
fn transfer_time(r: &RunResult, i: usize) -> f64 {
    let t: Vec<_> = r.transfers.iter().filter(|t| t.app == 0).collect();
    t[i].response_time_s
        .unwrap_or_else(|| panic!("transfer {i} did not complete"))
}

/// The web app's flow rows (app 0), in the order of its transfers.
fn web_flows(r: &RunResult) -> Vec<&satcp_core::scenario::results::FlowRow> {
    r.flows.iter().filter(|f| f.app == 0).collect()
}

/// The flow's samples (conn `c`): (time, cwnd in segments, ssthresh, phase).
fn samples(r: &RunResult, c: u32) -> Vec<(f64, f64, u64, i32)> {
    let fs = &r.flow_series;
    (0..fs.time_s.len())
        .filter(|&i| fs.conn[i] == c)
        .map(|i| {
            (
                fs.time_s[i],
                fs.cwnd[i] as f64 / MSS as f64,
                fs.ssthresh[i],
                fs.cc_phase[i],
            )
        })
        .collect()
}

/// Sec. II-A: the first transfer knows nothing and is NewReno to the
/// nanosecond; it ends with cwnd = 51 segments (slow start from 1 over 50
/// ACKs). The second, 2 s later over a new connection, starts from that
/// window: its 50 segments leave at low priority, paced over one RTT,
/// and it finishes 4 RTT sooner than NewReno's, which slow-starts again.
#[test]
fn second_transfer_starts_from_the_cached_window() {
    let nr = run(&scenario("newreno", 2, 2.0, json!({})));
    let fs = run(&scenario("faststart", 2, 2.0, json!({})));
    for r in [&nr, &fs] {
        assert!(r.apps_done);
        assert_eq!(r.flows.len(), 2, "one connection per transfer");
        for f in &r.flows {
            assert_eq!(f.client.bytes_delivered, S * MSS);
            assert_eq!(f.server.retransmitted_segments, 0);
        }
        // The think time runs from the last ACK to the next SYN.
        let t = &r.transfers;
        assert!((t[1].start_s - t[0].end_s.unwrap() - 2.0).abs() < 1e-9);
    }
    let (n0, n1) = (transfer_time(&nr, 0), transfer_time(&nr, 1));
    let (f0, f1) = (transfer_time(&fs, 0), transfer_time(&fs, 1));
    println!("transfer times: newreno {n0:.4} {n1:.4} s, faststart {f0:.4} {f1:.4} s");
    assert_eq!(f0, n0, "no cache entry yet: plain NewReno");
    assert_eq!(n1, n0, "NewReno starts over");
    let gain = (n1 - f1) / RTT;
    assert!(gain >= 3.9, "{gain:.2} RTT");
    // 3.5 RTT: handshake, the paced burst, the last segment's ACK.
    assert!(f1 / RTT <= 3.6, "{:.2} RTT", f1 / RTT);
    let w = web_flows(&fs);
    assert_eq!(w[0].final_cwnd, 51 * MSS);
    assert_eq!(w[0].server.low_priority_data_segments_sent, 0);
    assert_eq!(w[1].server.low_priority_data_segments_sent, S);
    let second = samples(&fs, 1);
    assert_eq!(
        second[0].1, 51.0,
        "cwnd at the start of the second connection"
    );
    assert_eq!(second[0].3, 1, "phase FAST_START");
}

/// A link-error loss inside the burst. Two web apps share the server's
/// host-level cache: the first moves 20 segments (cwnd 21 at its end), the
/// second, 5 s later, 50 segments from a 21-segment burst whose last
/// segment is lost on the satellite link. The duplicate ACKs make the
/// sender revert to slow start from the initial window (cwnd 1, ssthresh
/// not halved) and resend only the lost segment; it still finishes far
/// ahead of NewReno, which loses the same segment in its slow start.
#[test]
fn a_lost_burst_segment_reverts_to_slow_start() {
    let run_with = |variant: &str| {
        let mut v = scenario(variant, 1, 0.0, json!({}));
        v["apps"][0]["segments"] = json!(20);
        v["apps"]
            .as_array_mut()
            .unwrap()
            .push(json!({"kind": "web", "client": "client",
            "server": "server", "segments": S, "transfers": 1, "start_s": 5.0}));
        v["links"][1]["ab"] = json!({"errors": {"drop_seqs": [1 + 20 * MSS]}});
        run(&v)
    };
    let nr = run_with("newreno");
    for variant in ["faststart", "faststart-sack"] {
        let r = run_with(variant);
        assert!(r.apps_done, "{variant}");
        let b = r.flows.iter().find(|f| f.app == 1).unwrap();
        assert_eq!(b.client.bytes_delivered, S * MSS);
        assert_eq!(b.server.low_priority_data_segments_sent, 21, "{variant}");
        assert_eq!((b.server.fast_retransmits, b.server.timeouts), (1, 0));
        assert_eq!(b.server.retransmitted_segments, 1, "{variant}");
        let s = samples(&r, 1);
        let fell = s.iter().find(|x| x.3 == 2).expect("the fallback");
        assert_eq!((fell.1, fell.2), (1.0, 65_535), "{variant}: cwnd, ssthresh");
        assert!(s.iter().all(|x| x.2 == 65_535), "ssthresh never halved");
        let (t, t_nr) = (
            r.transfers[1].response_time_s.unwrap(),
            nr.transfers[1].response_time_s.unwrap(),
        );
        println!("{variant}: second app {t:.3} s, newreno {t_nr:.3} s");
        assert!((t_nr - t) / RTT > 3.0, "{variant}");
    }
    assert_eq!(nr.flows[1].server.retransmitted_segments, 1);
}

/// The Sec. V network shrunk to c = 40 segments/s, K = 20, with a second
/// sender whose bulk NewReno flow (ordinary, high-priority traffic) starts
/// after the first web transfer and keeps the bottleneck congested.
fn congested(variant: &str) -> Value {
    let mut v = scenario(variant, 2, 30.0, json!({}));
    let rate = 40.0 * (MSS + 40) as f64 * 8.0;
    v["nodes"] = json!(["server", "gw", "client", "other"]);
    v["links"][1]["rate_bps"] = json!(rate);
    v["links"][1]["queue_packets"] = json!(20);
    v["links"].as_array_mut().unwrap().push(
        json!({"name": "access2", "a": "other", "b": "gw", "rate_bps": 100e6, "delay_s": 0.001}),
    );
    v["apps"]
        .as_array_mut()
        .unwrap()
        .push(json!({"kind": "bulk", "client": "client",
        "server": "other", "start_s": 5.0, "tcp": {"variant": "newreno"}}));
    v["duration_s"] = json!(120.0);
    v["stop_when_done"] = json!(false);
    v
}

/// A stale cache entry meets a congested priority router. The first
/// transfer ran alone and left cwnd 51; 30 s later the bottleneck is held
/// by a competing flow whose packets always wait in the queue, so the
/// 50-segment low-priority burst is never served: pushed out or dropped,
/// all of it. The retransmission timer fires with the burst outstanding,
/// the sender falls back to slow start from the initial window, resends at
/// high priority, and the transfer completes. The competing flow loses
/// nothing to the burst: its loss episodes are those it has when the web
/// transfers are plain NewReno.
#[test]
fn burst_dropped_at_a_congested_router_falls_back_and_completes() {
    let reference = run(&congested("newreno"));
    let competitor = |r: &RunResult| r.flows.iter().find(|f| f.app == 1).unwrap().server;
    for variant in ["faststart", "faststart-sack"] {
        let r = run(&congested(variant));
        let w = web_flows(&r);
        assert_eq!(w.len(), 2);
        let second = &w[1];
        assert_eq!(second.client.bytes_delivered, S * MSS, "{variant}");
        assert!(r
            .transfers
            .iter()
            .filter(|t| t.app == 0)
            .all(|t| t.end_s.is_some()));
        assert_eq!(second.server.low_priority_data_segments_sent, S);
        assert!(second.server.timeouts >= 1, "{variant}");
        let s = samples(&r, second.conn);
        let fell = s.iter().find(|x| x.3 == 2).expect("the fallback");
        assert_eq!((fell.1, fell.2), (1.0, 65_535), "{variant}");
        let sat = r.links.iter().find(|l| l.name == "satellite:ab").unwrap();
        assert!(
            sat.stats.queue_drops >= S,
            "{variant}: {}",
            sat.stats.queue_drops
        );
        let (c, c0) = (competitor(&r), competitor(&reference));
        println!(
            "{variant}: second transfer {:.2} s (newreno {:.2} s), {} resent; \
             competitor {} loss episodes ({} with newreno web)",
            transfer_time(&r, 1),
            transfer_time(&reference, 1),
            second.server.retransmitted_segments,
            c.fast_retransmits + c.timeouts,
            c0.fast_retransmits + c0.timeouts,
        );
        assert!(c.fast_retransmits + c.timeouts <= c0.fast_retransmits + c0.timeouts);
        assert!(c.retransmitted_segments <= c0.retransmitted_segments);
    }
}

/// Every transfer completes, every byte delivered once, whatever the link
/// does to the bursts, their retransmissions and the ACKs: corruption,
/// duplication, reordering, a small bottleneck buffer; exponential think
/// times of mean 1 s, so later transfers start from cached state.
#[test]
fn transfers_complete_under_errors_duplication_and_reordering() {
    let mut fallbacks = 0;
    for seed in 1..=6u64 {
        for variant in ["faststart", "faststart-sack"] {
            let mut v = scenario(
                variant,
                6,
                1.0,
                json!({"delayed_ack": seed % 2 == 0,
                "max_retransmissions": 30}),
            );
            v["seed"] = json!(seed);
            v["apps"][0]["think_time"] = json!("exponential");
            v["links"][1]["queue_packets"] = json!(10);
            v["links"][1]["errors"] = json!({"ber": 4e-6 * seed as f64, "duplicate": 0.01});
            v["links"][1]["reorder"] = json!({"prob": 0.02, "delay": "uniform", "mean_s": 0.02});
            v["duration_s"] = json!(3000.0);
            let r = run(&v);
            let label = format!("seed {seed} {variant}");
            assert!(r.apps_done, "{label}");
            assert_eq!(r.transfers.len(), 6);
            for f in &r.flows {
                assert_eq!(f.client.bytes_delivered, S * MSS, "{label}");
                assert_eq!(
                    f.server.payload_bytes_sent - f.server.retransmitted_bytes,
                    S * MSS,
                    "{label}: every original byte sent once"
                );
            }
            assert!(web_flows(&r)[1..]
                .iter()
                .all(|f| f.server.low_priority_data_segments_sent > 0));
            fallbacks += r
                .flows
                .iter()
                .filter(|f| samples(&r, f.conn).iter().any(|x| x.3 == 2))
                .count();
        }
    }
    println!("{fallbacks} of 60 connections fell back");
    assert!(fallbacks > 0);
}

/// The new settings are checked where they are written, and named.
#[test]
fn bad_settings_are_named() {
    let cases = [
        ("segments", json!(0), "apps[0].segments"),
        ("think_time_s", json!(-1.0), "apps[0].think_time_s"),
        ("think_time", json!("uniform"), "apps[0].think_time"),
    ];
    for (field, value, path) in cases {
        let mut v = scenario("faststart", 2, 1.0, json!({}));
        v["apps"][0][field] = value;
        let e = satcp_core::parse(&v.to_string()).unwrap_err();
        assert_eq!(e.field, path, "{e}");
    }
    let v = scenario(
        "faststart",
        2,
        1.0,
        json!({"faststart": {"max_age_s": 0.0}}),
    );
    let e = satcp_core::parse(&v.to_string()).unwrap_err();
    assert_eq!(e.field, "tcp.faststart.max_age_s", "{e}");
    let v = scenario("faststart", 2, 1.0, json!({"faststart": {"pace": true}}));
    let e = satcp_core::parse(&v.to_string()).unwrap_err();
    assert!(e.field.starts_with("tcp"), "{e}");
    let mut v = scenario(
        "faststart-sack",
        2,
        1.0,
        json!({"faststart": {"max_age_s": 30.0, "pacing": false}}),
    );
    v["apps"][0]["transfers"] = json!(null);
    v["duration_s"] = json!(20.0);
    let s = satcp_core::parse(&v.to_string()).unwrap();
    let r = satcp_core::run(&s);
    assert!(
        !r.apps_done,
        "no transfer limit: the app runs until the end"
    );
    assert!(r.transfers.len() >= 4);
}
