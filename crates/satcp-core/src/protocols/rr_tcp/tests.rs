//! RR-TCP's rules: the percentile rule, FA adaptation and its clamps, the
//! machinery's limited transmit below dupthresh, reordering samples and
//! the undo on a hand-driven server, and the -ES sample through it.

use super::*;
use crate::engine::Duration;
use crate::protocols::dsack_r::tests::after_recovery;
use crate::tcp::recovery::SackRecovery;
use crate::tcp::test_support::{accept, peer_ack, seg, MSS};
use crate::tcp::{CcEvent, CongState};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

fn config(name: &str, extra: serde_json::Value) -> RrTcpConfig {
    let s: RrTcpSettings = serde_json::from_value(extra).unwrap();
    s.check(name, 3).unwrap()
}

fn parts(cfg: &RrTcpConfig) -> EndpointParts {
    EndpointParts::new(Box::new(RrTcp::new(cfg)), Box::new(SackRecovery), true).undoing_on_dsack()
}

fn counter(ep: &TcpEndpoint, name: &str) -> u64 {
    ep.cc_counters()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no counter {name}"))
        .1
}

proptest::proptest! {
    /// The quantile is the k-th smallest of the last samples (k = the
    /// fraction FA of them, rounded up), as sorting them gives it.
    #[test]
    fn quantile_is_the_sorted_samples_kth(
        lengths in proptest::collection::vec(0u32..40, 1..120),
        fa in 0.01f64..=1.0,
        capacity in 1usize..50,
    ) {
        let mut r = Reordering::new(fa, capacity, 3, 1000);
        for (i, &l) in lengths.iter().enumerate() {
            r.add_sample(l);
            let mut kept: Vec<u32> = lengths[(i + 1).saturating_sub(capacity)..=i].to_vec();
            kept.sort_unstable();
            let k = ((fa * kept.len() as f64) - 1e-9).ceil().clamp(1.0, kept.len() as f64) as usize;
            proptest::prop_assert_eq!(r.quantile(), Some(kept[k - 1]));
            proptest::prop_assert_eq!(r.dupthresh(), (kept[k - 1] + 1).clamp(3, 1000));
        }
    }
}

#[test]
fn dupthresh_is_one_plus_the_fa_quantile_of_the_lengths() {
    let mut r = Reordering::new(0.9, 100, 3, 1000);
    assert_eq!(r.dupthresh(), 3, "no samples: the base");
    // 90 % of the samples are <= 8: dupthresh 9 (the RR-TCP TR's example).
    for l in [1, 2, 3, 4, 5, 6, 7, 8, 8, 20] {
        r.add_sample(l);
    }
    assert_eq!(r.quantile(), Some(8));
    assert_eq!(r.dupthresh(), 9);
    r.set_fa(0.95);
    assert_eq!(r.dupthresh(), 21, "95 % needs the longest");
    r.set_fa(0.5);
    assert_eq!(r.dupthresh(), 6, "median 5");
    // Short lengths never bring dupthresh below 3.
    let mut r = Reordering::new(0.9, 100, 3, 1000);
    r.add_sample(1);
    assert_eq!(r.dupthresh(), 3);
    // Only the last `samples` count; dupthresh is bounded.
    let mut r = Reordering::new(0.9, 3, 3, 10);
    for l in [50, 2, 2, 2] {
        r.add_sample(l);
    }
    assert_eq!(r.len(), 3);
    assert_eq!(r.dupthresh(), 3, "the 50 aged out");
    r.add_sample(50);
    r.add_sample(50);
    assert_eq!(r.dupthresh(), 10, "clamped to max_dupthresh");
}

fn sender() -> SendState {
    let cfg = TcpConfig {
        mss: MSS as u32,
        ..TcpConfig::default()
    };
    let mut s = TcpEndpoint::new(&cfg, true, Box::new(Reno::new()), Box::new(SackRecovery)).tx;
    s.cwnd = 20 * MSS;
    s.set_snd_una(1);
    s.set_snd_max(1 + 20 * MSS);
    s
}

fn fast_retransmission(cc: &mut RrTcp, s: &mut SendState, k: u64) {
    let mut q = crate::tcp::sent_queue::SentQueue::default();
    q.push_new(seg(k), false, false, SimTime::ZERO);
    q.on_retransmit(0, SimTime::from_secs_f64(1.0));
    s.set_state(CongState::Recovery);
    cc.on_event(
        s,
        CcEvent::Retransmitted(q.get(0)),
        SimTime::from_secs_f64(1.0),
    );
    s.set_state(CongState::Open);
}

#[test]
fn dsack_ta_adapts_fa_by_the_cost_ratios_within_the_clamps() {
    let cfg = config("dsack-ta", serde_json::json!({}));
    assert_eq!(
        (cfg.mode, cfg.es, cfg.fa, cfg.step),
        (Mode::Ta, false, 0.9, 0.01)
    );
    let mut cc = RrTcp::new(&cfg);
    let mut s = sender();
    // A false fast retransmission: FA + step, and a sample.
    fast_retransmission(&mut cc, &mut s, 1);
    cc.on_event(
        &mut s,
        CcEvent::SpuriousRetransmission(seg(1)),
        SimTime::ZERO,
    );
    assert!((cc.fa() - 0.91).abs() < 1e-12, "{}", cc.fa());
    assert_eq!(cc.reordering.len(), 1);
    // A timeout: FA - step * C_TO/C_FFR = step * 2 * RTO/SRTT.
    s.rtt_mut().sample(Duration::from_secs_f64(0.6)); // SRTT 0.6, RTO 1.8 s
    let ratio = 2.0 * s.rtt().rto().as_secs_f64() / 0.6;
    cc.on_timeout(&mut s);
    assert!(
        (cc.fa() - (0.91 - 0.01 * ratio)).abs() < 1e-9,
        "{}",
        cc.fa()
    );
    // A limited-transmit idle spell: 9 dupacks at entry, 6 beyond
    // dupthresh 3, cwnd 20 segments: FA - step * 6 / 10.
    let before = cc.fa();
    s.cwnd = 20 * MSS;
    s.set_dupacks(9);
    cc.ssthresh(&s);
    assert!((cc.fa() - (before - 0.006)).abs() < 1e-9, "{}", cc.fa());
    // Clamps: many timeouts stop at fa_min, many FFRs at fa_max.
    for _ in 0..100 {
        cc.on_timeout(&mut s);
    }
    assert_eq!(cc.fa(), 0.5);
    for k in 0..100 {
        fast_retransmission(&mut cc, &mut s, k + 2);
        cc.on_event(
            &mut s,
            CcEvent::SpuriousRetransmission(seg(k + 2)),
            SimTime::ZERO,
        );
    }
    assert_eq!(cc.fa(), 0.99);
}

#[test]
fn dsack_fa_keeps_fa_fixed() {
    let cfg = config("dsack-fa", serde_json::json!({"fa": 0.8}));
    let mut cc = RrTcp::new(&cfg);
    let mut s = sender();
    fast_retransmission(&mut cc, &mut s, 1);
    cc.on_event(
        &mut s,
        CcEvent::SpuriousRetransmission(seg(1)),
        SimTime::ZERO,
    );
    cc.on_timeout(&mut s);
    assert_eq!(cc.fa(), 0.8);
    assert_eq!(cc.reordering.len(), 1);
}

#[test]
fn shorthands_imply_mode_and_es_and_reject_contradictions() {
    assert!(config("dsack-taes", serde_json::json!({})).es);
    assert_eq!(config("dsack-fa", serde_json::json!({})).mode, Mode::Fa);
    assert_eq!(config("rrtcp", serde_json::json!({})).mode, Mode::Ta);
    let s: RrTcpSettings = serde_json::from_value(serde_json::json!({"mode": "ta"})).unwrap();
    assert!(s.check("dsack-fa", 3).is_err());
    let e = crate::protocols::test_support::settings_error;
    assert_eq!(
        e("dsack-ta", serde_json::json!({"es": true})),
        Some("rrtcp.es".into())
    );
    assert_eq!(
        e("rrtcp", serde_json::json!({"fa_min": 0.9, "fa_max": 0.8})),
        Some("rrtcp.fa_min".into())
    );
}

/// Below dupthresh each duplicate ACK that SACKs a segment releases one
/// new segment, cwnd unchanged: the pipe of RFC 6675 leaves SACKed
/// segments out, so the machinery already does RR-TCP's extended limited
/// transmit for every SACK sender (RFC 3042's two segments when dupthresh
/// is 3).
#[test]
fn extended_limited_transmit_one_new_segment_per_dupack() {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let mut srv = TcpEndpoint::new(&cfg, true, Box::new(Reno::new()), Box::new(SackRecovery));
    srv.listen();
    let mut out = TcpOutput::default();
    let now = SimTime::from_secs_f64(0.5);
    accept(&mut srv, MSS as u32, 65_535, true, now, &mut out);
    srv.tx.cwnd = 10 * MSS;
    srv.tx.ssthresh = 10 * MSS;
    srv.tx.set_dupthresh(9);
    srv.write(30 * MSS, now, &mut out);
    assert_eq!(out.segments.len(), 10);
    out.segments.clear();
    for k in 2..=9 {
        let mut h = peer_ack(1, 65_535);
        h.set_sack(&[SeqRange::new(seg(2).start, seg(k).end)]);
        srv.on_segment(&h, SimTime::from_secs_f64(1.0), &mut out);
        let new: Vec<_> = out.segments.drain(..).filter(|(h, _)| h.len > 0).collect();
        assert_eq!(new.len(), 1, "dupack {}: one new segment", k - 1);
        assert_eq!(new[0].0.seq, seg(10 + k - 1).start);
        assert_eq!(srv.tx.cwnd, 10 * MSS, "cwnd unchanged");
        assert!(!srv.tx.in_recovery());
    }
    // The ninth duplicate ACK reaches dupthresh: fast retransmission.
    let mut h = peer_ack(1, 65_535);
    h.set_sack(&[SeqRange::new(seg(2).start, seg(10).end)]);
    srv.on_segment(&h, SimTime::from_secs_f64(1.0), &mut out);
    assert!(srv.tx.in_recovery());
    assert_eq!(out.segments[0].0.seq, 1);
}

/// Holes filled without retransmission below SACKed data are samples:
/// segments 1 and 4 are late; 4 arrives after 2, 3, 5, 6 (L = 2, the SACK
/// case: 5 and 6 above it), 1 after 2-6 (L = 5, the cumulative case).
#[test]
fn holes_filled_without_retransmission_are_samples() {
    let s: RrTcpSettings = serde_json::from_value(serde_json::json!({})).unwrap();
    let cfg = s.check("dsack-ta", 6).unwrap();
    let tcp = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        dsack: true,
        dupack_threshold: 6,
        ..TcpConfig::default()
    };
    let mut srv = TcpEndpoint::from_parts(&tcp, parts(&cfg));
    srv.listen();
    let mut out = TcpOutput::default();
    let now = SimTime::from_secs_f64(0.5);
    accept(&mut srv, MSS as u32, 65_535, true, now, &mut out);
    srv.tx.cwnd = 10 * MSS;
    srv.write(10 * MSS, now, &mut out);
    let r = |a: u64, b: u64| SeqRange::new(seg(a).start, seg(b).end);
    for blocks in [
        vec![r(2, 2)],
        vec![r(2, 3)],
        vec![r(5, 5), r(2, 3)],
        vec![r(5, 6), r(2, 3)],
    ] {
        let mut h = peer_ack(1, 65_535);
        h.set_sack(&blocks);
        srv.on_segment(&h, SimTime::from_secs_f64(1.0), &mut out);
    }
    assert_eq!(
        counter(&srv, "reordering_samples"),
        0,
        "in-order arrivals above holes"
    );
    let mut h = peer_ack(1, 65_535);
    h.set_sack(&[r(2, 6)]);
    srv.on_segment(&h, SimTime::from_secs_f64(1.0), &mut out);
    assert_eq!(counter(&srv, "reordering_samples"), 1, "segment 4");
    srv.on_segment(
        &peer_ack(seg(6).end, 65_535),
        SimTime::from_secs_f64(1.0),
        &mut out,
    );
    assert_eq!(counter(&srv, "reordering_samples"), 2, "segment 1");
    assert!(!srv.tx.in_recovery());
    // Samples 4 (segment 4's true L is 2, but the block 2-6 joined two
    // runs) and 5: the 0.9-quantile is 5, dupthresh 6.
    assert_eq!(srv.tx.dupthresh(), 6);
    assert_eq!(counter(&srv, "dupthresh_max"), 6);
}

/// On a false fast retransmission: the DSACK-R undo, a sample with the
/// segment's reordering length (3 segments SACKed above it when it
/// arrived), FA + step, dupthresh 4.
#[test]
fn a_false_fast_retransmission_undoes_and_raises_dupthresh() {
    let cfg = config("dsack-ta", serde_json::json!({}));
    let (mut srv, (cwnd_before, _)) = after_recovery(parts(&cfg));
    let cwnd = srv.tx.cwnd;
    let mut h = peer_ack(seg(10).end, 65_535);
    h.set_sack(&[seg(1)]);
    srv.on_segment(&h, SimTime::from_secs_f64(1.11), &mut TcpOutput::default());
    assert_eq!(srv.stats.undos, 1);
    assert_eq!(srv.tx.ssthresh, cwnd_before);
    assert_eq!(srv.tx.cwnd, cwnd);
    assert_eq!(counter(&srv, "false_fast_retransmits"), 1);
    assert_eq!(counter(&srv, "fa_permille"), 910);
    assert_eq!(srv.tx.dupthresh(), 4);
    assert_eq!(counter(&srv, "dupthresh_max"), 4);
}

/// DSACK-TAES: the DSACK of segment 1 pairs its transmissions (t1 = 0.5 s,
/// t2 = 1.0 s) with the ACK covering it (a1 = 1.01 s) and the DSACK
/// (a2 = 1.11 s): one sample (0.51 + 0.11) / 2 = 0.31 s.
#[test]
fn dsack_taes_feeds_the_enhanced_sample_to_the_estimator() {
    let cfg = config("dsack-taes", serde_json::json!({}));
    let (mut srv, _) = after_recovery(parts(&cfg));
    let before = srv.tx.rtt().last_sample();
    let mut h = peer_ack(seg(10).end, 65_535);
    h.set_sack(&[seg(1)]);
    srv.on_segment(&h, SimTime::from_secs_f64(1.11), &mut TcpOutput::default());
    assert_eq!(counter(&srv, "es_samples"), 1);
    let got = srv.tx.rtt().last_sample().unwrap();
    assert_ne!(before, Some(got));
    assert!((got.as_secs_f64() - 0.31).abs() < 1e-6, "{got:?}");
    // DSACK-TA without ES takes no such sample.
    let cfg = config("dsack-ta", serde_json::json!({}));
    let (mut srv, _) = after_recovery(parts(&cfg));
    let before = srv.tx.rtt().last_sample();
    srv.on_segment(&h, SimTime::from_secs_f64(1.11), &mut TcpOutput::default());
    assert_eq!(srv.tx.rtt().last_sample(), before);
}
