//! Reproducibility: a scenario and seed fix the result byte for byte; the
//! seed matters; and each link direction draws from its own random stream,
//! so adding traffic elsewhere leaves a link's error pattern unchanged.

use crate::common::*;
use satcp_core::RunResult;
use serde_json::{json, Value};

/// Two FTP downloads and HTTP pages over a GEO hop with bit errors, random
/// loss, duplication and reordering, sampled every second.
fn busy_scenario(seed: u64) -> Value {
    let s = scenario(
        &["server", "gateway", "client"],
        vec![
            link("server", "gateway", 10e6, 0.010),
            json!({"a": "gateway", "b": "client", "delay_s": 0.250, "queue_packets": 30,
                   "errors": {"ber": 1e-6, "duplicate": 0.01},
                   "reorder": {"prob": 0.02, "delay": "normal", "mean_s": 0.05, "sd_s": 0.02},
                   "ab": {"rate_bps": 2.048e6, "errors": {"loss": 0.001}},
                   "ba": {"rate_bps": 256e3}}),
        ],
        vec![
            json!({"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": 1_000_000, "files": 2, "inter_request_s": 5.0}),
            json!({"kind": "http", "client": "client", "server": "server",
                   "pages": 3, "page_interval_s": 10.0, "tcp": {"variant": "newreno"}}),
        ],
        json!({"variant": "sack"}),
    );
    with(s, json!({"seed": seed, "sample_interval_s": 0.5}))
}

fn to_json(r: &RunResult) -> String {
    serde_json::to_string(r).expect("results serialize")
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let s = busy_scenario(7);
    let a = to_json(&run(&s));
    let b = to_json(&run(&s));
    // Through the JSON entry point too.
    let c = satcp_core::run_json(&s.to_string()).expect("valid scenario");
    let r = run(&s);
    assert!(r.apps_done, "scenario should finish");
    assert!(r.links[2].stats.corrupted > 0, "the BER should bite");
    println!(
        "result: {} bytes of JSON, {} events, {} corrupted on the downlink",
        a.len(),
        r.events,
        r.links[2].stats.corrupted
    );
    assert!(a == b, "two runs of the same scenario differ");
    assert!(a == c, "run_json differs from run");
}

#[test]
fn a_different_seed_changes_the_result() {
    let a = run(&busy_scenario(7));
    let b = run(&busy_scenario(8));
    let stats = |r: &RunResult| -> Vec<_> { r.links.iter().map(|l| l.stats).collect() };
    let times =
        |r: &RunResult| -> Vec<_> { r.transfers.iter().map(|t| t.response_time_s).collect() };
    println!(
        "seed 7: corrupted {}, response times {:?}\nseed 8: corrupted {}, response times {:?}",
        a.links[2].stats.corrupted,
        times(&a),
        b.links[2].stats.corrupted,
        times(&b)
    );
    assert_ne!(
        stats(&a),
        stats(&b),
        "link counters do not depend on the seed"
    );
    assert_ne!(
        times(&a),
        times(&b),
        "response times do not depend on the seed"
    );
}

/// The link "sat" with bit errors carries one FTP download. A second
/// scenario adds another link with its own errors and a bulk flow on it,
/// both listed first (so link indexes, application and connection ids of
/// the first flow all shift): the first link's counters and the first
/// download must not change.
#[test]
fn traffic_on_another_link_leaves_the_error_pattern_alone() {
    let sat = json!({"name": "sat", "a": "s1", "b": "c1", "rate_bps": 2e6, "delay_s": 0.25,
                     "errors": {"ber": 2e-6}});
    let other = json!({"name": "other", "a": "s2", "b": "c2", "rate_bps": 5e6, "delay_s": 0.05,
                       "errors": {"ber": 1e-5, "loss": 0.01}});
    let download = json!({"name": "download", "kind": "ftp", "client": "c1", "server": "s1",
                          "file_bytes": 3_000_000});
    let noise = json!({"name": "noise", "kind": "bulk", "client": "c2", "server": "s2",
                       "bytes": 2_000_000});
    let alone = scenario(
        &["s1", "c1"],
        vec![sat.clone()],
        vec![download.clone()],
        json!({}),
    );
    let shared = scenario(
        &["s2", "c2", "s1", "c1"],
        vec![other, sat],
        vec![noise, download],
        json!({}),
    );
    let a = run(&alone);
    let b = run(&shared);
    assert!(a.apps_done && b.apps_done);
    let sat_links = |r: &RunResult| -> Vec<_> {
        r.links
            .iter()
            .filter(|l| l.name.starts_with("sat:"))
            .map(|l| l.stats)
            .collect()
    };
    let flow = |r: &RunResult| {
        let f = r.flows.iter().find(|f| f.app_name == "download").unwrap();
        (f.server, f.client)
    };
    let time = |r: &RunResult| {
        r.transfers
            .iter()
            .find(|t| t.app_name == "download")
            .unwrap()
            .response_time_s
    };
    let (sa, sb) = (sat_links(&a), sat_links(&b));
    println!(
        "alone: sat corrupted {:?}, response {:?}\nshared: sat corrupted {:?}, response {:?}",
        sa.iter().map(|s| s.corrupted).collect::<Vec<_>>(),
        time(&a),
        sb.iter().map(|s| s.corrupted).collect::<Vec<_>>(),
        time(&b)
    );
    assert!(sa[0].corrupted > 0, "the BER should bite");
    assert_eq!(sa, sb, "link 'sat' counters changed");
    assert_eq!(flow(&a), flow(&b), "the download's TCP counters changed");
    assert_eq!(time(&a), time(&b), "the download's response time changed");
    let other = b
        .links
        .iter()
        .find(|l| l.name.starts_with("other:"))
        .unwrap();
    assert!(other.stats.corrupted + other.stats.lost > 0);
}
