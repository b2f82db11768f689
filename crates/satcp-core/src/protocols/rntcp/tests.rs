//! RN-TCP's thresholds through an endpoint: fast retransmit at 3 duplicate
//! ACKs with DN = 0, at 3 + k with DN = 1, at once on a DN = 0 duplicate
//! ACK after 3 or more. MSS = 1,000 bytes; segment k starts at seg(k).

use super::*;
use crate::engine::SimTime;
use crate::net::packet::{SeqRange, TcpHeader};
use crate::protocols::test_support::with_settings;
use crate::tcp::test_support::{accept, peer_ack};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};
use serde_json::json;

const MSS: u64 = 1000;

fn seg(k: u64) -> u64 {
    1 + (k - 1) * MSS
}

fn at(t: f64) -> SimTime {
    SimTime::from_secs_f64(t)
}

/// A server with 20 segments in flight (initial window 20), none acked.
fn server(k: serde_json::Value) -> (TcpEndpoint, TcpOutput) {
    let c = TcpConfig {
        variant: "rntcp".into(),
        mss: MSS as u32,
        rcv_buffer: 64_000,
        delayed_ack: false,
        initial_window: 20,
        ..TcpConfig::default()
    };
    let c = with_settings(c, json!({ "k": k }));
    let mut ep = crate::protocols::endpoint(&c).unwrap();
    ep.listen();
    let mut out = TcpOutput::default();
    accept(&mut ep, MSS as u32, 64_000, true, at(0.5), &mut out);
    ep.write(40 * MSS, at(0.5), &mut out);
    assert_eq!(ep.tx.snd_max(), seg(21));
    (ep, out)
}

/// The n-th duplicate ACK for segment 1: segments 2..=n+1 SACKed.
fn dupack(n: u64, dn: bool) -> TcpHeader {
    let mut h = peer_ack(1, 64_000);
    h.set_sack(&[SeqRange::new(seg(2), seg(n + 2))]);
    if dn {
        h.ext.flags |= DROP_NEGATIVE;
    }
    h
}

/// Sends duplicate ACKs with the given DN bits; returns after how many the
/// fast retransmission came (None: not yet).
fn fast_retransmit_after(ep: &mut TcpEndpoint, out: &mut TcpOutput, dns: &[bool]) -> Option<u64> {
    for (i, &dn) in dns.iter().enumerate() {
        ep.on_segment(&dupack(i as u64 + 1, dn), at(1.0), out);
        if ep.stats.fast_retransmits > 0 {
            let resent = out
                .segments
                .iter()
                .any(|(h, _)| h.len > 0 && h.seq == seg(1));
            assert!(resent, "segment 1 is resent at once");
            return Some(i as u64 + 1);
        }
    }
    None
}

#[test]
fn dn_0_duplicate_acks_retransmit_at_three() {
    let (mut ep, mut out) = server(json!(2));
    assert_eq!(
        fast_retransmit_after(&mut ep, &mut out, &[false; 10]),
        Some(3)
    );
    // 20 segments plus 2 of limited transmit in flight.
    assert_eq!(ep.tx.ssthresh, 11 * MSS, "halved as SACK");
}

#[test]
fn dn_1_duplicate_acks_wait_for_three_plus_k() {
    let (mut ep, mut out) = server(json!(2));
    assert_eq!(
        fast_retransmit_after(&mut ep, &mut out, &[true; 10]),
        Some(5)
    );
    let (mut ep, mut out) = server(json!(5));
    assert_eq!(
        fast_retransmit_after(&mut ep, &mut out, &[true; 10]),
        Some(8)
    );
}

#[test]
fn k_cwnd_is_the_window_in_segments_at_the_first_duplicate_ack() {
    // cwnd = 20 segments: 3 + 20 = 23 duplicate ACKs; only 19 segments
    // can be SACKed above the hole, so the wait outlasts the window and
    // the timeout answers.
    let (mut ep, mut out) = server(json!("cwnd"));
    assert_eq!(fast_retransmit_after(&mut ep, &mut out, &[true; 19]), None);
    assert_eq!(ep.tx.dupthresh(), 23);
}

#[test]
fn a_dn_0_duplicate_ack_after_three_acts_at_once() {
    let (mut ep, mut out) = server(json!(5));
    let dns = [true, true, true, false, true, true];
    assert_eq!(fast_retransmit_after(&mut ep, &mut out, &dns), Some(4));
    // Before 3, a DN = 0 duplicate ACK is counted like the others.
    let (mut ep, mut out) = server(json!(5));
    let dns = [true, false, true, true, true, true, true, true];
    assert_eq!(fast_retransmit_after(&mut ep, &mut out, &dns), Some(8));
    let (mut ep, mut out) = server(json!(5));
    let dns = [true, false, false, true];
    assert_eq!(fast_retransmit_after(&mut ep, &mut out, &dns), Some(3));
}

#[test]
fn a_new_ack_restores_the_standard_threshold() {
    let (mut ep, mut out) = server(json!(2));
    assert_eq!(fast_retransmit_after(&mut ep, &mut out, &[true; 2]), None);
    assert_eq!(ep.tx.dupthresh(), 5);
    ep.on_segment(&peer_ack(seg(2), 64_000), at(1.1), &mut out);
    assert_eq!(ep.tx.dupthresh(), 3);
}

#[test]
fn k_must_be_a_positive_number_or_cwnd() {
    for (k, ok) in [
        (json!(1), true),
        (json!("cwnd"), true),
        (json!(0), false),
        (json!("window"), false),
        (json!(-1), false),
    ] {
        let c = TcpConfig {
            variant: "rntcp".into(),
            ..TcpConfig::default()
        };
        let r = crate::protocols::resolve(&c, &json!({ "k": k }));
        assert_eq!(r.is_ok(), ok, "k = {k}");
        if let Err(e) = r {
            assert!(e.to_string().contains("rntcp"), "{e}");
        }
    }
}

/// A server as `server` but of `variant` ("rntcp" or "rntcp-es"), DSACK on.
fn es_server(variant: &str) -> (TcpEndpoint, TcpOutput) {
    let c = TcpConfig {
        variant: variant.into(),
        mss: MSS as u32,
        rcv_buffer: 64_000,
        delayed_ack: false,
        initial_window: 20,
        dsack: true,
        ..TcpConfig::default()
    };
    let c = with_settings(c, json!({ "k": 1 }));
    let mut ep = crate::protocols::endpoint(&c).unwrap();
    ep.listen();
    let mut out = TcpOutput::default();
    accept(&mut ep, MSS as u32, 64_000, true, at(0.5), &mut out);
    ep.write(40 * MSS, at(0.5), &mut out);
    (ep, out)
}

/// Segment 1 (sent at 0.5 s) is resent at 1.0 s on three DN = 0 duplicate
/// ACKs; an ACK covers it at 1.2 s (a1), its DSACK comes at 1.6 s (a2).
/// RN-TCP-ES feeds ((1.2 - 0.5) + (1.6 - 1.0)) / 2 = 0.65 s to the
/// estimator; RN-TCP (Karn) takes nothing from the DSACK.
#[test]
fn rntcp_es_samples_a_delayed_segment_from_its_ack_and_dsack() {
    for (variant, es) in [("rntcp", false), ("rntcp-es", true)] {
        let (mut ep, mut out) = es_server(variant);
        assert_eq!(
            fast_retransmit_after(&mut ep, &mut out, &[false; 3]),
            Some(3)
        );
        let high = ep.tx.snd_max();
        ep.on_segment(&peer_ack(high, 64_000), at(1.2), &mut out);
        let before = ep.tx.rtt().clone();
        let mut dsack = peer_ack(high, 64_000);
        dsack.set_sack(&[SeqRange::new(seg(1), seg(2))]);
        ep.on_segment(&dsack, at(1.6), &mut out);
        let counters = ep.cc_counters();
        let samples = counters.iter().find(|(n, _)| *n == "es_samples");
        if es {
            assert_eq!(samples, Some(&("es_samples", 1)), "{variant}");
            let mut expected = before.clone();
            expected.sample(crate::engine::Duration::from_secs_f64(0.65));
            assert_eq!(ep.tx.rtt().srtt(), expected.srtt(), "{variant}");
            assert_ne!(ep.tx.rtt().srtt(), before.srtt(), "{variant}");
        } else {
            assert_eq!(samples, None, "{variant}");
            assert_eq!(ep.tx.rtt().srtt(), before.srtt(), "{variant}");
        }
    }
}

#[test]
fn es_needs_dsack_and_agrees_with_the_variant_name() {
    let factory = |variant: &str, dsack: bool, settings: serde_json::Value| {
        let tcp = TcpConfig {
            variant: variant.into(),
            dsack,
            ..TcpConfig::default()
        };
        crate::protocols::resolve(&tcp, &settings)
    };
    assert!(factory("rntcp-es", true, json!({})).is_ok());
    assert!(factory("rntcp", true, json!({"es": true})).is_ok());
    assert!(factory("rntcp-es", true, json!({"es": true})).is_ok());
    for (variant, dsack, settings) in [
        ("rntcp-es", false, json!({})),
        ("rntcp", false, json!({"es": true})),
        ("rntcp-es", true, json!({"es": false})),
    ] {
        let e = factory(variant, dsack, settings.clone())
            .err()
            .unwrap_or_else(|| panic!("{variant} {dsack} {settings} accepted"));
        assert!(e.to_string().contains("rntcp.es"), "{e}");
    }
}
