//! The benchmark scenarios, shared by the criterion benchmark
//! (`scenarios.rs`) and the summary (`summary.rs`):
//! (a) the thesis's 50 MB GEO FTP download with SACK and delayed ACK;
//! (b) 20 long-lived flows sharing a 10 Mb/s GEO bottleneck for 550 s;
//! (c) a large window: bulk transfer over a 1 Gb/s, 600 ms round-trip path
//!     (10 Gb/s access link, then the long hop with random loss 1e-5) with
//!     window scaling and SACK, 60 s simulated; same shape as (a), so the
//!     cost per event compares like with like;
//! (d) 1,000 long-lived flows sharing a 100 Mb/s GEO bottleneck for 60 s;
//! (e) short FTP downloads (20 kB) arriving one every 50 ms, web-like:
//!     10,000 of them (500 s of arrivals), and 1,000 (the same load for a
//!     tenth of the time: with finished flows' state released, the two peak
//!     at about the same memory).

use serde_json::{json, Value};

/// A scenario's name and the function that builds it (built only when
/// needed, so that a process measuring one scenario's memory holds no
/// other scenario's description).
pub type Named = (&'static str, fn() -> Value);

/// The fixed scenarios, in the order the benchmarks run them.
pub fn all() -> Vec<Named> {
    vec![
        ("a_thesis_ftp_50MB", thesis_ftp),
        ("b_20_flows_550s", twenty_flows),
        ("c_large_window_60s", large_window),
        ("d_1000_flows_60s", thousand_flows),
        ("e_10000_short_flows", || short_flows(10_000)),
    ]
}

/// The scenarios of `all` plus the memory comparison point for (e).
#[allow(dead_code)] // used by summary.rs, not by scenarios.rs
pub fn with_scale_points() -> Vec<Named> {
    let mut v = all();
    v.push(("e_1000_short_flows", || short_flows(1_000)));
    v.push(("e_one_app_10000_files", one_app_many_files));
    v.push(("f_200_paths_10s", two_hundred_paths));
    v
}

/// 200 flows, each on a GEO path of its own (its own access and satellite
/// links): hundreds of links busy at once, so the packet events number in
/// the hundreds (`engine/event_list.rs` keeps them in a heap then), where
/// every other scenario has a handful.
pub fn two_hundred_paths() -> Value {
    let n = 200;
    let mut nodes = vec![];
    let mut links = vec![];
    let mut apps = vec![];
    for i in 0..n {
        let (s, g, c) = (format!("s{i}"), format!("g{i}"), format!("c{i}"));
        links.push(json!({"a": s, "b": g, "rate_bps": 10e6, "delay_s": 0.010}));
        links.push(json!({"a": g, "b": c, "delay_s": 0.250,
                          "ab": {"rate_bps": 2.048e6}, "ba": {"rate_bps": 256e3}}));
        apps.push(json!({"kind": "bulk", "client": c, "server": s,
                         "start_s": 0.001 * i as f64}));
        nodes.extend([json!(s), json!(g), json!(c)]);
    }
    json!({
        "name": "bench-f-200-paths",
        "duration_s": 10.0,
        "stop_when_done": false,
        "nodes": nodes,
        "tcp": {"variant": "sack", "delayed_ack": true},
        "links": links,
        "apps": apps
    })
}

pub fn thesis_ftp() -> Value {
    json!({
        "name": "bench-a-thesis-ftp",
        "duration_s": 18000.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.010},
            {"a": "gateway", "b": "client", "delay_s": 0.250,
             "ab": {"rate_bps": 2.048e6}, "ba": {"rate_bps": 256e3}}
        ],
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": 50_000_000}]
    })
}

pub fn twenty_flows() -> Value {
    let n = 20;
    let mut nodes = vec![json!("gateway"), json!("terminal")];
    let mut links = vec![json!({
        "name": "geo", "a": "gateway", "b": "terminal", "delay_s": 0.250,
        "rate_bps": 10e6, "queue_packets": 50
    })];
    let mut apps = vec![];
    for i in 0..n {
        let (s, c) = (format!("s{i}"), format!("c{i}"));
        nodes.push(json!(s));
        nodes.push(json!(c));
        links.push(json!({"a": s, "b": "gateway", "rate_bps": 100e6, "delay_s": 0.001}));
        links.push(json!({"a": "terminal", "b": c, "rate_bps": 100e6, "delay_s": 0.001}));
        apps.push(json!({"kind": "bulk", "client": c, "server": s,
                         "start_s": 0.1 * i as f64}));
    }
    json!({
        "name": "bench-b-20-flows",
        "duration_s": 550.0,
        "nodes": nodes,
        "tcp": {"variant": "sack", "delayed_ack": true},
        "links": links,
        "apps": apps
    })
}

pub fn large_window() -> Value {
    json!({
        "name": "bench-c-large-window",
        "duration_s": 60.0,
        "stop_when_done": false,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true, "window_scaling": true,
                "rcv_buffer": 134_217_728u64, "initial_ssthresh": 134_217_728u64},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e9, "delay_s": 0.010},
            {"a": "gateway", "b": "client", "rate_bps": 1e9, "delay_s": 0.290,
             "queue_packets": 100_000, "ab": {"errors": {"loss": 1e-5}}}
        ],
        "apps": [{"kind": "bulk", "client": "client", "server": "server"}]
    })
}

/// (e)'s downloads made by one FTP application with 10,000 files instead
/// of 10,000 applications of one file: the same packets and events; what
/// differs is that one application keeps 10,000 transfers (the cost of a
/// notice must not grow with them, `apps/transfers.rs`).
pub fn one_app_many_files() -> Value {
    let mut s = short_flows(10_000);
    s["name"] = json!("bench-e-one-app-10000-files");
    s["apps"] = json!([{"kind": "ftp", "client": "client", "server": "server",
                        "file_bytes": 20_000, "files": 10_000, "inter_request_s": 0.05}]);
    s
}

pub fn thousand_flows() -> Value {
    let n = 1000;
    let apps: Vec<Value> = (0..n)
        .map(|i| {
            json!({"kind": "bulk", "client": "client", "server": "server",
                   "start_s": 0.01 * i as f64})
        })
        .collect();
    json!({
        "name": "bench-d-1000-flows",
        "duration_s": 60.0,
        "stop_when_done": false,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 1e9, "delay_s": 0.001},
            {"a": "gateway", "b": "client", "rate_bps": 100e6, "delay_s": 0.250,
             "queue_packets": 2000}
        ],
        "apps": apps
    })
}

pub fn short_flows(n: usize) -> Value {
    let apps: Vec<Value> = (0..n)
        .map(|i| {
            json!({"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": 20_000, "start_s": 0.05 * i as f64})
        })
        .collect();
    json!({
        "name": format!("bench-e-{n}-short-flows"),
        "duration_s": 0.05 * n as f64 + 100.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 100e6, "delay_s": 0.001},
            {"a": "gateway", "b": "client", "rate_bps": 10e6, "delay_s": 0.250,
             "queue_packets": 100}
        ],
        "apps": apps
    })
}
