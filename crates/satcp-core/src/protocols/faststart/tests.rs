//! Unit tests of TCP Fast Start: the cache hand-off at connection start and
//! end, the burst's low priority and pacing, and the fallback to slow start
//! after a loss of burst data (duplicate ACKs, SACK, timeout). Windows in
//! the comments are in segments of MSS = 1,000 bytes.

use super::*;
use crate::engine::Duration;
use crate::net::packet::{SackBlocks, SeqRange, TcpHeader};
use crate::protocols::test_support::with_settings;
use crate::tcp::test_support::{accept, peer_ack};
use crate::tcp::{CcEvent, RecoveryAck};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

const MSS: u64 = 1000;
/// The handshake's RTT in these tests.
const HANDSHAKE: f64 = 0.55;

fn cfg(variant: &str) -> TcpConfig {
    TcpConfig {
        variant: variant.into(),
        mss: MSS as u32,
        rcv_buffer: 64_000,
        delayed_ack: false,
        initial_window: 2,
        ..TcpConfig::default()
    }
}

/// A cache entry of `segments` segments, ssthresh 40 segments, srtt 600 ms.
fn entry(segments: u64, at: f64) -> CachedPath {
    CachedPath {
        cwnd: segments * MSS,
        ssthresh: 40 * MSS,
        srtt: Some(Duration::from_millis(600)),
        stored_at: SimTime::from_secs_f64(at),
    }
}

fn modules(
    c: &TcpConfig,
) -> (
    Box<dyn CongestionControl>,
    Box<dyn crate::tcp::recovery::LossRecovery>,
) {
    let p = crate::protocols::choice(c).unwrap().endpoint();
    (p.cc, p.recovery)
}

/// A fresh sender's state (cwnd = IW = 2, ssthresh 65,535).
fn fresh(c: &TcpConfig) -> SendState {
    let (cc, rec) = modules(c);
    TcpEndpoint::new(c, false, cc, rec).tx
}

// ----- the cache hand-off -----

/// An entry makes the connection start from its cwnd and ssthresh, and
/// plans a burst; its data segments are low priority once it is fixed.
#[test]
fn connection_start_takes_the_cached_cwnd_and_ssthresh() {
    let c = cfg("faststart");
    let (mut cc, _) = modules(&c);
    let mut s = fresh(&c);
    assert_eq!((s.cwnd, s.ssthresh), (2 * MSS, 65_535));
    cc.on_event(
        &mut s,
        CcEvent::ConnectionStart(Some(&entry(30, 1.0))),
        SimTime::from_secs_f64(9.0),
    );
    assert_eq!((s.cwnd, s.ssthresh), (30 * MSS, 40 * MSS));
    assert_eq!(cc.trace_phase(), phase::FAST_START);
}

/// No entry, an entry older than `max_age_s`, or one smaller than the
/// initial window: plain slow start from the settings.
#[test]
fn no_usable_entry_means_plain_slow_start() {
    let c = with_settings(cfg("faststart"), serde_json::json!({"max_age_s": 5.0}));
    let now = SimTime::from_secs_f64(10.0);
    for (cached, cwnd, ssthresh) in [
        (None, 2, 65_535),
        (Some(entry(30, 4.0)), 2, 65_535), // 6 s old
        (Some(entry(1, 9.0)), 2, 40_000),  // cwnd below the IW
    ] {
        let (mut cc, _) = modules(&c);
        let mut s = fresh(&c);
        cc.on_event(&mut s, CcEvent::ConnectionStart(cached.as_ref()), now);
        assert_eq!((s.cwnd, s.ssthresh), (cwnd * MSS, ssthresh), "{cached:?}");
    }
    // Without an entry nothing is low priority or paced.
    let (mut cc, _) = modules(&c);
    let mut s = fresh(&c);
    cc.on_event(&mut s, CcEvent::ConnectionStart(None), now);
    s.set_snd_una(1);
    s.set_snd_max(1 + MSS);
    cc.on_event(&mut s, CcEvent::DataSent, now);
    assert_eq!(cc.data_priority(&s, 1), Priority::High);
    assert_eq!(cc.pacing_rate(&s), None);
    assert_eq!(cc.trace_phase(), phase::NORMAL);
}

/// At the end a Fast Start sender offers its cwnd, ssthresh and srtt; one
/// that sent no data offers nothing, and so does every other variant.
#[test]
fn connection_end_offers_the_final_state() {
    let c = cfg("faststart");
    let (cc, _) = modules(&c);
    let mut s = fresh(&c);
    let now = SimTime::from_secs_f64(3.0);
    assert_eq!(cc.cache_entry(&s, now), None, "no data sent");
    s.set_stream_end(1 + 50 * MSS);
    s.cwnd = 51 * MSS;
    s.rtt_mut().sample(Duration::from_millis(550));
    let e = cc.cache_entry(&s, now).unwrap();
    assert_eq!(
        e,
        CachedPath {
            cwnd: 51 * MSS,
            ssthresh: 65_535,
            srtt: Some(Duration::from_millis(550)),
            stored_at: now,
        }
    );
    for v in ["newreno", "sack", "peach", "adalr-sack"] {
        let (cc, _) = modules(&cfg(v));
        assert_eq!(cc.cache_entry(&s, now), None, "{v}");
    }
}

// ----- through an endpoint -----

/// A server after a handshake of 550 ms that started from `cached`, with
/// `bytes` written. Returns what it sent at the write.
fn server(variant: &str, cached: Option<CachedPath>, bytes: u64) -> (TcpEndpoint, TcpOutput) {
    let c = cfg(variant);
    let (cc, rec) = modules(&c);
    let mut ep = TcpEndpoint::new(&c, variant.ends_with("sack"), cc, rec);
    ep.start_from_cache(cached.as_ref(), SimTime::ZERO);
    ep.listen();
    let mut out = TcpOutput::default();
    accept(&mut ep, MSS as u32, 64_000, true, at(HANDSHAKE), &mut out);
    ep.write(bytes, at(HANDSHAKE), &mut out);
    (ep, out)
}

fn at(t: f64) -> SimTime {
    SimTime::from_secs_f64(t)
}

fn ack(n: u64) -> TcpHeader {
    peer_ack(n, 64_000)
}

fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> TcpHeader {
    let mut h = ack(n);
    let mut b = SackBlocks::default();
    for &(s, e) in blocks {
        b.push(SeqRange::new(s, e));
    }
    h.set_sack(b.as_slice());
    h
}

/// First byte of segment k (k = 1, 2, ...).
fn seg(k: u64) -> u64 {
    1 + (k - 1) * MSS
}

/// Runs the endpoint's timers up to `until`; returns the data segments
/// sent, with their time and priority.
fn drain_timers(
    ep: &mut TcpEndpoint,
    out: &mut TcpOutput,
    until: SimTime,
) -> Vec<(SimTime, u64, Priority)> {
    let mut sent = Vec::new();
    while let Some(t) = ep.next_deadline().filter(|&t| t <= until) {
        ep.on_timer(t, out);
        for (h, p) in out.segments.drain(..) {
            if h.len > 0 {
                sent.push((t, h.seq, p));
            }
        }
    }
    sent
}

/// The burst: the cached 10 segments go at low priority, the first at
/// once and the others paced over the cached srtt of 600 ms (60 ms
/// apart); then the window is full. Data sent on ACKs after that is
/// ordinary, unpaced traffic.
#[test]
fn the_burst_goes_at_low_priority_paced_at_the_cached_rate() {
    let (mut ep, mut out) = server("faststart", Some(entry(10, 0.0)), 30 * MSS);
    assert_eq!(out.segments.len(), 1);
    assert_eq!(
        (out.segments[0].0.seq, out.segments[0].1),
        (1, Priority::Low)
    );
    out.segments.clear();
    let t0 = at(HANDSHAKE);
    let sent = drain_timers(&mut ep, &mut out, at(1.1));
    assert_eq!(sent.len(), 9);
    for (i, &(t, seq, p)) in sent.iter().enumerate() {
        let k = i as u64 + 2;
        assert_eq!((seq, p), (seg(k), Priority::Low));
        let expected = t0 + Duration(60_000_000 * (k - 1));
        assert!(t.0.abs_diff(expected.0) <= k, "segment {k} at {t:?}");
    }
    assert_eq!(ep.tx.snd_max(), seg(11), "the window is full");
    assert_eq!(ep.stats.low_priority_data_segments_sent, 10);
    assert_eq!(ep.cc_phase(), phase::FAST_START);
    // The ACK of two segments: slow start (cwnd 10 < ssthresh 40) opens
    // one segment, so three new segments leave at once, at high priority.
    ep.on_segment(&ack(seg(3)), at(1.2), &mut out);
    let new: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
    assert_eq!(new.len(), 3);
    assert!(new.iter().all(|(_, p)| *p == Priority::High));
    assert_eq!(new[0].0.seq, seg(11));
    // Once the burst is acknowledged the phase is over.
    ep.on_segment(&ack(seg(11)), at(1.3), &mut out);
    assert_eq!(ep.cc_phase(), phase::NORMAL);
    assert_eq!(ep.stats.low_priority_data_segments_sent, 10);
}

/// With `pacing = false` the burst leaves at once, as the window allows.
#[test]
fn unpaced_burst_leaves_back_to_back() {
    let c = with_settings(cfg("faststart"), serde_json::json!({"pacing": false}));
    let (cc, rec) = modules(&c);
    let mut ep = TcpEndpoint::new(&c, false, cc, rec);
    ep.start_from_cache(Some(&entry(10, 0.0)), SimTime::ZERO);
    ep.listen();
    let mut out = TcpOutput::default();
    accept(&mut ep, MSS as u32, 64_000, false, at(HANDSHAKE), &mut out);
    ep.write(30 * MSS, at(HANDSHAKE), &mut out);
    assert_eq!(out.segments.len(), 10);
    assert!(out.segments.iter().all(|(_, p)| *p == Priority::Low));
}

/// Sends the whole 10-segment burst, then the ACK of segment 1 at 1.15 s
/// (slow start: two new high-priority segments, 11 and 12).
fn burst_then_first_ack(variant: &str) -> (TcpEndpoint, TcpOutput) {
    let (mut ep, mut out) = server(variant, Some(entry(10, 0.0)), 30 * MSS);
    drain_timers(&mut ep, &mut out, at(1.1));
    out.segments.clear();
    ep.on_segment(&ack(seg(2)), at(1.15), &mut out);
    assert_eq!(ep.tx.snd_max(), seg(13));
    out.segments.clear();
    (ep, out)
}

/// Segment 2, of the burst, is lost: the third duplicate ACK makes the
/// sender revert to slow start from the initial window (2 segments) with
/// the initial ssthresh, not halve its window; it resends segment 2 at
/// once and presumes the rest of the unacknowledged burst lost. Duplicate
/// ACKs do not inflate cwnd; each partial ACK grows it as slow start and
/// resends the new head if it was not resent yet; the end of the episode
/// leaves cwnd where slow start has brought it.
#[test]
fn burst_loss_reverts_to_slow_start_from_the_initial_window() {
    let (mut ep, mut out) = burst_then_first_ack("faststart");
    let now = at(1.2);
    for _ in 0..3 {
        ep.on_segment(&ack(seg(2)), now, &mut out);
    }
    assert_eq!(ep.stats.fast_retransmits, 1);
    assert_eq!(ep.cc_phase(), phase::FALLBACK);
    assert_eq!(ep.tx.ssthresh, 65_535, "the initial ssthresh, not halved");
    assert_eq!(ep.tx.cwnd, 2 * MSS, "the initial window");
    let data: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
    assert_eq!(data.len(), 1);
    assert_eq!((data[0].0.seq, data[0].1), (seg(2), Priority::High));
    // Segments 3-10 are presumed lost and wait for the window; 11 and 12,
    // sent at high priority after the burst, are not.
    let lost: Vec<u64> = ep
        .tx
        .scoreboard()
        .iter()
        .filter(|s| s.lost && !s.rtx_after_loss)
        .map(|s| s.range.start)
        .collect();
    assert_eq!(lost, (3..=10).map(seg).collect::<Vec<_>>());
    // More duplicate ACKs (11 and 12 arriving): no inflation.
    for _ in 0..2 {
        ep.on_segment(&ack(seg(2)), now, &mut out);
    }
    assert_eq!(ep.tx.cwnd, 2 * MSS);
    assert!(out.segments.iter().all(|(h, _)| h.len == 0));
    // The resent segment 2 arrives; the receiver had 3 too: the head is
    // now 4, presumed lost and not resent yet, so it goes at once.
    ep.on_segment(&ack(seg(4)), at(1.8), &mut out);
    assert_eq!(ep.tx.cwnd, 3 * MSS, "slow start: + min(acked, MSS)");
    let data: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
    assert_eq!(data[0].0.seq, seg(4));
    assert!(data.iter().all(|(_, p)| *p == Priority::High));
    // Everything up to the loss's recovery point (13) acknowledged: the
    // episode ends without cwnd = ssthresh.
    ep.on_segment(&ack(seg(13)), at(2.4), &mut out);
    assert!(!ep.tx.in_recovery());
    assert_eq!(ep.tx.cwnd, 3 * MSS);
    assert_eq!(ep.tx.ssthresh, 65_535);
    // From here on: NewReno, all traffic ordinary.
    let data: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
    assert!(!data.is_empty() && data.iter().all(|(_, p)| *p == Priority::High));
    assert_eq!(ep.stats.low_priority_data_segments_sent, 10);
    ep.on_segment(&ack(ep.tx.snd_una() + MSS), at(2.5), &mut out);
    assert_eq!(ep.tx.cwnd, 4 * MSS);
}

/// With SACK the fallback skips what the receiver reports holding: of the
/// unacknowledged burst only the unSACKed segments are presumed lost.
#[test]
fn sack_fallback_skips_what_the_receiver_holds() {
    let (mut ep, mut out) = burst_then_first_ack("faststart-sack");
    assert!(ep.tx.sack());
    let now = at(1.2);
    // Segments 3-5 and 8 arrived; 2, 6, 7, 9, 10 did not (yet).
    let blocks = [(seg(8), seg(9)), (seg(3), seg(6))];
    for _ in 0..3 {
        ep.on_segment(&sack_ack(seg(2), &blocks), now, &mut out);
    }
    assert_eq!(ep.cc_phase(), phase::FALLBACK);
    assert_eq!((ep.tx.cwnd, ep.tx.ssthresh), (2 * MSS, 65_535));
    let lost: Vec<u64> = ep
        .tx
        .scoreboard()
        .iter()
        .filter(|s| s.lost)
        .map(|s| s.range.start)
        .collect();
    assert_eq!(lost, [2, 6, 7, 9, 10].map(seg));
    let data: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
    assert_eq!(data[0].0.seq, seg(2));
    assert!(data.iter().all(|(_, p)| *p == Priority::High));
}

/// A loss after the burst has been acknowledged is an ordinary one:
/// NewReno's halving and Fast Recovery.
#[test]
fn a_loss_after_the_burst_is_newreno() {
    let (mut ep, mut out) = burst_then_first_ack("faststart");
    ep.on_segment(&ack(seg(11)), at(1.3), &mut out);
    assert_eq!(ep.cc_phase(), phase::NORMAL);
    out.segments.clear();
    let flight = ep.tx.flight_size();
    for _ in 0..3 {
        ep.on_segment(&ack(seg(11)), at(1.4), &mut out);
    }
    assert_eq!(ep.stats.fast_retransmits, 1);
    assert_eq!(ep.tx.ssthresh, flight / 2);
    assert_eq!(ep.tx.cwnd, ep.tx.ssthresh + 3 * MSS);
    assert_eq!(ep.cc_phase(), phase::NORMAL);
}

/// A timeout with burst data outstanding (the whole burst dropped, say):
/// the fallback, from the initial window and ssthresh, everything resent
/// at high priority. A later timeout is Reno's.
#[test]
fn timeout_with_the_burst_outstanding_falls_back() {
    let (mut ep, mut out) = server("faststart", Some(entry(10, 0.0)), 30 * MSS);
    drain_timers(&mut ep, &mut out, at(1.1));
    out.segments.clear();
    let rto = ep.next_deadline().unwrap();
    ep.on_timer(rto, &mut out);
    assert_eq!(ep.stats.timeouts, 1);
    assert_eq!(ep.cc_phase(), phase::FALLBACK);
    assert_eq!((ep.tx.cwnd, ep.tx.ssthresh), (2 * MSS, 65_535));
    let data: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
    // Go-back-N in slow start: the forced retransmission, then one more
    // as the initial window of 2 allows.
    let resent: Vec<_> = data.iter().map(|(h, p)| (h.seq, *p)).collect();
    assert_eq!(resent, [(seg(1), Priority::High), (seg(2), Priority::High)]);
    // The next timeout is an ordinary one.
    let rto = ep.next_deadline().unwrap();
    let flight = ep.tx.flight_size();
    ep.on_timer(rto, &mut out);
    assert_eq!(ep.stats.timeouts, 2);
    assert_eq!((ep.tx.cwnd, ep.tx.ssthresh), (MSS, flight / 2));
    assert!(out.segments.iter().all(|(_, p)| *p == Priority::High));
}

/// Through the module alone: the ssthresh a burst loss asks for, and that
/// the loss-recovery module's Fast Recovery is not used for it.
#[test]
fn modules_decide_the_fallback_by_where_the_loss_is() {
    let c = cfg("faststart");
    let (mut cc, mut rec) = modules(&c);
    let mut s = fresh(&c);
    cc.on_event(
        &mut s,
        CcEvent::ConnectionStart(Some(&entry(10, 0.0))),
        SimTime::ZERO,
    );
    s.set_snd_una(1);
    s.set_snd_max(1);
    for _ in 0..10 {
        s.send_new(MSS, SimTime::ZERO);
        cc.on_event(&mut s, CcEvent::DataSent, SimTime::ZERO);
    }
    assert_eq!(cc.data_priority(&s, seg(10)), Priority::Low);
    assert_eq!(cc.data_priority(&s, seg(11)), Priority::High);
    s.set_dupacks(3);
    assert!(rec.loss_detected(&s));
    s.ssthresh = cc.ssthresh(&s);
    assert_eq!(s.ssthresh, 65_535);
    rec.enter(&mut s, true);
    assert_eq!(s.cwnd, 2 * MSS);
    assert!(s.retransmit_now());
    assert_eq!(s.scoreboard().iter().filter(|x| x.lost).count(), 10);
    assert_eq!(
        cc.data_priority(&s, seg(1)),
        Priority::High,
        "resent: ordinary"
    );
    assert_eq!(cc.pacing_rate(&s), None);
    rec.on_ack(&mut s, RecoveryAck::Duplicate);
    assert_eq!(s.cwnd, 2 * MSS, "no inflation");
    rec.exit(&mut s);
    assert_eq!(s.cwnd, 2 * MSS, "no cwnd = ssthresh");
}
