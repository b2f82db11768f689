//! What a retransmission timeout does to the SACK scoreboard
//! (`tcp.scoreboard_after_timeout`), rule by rule, on a server driven by
//! hand-made ACKs: ten segments of 1,000 bytes out (the whole file), the
//! peer's ACKs written here. Segment k (1-based) is `seg(k)`.

use crate::engine::{Duration, SimTime};
use crate::net::packet::SeqRange;
use crate::protocols::reno::Reno;
use crate::tcp::config::ScoreboardAfterTimeout;
use crate::tcp::recovery::SackRecovery;
use crate::tcp::test_support::{data_seqs, feed_ack as ack, seg, server_with_segments_out, MSS};
use crate::tcp::{EndpointParts, TcpConfig, TcpEndpoint, TcpOutput};

fn ten_out(mode: ScoreboardAfterTimeout) -> TcpEndpoint {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        scoreboard_after_timeout: mode,
        ..TcpConfig::default()
    };
    let parts = EndpointParts::new(Box::new(Reno::new()), Box::new(SackRecovery), true);
    server_with_segments_out(&cfg, parts, 10)
}

/// Runs the retransmission timer out; returns what it sent and when.
fn time_out(srv: &mut TcpEndpoint) -> (Vec<u64>, SimTime) {
    let t = srv.next_deadline().expect("the timer runs");
    let mut out = TcpOutput::default();
    srv.on_timer(t, &mut out);
    (data_seqs(&out), t)
}

fn is_sacked(srv: &TcpEndpoint, r: SeqRange) -> bool {
    srv.tx.scoreboard().iter().any(|s| s.range == r && s.sacked)
}

/// Segments 1 and 2 lost, 3 and 4 SACKed (two duplicate ACKs: no fast
/// retransmission), then the timer runs out.
fn timeout_with_3_4_sacked(mode: ScoreboardAfterTimeout) -> (TcpEndpoint, Vec<u64>, SimTime) {
    let mut srv = ten_out(mode);
    let t = SimTime::from_secs_f64(1.0);
    ack(&mut srv, 1, &[seg(3)], t);
    ack(&mut srv, 1, &[SeqRange::new(seg(3).start, seg(4).end)], t);
    assert!(!srv.tx.in_recovery());
    let (sent, t) = time_out(&mut srv);
    (srv, sent, t)
}

/// RFC 2018 Sec. 8, kept by RFC 6675 Sec. 5.1: after a timeout the sender
/// "MUST ignore prior SACK information in determining which data to
/// retransmit": with `clear`, the segments SACKed before are presumed lost
/// with the rest.
#[test]
fn rfc2018_clear_forgets_the_sack_marks_at_a_timeout() {
    let (srv, sent, _) = timeout_with_3_4_sacked(ScoreboardAfterTimeout::Clear);
    assert_eq!(sent, vec![seg(1).start], "the timeout's retransmission");
    assert!(!is_sacked(&srv, seg(3)) && !is_sacked(&srv, seg(4)));
    assert_eq!(srv.tx.scoreboard().awaiting_retransmission(), 9, "2-10");
}

/// RFC 6675 Sec. 5.1: "If there are segments missing from the receiver's
/// buffer following processing of the retransmitted segment, the
/// corresponding ACK will contain SACK information. In this case, a TCP
/// sender SHOULD use this SACK information when determining what data
/// should be sent in each segment following an RTO." The ACK of the
/// retransmitted 1 SACKs 3-10: 3-10 are marked SACKed again and only 2,
/// reported missing, is resent.
#[test]
fn rfc6675_5_1_sack_blocks_after_a_timeout_are_used() {
    let (mut srv, _, t) = timeout_with_3_4_sacked(ScoreboardAfterTimeout::Clear);
    let sent = ack(
        &mut srv,
        seg(1).end,
        &[SeqRange::new(seg(3).start, seg(10).end)],
        t + Duration::from_millis(500),
    );
    assert_eq!(sent, vec![seg(2).start]);
    assert!((3..=10).all(|k| is_sacked(&srv, seg(k))));
    assert_eq!(srv.tx.scoreboard().awaiting_retransmission(), 0);
    // The ACK of 2 covers everything: nothing else was sent.
    let sent = ack(&mut srv, seg(10).end, &[], t + Duration::from_millis(1000));
    assert!(sent.is_empty());
    assert_eq!(srv.stats.retransmitted_segments, 2);
}

/// The erratum to RFC 6675 Sec. 5.1, Linux's `tcp_timeout_mark_lost`,
/// ns-3: with `keep`, the segments SACKed before the timeout stay SACKed
/// and are not resent, even when the ACKs that follow carry no SACK block
/// for them.
#[test]
fn erratum_keep_leaves_sacked_segments_sacked_across_a_timeout() {
    let (mut srv, sent, t) = timeout_with_3_4_sacked(ScoreboardAfterTimeout::Keep);
    assert_eq!(sent, vec![seg(1).start]);
    assert!(is_sacked(&srv, seg(3)) && is_sacked(&srv, seg(4)));
    assert_eq!(
        srv.tx.scoreboard().awaiting_retransmission(),
        7,
        "2 and 5-10"
    );
    // The ACK of 1 and 2 (3 and 4 were SACKed), no block: slow start
    // resends 5 and 6, never 3 or 4.
    let sent = ack(&mut srv, seg(4).end, &[], t + Duration::from_millis(500));
    assert!(!sent.contains(&seg(3).start) && !sent.contains(&seg(4).start));
    assert_eq!(srv.recovery_counters(), vec![("renegings", 0)]);
}

/// Linux's `tcp_timeout_mark_lost`: "If we detect SACK reneging, forget
/// all SACK information": the first outstanding segment SACKed when the
/// timer runs out means the receiver dropped data it had SACKed (a peer
/// that acknowledged it would have moved the cumulative ACK), so the
/// scoreboard is cleared as with `clear`.
#[test]
fn linux_reneging_at_a_timeout_clears_the_scoreboard() {
    let mut srv = ten_out(ScoreboardAfterTimeout::Keep);
    let t = SimTime::from_secs_f64(1.0);
    ack(&mut srv, 1, &[seg(1)], t);
    ack(&mut srv, 1, &[SeqRange::new(seg(1).start, seg(2).end)], t);
    assert!(is_sacked(&srv, seg(1)));
    let (sent, _) = time_out(&mut srv);
    assert_eq!(sent, vec![seg(1).start], "the reneged segment is resent");
    assert!(!is_sacked(&srv, seg(2)), "every SACK mark forgotten");
    assert_eq!(srv.tx.scoreboard().awaiting_retransmission(), 9);
    assert_eq!(srv.recovery_counters(), vec![("renegings", 1)]);
}

/// Linux's `tcp_check_sack_reneging`: an ACK that moves snd_una onto a
/// segment it had SACKed brings the retransmission timer forward to
/// max(SRTT/2, 10 ms), "to give the receiver a little time to send us
/// some more ACKs"; the timeout then clears the scoreboard.
#[test]
fn linux_an_ack_up_to_a_sacked_segment_brings_the_timer_forward() {
    let mut srv = ten_out(ScoreboardAfterTimeout::Keep);
    let t = SimTime::from_secs_f64(1.0);
    ack(&mut srv, 1, &[seg(3)], t);
    ack(&mut srv, seg(2).end, &[], t);
    let srtt = srv.tx.rtt().srtt().unwrap();
    assert_eq!(srv.next_deadline(), Some(t + Duration(srtt.0 / 2)));
    // The same with `clear`: the ordinary RTO.
    let mut srv = ten_out(ScoreboardAfterTimeout::Clear);
    ack(&mut srv, 1, &[seg(3)], t);
    ack(&mut srv, seg(2).end, &[], t);
    assert_eq!(srv.next_deadline(), Some(t + srv.tx.rtt().rto()));
}
