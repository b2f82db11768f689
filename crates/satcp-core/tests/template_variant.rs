//! The smallest variant, Scalable TCP (`protocols/scalable.rs`), the file
//! docs/architecture.md says to copy for a congestion control: registered
//! with one line, it runs from a scenario with its own settings table,
//! which is checked where it is parsed.

use satcp_core::{parse, run_json};

fn scenario(settings: &str) -> String {
    format!(
        r#"{{"name": "scalable", "seed": 1, "duration_s": 600.0,
        "nodes": ["server", "client"],
        "links": [{{"a": "server", "b": "client", "rate_bps": 10e6, "delay_s": 0.05,
                    "queue_packets": 60}}],
        "tcp": {{"variant": "scalable", "rcv_buffer": 1000000, "window_scaling": true,
                 "initial_ssthresh": 1000000000 {settings}}},
        "apps": [{{"kind": "ftp", "client": "client", "server": "server",
                   "file_bytes": 20000000}}]}}"#
    )
}

#[test]
fn a_template_variant_runs_from_a_scenario() {
    let out = run_json(&scenario(r#", "scalable": {"a": 0.02}"#)).expect("runs");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let flow = &r["flows"][0];
    assert_eq!(flow["variant"], "scalable", "{flow}");
    let transfers = r["transfers"].as_array().unwrap();
    assert_eq!(transfers.len(), 1, "the download finishes");
    // A 10 Mb/s bottleneck: goodput within it, and queue overflows repaired.
    let goodput = flow["goodput_bps"].as_f64().unwrap();
    assert!(goodput > 5e6 && goodput < 10e6, "{goodput}");
}

#[test]
fn its_settings_are_checked_where_they_are_parsed() {
    let e = parse(&scenario(r#", "scalable": {"b": 1.5}"#)).unwrap_err();
    assert_eq!(e.field, "tcp.scalable.b", "named where it was written: {e}");
    let e = parse(&scenario(r#", "scalable": {"c": 1}"#)).unwrap_err();
    assert!(e.field.ends_with("scalable.c"), "{e}");
}
