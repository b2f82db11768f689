//! Shared helpers of the integration tests: scenario JSON builders, a runner
//! that fails loudly on invalid scenarios, and exact timing arithmetic
//! (serialization times as the simulator computes them).

use satcp_core::RunResult;
use serde_json::{json, Value};

/// Bytes of an IP + TCP header without options.
pub const HDR: u64 = 40;

/// A full-duplex link with the same settings in both directions.
pub fn link(a: &str, b: &str, rate_bps: f64, delay_s: f64) -> Value {
    json!({"a": a, "b": b, "rate_bps": rate_bps, "delay_s": delay_s})
}

/// Adds (or overwrites) fields of a JSON object.
pub fn with(mut v: Value, extra: Value) -> Value {
    let o = v.as_object_mut().expect("object");
    for (k, x) in extra.as_object().expect("object") {
        o.insert(k.clone(), x.clone());
    }
    v
}

/// A scenario with the given nodes, links, apps and top-level tcp table.
pub fn scenario(nodes: &[&str], links: Vec<Value>, apps: Vec<Value>, tcp: Value) -> Value {
    json!({
        "name": "test",
        "seed": 1,
        "duration_s": 18000.0,
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "tcp": tcp,
    })
}

/// The simplest topology: one link between "server" and "client".
pub fn one_link(l: Value, apps: Vec<Value>, tcp: Value) -> Value {
    scenario(&["server", "client"], vec![l], apps, tcp)
}

pub fn ftp(file_bytes: u64) -> Value {
    json!({"kind": "ftp", "client": "client", "server": "server", "file_bytes": file_bytes})
}

pub fn bulk(bytes: Option<u64>) -> Value {
    match bytes {
        Some(n) => json!({"kind": "bulk", "client": "client", "server": "server", "bytes": n}),
        None => json!({"kind": "bulk", "client": "client", "server": "server"}),
    }
}

/// Parses and runs a scenario; panics with the validation error and the JSON.
pub fn run(v: &Value) -> RunResult {
    let text = v.to_string();
    let s = satcp_core::parse(&text).unwrap_or_else(|e| panic!("{e}\nscenario: {text}"));
    satcp_core::run(&s)
}

/// Serialization time of `bytes` at `rate_bps`, in seconds, rounded up to
/// the nanosecond exactly like the simulator's links.
pub fn tx(bytes: u64, rate_bps: f64) -> f64 {
    let ns = (bytes as u128 * 8 * 1_000_000_000).div_ceil(rate_bps.round() as u128);
    ns as f64 * 1e-9
}

/// One direction of a hop of a chain: rate and propagation delay.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    pub rate_bps: f64,
    pub delay_s: f64,
}

/// Arrival times at the end of a store-and-forward chain of FIFO links of
/// packets (sizes in bytes) all handed to the first link at time `t0`, in
/// this order, into otherwise idle links.
pub fn burst_arrivals(t0: f64, sizes: &[u64], hops: &[Hop]) -> Vec<f64> {
    let mut at: Vec<f64> = vec![t0; sizes.len()];
    for h in hops {
        let mut free = f64::NEG_INFINITY;
        for (i, &s) in sizes.iter().enumerate() {
            let start = at[i].max(free);
            free = start + tx(s, h.rate_bps);
            at[i] = free + h.delay_s;
        }
    }
    at
}

/// Goodput in bits per second between times t1 and t2 (inclusive samples) of
/// connection `conn`, from the sampled `bytes_delivered` series.
pub fn goodput_between(r: &RunResult, conn: u32, t1: f64, t2: f64) -> f64 {
    let fs = &r.flow_series;
    let at = |t: f64| -> (f64, u64) {
        let i = (0..fs.time_s.len())
            .find(|&i| fs.conn[i] == conn && fs.time_s[i] >= t - 1e-9)
            .unwrap_or_else(|| panic!("no sample at {t} s for conn {conn}"));
        (fs.time_s[i], fs.bytes_delivered[i])
    };
    let (a, ba) = at(t1);
    let (b, bb) = at(t2);
    assert!(b > a, "empty interval {a}..{b}");
    (bb - ba) as f64 * 8.0 / (b - a)
}

/// Relative deviation of `measured` from `expected`.
pub fn rel(measured: f64, expected: f64) -> f64 {
    (measured - expected).abs() / expected
}
