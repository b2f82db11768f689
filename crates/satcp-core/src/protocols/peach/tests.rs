//! Unit tests of TCP-Peach: Sudden Start's pacing, the wdsn rule, each
//! branch of Rapid Recovery (Fig. 4), the receiver's answer to dummies and
//! the fallback to NewReno. Windows in the comments are in segments of
//! MSS = 1,000 bytes, the paper's Sec. V segment size.

use super::rapid_recovery::RapidRecovery;
use super::*;
use crate::engine::Duration;
use crate::net::packet::{flags, SeqRange, TcpHeader};
use crate::tcp::recovery::LossRecovery;
use crate::tcp::recovery::NewRenoRecovery;
use crate::tcp::recovery::SackRecovery;
use crate::tcp::test_support::{accept, peer_ack};
use crate::tcp::{CcEvent, CongState, RecoveryAck};
use crate::tcp::{TcpConfig, TcpEndpoint, TcpOutput};

const MSS: u64 = 1000;

fn cfg(variant: &str) -> TcpConfig {
    TcpConfig {
        variant: variant.into(),
        mss: MSS as u32,
        rcv_buffer: 64_000,
        delayed_ack: false,
        ..TcpConfig::default()
    }
}

/// A sender's state with `n` full segments outstanding from sequence 1,
/// cwnd = n segments, rwnd 64 segments and one RTT sample of 550 ms.
fn sender(n: u64) -> SendState {
    let c = cfg("peach");
    let ep = TcpEndpoint::new(&c, false, Box::new(Reno::new()), Box::new(NewRenoRecovery));
    let mut s = ep.tx;
    s.rtt_mut().sample(Duration::from_millis(550));
    s.set_rwnd(64 * MSS);
    s.set_snd_una(1);
    s.set_snd_max(1);
    for _ in 0..n {
        s.send_new(MSS, SimTime::ZERO);
    }
    s.set_stream_end(s.snd_max() + 1_000 * MSS);
    s.cwnd = n * MSS;
    s
}

fn segs(bytes: u64) -> f64 {
    bytes as f64 / MSS as f64
}

// ----- Sudden Start (Fig. 2) -----

/// One data segment, then rwnd - 1 = 63 dummies, one every tau = RTT/rwnd
/// = 550/64 ms after it, each a low-priority marked extra segment.
#[test]
fn sudden_start_paces_rwnd_minus_one_dummies_tau_apart() {
    let mut s = sender(0);
    s.cwnd = 2 * MSS; // whatever the initial window was
    let mut ss = SuddenStart::new();
    let t0 = SimTime::from_secs_f64(0.825);
    ss.on_data_sent(&mut s, t0);
    assert_eq!(s.cwnd, MSS, "cwnd = 1");
    let tau = Duration(550_000_000 / 64);
    assert_eq!(SuddenStart::spacing(&s), (tau, 64));
    let mut at = Vec::new();
    while let Some(t) = ss.next_timer() {
        // Firing early does nothing.
        ss.on_timer(&mut s, SimTime(t.0 - 1));
        assert!(s.extra().is_empty());
        ss.on_timer(&mut s, t);
        assert_eq!(s.extra(), vec![dummy()]);
        s.extra_mut().clear();
        at.push(t);
    }
    assert_eq!(at.len(), 63);
    assert_eq!(ss.dummies_sent(), 63);
    for (k, t) in at.iter().enumerate() {
        assert_eq!(*t, t0 + Duration(tau.0 * (k as u64 + 1)), "dummy {k}");
    }
    // The dummies end within one RTT of the data segment.
    assert!(at[62] - t0 < Duration::from_millis(550));
    assert_eq!(dummy().priority, Priority::Low);
    assert_eq!(dummy().ext_flags, PEACH_DUMMY);
    // Later data segments start nothing.
    ss.on_data_sent(&mut s, at[62]);
    assert_eq!(ss.next_timer(), None);
}

#[test]
fn sudden_start_restarts_when_armed_and_stops_when_told() {
    let mut s = sender(0);
    let mut ss = SuddenStart::new();
    ss.on_data_sent(&mut s, SimTime::ZERO);
    assert!(ss.running());
    ss.stop();
    assert_eq!(ss.next_timer(), None);
    ss.arm();
    s.cwnd = 20 * MSS;
    let t = SimTime::from_secs_f64(3.0);
    ss.on_data_sent(&mut s, t);
    assert_eq!(s.cwnd, MSS);
    assert_eq!(ss.next_timer(), Some(t + Duration(550_000_000 / 64)));
}

/// Once everything up to the FIN is acknowledged, the dummies stop.
#[test]
fn sudden_start_stops_after_the_transfer_ends() {
    let mut s = sender(0);
    let mut ss = SuddenStart::new();
    ss.on_data_sent(&mut s, SimTime::ZERO);
    s.set_fin_seq(Some(5_001));
    s.set_snd_una(5_002);
    let t = ss.next_timer().unwrap();
    ss.on_timer(&mut s, t);
    assert!(s.extra().is_empty());
    assert!(!ss.running());
}

// ----- Congestion Avoidance and the wdsn rule (Sec. III-A) -----

fn peach(sack: bool) -> (Peach, PeachRecovery, Shared) {
    let st: Shared = Rc::new(RefCell::new(State::new(sack)));
    // A connection past its Sudden Start.
    st.borrow_mut().sudden.stop();
    let plain: Box<dyn LossRecovery> = if sack {
        Box::new(SackRecovery)
    } else {
        Box::new(NewRenoRecovery)
    };
    (
        Peach::new(st.clone()),
        PeachRecovery::new(st.clone(), sack, plain),
        st,
    )
}

#[test]
fn dummy_acks_open_cwnd_only_once_wdsn_is_spent() {
    let (mut cc, _, st) = peach(false);
    let mut s = sender(10);
    st.borrow_mut().wdsn = 2;
    let now = SimTime::ZERO;
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), now);
    assert_eq!((s.cwnd, st.borrow().wdsn), (10 * MSS, 1));
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), now);
    assert_eq!((s.cwnd, st.borrow().wdsn), (10 * MSS, 0));
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), now);
    assert_eq!((s.cwnd, st.borrow().wdsn), (11 * MSS, 0));
    // Other marks are not TCP-Peach's.
    cc.on_event(&mut s, CcEvent::MarkedAck(0x80), now);
    assert_eq!(s.cwnd, 11 * MSS);
    // rwnd is the most cwnd may reach.
    s.cwnd = 64 * MSS;
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), now);
    assert_eq!(s.cwnd, 64 * MSS);
}

/// Congestion Avoidance is Reno's whatever ssthresh says: no slow start.
#[test]
fn data_acks_grow_cwnd_by_congestion_avoidance() {
    let (mut cc, _, _) = peach(false);
    let mut s = sender(10);
    assert!(s.in_slow_start(), "ssthresh is still the initial 65,535");
    for _ in 0..10 {
        cc.on_ack(&mut s, MSS, SimTime::ZERO);
    }
    assert!((segs(s.cwnd) - 11.0).abs() < 0.05, "cwnd {}", segs(s.cwnd));
}

// ----- Rapid Recovery (Fig. 4), branch by branch -----

/// Fast Retransmit at cwnd0 = 30 as the machinery does it: ssthresh from
/// the congestion module, then the recovery module's `enter`.
fn fast_retransmit(cc: &mut Peach, rec: &mut PeachRecovery, s: &mut SendState) {
    s.set_dupacks(3);
    assert!(rec.loss_detected(s));
    s.ssthresh = cc.ssthresh(s);
    s.set_recover(s.snd_max());
    s.set_state(CongState::Recovery);
    rec.enter(s, true);
}

fn rr(st: &Shared) -> RapidRecovery {
    st.borrow().rr.clone()
}

#[test]
fn rapid_recovery_start_halves_cwnd_and_sets_adsn_and_wdsn() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    assert_eq!(s.cwnd, 15 * MSS, "cwnd = cwnd/2");
    assert_eq!(rr(&st).adsn(), 30, "adsn = 2 cwnd");
    assert_eq!(st.borrow().wdsn, 15, "wdsn = cwnd");
    assert_eq!(rr(&st).infl_seg(), 0);
    assert!(rr(&st).active());
    assert_eq!(cc.trace_phase(), phase::RAPID_RECOVERY);
    // The Fast Retransmit: the first segment goes at once.
    assert!(s.retransmit_now());
    assert_eq!(s.scoreboard().next_lost(), Some(0));
    // No dummies before the first ACK of the episode.
    assert!(s.extra().is_empty());
}

#[test]
fn rapid_recovery_halving_keeps_two_segments() {
    let (mut cc, _, _) = peach(false);
    let s = sender(3);
    assert_eq!(cc.ssthresh(&s), 2 * MSS);
}

/// Sec. IV-A with cwnd0 = 30: each of the first 15 ACKs inflates cwnd and,
/// cwnd <= nackseg, sends two dummies (30 = adsn in all); from the 16th on
/// cwnd > nackseg and data may go instead.
#[test]
fn rapid_recovery_data_acks_inflate_and_send_two_dummies_while_cwnd_le_nackseg() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    s.set_retransmit_now(false);
    s.scoreboard_mut().on_retransmit(0, SimTime::ZERO); // the machinery resent it
    for k in 1..=15u64 {
        rec.on_ack(&mut s, RecoveryAck::Duplicate);
        assert_eq!(s.cwnd, (15 + k) * MSS, "DATA_ACK: cwnd + 1");
        assert_eq!(rr(&st).infl_seg(), k * MSS, "infl_seg + 1");
        assert_eq!(s.extra(), vec![dummy(), dummy()], "ACK {k}: two dummies");
        s.extra_mut().clear();
        assert_eq!(rr(&st).adsn(), 30 - 2 * k);
    }
    // cwnd = 31 > nackseg = 30: data, no dummies (and adsn is spent).
    rec.on_ack(&mut s, RecoveryAck::Duplicate);
    assert_eq!(s.cwnd, 31 * MSS);
    assert!(s.extra().is_empty());
    assert!(s.pipe() + MSS <= s.cwnd, "the machinery may send new data");
}

#[test]
fn rapid_recovery_sends_no_dummies_once_adsn_is_spent() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    let mut spent = rr(&st);
    while spent.adsn() > 0 {
        spent.send(&mut s);
    }
    st.borrow_mut().rr = spent;
    s.extra_mut().clear();
    rec.on_ack(&mut s, RecoveryAck::Duplicate);
    assert_eq!(s.cwnd, 16 * MSS, "cwnd <= nackseg");
    assert!(s.extra().is_empty(), "adsn = 0");
}

/// DUMMY_ACK_ARRIVAL: while wdsn > 0 only wdsn drops; then cwnd and
/// infl_seg grow; either way the send step follows.
#[test]
fn rapid_recovery_dummy_acks_spend_wdsn_then_inflate() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    st.borrow_mut().wdsn = 1;
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), SimTime::ZERO);
    assert_eq!((s.cwnd, st.borrow().wdsn), (15 * MSS, 0));
    assert_eq!(rr(&st).infl_seg(), 0);
    assert_eq!(s.extra().len(), 2, "cwnd <= nackseg: two dummies");
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), SimTime::ZERO);
    assert_eq!(s.cwnd, 16 * MSS);
    assert_eq!(rr(&st).infl_seg(), MSS);
    assert_eq!(s.extra().len(), 4);
}

/// LOST_SEGMENT_ACKED: cwnd = cwnd - infl_seg, back to cwnd0/2, whatever
/// inflated it; the episode is over (adsn = 0).
#[test]
fn rapid_recovery_end_deflates_by_infl_seg() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    for _ in 0..20 {
        rec.on_ack(&mut s, RecoveryAck::Duplicate);
    }
    st.borrow_mut().wdsn = 0;
    cc.on_event(&mut s, CcEvent::MarkedAck(PEACH_DUMMY), SimTime::ZERO);
    assert_eq!(s.cwnd, 36 * MSS);
    rec.exit(&mut s);
    assert_eq!(s.cwnd, 15 * MSS);
    assert!(!rr(&st).active());
    assert_eq!(rr(&st).adsn(), 0);
    assert_eq!(cc.trace_phase(), phase::CONGESTION_AVOIDANCE);
}

/// A partial ACK (a second loss in the window): NewReno's retransmission
/// of the next hole, the inflation of the acknowledged segments taken
/// back, then a DATA_ACK_ARRIVAL.
#[test]
fn rapid_recovery_partial_ack_resends_the_next_hole() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    s.set_retransmit_now(false);
    s.scoreboard_mut().on_retransmit(0, SimTime::ZERO);
    for _ in 0..10 {
        rec.on_ack(&mut s, RecoveryAck::Duplicate);
    }
    assert_eq!(s.cwnd, 25 * MSS);
    // Segments 1-4 acknowledged; segment 5 is the next hole.
    s.scoreboard_mut().ack_to(1 + 4 * MSS, SimTime::ZERO);
    s.set_snd_una(1 + 4 * MSS);
    s.extra_mut().clear();
    rec.on_ack(&mut s, RecoveryAck::Partial { acked: 4 * MSS });
    assert_eq!(s.cwnd, (25 - 4 + 1) * MSS);
    assert_eq!(rr(&st).infl_seg(), 7 * MSS);
    assert!(s.retransmit_now());
    assert_eq!(s.scoreboard().next_lost(), Some(0));
    rec.exit(&mut s);
    assert_eq!(s.cwnd, 15 * MSS);
}

/// `t > tRetr + RTO`: the retransmission timer expires during the episode;
/// Rapid Recovery ends and Sudden Start begins at the next data segment.
#[test]
fn rapid_recovery_timeout_starts_sudden_start() {
    let (mut cc, mut rec, st) = peach(false);
    let mut s = sender(30);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    rec.on_ack(&mut s, RecoveryAck::Duplicate);
    cc.on_timeout(&mut s);
    assert_eq!(s.cwnd, MSS);
    assert!(!rr(&st).active());
    assert_eq!(rr(&st).adsn(), 0);
    assert_eq!(st.borrow().wdsn, 0);
    let t = SimTime::from_secs_f64(10.0);
    cc.on_event(&mut s, CcEvent::DataSent, t);
    assert_eq!(cc.next_timer(), Some(t + Duration(550_000_000 / 64)));
    assert_eq!(cc.trace_phase(), phase::SUDDEN_START);
}

/// With SACK the pipe frees the window that Fig. 4's inflation stands
/// for: data ACKs leave cwnd alone, but still count for the dummy rule, so
/// the episode sends the same 2 x 15 dummies.
#[test]
fn rapid_recovery_with_sack_counts_data_acks_without_inflating() {
    let (mut cc, mut rec, st) = peach(true);
    let mut s = sender(30);
    s.set_sack(true);
    // Segments 2-4 SACKed: three duplicate ACKs.
    s.scoreboard_mut()
        .apply_sack(&[SeqRange::new(1 + MSS, 1 + 4 * MSS)], SimTime::ZERO);
    fast_retransmit(&mut cc, &mut rec, &mut s);
    assert_eq!(s.cwnd, 15 * MSS);
    let mut dummies = 0;
    for k in 0..26u64 {
        s.scoreboard_mut()
            .apply_sack(&[SeqRange::new(1 + MSS, 1 + (5 + k) * MSS)], SimTime::ZERO);
        rec.on_ack(&mut s, RecoveryAck::Duplicate);
        assert_eq!(s.cwnd, 15 * MSS);
        dummies += s.extra().len();
        s.extra_mut().clear();
    }
    assert_eq!(dummies, 30);
    assert_eq!(rr(&st).adsn(), 0);
    rec.exit(&mut s);
    assert_eq!(s.cwnd, 15 * MSS);
}

// ----- The receiver and the machinery -----

/// A client endpoint, established, that has received `n` full segments.
fn receiver(support: bool, delayed_ack: bool, n: u64) -> TcpEndpoint {
    let c = TcpConfig {
        delayed_ack,
        ..cfg("peach")
    };
    let settings = serde_json::json!({ "receiver_support": support });
    let mut ep = crate::protocols::endpoint_with(&c, &settings).unwrap();
    let mut out = TcpOutput::default();
    ep.connect(SimTime::ZERO, &mut out);
    let synack = TcpHeader {
        seq: 0,
        ack: 1,
        flags: flags::SYN | flags::ACK,
        window: 64_000,
        syn_mss: MSS as u32,
        ..Default::default()
    };
    ep.on_segment(&synack, SimTime::from_secs_f64(0.55), &mut out);
    for i in 0..n {
        ep.on_segment(&data(1 + i * MSS, 0), SimTime::from_secs_f64(1.0), &mut out);
    }
    ep
}

fn data(seq: u64, ext_flags: u8) -> TcpHeader {
    let mut h = TcpHeader {
        seq,
        len: MSS as u32,
        ack: 1,
        flags: flags::ACK,
        window: 64_000,
        ..Default::default()
    };
    h.ext.flags = ext_flags;
    h
}

/// A Peach receiver answers a dummy with a marked low-priority ACK and
/// leaves everything else alone: rcv_nxt, the held-back delayed ACK, the
/// duplicate-segment count.
#[test]
fn peach_receiver_answers_a_dummy_with_a_marked_low_priority_ack() {
    let mut ep = receiver(true, true, 1);
    let deadline = ep.next_deadline();
    assert!(deadline.is_some(), "one full segment: the ACK is held back");
    let rcv_nxt = ep.rx.rcv_nxt;
    let acks = ep.stats.pure_acks_sent;
    let mut out = TcpOutput::default();
    let now = SimTime::from_secs_f64(1.01);
    ep.on_segment(&data(1, PEACH_DUMMY), now, &mut out);
    assert_eq!(out.segments.len(), 1);
    let (h, prio) = out.segments[0];
    assert_eq!(prio, Priority::Low);
    assert_eq!(h.ext.flags, PEACH_DUMMY);
    assert_eq!((h.len, h.has(flags::ACK), h.ack), (0, true, 1 + MSS));
    assert!(h.sack().is_empty());
    assert_eq!(ep.rx.rcv_nxt, rcv_nxt);
    assert_eq!(ep.next_deadline(), deadline, "delayed ACK untouched");
    assert_eq!(ep.stats.duplicate_segments_received, 0);
    assert_eq!(ep.stats.marked_acks_sent, 1);
    assert_eq!(ep.stats.pure_acks_sent, acks);
    // A dummy copying data not received yet is not data either.
    ep.on_segment(&data(1 + MSS, PEACH_DUMMY), now, &mut out);
    assert_eq!(ep.rx.rcv_nxt, rcv_nxt);
}

/// Without Peach support the mark means nothing: the dummy is a duplicate
/// segment, answered at once by an ordinary duplicate ACK.
#[test]
fn receiver_without_support_takes_a_dummy_for_a_duplicate() {
    let mut ep = receiver(false, true, 1);
    let mut out = TcpOutput::default();
    ep.on_segment(
        &data(1, PEACH_DUMMY),
        SimTime::from_secs_f64(1.01),
        &mut out,
    );
    assert_eq!(out.segments.len(), 1);
    let (h, prio) = out.segments[0];
    assert_eq!(prio, Priority::High);
    assert_eq!((h.ext.flags, h.len, h.ack), (0, 0, 1 + MSS));
    assert_eq!(ep.stats.duplicate_segments_received, 1);
    assert_eq!(ep.stats.marked_acks_sent, 0);
}

/// A Peach server after the handshake (RTT 550 ms) with `bytes` written.
fn server(variant: &str, bytes: u64) -> (TcpEndpoint, TcpOutput) {
    let c = cfg(variant);
    let mut ep = crate::protocols::endpoint(&c).unwrap();
    ep.listen();
    let mut out = TcpOutput::default();
    accept(
        &mut ep,
        MSS as u32,
        64_000,
        false,
        SimTime::from_secs_f64(0.55),
        &mut out,
    );
    ep.write(bytes, SimTime::from_secs_f64(0.55), &mut out);
    (ep, out)
}

fn ack(n: u64) -> TcpHeader {
    peer_ack(n, 64_000)
}

/// Through the endpoint: one data segment, then 63 dummies paced by the
/// congestion module's timer, copies of that segment.
#[test]
fn endpoint_sends_one_segment_then_paced_dummies() {
    let (mut ep, mut out) = server("peach", 200 * MSS);
    assert_eq!(out.segments.len(), 1);
    assert_eq!((out.segments[0].0.seq, out.segments[0].0.len), (1, 1000));
    out.segments.clear();
    let t0 = SimTime::from_secs_f64(0.55);
    let mut n = 0;
    while let Some(t) = ep
        .next_deadline()
        .filter(|&t| t < t0 + Duration::from_millis(550))
    {
        ep.on_timer(t, &mut out);
        n += 1;
        assert_eq!(t, t0 + Duration(n * 550_000_000 / 64));
        assert_eq!(out.segments.len(), 1);
        let (h, prio) = out.segments.pop().unwrap();
        assert_eq!(
            (h.seq, h.len, h.ext.flags, prio),
            (1, 1000, PEACH_DUMMY, Priority::Low)
        );
    }
    assert_eq!(n, 63);
    assert_eq!(ep.stats.extra_segments_sent, 63);
    assert_eq!(ep.tx.snd_max(), 1 + MSS, "dummies carry no new data");
}

/// Marked ACKs go to the congestion module, never to duplicate-ACK
/// counting; each opens cwnd by one segment and new data follows.
#[test]
fn marked_acks_are_not_duplicate_acks() {
    let (mut ep, mut out) = server("peach", 200 * MSS);
    let mut marked = ack(1);
    marked.ext.flags = PEACH_DUMMY;
    let now = SimTime::from_secs_f64(1.1);
    for k in 1..=5u64 {
        ep.on_segment(&marked, now, &mut out);
        assert_eq!(ep.tx.cwnd, (1 + k) * MSS);
    }
    assert_eq!(ep.tx.dupacks(), 0);
    assert_eq!(ep.stats.dupacks_received, 0);
    assert_eq!(ep.stats.marked_acks_received, 5);
    assert_eq!(ep.stats.fast_retransmits, 0);
    let new_data = out.segments.iter().filter(|(h, _)| h.len > 0).count();
    assert_eq!(new_data, 1 + 5);
}

/// A receiver without Peach support answers the dummies with duplicate
/// ACKs: the sender falls back to NewReno, claims them, and does not take
/// them for a loss.
#[test]
fn unmarked_answers_to_dummies_make_the_sender_fall_back() {
    let (mut ep, mut out) = server("peach", 200 * MSS);
    // Two dummies out.
    for _ in 0..2 {
        let t = ep.next_deadline().unwrap();
        ep.on_timer(t, &mut out);
    }
    let now = SimTime::from_secs_f64(1.1);
    ep.on_segment(&ack(1 + MSS), now, &mut out); // the data segment's ACK
    assert_eq!(ep.cc_phase(), phase::SUDDEN_START);
    for _ in 0..2 {
        ep.on_segment(&ack(1 + MSS), now, &mut out);
    }
    assert_eq!(ep.cc_phase(), phase::FALLBACK);
    assert_eq!(ep.stats.dupacks_claimed, 2);
    assert_eq!(ep.tx.dupacks(), 0);
    // No more dummies; real duplicate ACKs count again (the third starts
    // a NewReno fast retransmit).
    let extra_before = ep.stats.extra_segments_sent;
    for _ in 0..3 {
        ep.on_segment(&ack(1 + MSS), now, &mut out);
    }
    assert_eq!(ep.stats.fast_retransmits, 1);
    assert_eq!(ep.recovery_name(), "peach");
    assert_eq!(ep.stats.extra_segments_sent, extra_before);
    // NewReno's entry: cwnd = ssthresh + 3 segments.
    assert_eq!(ep.tx.cwnd, ep.tx.ssthresh + 3 * MSS);
}
