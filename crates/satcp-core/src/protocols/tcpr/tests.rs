//! TCP-R's rules through an endpoint. `response = "resend"` (default): on
//! three DN = 1 duplicate ACKs the segment is resent at once with no
//! recovery episode, the run's later duplicate ACKs are claimed (no fast
//! retransmission for the same hole), cwnd grows as in the open state, and
//! a segment is resent at most once per SRTT. `response = "recovery"`: the
//! bypass as a SACK recovery episode at an unchanged cwnd. Both: the
//! fallback to SACK's halving with mixed DN bits or a recent ECE. MSS =
//! 1,000 bytes; segment k starts at seg(k).

use super::*;
use crate::net::packet::{flags, SeqRange, TcpHeader};
use crate::protocols::test_support::{settings_error, with_settings};
use crate::tcp::test_support::{accept, peer_ack};
use crate::tcp::{CcEvent, Reply};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

const MSS: u64 = 1000;

fn seg(k: u64) -> u64 {
    1 + (k - 1) * MSS
}

fn at(t: f64) -> SimTime {
    SimTime::from_secs_f64(t)
}

/// A server with 20 segments in flight (initial window 20, ssthresh 12
/// segments, so that cwnd > ssthresh), handshake RTT 0.5 s, TCP-R with
/// `response = "resend"`.
fn server() -> (TcpEndpoint, TcpOutput) {
    server_with(Response::Resend)
}

/// As `server`, with `response = "recovery"`.
fn recovery_server() -> (TcpEndpoint, TcpOutput) {
    server_with(Response::Recovery)
}

fn server_with(response: Response) -> (TcpEndpoint, TcpOutput) {
    let response = match response {
        Response::Resend => "resend",
        Response::Recovery => "recovery",
    };
    let c = with_settings(
        TcpConfig {
            variant: "tcpr".into(),
            mss: MSS as u32,
            rcv_buffer: 64_000,
            delayed_ack: false,
            initial_window: 20,
            initial_ssthresh: 12 * MSS,
            ..TcpConfig::default()
        },
        serde_json::json!({ "response": response }),
    );
    let mut ep = crate::protocols::endpoint(&c).unwrap();
    ep.listen();
    let mut out = TcpOutput::default();
    accept(&mut ep, MSS as u32, 64_000, true, at(0.5), &mut out);
    ep.write(40 * MSS, at(0.5), &mut out);
    assert_eq!(ep.tx.snd_max(), seg(21));
    out.segments.clear();
    (ep, out)
}

/// The n-th duplicate ACK for the segment at `una`: the n segments after
/// it SACKed.
fn dupack(una: u64, n: u64, dn: bool, ece: bool) -> TcpHeader {
    let mut h = peer_ack(una, 64_000);
    h.set_sack(&[SeqRange::new(una + MSS, una + (n + 1) * MSS)]);
    if dn {
        h.ext.flags |= DROP_NEGATIVE;
    }
    if ece {
        h.flags |= flags::ECE;
    }
    h
}

fn resent(out: &mut TcpOutput, seq: u64) -> bool {
    out.segments
        .drain(..)
        .any(|(h, _)| h.len > 0 && h.seq == seq)
}

fn counter(ep: &TcpEndpoint, name: &str) -> u64 {
    ep.cc_counters()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map_or(0, |(_, v)| v)
}

#[test]
fn recovery_three_dn_1_duplicate_acks_start_an_episode_without_reduction() {
    let (mut ep, mut out) = recovery_server();
    let (cwnd, ssthresh) = (ep.tx.cwnd, ep.tx.ssthresh);
    assert_eq!((cwnd, ssthresh), (20 * MSS, 12 * MSS));
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.0), &mut out);
    }
    assert!(resent(&mut out, seg(1)), "segment 1 resent at once");
    assert_eq!((ep.tx.cwnd, ep.tx.ssthresh), (cwnd, ssthresh));
    assert!(ep.tx.in_recovery());
    assert_eq!(ep.stats.fast_retransmits, 0, "not a window-reducing one");
    assert_eq!(counter(&ep, "reorder_retransmits"), 1);
    // SACK recovery at that cwnd: more duplicate ACKs let new data out
    // as the pipe allows, cwnd does not move.
    for n in 4..=6 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.05), &mut out);
    }
    assert_eq!(ep.tx.cwnd, cwnd);
    assert!(out.segments.iter().any(|(h, _)| h.seq >= seg(21)));
    // The recovery point acknowledged: recovery ends, window as before.
    let recover = ep.tx.recover();
    ep.on_segment(&peer_ack(recover, 64_000), at(1.5), &mut out);
    assert!(!ep.tx.in_recovery());
    assert_eq!(ep.tx.ssthresh, ssthresh);
    assert!(ep.tx.cwnd >= cwnd);
}

#[test]
fn mixed_dn_bits_fall_back_to_halving() {
    let cases = [[true, true, false], [false, true, true], [false; 3]];
    for (dns, response) in cases
        .into_iter()
        .flat_map(|d| [(d, Response::Resend), (d, Response::Recovery)])
    {
        let (mut ep, mut out) = server_with(response);
        for (i, dn) in dns.into_iter().enumerate() {
            ep.on_segment(&dupack(seg(1), i as u64 + 1, dn, false), at(1.0), &mut out);
        }
        assert!(resent(&mut out, seg(1)));
        assert_eq!(ep.stats.fast_retransmits, 1, "{dns:?} {response:?}");
        assert!(ep.tx.in_recovery());
        // 20 segments plus 2 of limited transmit in flight, halved.
        assert_eq!((ep.tx.ssthresh, ep.tx.cwnd), (11 * MSS, 11 * MSS));
        assert_eq!(counter(&ep, "reorder_retransmits"), 0);
        assert_eq!(counter(&ep, "bypass_refused_dn"), 1);
    }
}

#[test]
fn an_ece_on_the_duplicate_acks_or_within_one_srtt_falls_back_to_halving() {
    for response in [Response::Resend, Response::Recovery] {
        ece_rules(response);
    }
}

fn ece_rules(response: Response) {
    let server = || server_with(response);
    // ECE on the second duplicate ACK.
    let (mut ep, mut out) = server();
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(1), n, true, n == 2), at(1.0), &mut out);
    }
    assert_eq!(ep.stats.fast_retransmits, 1);
    assert_eq!(ep.tx.ssthresh, 11 * MSS);
    assert_eq!(counter(&ep, "bypass_refused_ece"), 1);
    // ECE on an ACK of new data 0.3 s before (SRTT 0.5 s): too recent.
    // (Without ECN negotiated the machinery does not act on the ECE; the
    // rule looks at the bit.)
    let (mut ep, mut out) = server();
    let mut h = peer_ack(seg(2), 64_000);
    h.flags |= flags::ECE;
    ep.on_segment(&h, at(0.9), &mut out);
    let srtt = ep.tx.rtt().srtt().unwrap().as_secs_f64();
    assert!((srtt - 0.5).abs() < 0.05, "srtt {srtt}");
    let ssthresh = ep.tx.ssthresh;
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(2), n, true, false), at(1.2), &mut out);
    }
    assert_eq!(ep.stats.fast_retransmits, 1);
    assert!(ep.tx.ssthresh < ssthresh);
    // The same ECE more than one SRTT before: the bypass.
    let (mut ep, mut out) = server();
    ep.on_segment(&h, at(0.9), &mut out);
    let (cwnd, ssthresh) = (ep.tx.cwnd, ep.tx.ssthresh);
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(2), n, true, false), at(1.6), &mut out);
    }
    assert_eq!(ep.stats.fast_retransmits, 0);
    assert_eq!((ep.tx.cwnd, ep.tx.ssthresh), (cwnd, ssthresh));
    assert_eq!(counter(&ep, "reorder_retransmits"), 1);
}

/// `recovery`, the limit on the modules: a segment resent by the bypass is
/// not resent by it again within one SRTT (the machinery starts no second
/// episode for the same window, RFC 6582, so through an endpoint the
/// limit is a guard).
#[test]
fn recovery_a_segment_is_resent_by_the_bypass_at_most_once_per_srtt() {
    let (ep, _) = recovery_server();
    let mut s = ep.tx;
    s.rtt_mut().sample(Duration::from_millis(500));
    let mut cc = TcpR::new(TcpRConfig {
        response: Response::Recovery,
        ..TcpRConfig::default()
    });
    let mut decide = |t: f64| {
        cc.st.dn_set = 3;
        cc.st.dn_clear = 0;
        let reply = cc.on_event(&mut s, CcEvent::LossDetected, at(t));
        (reply == Reply::Handled, cc.st.bypasses, cc.st.refused_limit)
    };
    assert_eq!(decide(1.0), (true, 1, 0), "bypass");
    assert_eq!(decide(1.4), (false, 1, 1), "0.4 s later: standard");
    assert_eq!(decide(1.6), (true, 2, 1), "0.6 s after the resend: bypass");
}

// ----- response = "resend" -----

/// Segments among `out`'s that are retransmissions of `seq`.
fn count_resent(out: &TcpOutput, seq: u64) -> usize {
    out.segments
        .iter()
        .filter(|(h, _)| h.len > 0 && h.seq == seq)
        .count()
}

#[test]
fn resend_three_dn_1_duplicate_acks_resend_at_once_without_an_episode() {
    let (mut ep, mut out) = server();
    let (cwnd, ssthresh, recover) = (ep.tx.cwnd, ep.tx.ssthresh, ep.tx.recover());
    for n in 1..=2 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.0), &mut out);
    }
    assert_eq!(count_resent(&out, seg(1)), 0, "not before the third");
    ep.on_segment(&dupack(seg(1), 3, true, false), at(1.0), &mut out);
    assert_eq!(count_resent(&out, seg(1)), 1, "segment 1 resent at once");
    assert!(!ep.tx.in_recovery(), "no recovery episode");
    assert_eq!((ep.tx.cwnd, ep.tx.ssthresh), (cwnd, ssthresh));
    assert_eq!(ep.tx.recover(), recover, "recover not moved");
    assert_eq!(ep.stats.fast_retransmits, 0);
    assert_eq!(counter(&ep, "reorder_retransmits"), 1);
}

#[test]
fn resend_later_duplicate_acks_of_the_run_start_no_fast_retransmission() {
    let (mut ep, mut out) = server();
    let cwnd = ep.tx.cwnd;
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.0), &mut out);
    }
    out.segments.clear();
    // Seven more duplicate ACKs within the SRTT, DN = 1, then one with
    // DN = 0: claimed, no second resend, no episode, no halving; the
    // SACKed segments leave the pipe, so new data goes out.
    for n in 4..=10 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.1), &mut out);
    }
    ep.on_segment(&dupack(seg(1), 11, false, false), at(1.1), &mut out);
    assert_eq!(count_resent(&out, seg(1)), 0);
    assert!(
        out.segments.iter().any(|(h, _)| h.seq >= seg(21)),
        "new data"
    );
    assert!(!ep.tx.in_recovery());
    assert_eq!(ep.stats.fast_retransmits, 0);
    assert_eq!(ep.tx.cwnd, cwnd);
    assert_eq!(ep.stats.dupacks_claimed, 9);
    assert_eq!(counter(&ep, "reorder_retransmits"), 1);
}

#[test]
fn resend_the_window_keeps_growing_as_in_the_open_state() {
    let (mut ep, mut out) = server();
    let (cwnd, ssthresh) = (ep.tx.cwnd, ep.tx.ssthresh);
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.0), &mut out);
    }
    // The late original (or the resend) fills the hole: everything up to
    // segment 4 acknowledged, congestion avoidance grows cwnd (cwnd >
    // ssthresh), ssthresh stays.
    ep.on_segment(&peer_ack(seg(5), 64_000), at(1.3), &mut out);
    assert!(ep.tx.cwnd > cwnd, "{} > {cwnd}", ep.tx.cwnd);
    assert_eq!(ep.tx.ssthresh, ssthresh);
    assert!(!ep.tx.in_recovery());
}

/// The paper's limit, as it states it: a segment is resent at most once
/// per RTT (SRTT 0.5 s here). A duplicate ACK of the same run after that
/// resends it again (the resend may have been lost too).
#[test]
fn resend_a_segment_is_resent_at_most_once_per_srtt() {
    let (mut ep, mut out) = server();
    let srtt = ep.tx.rtt().srtt().unwrap().as_secs_f64();
    assert!((srtt - 0.5).abs() < 0.05, "srtt {srtt}");
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.0), &mut out);
    }
    assert_eq!(count_resent(&out, seg(1)), 1);
    out.segments.clear();
    ep.on_segment(&dupack(seg(1), 4, true, false), at(1.4), &mut out);
    assert_eq!(count_resent(&out, seg(1)), 0, "0.4 s later: not again");
    ep.on_segment(&dupack(seg(1), 5, true, false), at(1.6), &mut out);
    assert_eq!(count_resent(&out, seg(1)), 1, "0.6 s later: again");
    assert_eq!(counter(&ep, "reorder_retransmits"), 2);
    assert_eq!(ep.stats.fast_retransmits, 0);
    assert!(!ep.tx.in_recovery());
}

/// The limit is per segment: once the hole is filled, the next hole's
/// run resends its own segment within the same RTT.
#[test]
fn resend_the_limit_is_per_segment() {
    let (mut ep, mut out) = server();
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(1), n, true, false), at(1.0), &mut out);
    }
    ep.on_segment(&peer_ack(seg(5), 64_000), at(1.1), &mut out);
    out.segments.clear();
    for n in 1..=3 {
        ep.on_segment(&dupack(seg(5), n, true, false), at(1.2), &mut out);
    }
    assert_eq!(count_resent(&out, seg(5)), 1);
    assert_eq!(counter(&ep, "reorder_retransmits"), 2);
    assert_eq!(ep.stats.fast_retransmits, 0);
}

/// RFC 6675's IsLost before the third duplicate ACK (a duplicate ACK that
/// SACKs three segments at once) is the machinery's trigger too: TCP-R
/// answers it the same way.
#[test]
fn resend_answers_the_sack_loss_trigger_too() {
    let (mut ep, mut out) = server();
    ep.on_segment(&dupack(seg(1), 3, true, false), at(1.0), &mut out);
    assert_eq!(count_resent(&out, seg(1)), 1);
    assert!(!ep.tx.in_recovery());
    assert_eq!(ep.stats.fast_retransmits, 0);
}

#[test]
fn the_response_setting() {
    assert_eq!(TcpRConfig::default().response, Response::Resend);
    let bad = settings_error("tcpr", serde_json::json!({"response": "halve"}));
    assert_eq!(bad.as_deref(), Some("tcpr.response"));
    assert_eq!(
        settings_error("tcpr", serde_json::json!({"response": "recovery"})),
        None
    );
}
