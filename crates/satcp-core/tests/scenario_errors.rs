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

#[test]
fn link_arq_and_congestion_loss() {
    check(
        |v| v["links"][1]["ab"] = json!({"congestion_loss": 1.5}),
        &["links[1].ab.congestion_loss", "1.5"],
    );
    check(
        |v| v["links"][0]["congestion_loss"] = json!(-0.01),
        &["links[0].congestion_loss", "-0.01"],
    );
    check(
        |v| v["links"][1]["ab"] = json!({"arq": {"attempts": -1}}),
        &["links[1].ab.arq.attempts"],
    );
    check(
        |v| v["links"][1]["ab"] = json!({"arq": {"attempts": 2.5}}),
        &["links[1].ab.arq.attempts"],
    );
    check(
        |v| v["links"][1]["arq"] = json!({"attempts": 5000}),
        &["links[1].arq.attempts", "5000", "at most 1000"],
    );
    // recover_all needs ARQ, named where it was written.
    check(
        |v| v["links"][1]["ab"] = json!({"arq": {"recover_all": true}}),
        &["links[1].ab.arq.recover_all", "arq.attempts"],
    );
    check(
        |v| v["links"][1]["arq"] = json!({"recover_all": true}),
        &["links[1].arq.recover_all", "arq.attempts"],
    );
    // A direction may turn off the link's ARQ with attempts = 0, but not
    // while recover_all still applies to it.
    check(
        |v| {
            v["links"][1]["arq"] = json!({"attempts": 3, "recover_all": true});
            v["links"][1]["ba"] = json!({"arq": {"attempts": 0}});
        },
        &["links[1].arq.recover_all", "(in direction ba)"],
    );
    check(
        |v| v["links"][1]["ab"] = json!({"arq": {"recover_all": "yes"}}),
        &["links[1].ab.arq.recover_all"],
    );
    check(
        |v| v["links"][1]["arq"] = json!(3),
        &[
            "links[1].arq",
            "invalid type: integer `3`, expected a table",
        ],
    );
    // Valid: ARQ on the link, off in one direction; recover_all with it.
    let mut v = base();
    v["links"][1]["arq"] = json!({"attempts": 3});
    v["links"][1]["ba"] = json!({"arq": {"attempts": 0}});
    v["links"][1]["ab"] = json!({"arq": {"recover_all": true}, "congestion_loss": 0.01});
    satcp_core::parse(&v.to_string()).expect("valid ARQ settings");
}

#[test]
fn burst_errors_and_loss_schedule() {
    for (field, value) in [
        ("p", json!(1.5)),
        ("r", json!(-0.1)),
        ("loss_good", json!(2.5)),
        ("loss_bad", json!(-0.5)),
        ("ber_good", json!(1.1)),
        ("ber_bad", json!(-0.25)),
    ] {
        let mut ge = json!({"p": 0.01, "r": 0.2});
        ge[field] = value.clone();
        check(
            |v| v["links"][1]["ab"] = json!({"errors": {"gilbert_elliott": ge}}),
            &[
                &format!("links[1].ab.errors.gilbert_elliott.{field}"),
                &value.to_string(),
            ],
        );
    }
    check(
        |v| v["links"][1]["errors"] = json!({"gilbert_elliott": {"p": 0.01}}),
        &["links[1].errors.gilbert_elliott", "`r`"],
    );
    check(
        |v| v["links"][1]["errors"] = json!({"gilbert_elliott": {"p": 0.01, "r": 0.1, "q": 0.1}}),
        &["links[1].errors.gilbert_elliott.q", "unknown field"],
    );
    check(
        |v| v["links"][1]["ab"] = json!({"errors": {"loss_schedule": [[0.0, 0.0], [1.0, 1.5]]}}),
        &["links[1].ab.errors.loss_schedule[1][1]", "1.5"],
    );
    check(
        |v| v["links"][1]["errors"] = json!({"loss_schedule": [[1.0, 0.0], [0.5, 1.0]]}),
        &["links[1].errors.loss_schedule[1][0]", "later"],
    );
    check(
        |v| v["links"][1]["errors"] = json!({"loss_schedule": []}),
        &["links[1].errors.loss_schedule", "at least one"],
    );
    // p at link level, r in a direction: merged field by field.
    let mut v = base();
    v["links"][1]["errors"] = json!({"gilbert_elliott": {"p": 0.01, "loss_good": 1e-4}});
    v["links"][1]["ab"] = json!({"errors": {"gilbert_elliott": {"r": 0.2},
        "loss_schedule": [[0.0, 0.0], [2.0, 1.0], [2.1, 0.0]]}});
    v["links"][1]["ba"] = json!({"errors": {"gilbert_elliott": {"r": 0.5}}});
    satcp_core::parse(&v.to_string()).expect("valid burst and schedule settings");
}

/// Every flat link key of the format before each model got its table is
/// a one-line error naming the new place, wherever it is written.
#[test]
fn old_flat_link_keys_name_their_new_place() {
    for (old, table, field) in [
        ("red_min_th", "red", "min_th"),
        ("red_max_th", "red", "max_th"),
        ("red_max_p", "red", "max_p"),
        ("red_wq", "red", "wq"),
        ("red_gentle", "red", "gentle"),
        ("ecn_marking", "red", "ecn_marking"),
        ("priority_push_out", "priority", "push_out"),
        ("ber", "errors", "ber"),
        ("loss", "errors", "loss"),
        ("duplicate", "errors", "duplicate"),
        ("errors_data_only", "errors", "data_only"),
        (
            "corrupted_reach_next_node",
            "errors",
            "corrupted_reach_next_node",
        ),
        ("drop_seqs", "errors", "drop_seqs"),
        ("loss_schedule", "errors", "loss_schedule"),
        ("gilbert_elliott", "errors", "gilbert_elliott"),
        ("reorder_delay", "reorder", "delay"),
        ("reorder_delay_mean_s", "reorder", "mean_s"),
        ("reorder_delay_sd_s", "reorder", "sd_s"),
        ("arq_attempts", "arq", "attempts"),
        ("arq_recover_all", "arq", "recover_all"),
        ("reorder", "reorder", "prob"),
    ] {
        let hint = format!("renamed to {table}.{field}: write {table} = {{ {field} = ... }}");
        check(
            |v| v["links"][1][old] = json!(0.5),
            &[&format!("links[1].{old}: {hint}")],
        );
        check(
            |v| v["links"][0]["ab"] = json!({ old: 0.5 }),
            &[&format!("links[0].ab.{old}: {hint}")],
        );
    }
}

/// Times beyond what the nanosecond clock holds were accepted and silently
/// saturated (found by tests/python/test_bad_input.py).
#[test]
fn absurd_times() {
    check(
        |v| v["duration_s"] = json!(1e300),
        &["duration_s", "1e300", "at most"],
    );
    check(
        |v| v["links"][1]["delay_s"] = json!(1e12),
        &["links[1].delay_s", "between 0 and 1000000"],
    );
    check(
        |v| v["apps"][0]["start_s"] = json!(5e9),
        &["apps[0].start_s", "at most"],
    );
}

/// A connection carries at most 10^15 bytes each way: larger sizes, or a
/// page whose objects add up to more (2^63-byte embedded objects, which
/// overflowed the page's 64-bit byte count), are refused, naming the field.
#[test]
fn byte_counts_beyond_what_a_connection_carries() {
    let http = |v: &mut Value, extra: Value| {
        let mut app = json!({"kind": "http", "client": "client", "server": "server"});
        app.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v["apps"][0] = app;
    };
    check(
        |v| v["apps"][0]["file_bytes"] = json!(2_000_000_000_000_000u64),
        &["apps[0].file_bytes", "2000000000000000", "1e15"],
    );
    check(
        |v| v["apps"][0]["request_bytes"] = json!(u64::MAX),
        &["apps[0].request_bytes", "1e15"],
    );
    check(
        |v| {
            v["apps"][0] = json!({"kind": "bulk", "client": "client", "server": "server",
                                  "bytes": 1_000_000_000_000_001u64})
        },
        &["apps[0].bytes", "1000000000000001"],
    );
    check(
        |v| {
            http(
                v,
                json!({"embedded_objects": 4, "embedded_object_bytes": 1u64 << 63}),
            )
        },
        &[
            "apps[0].embedded_object_bytes",
            "9223372036854775808",
            "page",
        ],
    );
    // Each object is within the bound, the page is not.
    check(
        |v| {
            http(
                v,
                json!({"embedded_objects": 3, "embedded_object_bytes": 400_000_000_000_000u64}),
            )
        },
        &["apps[0].embedded_object_bytes", "page of 1.2"],
    );
    check(
        |v| {
            http(
                v,
                json!({"main_object_bytes": u64::MAX, "embedded_objects": 0}),
            )
        },
        &["apps[0].main_object_bytes", "18446744073709551615"],
    );
    check(
        |v| {
            http(
                v,
                json!({"embedded_objects": 1000, "request_bytes": 10_000_000_000_000u64}),
            )
        },
        &["apps[0].request_bytes", "requests"],
    );
    // The bound itself is accepted.
    let mut v = base();
    v["apps"][0]["file_bytes"] = json!(1_000_000_000_000_000u64);
    satcp_core::parse(&v.to_string()).unwrap();
}
