//! RFC 6675 NextSeg rules (3) and (4) in the connection machinery, on a
//! server driven by hand-made ACKs: ten segments of 1,000 bytes, the whole
//! file, so no new data can follow (rule (2) fails) and cwnd has room once
//! SACKs empty the pipe. Segment k (1-based) is `seg(k)`.

use crate::engine::SimTime;
use crate::net::packet::SeqRange;
use crate::protocols::reno::Reno;
use crate::tcp::recovery::NewRenoRecovery;
use crate::tcp::recovery::SackRecovery;
use crate::tcp::recovery::{LossRecovery, RecoveryAck};
use crate::tcp::send_state::SendState;
use crate::tcp::test_support::{feed_ack, peer_ack, seg, server_with_segments_out, MSS};
use crate::tcp::{EndpointParts, TcpConfig, TcpEndpoint, TcpOutput};

/// SACK recovery that does not pass `nextseg_rules_3_and_4` on (as a
/// wrapper that forgot to would).
struct SackWithoutRules34(SackRecovery);

impl LossRecovery for SackWithoutRules34 {
    fn name(&self) -> &'static str {
        "sack-without-3-4"
    }
    fn loss_detected(&self, s: &SendState) -> bool {
        self.0.loss_detected(s)
    }
    fn enter(&mut self, s: &mut SendState, reduced: bool) {
        self.0.enter(s, reduced)
    }
    fn on_ack(&mut self, s: &mut SendState, ack: RecoveryAck) {
        self.0.on_ack(s, ack)
    }
    fn exit(&mut self, s: &mut SendState) {
        self.0.exit(s)
    }
}

/// A server with ten segments out (cwnd 10 segments, the whole file).
fn ten_out(recovery: Box<dyn LossRecovery>) -> TcpEndpoint {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        ..TcpConfig::default()
    };
    let parts = EndpointParts::new(Box::new(Reno::new()), recovery, true);
    server_with_segments_out(&cfg, parts, 10)
}

/// Feeds the ACK of `ack` with one SACK block; returns the data segments
/// sent in answer (their first sequence numbers).
fn ack(srv: &mut TcpEndpoint, ack: u64, sack: Option<SeqRange>, t: f64) -> Vec<u64> {
    feed_ack(srv, ack, sack.as_slice(), SimTime::from_secs_f64(t))
}

/// Segments 1 and 9 lost. SACKs of 2-4 start recovery (fast retransmission
/// of 1, cwnd = ssthresh = 5 segments), SACKs up to 8 bring pipe to 3
/// segments (1 resent, 9, 10). The SACK of 10 leaves IsLost(9) false (one
/// SACKed segment above it, DupThresh 3), so rule (1) fails, and rule (2)
/// fails (no new data). RFC 6675 Sec. 4 rule (3): "If the conditions for
/// rules (1) and (2) fail, but there exists an unSACKed sequence number
/// 'S3' that meets the criteria for detecting loss given in steps (1.a)
/// and (1.b) above (specifically excluding step (1.c)), then one segment
/// of up to SMSS octets starting with S3 SHOULD be returned": 9 is above
/// HighRxt (the end of 1) and below the highest SACKed octet (the end of
/// 10), so 9 goes at once, and counts twice in pipe (SetPipe (a) and (b)).
fn rule3_episode(recovery: Box<dyn LossRecovery>) -> (TcpEndpoint, Vec<u64>) {
    let mut srv = ten_out(recovery);
    let mut sent = vec![];
    for k in 2..=8 {
        let b = SeqRange::new(seg(2).start, seg(k).end);
        sent.extend(ack(&mut srv, 1, Some(b), 1.0 + k as f64 * 1e-3));
    }
    assert!(srv.tx.in_recovery());
    assert_eq!(sent, vec![seg(1).start], "only the fast retransmission");
    assert_eq!(srv.tx.cwnd, 5 * MSS);
    assert_eq!(srv.tx.pipe(), 3 * MSS);
    // The SACK of 10, as a second block beside 2-8.
    let mut out = TcpOutput::default();
    let mut h = peer_ack(1, 65_535);
    h.set_sack(&[seg(10), SeqRange::new(seg(2).start, seg(8).end)]);
    srv.on_segment(&h, SimTime::from_secs_f64(1.01), &mut out);
    let sent = out
        .segments
        .iter()
        .filter(|(h, _)| h.len > 0)
        .map(|(h, _)| h.seq)
        .collect();
    (srv, sent)
}

#[test]
fn rule3_resends_an_unsacked_segment_below_highsack_not_yet_lost() {
    let (srv, sent) = rule3_episode(Box::new(SackRecovery));
    assert_eq!(sent, vec![seg(9).start]);
    let nine = srv
        .tx
        .scoreboard()
        .iter()
        .find(|s| s.range == seg(9))
        .unwrap();
    assert!(!nine.lost, "IsLost(9) is still false");
    // 1 (resent after loss) once, 9 twice: original and retransmission.
    assert_eq!(srv.tx.pipe(), 3 * MSS);
    assert_eq!(srv.stats.retransmitted_segments, 2);
}

#[test]
fn without_rules_3_and_4_the_hole_waits() {
    let (srv, sent) = rule3_episode(Box::new(SackWithoutRules34(SackRecovery)));
    assert!(sent.is_empty(), "{sent:?}");
    assert_eq!(srv.tx.pipe(), 2 * MSS);
}

#[test]
fn newreno_recovery_does_not_use_rules_3_and_4() {
    assert!(!NewRenoRecovery.rules().nextseg_rules_3_and_4);
    assert!(SackRecovery.rules().nextseg_rules_3_and_4);
}

/// Segments 1 and 10 (the last) lost. SACKs of 2-9: rule (3) has nothing
/// below the highest SACK, and rule (4) must wait: step (4.3) set RescueRxt
/// to the end of the fast retransmission "to prevent ... a premature
/// rescue retransmission", and HighACK has not passed it. The ACK of 1-9
/// does (HighACK = end of 9 - 1 > RescueRxt): rule (4), "one segment of up
/// to SMSS octets that MUST include the highest outstanding unSACKed
/// sequence number SHOULD be returned, and RescueRxt set to RecoveryPoint.
/// HighRxt MUST NOT be updated": 10 goes once; pipe is unchanged (10 is
/// above HighRxt, so SetPipe counts only its original); a further ACK
/// brings no second rescue in the episode.
#[test]
fn rule4_rescues_the_last_segment_once_after_the_first_partial_ack() {
    let mut srv = ten_out(Box::new(SackRecovery));
    let mut sent = vec![];
    for k in 2..=9 {
        let b = SeqRange::new(seg(2).start, seg(k).end);
        sent.extend(ack(&mut srv, 1, Some(b), 1.0 + k as f64 * 1e-3));
    }
    assert_eq!(sent, vec![seg(1).start], "no premature rescue");
    assert_eq!(srv.tx.pipe(), 2 * MSS, "1 resent, 10 in flight");
    let sent = ack(&mut srv, seg(9).end, None, 1.5);
    assert!(
        srv.tx.in_recovery(),
        "a partial ACK: recovery ends at the end of 10"
    );
    assert_eq!(sent, vec![seg(10).start], "the rescue retransmission");
    assert_eq!(srv.tx.pipe(), MSS);
    assert_eq!(srv.stats.retransmitted_segments, 2);
    // The same ACK again (a duplicate): no second rescue.
    let sent = ack(&mut srv, seg(9).end, None, 1.6);
    assert!(sent.is_empty(), "{sent:?}");
    assert_eq!(srv.stats.retransmitted_segments, 2);
}

/// Without a module asking for them, the last segment waits for the
/// retransmission timer.
#[test]
fn without_rule4_the_last_segment_waits() {
    let mut srv = ten_out(Box::new(SackWithoutRules34(SackRecovery)));
    for k in 2..=9 {
        let b = SeqRange::new(seg(2).start, seg(k).end);
        ack(&mut srv, 1, Some(b), 1.0 + k as f64 * 1e-3);
    }
    assert!(ack(&mut srv, seg(9).end, None, 1.5).is_empty());
}
