//! The memory budget (issue 31 item 2): a run estimated to need more than
//! its limit (2 GB unless told) is refused before it starts, in one line
//! naming the fields that make it grow and the estimate.

use satcp_core::scenario::validate::{estimate_memory, DEFAULT_MAX_MEMORY_BYTES};
use satcp_core::scenario::{parse, parse_within};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "duration_s": 100.0,
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e7, "delay_s": 0.01},
                  {"a": "gw", "b": "client", "rate_bps": 2e6, "delay_s": 0.25, "queue_packets": 50}],
        "apps": [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": 100000}],
    })
}

fn refused(v: &Value, limit: f64) -> String {
    let e = parse_within(&v.to_string(), limit).unwrap_err().to_string();
    assert!(!e.contains('\n'), "{e}");
    println!("{e}");
    e
}

#[test]
fn a_small_run_is_estimated_small() {
    let s = parse(&base().to_string()).unwrap();
    let e = estimate_memory(&s);
    assert!(e.bytes() < 1e6, "{e:?}");
    assert!(e.bytes() > 0.0);
}

#[test]
fn samples_times_connections_are_counted() {
    let mut v = base();
    v["duration_s"] = json!(1e6);
    v["sample_interval_s"] = json!(0.1);
    v["apps"][0]["files"] = json!(100);
    let e = refused(&v, DEFAULT_MAX_MEMORY_BYTES);
    assert!(
        e.starts_with("invalid scenario: sample_interval_s: "),
        "{e}"
    );
    assert!(e.contains("1.0e7 samples x (100 connections"), "{e}");
    assert!(e.contains("above the memory limit of 2.0 GB"), "{e}");
    assert!(e.contains("--max-memory"), "{e}");
    // A larger limit lets it run.
    parse_within(&v.to_string(), 1e13).unwrap();
}

#[test]
fn http_pages_and_their_objects_are_counted() {
    let mut v = base();
    v["duration_s"] = json!(1e6);
    v["apps"][0] = json!({"kind": "http", "client": "client", "server": "server",
                          "page_interval_s": 0.2, "embedded_objects": 30});
    let e = refused(&v, DEFAULT_MAX_MEMORY_BYTES);
    assert!(
        e.starts_with("invalid scenario: apps[0].page_interval_s, apps[0].embedded_objects: "),
        "{e}"
    );
    assert!(e.contains("5.0e6 connections, 1.6e8 transfers"), "{e}");
}

#[test]
fn open_windows_on_unlimited_queues_are_counted() {
    let mut v = base();
    v["links"][1]
        .as_object_mut()
        .unwrap()
        .remove("queue_packets");
    v["tcp"] = json!({"window_scaling": true, "rcv_buffer": 1_000_000_000u64, "mss": 100});
    v["apps"][0] = json!({"kind": "bulk", "client": "client", "server": "server"});
    let e = refused(&v, 1e8);
    assert!(e.contains("tcp.rcv_buffer"), "{e}");
    assert!(e.contains("packets in flight"), "{e}");
    // Limited queues bound the packets in flight.
    v["links"][0]["queue_packets"] = json!(100);
    v["links"][1]["queue_packets"] = json!(100);
    parse_within(&v.to_string(), 1e8).unwrap();
}

#[test]
fn the_limit_must_be_positive() {
    for bad in [0.0, -1.0, f64::NAN] {
        let e = parse_within(&base().to_string(), bad).unwrap_err();
        assert_eq!(e.field, "max_memory");
    }
    parse_within(&base().to_string(), f64::INFINITY).unwrap();
}

#[test]
fn web_transfers_are_bounded_by_the_paths_round_trip() {
    let mut v = base();
    v["duration_s"] = json!(1000.0);
    v["apps"][0] = json!({"kind": "web", "client": "client", "server": "server",
                          "segments": 1, "think_time_s": 0.0});
    let s = parse(&v.to_string()).unwrap();
    let e = estimate_memory(&s);
    // One transfer per round trip (2 x 0.26 s) and segment (1460 bytes
    // at 10 Mb/s) at most: 1,919 of them.
    assert_eq!(e.parts[0].2, "1919 connections, 1919 transfers", "{e:?}");
}
