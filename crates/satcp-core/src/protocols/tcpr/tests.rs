//! TCP-R's rules through an endpoint: the bypass on three DN = 1 duplicate
//! ACKs (no ssthresh or cwnd change, SACK recovery at that cwnd), the
//! fallback to SACK's halving with mixed DN bits or a recent ECE, and the
//! once-per-SRTT limit. MSS = 1,000 bytes; segment k starts at seg(k).

use super::*;
use crate::net::packet::{flags, SeqRange, TcpHeader};
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
/// segments, so that cwnd > ssthresh), handshake RTT 0.5 s.
fn server() -> (TcpEndpoint, TcpOutput) {
    let c = TcpConfig {
        variant: "tcpr".into(),
        mss: MSS as u32,
        rcv_buffer: 64_000,
        delayed_ack: false,
        initial_window: 20,
        initial_ssthresh: 12 * MSS,
        ..TcpConfig::default()
    };
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
fn three_dn_1_duplicate_acks_resend_without_reducing_the_window() {
    let (mut ep, mut out) = server();
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
    for dns in [[true, true, false], [false, true, true], [false; 3]] {
        let (mut ep, mut out) = server();
        for (i, dn) in dns.into_iter().enumerate() {
            ep.on_segment(&dupack(seg(1), i as u64 + 1, dn, false), at(1.0), &mut out);
        }
        assert!(resent(&mut out, seg(1)));
        assert_eq!(ep.stats.fast_retransmits, 1, "{dns:?}");
        // 20 segments plus 2 of limited transmit in flight, halved.
        assert_eq!((ep.tx.ssthresh, ep.tx.cwnd), (11 * MSS, 11 * MSS));
        assert_eq!(counter(&ep, "reorder_retransmits"), 0);
        assert_eq!(counter(&ep, "bypass_refused_dn"), 1);
    }
}

#[test]
fn an_ece_on_the_duplicate_acks_or_within_one_srtt_falls_back_to_halving() {
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

/// The limit, on the modules: a segment resent by the bypass is not
/// resent by it again within one SRTT (the machinery starts no second
/// episode for the same window, RFC 6582, so through an endpoint the
/// limit is a guard).
#[test]
fn a_segment_is_resent_by_the_bypass_at_most_once_per_srtt() {
    let (ep, _) = server();
    let mut s = ep.tx;
    s.rtt_mut().sample(Duration::from_millis(500));
    let mut cc = TcpR::new(TcpRConfig::default());
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
