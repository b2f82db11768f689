//! DSACK-R and RR-TCP (DSACK-FA, DSACK-TA, DSACK-TAES) on a GEO-like path
//! that reorders, as in the TCP-R paper's Sec. 4.1 and 4.5: P = 0.3 s one
//! way, a 1.5 Mb/s bottleneck, 1500-byte packets, 4 % of the data packets
//! delayed by N(0.6 s, 0.2 s), window scaling with a 113 kB buffer (about
//! the BDP), SACK with DSACK, minimum RTO 1 s; no losses, so every fast
//! retransmission is false. One bulk transfer of 4 MB.

use satcp_core::RunResult;
use serde_json::{json, Value};

const BYTES: u64 = 4_000_000;

fn scenario(variant: &str, seed: u64) -> Value {
    json!({
        "name": "dsack-geo", "seed": seed, "duration_s": 3000.0,
        "nodes": ["server", "client"],
        "links": [{"a": "server", "b": "client", "rate_bps": 1.5e6, "delay_s": 0.3,
                   "queue_packets": 200,
                   "ab": {"reorder": {"prob": 0.04, "delay": "normal",
                                      "mean_s": 0.6, "sd_s": 0.2}}}],
        "apps": [{"kind": "bulk", "client": "client", "server": "server", "bytes": BYTES}],
        "tcp": {"variant": variant, "mss": 1460, "window_scaling": true,
                "rcv_buffer": 113_000, "dsack": true, "min_rto": 1.0,
                "delayed_ack": false},
    })
}

fn run(variant: &str, seed: u64) -> RunResult {
    let v = scenario(variant, seed);
    let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    satcp_core::run(&s)
}

struct Outcome {
    goodput: f64,
    fast_retransmits: u64,
    undos: u64,
    timeouts: u64,
    counters: std::collections::BTreeMap<String, u64>,
}

fn outcome(variant: &str, seed: u64) -> Outcome {
    let r = run(variant, seed);
    assert!(r.apps_done, "{variant}: transfer incomplete");
    let f = &r.flows[0];
    assert_eq!(f.client.bytes_delivered, BYTES, "{variant}: every byte");
    let o = Outcome {
        goodput: f.goodput_bps,
        fast_retransmits: f.server.fast_retransmits,
        undos: f.server.undos,
        timeouts: f.server.timeouts,
        counters: f.variant_counters.clone(),
    };
    println!(
        "{variant:>10} seed {seed}: goodput {:.0} b/s, FR {}, undos {}, RTO {}, DSACKs {} (spurious {}), {:?}",
        o.goodput,
        o.fast_retransmits,
        o.undos,
        o.timeouts,
        f.server.dsacks_received,
        f.server.spurious_retransmissions,
        o.counters
    );
    o
}

#[test]
fn dsack_r_undoes_false_fast_retransmits_and_beats_sack() {
    for seed in [1, 2] {
        let sack = outcome("sack", seed);
        let r = outcome("dsack-r", seed);
        assert!(r.undos > 0);
        assert_eq!(r.counters["undos"], r.undos);
        assert!(r.goodput > sack.goodput, "seed {seed}");
        assert_eq!(sack.undos, 0);
    }
}

#[test]
fn dsack_ta_raises_dupthresh_and_avoids_fast_retransmits() {
    for seed in [1, 2] {
        let r = outcome("dsack-r", seed);
        let ta = outcome("dsack-ta", seed);
        assert!(ta.counters["dupthresh_max"] > 3);
        assert!(ta.counters["reordering_samples"] > 0);
        assert!(ta.fast_retransmits < r.fast_retransmits, "seed {seed}");
    }
}

#[test]
fn dsack_fa_and_dsack_taes_deliver_every_byte() {
    let fa = outcome("dsack-fa", 1);
    assert!(fa.counters["dupthresh_max"] > 3);
    assert_eq!(fa.counters["fa_permille"], 900, "FA fixed");
    let taes = outcome("dsack-taes", 1);
    assert!(taes.counters.contains_key("es_samples"));
}
