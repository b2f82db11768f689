//! Scenario errors of the variant registry, router functions and window
//! scaling: one line naming the field path and the value.

use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "nodes": ["server", "gw", "client"],
        "links": [{"a": "server", "b": "gw", "rate_bps": 1e7, "delay_s": 0.01},
                  {"a": "gw", "b": "client", "rate_bps": 2e6, "delay_s": 0.25}],
        "apps": [{"kind": "ftp", "client": "client", "server": "server", "file_bytes": 1000}],
        "tcp": {"variant": "sack"},
    })
}

fn error(patch: impl FnOnce(&mut Value)) -> String {
    let mut v = base();
    patch(&mut v);
    match satcp_core::parse(&v.to_string()) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => {
            let m = e.to_string();
            assert!(!m.contains('\n'), "one line: {m}");
            m
        }
    }
}

fn check(patch: impl FnOnce(&mut Value), expect: &[&str]) {
    let m = error(patch);
    println!("{m}");
    for e in expect {
        assert!(m.contains(e), "{m:?} lacks {e:?}");
    }
}

#[test]
fn the_base_scenario_is_valid() {
    satcp_core::parse(&base().to_string()).unwrap();
}

#[test]
fn unknown_variant() {
    check(
        |v| v["tcp"]["variant"] = json!("vegas"),
        &["tcp.variant", "vegas"],
    );
}

#[test]
fn settings_of_a_variant_not_selected() {
    check(
        |v| v["tcp"]["adalr"] = json!({"rho_max": 4.0}),
        &["tcp.adalr", "sack"],
    );
    check(
        |v| v["apps"][0]["tcp"] = json!({"peach": {}}),
        &["apps[0].tcp.peach"],
    );
}

#[test]
fn unknown_field_in_a_variant_table() {
    check(
        |v| {
            v["tcp"]["variant"] = json!("adalr");
            v["tcp"]["adalr"] = json!({"no_such_field": 1});
        },
        &["tcp.adalr", "no_such_field"],
    );
}

#[test]
fn recovery_that_contradicts_the_name_or_the_family() {
    check(
        |v| v["tcp"]["recovery"] = json!("newreno"),
        &["tcp.recovery", "newreno"],
    );
    check(
        |v| {
            v["tcp"]["variant"] = json!("peach");
            v["tcp"]["recovery"] = json!("vegas");
        },
        &["tcp.recovery", "vegas"],
    );
}

#[test]
fn windows_above_65535_need_scaling_and_stop_at_1_gb() {
    check(
        |v| v["tcp"]["rcv_buffer"] = json!(65_536),
        &["tcp.rcv_buffer", "65536", "window_scaling"],
    );
    check(
        |v| {
            v["tcp"]["window_scaling"] = json!(true);
            v["tcp"]["rcv_buffer"] = json!(2_000_000_000u64);
        },
        &["tcp.rcv_buffer", "2000000000"],
    );
    let mut v = base();
    v["tcp"]["window_scaling"] = json!(true);
    v["tcp"]["rcv_buffer"] = json!(64 << 20);
    satcp_core::parse(&v.to_string()).expect("64 MB with scaling");
}

#[test]
fn router_entries() {
    check(
        |v| v["routers"] = json!([{"node": "gw", "kind": "no-such-kind"}]),
        &["routers[0].kind", "no-such-kind"],
    );
    check(
        |v| v["routers"] = json!([{"node": "moon", "kind": "example-drop-recorder"}]),
        &["routers[0].node", "moon"],
    );
    check(
        |v| {
            v["routers"] = json!([{"node": "gw", "kind": "example-drop-recorder", "colour": "red"}])
        },
        &["routers[0]", "colour"],
    );
    check(
        |v| {
            v["routers"] = json!([{"node": "gw", "kind": "example-drop-recorder",
                                   "congestion_only": "yes"}])
        },
        &["routers[0]", "congestion_only"],
    );
}
