//! Property tests: whatever the link does to packets (loss, duplication,
//! reordering, bit errors with or without link-level ARQ, congestion
//! drops, Gilbert-Elliott burst errors, scheduled outages, in both
//! directions, plus queue overflow), a finite transfer
//! completes and delivers every byte exactly once, and the counters agree.
//! Some cases put a gateway between server and client, running EPDN router
//! functions (`epdn-v2`, `epdn-v3`), whose access link corrupts packets
//! that the gateway then discards.

use crate::common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// Impairments of one link direction.
fn impairments() -> impl Strategy<Value = Value> {
    (
        0.0..0.10f64,
        0.0..0.10f64,
        0.0..0.20f64,
        prop_oneof![Just("fixed"), Just("uniform"), Just("normal")],
        0.0..0.4f64,
        0.0..0.2f64,
        // Bit errors, link-level ARQ (0: off) and congestion drops.
        prop_oneof![Just(0.0), 0.0..3e-5f64],
        0u32..4,
        any::<bool>(),
        0.0..0.03f64,
        // Gilbert-Elliott burst errors and a handover-like outage.
        prop_oneof![
            Just(Value::Null),
            (0.0..0.02f64, 0.1..1.0f64, 0.0..1.0f64)
                .prop_map(|(p, r, bad)| json!({"p": p, "r": r, "loss_bad": bad})),
        ],
        prop_oneof![
            Just(Value::Null),
            (0.0..5.0f64, 0.01..0.5f64).prop_map(|(t, len)| json!([
                [0.0, 0.0],
                [t, 1.0],
                [t + len, 0.0]
            ])),
        ],
    )
        .prop_map(
            |(
                loss,
                dup,
                reorder,
                dist,
                mean,
                sd,
                ber,
                arq,
                recover_all,
                congestion,
                ge,
                outage,
            )| {
                json!({
                    "loss": loss,
                    "duplicate": dup,
                    "reorder": reorder,
                    "reorder_delay": dist,
                    "reorder_delay_mean_s": mean,
                    "reorder_delay_sd_s": sd,
                    "ber": ber,
                    "arq_attempts": arq,
                    "arq_recover_all": recover_all && arq > 0,
                    "congestion_loss": congestion,
                    "gilbert_elliott": ge,
                    "loss_schedule": outage,
                })
            },
        )
}

#[derive(Debug, Clone)]
struct Case {
    variant: &'static str,
    delayed_ack: bool,
    ftp: bool,
    bytes: u64,
    delay_s: f64,
    queue_packets: u64,
    ab: Value,
    ba: Value,
    seed: u32,
    /// RFC 7323 window scaling with a 256 kB buffer, timestamps, DSACK.
    scaling: bool,
    timestamps: bool,
    dsack: bool,
    /// A gateway between server and client running this router function
    /// (None: server and client share one link).
    gateway: Option<&'static str>,
    /// Bit error rate of the server -> gateway link (with a gateway).
    access_ber: f64,
}

fn cases() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            Just("newreno"),
            Just("sack"),
            Just("adalr-newreno"),
            Just("adalr-sack"),
            Just("example"),
            Just("slowstart"),
            Just("rntcp"),
            Just("rntcp-es"),
            Just("tcpr"),
            Just("cubic"),
            Just("hybla"),
            Just("westwood"),
            Just("bbr"),
            Just("dsack-r"),
            Just("dsack-fa"),
            Just("dsack-ta"),
            Just("dsack-taes")
        ],
        any::<bool>(),
        any::<bool>(),
        1u64..300_000,
        0.001..0.3f64,
        4u64..200,
        impairments(),
        impairments(),
        (
            any::<u32>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![Just(None), Just(Some("epdn-v2")), Just(Some("epdn-v3"))],
            0.0..2e-5f64,
        ),
    )
        .prop_map(
            |(
                variant,
                delayed_ack,
                ftp,
                bytes,
                delay_s,
                queue_packets,
                ab,
                ba,
                (seed, scaling, timestamps, dsack, gateway, access_ber),
            )| Case {
                variant,
                delayed_ack,
                ftp,
                bytes,
                delay_s,
                queue_packets,
                ab,
                ba,
                seed,
                scaling,
                timestamps,
                dsack,
                gateway,
                access_ber,
            },
        )
}

fn scenario_of(c: &Case) -> Value {
    let near = if c.gateway.is_some() { "gw" } else { "server" };
    let l = with(
        link(near, "client", 2e6, c.delay_s),
        json!({"queue_packets": c.queue_packets, "ab": c.ab, "ba": c.ba}),
    );
    let app = if c.ftp {
        ftp(c.bytes)
    } else {
        bulk(Some(c.bytes))
    };
    // Six consecutive timeouts (the default limit) can legitimately abort a
    // connection at 10 % loss each way (about 0.19^7 per timeout episode);
    // the property is about delivery, so the limit is raised out of reach.
    // RN-TCP-ES samples from DSACKs and is rejected without them.
    let dsack = c.dsack || c.variant == "rntcp-es";
    let mut tcp = json!({"variant": c.variant, "delayed_ack": c.delayed_ack,
        "max_retransmissions": 15, "timestamps": c.timestamps, "dsack": dsack});
    if c.variant == "slowstart" {
        // The most aggressive of the paper's functions: the window grows by
        // N_ack segments per ACK up to 30 segments.
        tcp = with(tcp, json!({"slowstart": {"function": "linear", "thr": 30}}));
    }
    if c.scaling {
        tcp = with(tcp, json!({"window_scaling": true, "rcv_buffer": 262_144}));
    }
    let s = match c.gateway {
        None => one_link(l, vec![app], tcp),
        Some(kind) => {
            let access = with(
                link("server", "gw", 10e6, 0.001),
                json!({"ber": c.access_ber, "corrupted_reach_next_node": true}),
            );
            let s = scenario(&["server", "gw", "client"], vec![access, l], vec![app], tcp);
            with(s, json!({"routers": [{"node": "gw", "kind": kind}]}))
        }
    };
    with(s, json!({"seed": c.seed, "duration_s": 50_000.0}))
}

fn check(c: &Case) -> Result<(), TestCaseError> {
    let s = scenario_of(c);
    let r = run(&s);
    let f = &r.flows[0];
    let (cli, srv) = (&f.client, &f.server);
    // server -> client, or gw -> client (links are listed a->b, b->a).
    let down = &r.links[if c.gateway.is_some() { 2 } else { 0 }].stats;
    let info = || {
        format!(
            "scenario {s}\nflow state {} end {} s\nserver {srv:?}\nclient {cli:?}\ndown {down:?}",
            f.state, r.end_time_s
        )
    };
    prop_assert!(r.apps_done, "transfer did not complete\n{}", info());
    prop_assert!(
        r.transfers[0].response_time_s.is_some(),
        "no response time\n{}",
        info()
    );
    prop_assert_eq!(cli.bytes_delivered, c.bytes, "client delivered\n{}", info());
    prop_assert!(
        cli.payload_bytes_received >= cli.bytes_delivered,
        "{}",
        info()
    );
    // Every original byte was sent once; the rest are retransmissions.
    prop_assert_eq!(
        srv.payload_bytes_sent - srv.retransmitted_bytes,
        c.bytes,
        "original bytes sent\n{}",
        info()
    );
    // The client saw exactly what the link delivered to it.
    prop_assert_eq!(
        cli.payload_bytes_received,
        down.rx_payload_bytes,
        "{}",
        info()
    );
    prop_assert_eq!(cli.segments_received, down.rx_packets, "{}", info());
    let request = if c.ftp { 100 } else { 0 };
    prop_assert_eq!(srv.bytes_delivered, request, "server delivered\n{}", info());
    Ok(())
}

proptest! {
    // Each case is a run of well under a millisecond. PROPTEST_CASES
    // overrides the count for a longer local run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(512),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn finite_transfers_complete_under_impairments(c in cases()) {
        check(&c)?;
    }
}

/// Deterministic companion of the property above, aimed at the handshake:
/// with 40 % loss each way, SYNs, SYN-ACKs and handshake ACKs are lost in
/// most of these runs, and every connection must still get through (a
/// timed-out SYN or SYN-ACK is sent again).
#[test]
fn lost_handshake_segments_are_retransmitted() {
    let mut client_timeouts = 0;
    for seed in 1..=64u64 {
        let s = one_link(
            with(link("server", "client", 2e6, 0.1), json!({"loss": 0.4})),
            vec![ftp(1)],
            json!({"variant": "sack", "max_retransmissions": 30}),
        );
        let s = with(s, json!({"seed": seed}));
        let r = run(&s);
        let f = &r.flows[0];
        assert!(
            r.apps_done && f.client.bytes_delivered == 1,
            "seed {seed}: not completed, state {}\nserver {:?}\nclient {:?}",
            f.state,
            f.server,
            f.client
        );
        // The client sends only a SYN, the request and a FIN: its timeouts
        // show the loss pattern hits the connection's control segments.
        client_timeouts += f.client.timeouts.min(1);
    }
    println!("{client_timeouts} of 64 runs had client timeouts");
    assert!(
        client_timeouts > 10,
        "the loss pattern no longer hits the client's segments"
    );
}
