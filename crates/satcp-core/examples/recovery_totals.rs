//! Runs scenarios given as JSON files and prints, per scenario, the loss
//! recovery's totals over every flow: data segments the links dropped,
//! retransmissions (and per dropped segment), duplicate segments at the
//! receivers, timeouts, fast-recovery episodes, goodput.
//! `cargo run --release --example recovery_totals -- a.json b.json ...`
//! (`SET=tcp.key=value,...` overrides `[tcp]` keys of every scenario.)

fn main() {
    let sets: Vec<(String, serde_json::Value)> = std::env::var("SET")
        .ok()
        .map(|s| {
            s.split(',')
                .filter(|kv| !kv.is_empty())
                .map(|kv| {
                    let (k, v) = kv.split_once('=').expect("key=value");
                    let k = k.trim_start_matches("tcp.").to_string();
                    let v = serde_json::from_str(v).unwrap_or(serde_json::json!(v));
                    (k, v)
                })
                .collect()
        })
        .unwrap_or_default();
    println!(
        "{:<28} {:>8} {:>8} {:>7} {:>9} {:>8} {:>8} {:>12}",
        "scenario", "dropped", "rtx", "rtx/drop", "dup_segs", "timeouts", "fast_rtx", "goodput_bps"
    );
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let mut v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        for (k, val) in &sets {
            v["tcp"][k] = val.clone();
        }
        let s = satcp_core::parse(&v.to_string()).unwrap_or_else(|e| panic!("{path}: {e}"));
        let r = satcp_core::run(&s);
        let (mut rtx, mut dup, mut to, mut fr, mut goodput) = (0, 0, 0, 0, 0.0);
        let mut counters = std::collections::BTreeMap::<String, u64>::new();
        for f in &r.flows {
            for (k, v) in &f.recovery_counters {
                *counters.entry(k.clone()).or_default() += v;
            }
            *counters.entry("undos".into()).or_default() += f.server.undos;
            rtx += f.server.retransmitted_segments;
            dup += f.client.duplicate_segments_received;
            to += f.server.timeouts;
            fr += f.server.fast_retransmits;
            goodput += f.goodput_bps;
        }
        // Data travels a -> b on every link of these scenarios.
        let dropped: u64 = r
            .links
            .iter()
            .filter(|l| l.name.ends_with(":ab"))
            .map(|l| l.stats.lost + l.stats.queue_drops + l.stats.corrupted)
            .sum();
        let name = std::path::Path::new(&path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!(
            "{:<28} {:>8} {:>8} {:>7.2} {:>9} {:>8} {:>8} {:>12.0}",
            name,
            dropped,
            rtx,
            rtx as f64 / dropped.max(1) as f64,
            dup,
            to,
            fr,
            goodput
        );
        if !counters.is_empty() {
            println!("    {counters:?}");
        }
    }
}
