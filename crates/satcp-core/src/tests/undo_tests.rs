//! The sender's ACK information during recovery, DSACK-detected spurious
//! retransmissions and the undo of a window reduction, on a server driven
//! by hand-made ACKs: ten segments out, the first one delayed (not lost),
//! three duplicate ACKs SACKing segments 2-4 trigger a fast retransmission;
//! then everything is acknowledged with a DSACK block for segment 1,
//! showing the retransmission was unnecessary.

use crate::engine::SimTime;
use crate::net::packet::SeqRange;
use crate::protocols::reno::Reno;
use crate::tcp::congestion::{CcEvent, CongestionControl, Reply};
use crate::tcp::recovery::SackRecovery;
use crate::tcp::send_state::SendState;
use crate::tcp::test_support::{peer_ack, seg, server_with_segments_out, MSS};
use crate::tcp::{EndpointParts, TcpConfig, TcpEndpoint, TcpOutput};
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default, Debug)]
struct Seen {
    acks: u32,
    acks_in_recovery: u32,
    dsacks: u32,
    newly_sacked: u64,
    newly_acked: u64,
    newly_delivered: u64,
    spurious: Vec<SeqRange>,
    undos: u32,
}

/// Reno that records what reaches its hooks.
struct Recorder {
    reno: Reno,
    seen: Rc<RefCell<Seen>>,
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }
    fn on_ack(&mut self, s: &mut SendState, acked: u64, now: SimTime) {
        self.reno.on_ack(s, acked, now);
    }
    fn ssthresh(&mut self, s: &SendState) -> u64 {
        self.reno.ssthresh(s)
    }
    fn on_timeout(&mut self, s: &mut SendState) {
        self.reno.on_timeout(s);
    }
    fn on_event(&mut self, s: &mut SendState, ev: CcEvent, _now: SimTime) -> Reply {
        let mut seen = self.seen.borrow_mut();
        match ev {
            CcEvent::Ack(ack) => {
                seen.acks += 1;
                seen.acks_in_recovery += s.in_recovery() as u32;
                seen.dsacks += ack.dsack.is_some() as u32;
                seen.newly_sacked += ack.newly_sacked;
                seen.newly_acked += ack.newly_acked;
                seen.newly_delivered += ack.newly_delivered;
            }
            CcEvent::SpuriousRetransmission(r) => seen.spurious.push(r),
            _ => {}
        }
        Reply::Default
    }
    fn undo(&mut self, s: &mut SendState) {
        self.seen.borrow_mut().undos += 1;
        s.cwnd = s.cwnd.max(s.undo_state().prior_cwnd);
        s.ssthresh = s.ssthresh.max(s.undo_state().prior_ssthresh);
    }
}

/// Returns what the hooks saw and the server's (cwnd, ssthresh) at the
/// end, and its cwnd just after the fast retransmission.
fn episode(undo: bool) -> (Seen, (u64, u64), u64, TcpEndpoint) {
    episode_with(undo, false)
}

/// `undo`: the variant's parts ask for the undo; `tcp_undo`: the setting
/// `tcp.undo` does, for every variant.
fn episode_with(undo: bool, tcp_undo: bool) -> (Seen, (u64, u64), u64, TcpEndpoint) {
    let seen = Rc::new(RefCell::new(Seen::default()));
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        dsack: true,
        undo: tcp_undo,
        ..TcpConfig::default()
    };
    let cc = Recorder {
        reno: Reno::new(),
        seen: seen.clone(),
    };
    let mut parts = EndpointParts::new(Box::new(cc), Box::new(SackRecovery), true);
    // As DSACK-R: undo a reduction every retransmission of which was DSACKed.
    parts.undo_on_dsack = undo;
    let mut srv = server_with_segments_out(&cfg, parts, 10);
    let mut out = TcpOutput::default();
    let mut now = SimTime::from_secs_f64(1.0);
    // Segments 2, 3, 4 arrive before segment 1: three duplicate ACKs.
    for k in 2..=4 {
        let mut h = peer_ack(1, 65_535);
        h.set_sack(&[SeqRange::new(seg(2).start, seg(k).end)]);
        srv.on_segment(&h, now, &mut out);
    }
    assert!(srv.tx.in_recovery(), "fast retransmit");
    let rtx: Vec<_> = out.segments.iter().filter(|(h, _)| h.len > 0).collect();
    assert_eq!(rtx[0].0.seq, 1, "segment 1 resent");
    let cwnd_after_fr = srv.tx.cwnd;
    out.segments.clear();
    // Segments 1 and 5-10 arrive; then the retransmission of segment 1,
    // which the receiver reports as a duplicate (RFC 2883).
    now = SimTime::from_secs_f64(1.01);
    srv.on_segment(&peer_ack(seg(10).end, 65_535), now, &mut out);
    let mut h = peer_ack(seg(10).end, 65_535);
    h.set_sack(&[seg(1)]);
    srv.on_segment(&h, now, &mut out);
    let end = (srv.tx.cwnd, srv.tx.ssthresh);
    let s = std::mem::take(&mut *seen.borrow_mut());
    (s, end, cwnd_after_fr, srv)
}

#[test]
fn every_ack_reaches_the_sender_during_recovery_too() {
    let (seen, _, _, _) = episode(false);
    assert_eq!(
        seen.acks,
        1 + 3 + 2,
        "the handshake's ACK, three duplicates, the full ACK, the DSACK"
    );
    // The ACK that ends recovery is seen while recovery is still on.
    assert_eq!(seen.acks_in_recovery, 1, "{seen:?}");
    assert_eq!(seen.newly_sacked, 3 * MSS);
}

/// Each byte is delivered once: segments 2-4 when SACKed, not again when
/// the cumulative ACK passes them (Linux's `acked_sacked`), whereas
/// `newly_acked` and `newly_sacked` both count them.
#[test]
fn a_sacked_segment_is_delivered_once() {
    let (seen, _, _, _) = episode(false);
    assert_eq!(seen.newly_acked, 10 * MSS);
    assert_eq!(seen.newly_acked + seen.newly_sacked, 13 * MSS);
    assert_eq!(
        seen.newly_delivered,
        10 * MSS + 1,
        "ten segments and the SYN"
    );
}

#[test]
fn a_dsack_for_a_retransmission_is_a_spurious_retransmission_event() {
    let (seen, (cwnd, ssthresh), cwnd_after_fr, srv) = episode(false);
    assert_eq!(seen.dsacks, 1);
    assert_eq!(seen.spurious, vec![seg(1)]);
    assert_eq!(srv.stats.dsacks_received, 1);
    assert_eq!(srv.stats.spurious_retransmissions, 1);
    // Plain SACK recovery does not undo: the halved window stays.
    assert_eq!(seen.undos, 0);
    assert_eq!(srv.stats.undos, 0);
    assert_eq!(ssthresh, 5 * MSS);
    assert!(cwnd < 10 * MSS && cwnd_after_fr < 10 * MSS, "{cwnd}");
}

#[test]
fn a_recovery_that_asks_for_it_undoes_the_reduction() {
    let (seen, (cwnd, ssthresh), _, srv) = episode(true);
    assert_eq!(seen.spurious, vec![seg(1)]);
    assert_eq!(seen.undos, 1);
    assert_eq!(srv.stats.undos, 1);
    assert_eq!(ssthresh, 65_535, "ssthresh back to its value before");
    assert!(
        cwnd >= 10 * MSS,
        "cwnd back to at least 10 segments: {cwnd}"
    );
}

#[test]
fn a_dsack_for_an_original_is_not_spurious() {
    // A DSACK for data never retransmitted (a duplicate made by the
    // network) says nothing about our retransmissions.
    let (_, _, _, mut srv) = episode(false);
    let mut out = TcpOutput::default();
    let mut h = peer_ack(seg(10).end, 65_535);
    h.set_sack(&[seg(7)]);
    srv.on_segment(&h, SimTime::from_secs_f64(1.02), &mut out);
    assert_eq!(srv.stats.dsacks_received, 2);
    assert_eq!(srv.stats.spurious_retransmissions, 1);
}

/// `tcp.undo` (the `linux` profile): Linux undoes a reduction every
/// retransmission of which a DSACK shows spurious for every congestion
/// control (`tcp_try_undo_dsack`, `tcp_try_undo_recovery`), so the same
/// episode is undone for plain SACK recovery, whose parts do not ask.
#[test]
fn the_undo_setting_undoes_for_every_variant() {
    let (seen, (cwnd, ssthresh), _, srv) = episode_with(false, true);
    assert_eq!(seen.undos, 1);
    assert_eq!(srv.stats.undos, 1);
    assert_eq!(ssthresh, 65_535);
    assert!(cwnd >= 10 * MSS, "{cwnd}");
}
