//! The workload that profile-guided optimisation learns from
//! (`tools/pgo.sh`; docs/decisions/0012-profile-guided-optimisation.md):
//! an instrumented build runs it once, and the compiler then lays out and
//! inlines the core for the branches and calls this workload takes. It is
//! run from the build that the profile is for (the Python extension, the
//! benchmark), since a profile only applies to a build of the same crate
//! graph: the symbols it names carry a hash of that graph.
//!
//! It is what users run, not the benchmark: every registered variant on a
//! GEO path, lossless and with bit errors (so loss recovery and timeouts
//! are as warm as the steady state), HTTP and repeated web transfers, and
//! a few hundred flows on a shared bottleneck. None of it is a benchmark
//! scenario of `crates/satcp-core/benches/`, so `make bench` measures a workload the profile
//! has not seen. A profile changes no result: the compiler only reorders
//! and inlines code (no floating-point licence is involved).

use serde_json::{json, Value};

fn geo_ftp(variant: &str, ber: Option<f64>) -> Value {
    let mut down = json!({"rate_bps": 2.048e6});
    if let Some(b) = ber {
        down["errors"] = json!({"ber": b});
    }
    json!({
        "name": format!("pgo-{variant}"),
        "duration_s": 600.0,
        "seed": 7,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": variant, "delayed_ack": true, "dsack": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.010},
            {"a": "gateway", "b": "client", "delay_s": 0.250, "queue_packets": 60,
             "ab": down, "ba": {"rate_bps": 256e3}}
        ],
        "apps": [{"kind": "ftp", "client": "client", "server": "server",
                  "file_bytes": 3_000_000}]
    })
}

fn web(kind: &str) -> Value {
    json!({
        "name": format!("pgo-{kind}"),
        "duration_s": 300.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "newreno", "delayed_ack": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 10e6, "delay_s": 0.010},
            {"a": "gateway", "b": "client", "rate_bps": 2e6, "delay_s": 0.250,
             "ab": {"errors": {"loss": 0.01}}}
        ],
        "apps": [{"kind": kind, "client": "client", "server": "server"}]
    })
}

fn shared_bottleneck(flows: usize) -> Value {
    let apps: Vec<Value> = (0..flows)
        .map(|i| {
            json!({"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": 200_000, "start_s": 0.05 * i as f64})
        })
        .collect();
    json!({
        "name": "pgo-shared",
        "duration_s": 120.0,
        "nodes": ["server", "gateway", "client"],
        "tcp": {"variant": "sack", "delayed_ack": true, "window_scaling": true},
        "links": [
            {"a": "server", "b": "gateway", "rate_bps": 100e6, "delay_s": 0.002},
            {"a": "gateway", "b": "client", "rate_bps": 20e6, "delay_s": 0.270,
             "queue_packets": 300}
        ],
        "apps": apps
    })
}

fn run(s: &Value) -> u64 {
    let scenario = crate::parse(&s.to_string())
        .unwrap_or_else(|e| panic!("training scenario {}: {e}", s["name"]));
    crate::run(&scenario).events
}

/// Runs the whole workload (a few seconds); returns the events simulated.
pub fn run_all() -> u64 {
    let mut events = 0;
    for v in crate::protocols::variant_names() {
        events += run(&geo_ftp(v, None));
        events += run(&geo_ftp(v, Some(1e-6)));
    }
    for kind in ["http", "web"] {
        events += run(&web(kind));
    }
    events += run(&shared_bottleneck(400));
    events
}

#[cfg(test)]
mod tests {
    /// Every scenario of the workload is valid (a broken one would make
    /// the optimised build learn from nothing) and simulates something.
    #[test]
    fn every_training_scenario_runs() {
        for v in crate::protocols::variant_names() {
            for ber in [None, Some(1e-6)] {
                assert!(super::run(&super::geo_ftp(v, ber)) > 1000, "{v} {ber:?}");
            }
        }
        for kind in ["http", "web"] {
            assert!(super::run(&super::web(kind)) > 1000, "{kind}");
        }
        assert!(super::run(&super::shared_bottleneck(20)) > 1000);
    }
}
