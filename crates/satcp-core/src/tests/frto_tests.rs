//! F-RTO (RFC 5682, SACK-enhanced, `tcp.frto`) in the connection
//! machinery, on a server driven by hand-made ACKs: ten segments of 1,000
//! bytes out (cwnd 10 segments) and ten more waiting, then the
//! retransmission timer runs out and resends segment 1. Segment k
//! (1-based) is `seg(k)`. The module's steps alone: `recovery/frto.rs`.

use crate::engine::{Duration, SimTime};
use crate::net::packet::SeqRange;
use crate::protocols::reno::Reno;
use crate::tcp::recovery::SackRecovery;
use crate::tcp::test_support::{data_seqs, feed_ack as ack, seg, server_with_segments_out, MSS};
use crate::tcp::{CongState, EndpointParts, TcpConfig, TcpEndpoint, TcpOutput};

/// Ten segments out, `more` segments waiting, F-RTO on.
fn ten_out(more: u64) -> TcpEndpoint {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        frto: true,
        ..TcpConfig::default()
    };
    let parts = EndpointParts::new(Box::new(Reno::new()), Box::new(SackRecovery), true);
    let mut srv = server_with_segments_out(&cfg, parts, 10);
    let mut out = TcpOutput::default();
    srv.write(more * MSS, SimTime::from_secs_f64(0.5), &mut out);
    srv
}

/// The timeout: returns when it fired (segment 1 resent).
fn time_out(srv: &mut TcpEndpoint) -> SimTime {
    let t = srv.next_deadline().expect("the timer runs");
    let mut out = TcpOutput::default();
    srv.on_timer(t, &mut out);
    assert_eq!(data_seqs(&out), vec![seg(1).start]);
    assert_eq!(srv.tx.state(), CongState::Loss);
    t
}

const MS: fn(u64) -> Duration = Duration::from_millis;

/// Step 2b: "if the Cumulative Acknowledgment field does not cover
/// 'recover' but is larger than SND.UNA, transmit up to two new
/// (previously unsent) segments": the ACK of segment 1 sends 11 and 12
/// (slow start's cwnd of two segments), not the retransmissions of 2-3.
#[test]
fn step2b_the_first_advancing_ack_sends_new_data_instead_of_retransmissions() {
    let mut srv = ten_out(10);
    let t = time_out(&mut srv);
    let sent = ack(&mut srv, seg(1).end, &[], t + MS(100));
    assert_eq!(sent, vec![seg(11).start, seg(12).start]);
    assert_eq!(srv.stats.retransmitted_segments, 1);
}

/// Step 3b (RFC 4138 Appendix B, Linux's FLAG_ORIG_SACK_ACKED): the next
/// ACK acknowledges segment 2, sent once before the timeout: the timeout
/// was spurious. Linux's response (`tcp_try_undo_loss`): cwnd and
/// ssthresh back to their values before the timeout, nothing presumed
/// lost, state Open; segments 3-10 are not resent.
#[test]
fn step3b_an_ack_of_data_never_resent_undoes_the_timeout() {
    let mut srv = ten_out(10);
    let (cwnd, ssthresh) = (srv.tx.cwnd, srv.tx.ssthresh);
    let t = time_out(&mut srv);
    ack(&mut srv, seg(1).end, &[], t + MS(100));
    let sent = ack(&mut srv, seg(2).end, &[], t + MS(110));
    assert_eq!(srv.tx.state(), CongState::Open);
    assert_eq!((srv.tx.cwnd, srv.tx.ssthresh), (cwnd, ssthresh));
    assert_eq!(srv.tx.scoreboard().awaiting_retransmission(), 0);
    assert!(sent.iter().all(|&s| s >= seg(13).start), "{sent:?}");
    assert_eq!(srv.stats.undos, 1);
    assert_eq!(srv.recovery_counters(), vec![("frto_spurious_timeouts", 1)]);
    for k in 3..=10 {
        ack(&mut srv, seg(k).end, &[], t + MS(110 + k));
    }
    assert_eq!(srv.stats.retransmitted_segments, 1, "only the timeout's");
}

/// Step 3a: "Take this branch also when the acknowledgment is a duplicate
/// ACK and it does not acknowledge any new, previously unacknowledged data
/// below 'recover' in the SACK blocks": the next ACK SACKs only new
/// segment 11: the originals 2-10 were lost, and the conventional recovery
/// resends them.
#[test]
fn step3a_a_duplicate_ack_sacking_only_new_data_shows_the_loss_real() {
    let mut srv = ten_out(10);
    let t = time_out(&mut srv);
    ack(&mut srv, seg(1).end, &[], t + MS(100));
    let sent = ack(&mut srv, seg(1).end, &[seg(11)], t + MS(110));
    assert_eq!(sent, vec![seg(2).start]);
    assert_eq!(srv.tx.state(), CongState::Loss);
    assert_eq!(srv.stats.undos, 0);
}

/// Step 2a: an ACK covering everything outstanding at the timeout ends
/// F-RTO without a verdict when it covers only resent data (here the one
/// segment outstanding).
#[test]
fn step2a_an_ack_of_everything_resent_ends_frto() {
    let cfg = TcpConfig {
        mss: MSS as u32,
        delayed_ack: false,
        frto: true,
        ..TcpConfig::default()
    };
    let parts = EndpointParts::new(Box::new(Reno::new()), Box::new(SackRecovery), true);
    let mut srv = server_with_segments_out(&cfg, parts, 1);
    let t = time_out(&mut srv);
    ack(&mut srv, seg(1).end, &[], t + MS(100));
    assert_eq!(srv.tx.state(), CongState::Open);
    assert_eq!(srv.stats.undos, 0);
}

/// Linux checks for data sent once before step 2a: an ACK covering
/// everything outstanding at the timeout, 2-10 included (sent once),
/// shows the originals arrived: the timeout is undone.
#[test]
fn an_ack_of_everything_that_covers_original_data_undoes_the_timeout() {
    let mut srv = ten_out(10);
    let cwnd = srv.tx.cwnd;
    let t = time_out(&mut srv);
    ack(&mut srv, seg(10).end, &[], t + MS(100));
    assert_eq!(srv.tx.state(), CongState::Open);
    assert_eq!(srv.stats.undos, 1);
    assert!(srv.tx.cwnd >= cwnd);
}

/// Step 2b: "If the TCP sender is not able to transmit any previously
/// unsent data ... continue with slow-start retransmissions following the
/// conventional RTO recovery algorithm."
#[test]
fn step2b_without_new_data_the_conventional_recovery_goes_on() {
    let mut srv = ten_out(0);
    let t = time_out(&mut srv);
    let sent = ack(&mut srv, seg(1).end, &[], t + MS(100));
    assert_eq!(sent, vec![seg(2).start, seg(3).start]);
}

/// Sec. 3.2 (Linux: `new_recovery || icsk_retransmits`): a timeout that
/// interrupts fast recovery does not run F-RTO: the first advancing ACK
/// resends presumed-lost segments.
#[test]
fn sec3_2_no_frto_after_a_timeout_during_fast_recovery() {
    let mut srv = ten_out(10);
    let t = SimTime::from_secs_f64(1.0);
    for k in 2..=4 {
        ack(&mut srv, 1, &[SeqRange::new(seg(2).start, seg(k).end)], t);
    }
    assert!(srv.tx.in_recovery());
    let t = srv.next_deadline().unwrap();
    let mut out = TcpOutput::default();
    srv.on_timer(t, &mut out);
    let sent = ack(&mut srv, seg(4).end, &[], t + MS(100));
    assert!(sent.contains(&seg(5).start), "{sent:?}");
}
